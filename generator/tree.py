"""Write or verify a generated tree: all or nothing, never over a hand edit, never outside it.

The new tree is assembled in a sibling temporary directory and exchanged with the old one in one
step (Linux renameat2 RENAME_EXCHANGE), so the tree exists, old or new and complete, at every
instant; where the exchange is not available, each file is replaced in place atomically instead
(os.replace), the manifest last. Runs on one tree are serialised by a lock file beside it. A
generated path that is (or lies under) a symbolic link is refused, never followed. A manifest of
content hashes records which spec owns which file, so a generated file edited by hand is detected
and kept unless the caller forces it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import difflib
import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional

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


#: what to do about a generated file edited by hand, said the same way by `chgen generate`,
#: `chgen generate --check` and rule G002
HAND_EDIT_ADVICE = (
    "move the edit into the spec and run 'chgen generate', or run 'chgen generate --force' to "
    "overwrite it"
)


def hand_edit_summary(count: int) -> str:
    """One line for `count` hand-edited generated files, with both ways out."""
    files = "1 generated file was" if count == 1 else f"{count} generated files were"
    return f"{files} edited by hand: {HAND_EDIT_ADVICE}"


class TreeConflict(Exception):
    """Generated files were edited by hand; nothing was written."""

    def __init__(self, paths: List[str]):
        self.paths = paths
        super().__init__(
            f"{len(paths)} generated file(s) were edited by hand: {', '.join(paths[:5])}"
            + (" ..." if len(paths) > 5 else "")
        )


class UnsafeTree(OSError):
    """The tree cannot be written safely (a symbolic link in it, a read-only directory)."""


def check_paths(root: Path, paths: List[str]) -> None:
    """Refuse a generated path that is a symbolic link or lies under one inside the tree."""
    for relative in paths:
        current = root
        for part in Path(relative).parts:
            current = current / part
            if current.is_symlink():
                raise UnsafeTree(
                    f"{_shown(current)} is a symbolic link; chgen never writes through links: "
                    "remove it and run again"
                )
            if not current.exists():
                break


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _read_only_dirs(root: Path) -> Optional[Path]:
    """The first directory of the tree (or its parent) this process may not write in."""
    candidates = [root.parent] + ([root] if root.is_dir() else [])
    if root.is_dir():
        candidates += [Path(d) for d, _, _ in os.walk(root)]
    for directory in candidates:
        if not os.access(directory, os.W_OK | os.X_OK):
            return directory
    return None


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """Serialise runs that write `root`: an exclusive flock on `.<name>.lock` beside it."""
    import fcntl

    root.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(root.parent / f".{root.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def recover(root: Path) -> None:
    """Finish or undo a swap that an earlier run could not complete."""
    for leftover in root.parent.glob(f".{root.name}.old-*"):
        if not root.exists():
            leftover.rename(root)
        else:
            _remove(leftover)
    for pattern in (f".{root.name}.new-*", f".{root.name}.probe-*"):
        for leftover in root.parent.glob(pattern):
            _remove(leftover)


def _read(path: Path) -> Optional[str]:
    if path.is_symlink():
        raise UnsafeTree(
            f"{_shown(path)} is a symbolic link; chgen never writes through links: remove it and "
            "run again"
        )
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def plan(root: Path, output: Output) -> Plan:
    """Compare the tree on disk with `output`: the changes, the new manifest, hand-edited paths."""
    check_paths(root, [MANIFEST])
    manifest = Manifest.read(root)
    check_paths(root, sorted(set(output.files) | set(manifest.files) | {MANIFEST}))
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
    """Make the tree match `output`, atomically. Raises TreeConflict on hand edits unless forced,
    UnsafeTree (an OSError) for a symbolic link or a read-only directory, with nothing written."""
    root = root.resolve()
    with locked(root):
        return _write_locked(root, output, force)


def _write_locked(root: Path, output: Output, force: bool) -> List[Change]:
    recover(root)
    planned = plan(root, output)
    changes, manifest_text = planned.changes, planned.manifest_text
    if planned.edited and not force:
        raise TreeConflict(planned.edited)
    if not changes:
        return []
    read_only = _read_only_dirs(root)
    if read_only is not None:
        raise UnsafeTree(f"{_shown(read_only)} is not writable: make it writable and run again")
    if not _can_exchange(root):
        _write_in_place(root, output, changes, manifest_text)
        return changes
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.new-", dir=root.parent))
    try:
        new_root = staging / "tree"
        if root.exists():
            shutil.copytree(root, new_root, symlinks=True)
        else:
            new_root.mkdir()
        _apply(new_root, output, changes, manifest_text)
        _swap(root, new_root)
    finally:
        _remove(staging)
    return changes


def _write_in_place(root: Path, output: Output, changes: List[Change], manifest: str) -> None:
    """No exchange here: replace file by file (each atomically), the manifest last, so a kill
    leaves every file whole and the next run finishes the job."""
    root.mkdir(parents=True, exist_ok=True)
    _apply(root, output, changes, manifest)


def _apply(base: Path, output: Output, changes: List[Change], manifest: str) -> None:
    """Each change under `base`, every file replaced atomically, the manifest last."""
    for change in changes:
        target = base / change.path
        if change.kind == "removed":
            target.unlink(missing_ok=True)
            _prune_empty(target.parent, base)
        elif change.path != MANIFEST:
            _replace(target, output.files[change.path])
    _replace(base / MANIFEST, manifest)


def _replace(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove(path: Path) -> None:
    """Remove a staging directory even where a copied tree made parts of it read-only."""

    def make_writable(function, name, _exc) -> None:
        try:
            os.chmod(os.path.dirname(name), stat.S_IRWXU)
            os.chmod(name, stat.S_IRWXU)
            function(name)
        except OSError:
            pass

    shutil.rmtree(path, onerror=make_writable)


def _prune_empty(directory: Path, stop: Path) -> None:
    while directory != stop and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


RENAME_EXCHANGE = 2
AT_FDCWD = -100


def _renameat2():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange(first: Path, second: Path) -> None:
    """Swap two existing paths in one step (both exist before and after); OSError if unsupported."""
    function = _renameat2()
    if function is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    done = function(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE)
    if done != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(first))


def _can_exchange(root: Path) -> bool:
    """Whether this file system swaps directories in one step (tried on two scratch ones)."""
    if not root.exists():
        return True  # a first generation is one rename
    scratch = Path(tempfile.mkdtemp(prefix=f".{root.name}.probe-", dir=root.parent))
    try:
        (scratch / "a").mkdir()
        (scratch / "b").mkdir()
        exchange(scratch / "a", scratch / "b")
        return True
    except OSError:
        return False
    finally:
        _remove(scratch)


def _swap(root: Path, new_root: Path) -> None:
    """Put `new_root` at `root`; the old tree ends up at `new_root` (removed with the staging)."""
    if not root.exists():
        os.rename(new_root, root)
        return
    exchange(new_root, root)
