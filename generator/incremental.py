"""Skip what has not changed: a spec whose inputs hash the same as at the last generation, and
whose files on disk still match the manifest, is not parsed, rendered or formatted again.

The fingerprint covers everything a rendered file depends on: the spec's bytes, every SVG beside it,
the generator's own source and templates, and the formatter versions. Anything else changing
(a new formatter, an edited template) changes the fingerprint and forces a full render.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path
from typing import Dict, Iterable, Optional

from generator.resources import template_dir

PACKAGE = Path(__file__).resolve().parent
FORMATTERS = ("black", "isort", "mblack", "clang-format", "jinja2")
#: the modules whose code shapes rendered text (the judge, checks and CLI do not)
RENDERING = ["render.py", "html.py", "formatting.py", "dtypes.py", "example_check.py", "spec/*.py",
             "languages/*.py"]  # fmt: skip


def _hash_files(digest, files: Iterable[Path], base: Path) -> None:
    for path in sorted(files):
        digest.update(str(path.relative_to(base)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")


@functools.lru_cache(maxsize=1)
def generator_fingerprint() -> str:
    digest = hashlib.sha256()
    _hash_files(digest, {p for pattern in RENDERING for p in PACKAGE.glob(pattern)}, PACKAGE)
    templates = template_dir()
    _hash_files(digest, (p for p in templates.rglob("*") if p.is_file()), templates)
    for name in FORMATTERS:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=missing".encode())
    return digest.hexdigest()[:24]


def spec_fingerprint(path: Path) -> str:
    digest = hashlib.sha256(generator_fingerprint().encode())
    digest.update(path.read_bytes())
    _hash_files(digest, path.parent.glob("*.svg"), path.parent)
    return digest.hexdigest()[:24]


def reusable_files(root: Path, manifest, owner: str, fingerprint: str) -> Optional[Dict[str, str]]:
    """The owner's files as they are on disk, if nothing they depend on changed since."""
    if manifest.inputs.get(owner) != fingerprint:
        return None
    files: Dict[str, str] = {}
    for path, entry in manifest.files.items():
        if entry.get("owner") != owner:
            continue
        try:
            text = (root / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != entry.get("sha256"):
            return None
        files[path] = text
    return files or None
