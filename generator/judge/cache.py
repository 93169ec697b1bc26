"""Content-addressed cache for builds and runs in the user's cache folder (or $CHGEN_CACHE).

A build is keyed by the source's sha256, the language, the target architecture, the toolchain's
version and chgen itself (every file of the installed package); a run by every field of its job
(files and folders by content), the artifact's sha256, the device (GPU name and driver), the
package versions, the modes, and chgen itself. Change any of these and the entry is simply not
found. Nothing is hand-listed: a new job field or a new module is in the key without an edit here.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, Optional

from generator.cache_dir import cache_root

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # generator/


def file_sha(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def key_of(payload: Dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def content_sha(path: Path) -> Optional[str]:
    """sha256 of a file, or of a folder's files (names and contents); None when it is missing."""
    if path.is_file():
        return file_sha(path)
    if not path.is_dir():
        return None
    digest = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        relative = item.relative_to(path)
        if item.is_file() and "__pycache__" not in relative.parts:
            digest.update(f"{relative.as_posix()}\0{content_sha(item)}\0".encode())
    return digest.hexdigest()


def value_fingerprint(value: Any) -> Any:
    """A JSON-able stand-in for one field's value: paths by name and content."""
    if isinstance(value, Path):
        return {"path": str(value), "content": content_sha(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return fields_fingerprint(value)
    if isinstance(value, dict):
        return {str(k): value_fingerprint(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [value_fingerprint(v) for v in value]
    return value


def fields_fingerprint(instance: Any) -> Dict[str, Any]:
    """Every field of a dataclass (e.g. a judge Job), so that a cache key cannot miss one; but
    a field marked `fingerprint: False` (how the run is spread, not what is judged)."""
    return {
        f.name: value_fingerprint(getattr(instance, f.name))
        for f in dataclasses.fields(instance)
        if f.metadata.get("fingerprint", True)
    }


class Cache:
    def __init__(self, root: Optional[Path] = None, reuse: bool = True):
        """`reuse=False` ignores stored runs (a forced re-run) but still stores new ones; builds
        are deterministic and always reused."""
        # Absolute: compilers run with the build folder as their working directory.
        self.root = (Path(root) if root else cache_root()).resolve()
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

    def _secret(self) -> bytes:
        """The key that signs run entries (mode 0600): an entry written by anyone else, e.g. a
        solution that found the cache, does not verify and is ignored."""
        path = self.root / "secret"
        if not path.is_file():
            self.root.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(os.urandom(32))
            except FileExistsError:
                pass
        return path.read_bytes()

    def _mac(self, key: str, body: str) -> str:
        return hmac.new(self._secret(), f"{key}\0{body}".encode(), hashlib.sha256).hexdigest()

    def sign(self, key: str, body: str) -> str:
        """The signature of `body` under `key` (the run journal's lines are signed so too)."""
        return self._mac(key, body)

    def verify(self, key: str, body: str, mac: str) -> bool:
        return hmac.compare_digest(str(mac), self._mac(key, body))

    def read_run(self, key: str) -> Optional[Dict[str, Any]]:
        path = self.run_path(key)
        if not self.reuse or not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text())
            body, mac = entry["result"], entry["mac"]
            if not hmac.compare_digest(mac, self._mac(key, body)):
                return None
            return json.loads(body)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write_run(self, key: str, result: Dict[str, Any]) -> None:
        """Only the parent writes here, from the result it read over the worker's pipe."""
        path = self.run_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.{threading.get_ident()}.tmp")
        body = json.dumps(result, default=str)
        tmp.write_text(json.dumps({"result": body, "mac": self._mac(key, body)}))
        os.replace(tmp, path)
