"""Skip what has not changed, through a cache that is never committed and cannot go stale.

The cache lives in the user's cache folder (`~/.cache/chgen/generate/`, or
`$CHGEN_CACHE/generate/`: generator/cache_dir.py) and is content-addressed: an entry is found by
the fingerprint of everything a rendered file depends on — the spec's name and bytes, every SVG
beside it, every file of the installed package (modules and
templates) and the formatters' versions. A changed input gives another fingerprint, so an entry can
only ever describe the inputs it was made from. An entry says which files (by hash) those inputs
render to; the files are reused only while the tree on disk still holds exactly those bytes.

The committed manifest holds none of this (see tree.py): a fresh clone generates byte for byte what
was committed, whatever versions or paths the cache saw elsewhere.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Dict, Optional

from generator.cache_dir import cache_root
from generator.resources import package_fingerprint

FORMATTERS = ("black", "isort", "mblack", "clang-format", "jinja2")
#: what the example verification ran on (it runs the reference in torch, float64)
VERIFIERS = ("torch",)
#: what checked a spec's reference_jax against its reference, besides torch
JAX_VERIFIERS = ("jax", "jaxlib")


def verifier_versions(names) -> str:
    found = []
    for name in names:
        try:
            found.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}=missing")
    return ";".join(found)


@functools.lru_cache(maxsize=1)
def generator_fingerprint() -> str:
    """The package's own files and the formatters: what every spec's rendering depends on."""
    digest = hashlib.sha256(package_fingerprint().encode())
    digest.update(verifier_versions(FORMATTERS).encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def spec_fingerprint(path: Path) -> str:
    digest = hashlib.sha256(generator_fingerprint().encode())
    digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for svg in sorted(path.parent.glob("*.svg")):
        digest.update(svg.name.encode() + b"\0" + svg.read_bytes() + b"\0")
    return digest.hexdigest()


def example_key(example_fingerprint: str) -> str:
    """A verified example stays verified only for the same example and the same verifier."""
    digest = hashlib.sha256(example_fingerprint.encode())
    digest.update(verifier_versions(VERIFIERS).encode())
    digest.update(package_fingerprint().encode())
    return digest.hexdigest()


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class GenerateCache:
    """Rendered-file hashes and verified examples, by content fingerprint."""

    def __init__(self, root: Optional[Path] = None):
        base = Path(root) if root else cache_root()
        self.root = base / "generate"

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / f"{key}.json"

    def _read(self, kind: str, key: str) -> Optional[dict]:
        try:
            data = json.loads(self._path(kind, key).read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("key") == key else None

    def _write(self, kind: str, key: str, data: dict) -> None:
        path = self._path(kind, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps({**data, "key": key}, sort_keys=True))
            os.replace(temporary, path)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def rendered(self, fingerprint: str) -> Optional[Dict[str, str]]:
        """{path: sha256} of the files these inputs render to, if they were rendered before."""
        entry = self._read("rendered", fingerprint)
        files = entry.get("files") if entry else None
        return dict(files) if isinstance(files, dict) and files else None

    def remember_rendered(self, fingerprint: str, files: Dict[str, str]) -> None:
        self._write("rendered", fingerprint, {"files": {p: sha256(t) for p, t in files.items()}})

    def example_verified(self, example_fingerprint: str) -> bool:
        return self._read("examples", example_key(example_fingerprint)) is not None

    def remember_example(self, example_fingerprint: str) -> None:
        self._write("examples", example_key(example_fingerprint), {"verified": True})


def files_on_disk(root: Path, hashes: Dict[str, str]) -> Optional[Dict[str, str]]:
    """The files as they are under `root`, if every one still has exactly the recorded hash."""
    files: Dict[str, str] = {}
    for path, digest in hashes.items():
        try:
            text = (root / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if sha256(text) != digest:
            return None
        files[path] = text
    return files


class NoCache(GenerateCache):
    """Remembers nothing and finds nothing: every spec is verified, rendered and formatted."""

    def _read(self, kind: str, key: str) -> Optional[dict]:
        return None

    def _write(self, kind: str, key: str, data: dict) -> None:
        return None
