"""Write or verify a generated tree: all or nothing, and never over a hand edit.

The new tree is assembled in a sibling temporary directory and swapped in with two renames; an
interrupted run leaves either the old tree or the new one (a leftover `.old` copy is restored on
the next run). A manifest of content hashes records which spec owns which file, so a generated
file edited by hand is detected and kept unless the caller forces it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

MANIFEST = ".chgen-manifest.json"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Manifest:
    """Which owner (spec, or the shared base class) wrote which file, with its hash.

    Everything here is a pure function of the specs and the generator: no input fingerprints, no
    record of verification (those are caches, kept in `.chgen-cache/`, see incremental.py), so a
    fresh clone regenerates this file byte for byte."""

    files: Dict[str, Dict[str, str]] = field(default_factory=dict)  # path -> {sha256, owner}

    @classmethod
    def read(cls, root: Path) -> "Manifest":
        path = root / MANIFEST
        if not path.is_file():
            return cls()
        try:
            return cls(dict(json.loads(path.read_text()).get("files", {})))
        except (ValueError, AttributeError):
            return cls()

    def render(self) -> str:
        data = {"generator": "chgen", "files": dict(sorted(self.files.items()))}
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def owned_by(self, owners: set) -> Dict[str, str]:
        return {p: e["sha256"] for p, e in self.files.items() if e.get("owner") in owners}


@dataclass
class Output:
    """What one run wants the tree to contain for the owners it renders."""

    files: Dict[str, str]  # path -> text
    owners: Dict[str, str]  # path -> owner


@dataclass
class Change:
    path: str
    kind: str  # added / changed / removed
    diff: str = ""


@dataclass
class Plan:
    """How the tree on disk differs from an Output: changes, the manifest to write, hand edits."""

    changes: List[Change]
    manifest_text: str
    edited: List[str]


class TreeConflict(Exception):
    """Generated files were edited by hand; nothing was written."""

    def __init__(self, paths: List[str]):
        self.paths = paths
        super().__init__(
            f"{len(paths)} generated file(s) were edited by hand: {', '.join(paths[:5])}"
            + (" ..." if len(paths) > 5 else "")
        )


def recover(root: Path) -> None:
    """Finish or undo a swap that an earlier run could not complete."""
    for leftover in root.parent.glob(f".{root.name}.old-*"):
        if not root.exists():
            leftover.rename(root)
        else:
            shutil.rmtree(leftover, ignore_errors=True)
    for leftover in root.parent.glob(f".{root.name}.new-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def plan(root: Path, output: Output) -> Plan:
    """Compare the tree on disk with `output`: the changes, the new manifest, hand-edited paths."""
    manifest = Manifest.read(root)
    owners = set(output.owners.values())
    previous = manifest.owned_by(owners)
    changes: List[Change] = []
    edited: List[str] = []
    for path, text in sorted(output.files.items()):
        current = _read(root / path)
        recorded = manifest.files.get(path, {}).get("sha256")
        if current is not None and (recorded is None or sha256(current) != recorded):
            if current != text:
                edited.append(path)
        if current is None:
            changes.append(Change(path, "added", _diff(path, "", text)))
        elif current != text:
            changes.append(Change(path, "changed", _diff(path, current, text)))
    for path in sorted(set(previous) - set(output.files)):
        current = _read(root / path)
        if current is None:
            continue
        if sha256(current) != previous[path]:
            edited.append(path)
        changes.append(Change(path, "removed", _diff(path, current, "")))
    new_manifest = Manifest(
        {p: e for p, e in manifest.files.items() if e.get("owner") not in owners}
    )
    for path, text in output.files.items():
        new_manifest.files[path] = {"sha256": sha256(text), "owner": output.owners[path]}
    manifest_text = new_manifest.render()
    current_text = _read(root / MANIFEST)
    if current_text is None:
        changes.append(Change(MANIFEST, "added"))
    elif current_text != manifest_text:
        changes.append(Change(MANIFEST, "changed", _diff(MANIFEST, current_text, manifest_text)))
    return Plan(changes, manifest_text, sorted(set(edited)))


def _diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def write(root: Path, output: Output, force: bool = False) -> List[Change]:
    """Make the tree match `output`, atomically. Raises TreeConflict on hand edits unless forced."""
    root = root.resolve()
    recover(root)
    planned = plan(root, output)
    changes, manifest_text = planned.changes, planned.manifest_text
    if planned.edited and not force:
        raise TreeConflict(planned.edited)
    if not changes:
        return []
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.new-", dir=root.parent))
    try:
        new_root = staging / "tree"
        if root.exists():
            shutil.copytree(root, new_root, symlinks=True)
        else:
            new_root.mkdir()
        for change in changes:
            target = new_root / change.path
            if change.kind == "removed":
                target.unlink(missing_ok=True)
                _prune_empty(target.parent, new_root)
            elif change.path != MANIFEST:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(output.files[change.path], encoding="utf-8")
        (new_root / MANIFEST).write_text(manifest_text, encoding="utf-8")
        _swap(root, new_root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return changes


def _prune_empty(directory: Path, stop: Path) -> None:
    while directory != stop and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


def _swap(root: Path, new_root: Path) -> None:
    if not root.exists():
        os.rename(new_root, root)
        return
    old = root.parent / f".{root.name}.old-{os.getpid()}"
    os.rename(root, old)
    try:
        os.rename(new_root, root)
    except OSError:
        os.rename(old, root)
        raise
    shutil.rmtree(old, ignore_errors=True)
