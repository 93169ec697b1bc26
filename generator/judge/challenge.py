"""Import a LeetGPU-layout challenge.py, ours or the public set's, inside the worker process.

challenge.py does `from core.challenge_base import ChallengeBase`, so the tree's `challenges/`
folder goes on sys.path. Another tree's `core` may already be imported (tests load several trees in
one process), so every `core` module is purged first; the parent process never does any of this.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from typing import Any

_counter = itertools.count()


class ChallengeError(Exception):
    """The directory is not a loadable challenge."""


def tree_root(challenge_dir: Path) -> Path:
    """The `challenges/` folder above a challenge: the nearest ancestor holding core/."""
    for parent in challenge_dir.resolve().parents:
        if (parent / "core" / "challenge_base.py").is_file():
            return parent
    raise ChallengeError(f"{challenge_dir}: no core/challenge_base.py in any parent folder")


def load_challenge(challenge_dir: Path, device: str) -> Any:
    """An instance of the directory's `Challenge` class, created for `device`."""
    path = challenge_dir / "challenge.py"
    if not path.is_file():
        raise ChallengeError(f"{challenge_dir}: no challenge.py")
    root = str(tree_root(challenge_dir))
    for name in [m for m in sys.modules if m == "core" or m.startswith("core.")]:
        del sys.modules[name]
    if root in sys.path:
        sys.path.remove(root)
    sys.path.insert(0, root)
    module_name = f"chgen_challenge_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ChallengeError(f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
    cls = getattr(module, "Challenge", None)
    if cls is None:
        raise ChallengeError(f"{path}: defines no class Challenge")
    return cls(device=device)
