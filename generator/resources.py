"""Where chgen's templates live once installed, and the fingerprint of the whole package.

The top-level `templates/` folder ships in the wheel as the package-data package
`generator.templates` (pyproject maps it), so a wheel install and an editable checkout find them
the same way: through the import system, never by walking up from a module's file.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from pathlib import Path
from typing import List, Sequence, Tuple

TEMPLATE_PACKAGE = "generator.templates"


@functools.lru_cache(maxsize=1)
def template_dir() -> Path:
    """The folder holding challenge.py.j2, starter/, core/ and preview/."""
    spec = importlib.util.find_spec(TEMPLATE_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        if (Path(location) / "challenge.py.j2").is_file():
            return Path(location)
    raise RuntimeError(
        f"chgen's templates ({TEMPLATE_PACKAGE}) are not installed: install chgen "
        "(in a checkout: pip install --no-deps -e .)"
    )


PACKAGE_DIR = Path(__file__).resolve().parent


def package_roots() -> Tuple[Tuple[str, Path], ...]:
    """The installed package as (label, folder) pairs: its modules and its templates."""
    return (("generator", PACKAGE_DIR), ("templates", template_dir()))


def package_files(roots: Sequence[Tuple[str, Path]]) -> List[Tuple[str, Path]]:
    """Every file under `roots` as (label/relative path, path), sorted; bytecode skipped."""
    found = {}
    for label, folder in roots:
        for path in folder.rglob("*"):
            relative = path.relative_to(folder)
            if path.is_file() and "__pycache__" not in relative.parts and path.suffix != ".pyc":
                found[f"{label}/{relative.as_posix()}"] = path
    return sorted(found.items())


def files_fingerprint(roots: Sequence[Tuple[str, Path]]) -> str:
    """sha256 over the names and bytes of every file under `roots`."""
    digest = hashlib.sha256()
    for name, path in package_files(roots):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def package_fingerprint() -> str:
    """What every cache of chgen's results keys on: any file of the package changing (a module,
    a template) changes it, so no hand-kept list of "files that matter" can miss one."""
    return files_fingerprint(package_roots())
