"""Import a LeetGPU-layout challenge.py, whatever tree it lives in.

challenge.py does `from core.challenge_base import ChallengeBase`. Several trees (ours, a clone of
the public set, a test fixture) may be loaded in one process, each with its own `core`, so the base
class is installed explicitly from the given file under the name `core.challenge_base` for the
duration of the import, and whatever `core` was imported before is put back afterwards. The file is
first read statically (generator/challenge/pyfile.py), so one that does not parse or defines no
Challenge is refused with its position before any of it runs. The judge,
`chgen check --deep`, `chgen import` and the tests all load challenges through here.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import types
from pathlib import Path
from typing import Any, Dict, Optional

from generator.challenge.pyfile import CLASS_NAME, read_challenge_py

_counter = itertools.count()
CORE_NAMES = ("core", "core.challenge_base")


class ChallengeLoadError(Exception):
    """challenge.py could not be imported; `original` is the exception its code raised, if any."""

    def __init__(self, message: str, original: Optional[BaseException] = None):
        super().__init__(message)
        self.original = original


def find_base(challenge_dir: Path) -> Path:
    """The tree's core/challenge_base.py: in the nearest ancestor folder that holds one."""
    for parent in challenge_dir.resolve().parents:
        candidate = parent / "core" / "challenge_base.py"
        if candidate.is_file():
            return candidate
    raise ChallengeLoadError(f"{challenge_dir}: no core/challenge_base.py in any parent folder")


def _install_core(base_file: Path) -> Dict[str, Any]:
    saved = {name: sys.modules.get(name) for name in CORE_NAMES}
    package = types.ModuleType("core")
    package.__path__ = [str(base_file.parent)]
    spec = importlib.util.spec_from_file_location("core.challenge_base", base_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules["core"] = package
    sys.modules["core.challenge_base"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        _restore(saved)
        raise
    package.challenge_base = module
    return saved


def _restore(saved: Dict[str, Any]) -> None:
    for name, module in saved.items():
        if module is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = module


def _read_statically(challenge_py: Path) -> None:
    """Refuse, before running any of it, a file that does not parse or defines no Challenge:
    the one reader says where (file:line:column) instead of an import traceback."""
    try:
        text = challenge_py.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ChallengeLoadError(f"{challenge_py}: {exc}") from None
    read = read_challenge_py(text, str(challenge_py))
    error = read.syntax_error
    if error is not None:
        where = f"{challenge_py}:{error.lineno or 1}:{error.offset or 1}"
        raise ChallengeLoadError(f"{where}: syntax error: {error.msg}", error)
    if read.cls is None:
        raise ChallengeLoadError(f"{challenge_py}: defines no class {CLASS_NAME}")


def load_challenge_class(challenge_py: Path, base_file: Optional[Path] = None) -> type:
    """The `Challenge` class of `challenge_py`, imported against `base_file` (default: the
    tree's own base class)."""
    if not challenge_py.is_file():
        raise ChallengeLoadError(f"{challenge_py}: no such file")
    _read_statically(challenge_py)
    base_file = base_file or find_base(challenge_py.parent)
    name = f"_chgen_challenge_{next(_counter)}"
    try:
        saved = _install_core(base_file)
    except Exception as exc:
        raise ChallengeLoadError(f"{base_file}: {type(exc).__name__}: {exc}", exc) from None
    try:
        spec = importlib.util.spec_from_file_location(name, challenge_py)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the challenge's own code: report, never crash the caller
            raise ChallengeLoadError(
                f"importing {challenge_py.name} failed: {type(exc).__name__}: {exc}", exc
            ) from None
        finally:
            sys.modules.pop(name, None)
    finally:
        _restore(saved)
    cls = getattr(module, "Challenge", None)
    if cls is None:
        raise ChallengeLoadError(f"{challenge_py}: defines no class Challenge")
    return cls
