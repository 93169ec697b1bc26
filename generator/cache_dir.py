"""Where chgen keeps its caches: `$CHGEN_CACHE`, else the user's cache folder.

Never the working directory: a maintainer who runs chgen in their repository's root must not
find a cache folder among their files.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def cache_root() -> Path:
    """`$CHGEN_CACHE` when set, else the platform's user cache folder for chgen
    (`~/.cache/chgen` on Linux)."""
    chosen = os.environ.get("CHGEN_CACHE")
    return Path(chosen) if chosen else Path(platformdirs.user_cache_dir("chgen"))
