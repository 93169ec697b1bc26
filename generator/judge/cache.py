"""Content-addressed cache for builds and runs under .chgen-cache/ (or $CHGEN_CACHE).

A build is keyed by the source's sha256, the language, the target architecture, the toolchain's
version and the build recipe (the adapter's own source); a run by the artifact's sha256, the
challenge files, the device (GPU name and driver), the package versions, the seed, the modes and
options, and the judge's own source. Change any of these and the entry is simply not found.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, Iterable, Optional

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # generator/


def file_sha(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def key_of(payload: Dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


@functools.lru_cache(maxsize=None)
def sources_sha(relative: Iterable[str]) -> str:
    """sha256 over source files of this package (e.g. the judge itself), by relative glob."""
    digest = hashlib.sha256()
    for pattern in relative:
        for path in sorted(PACKAGE_ROOT.glob(pattern)):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def judge_sha() -> str:
    return sources_sha(("judge/*.py", "languages/*.py", "dtypes.py"))


class Cache:
    def __init__(self, root: Optional[Path] = None, reuse: bool = True):
        """`reuse=False` ignores stored runs (a forced re-run) but still stores new ones; builds
        are deterministic and always reused."""
        # Absolute: compilers run with the build folder as their working directory.
        self.root = Path(root or os.environ.get("CHGEN_CACHE") or ".chgen-cache").resolve()
        self.reuse = reuse
        self._locks: Dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    # ------------------------------------------------------------------ builds
    def build_dir(self, key: str) -> Path:
        return self.root / "build" / key[:2] / key

    def read_build(self, key: str) -> Optional[Dict[str, Any]]:
        path = self.build_dir(key) / "build.json"
        if not path.is_file():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def new_build_dir(self) -> Path:
        (self.root / "tmp").mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="build-", dir=self.root / "tmp"))

    def commit_build(self, key: str, workdir: Path, record: Dict[str, Any]) -> Path:
        """Move a finished build in place (atomic rename); a concurrent twin is kept instead."""
        (workdir / "build.json").write_text(json.dumps(record, indent=1))
        final = self.build_dir(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(workdir, final)
        except OSError:
            shutil.rmtree(workdir, ignore_errors=True)
        return final

    # ------------------------------------------------------------------ runs
    def run_path(self, key: str) -> Path:
        return self.root / "run" / key[:2] / f"{key}.json"

    def read_run(self, key: str) -> Optional[Dict[str, Any]]:
        path = self.run_path(key)
        if not self.reuse or not path.is_file():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def write_run(self, key: str, result: Dict[str, Any]) -> None:
        path = self.run_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(result, default=str))
        os.replace(tmp, path)
