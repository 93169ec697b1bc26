"""Where chgen's templates live once installed.

The top-level `templates/` folder ships in the wheel as the package-data package
`generator.templates` (pyproject maps it), so a wheel install and an editable checkout find them
the same way: through the import system, never by walking up from a module's file.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

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
        f"chgen's templates ({TEMPLATE_PACKAGE}) are not installed: reinstall chgen"
    )
