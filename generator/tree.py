"""Write or verify a generated tree: all or nothing per directory, never over a hand edit, never
outside the directories it renders.

A tree may be someone else's repository (a clone of a challenge set), so a run touches only the
directories it renders (`challenges/<difficulty>/<id>_<slug>/`, and `challenges/core/` only where
chgen wrote it) and its own dot-folder `.chgen/` (the manifest). Each rendered directory is
assembled in `.chgen/staging/` and exchanged with the old one in one step (Linux renameat2
RENAME_EXCHANGE), so every directory exists, old or new and complete, at every instant; the tree's
root is never exchanged (a shell standing in it keeps its working directory). Where the exchange is
not available, each file is replaced in place atomically instead (os.replace). The new manifest is
written to `.chgen/manifest.next.json` before the first directory changes and moved into place
last: a run that was killed half-way is finished by the next one, which takes the files left with
the interrupted run's bytes for chgen's own. Runs on one tree are serialised by an exclusive flock
on the tree's root folder (no lock file is left anywhere). A generated path that is (or lies
under) a symbolic link is refused, never followed. The manifest of content hashes records which
spec owns which file, so a generated file edited by hand is detected and kept unless the caller
forces it.
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
from pathlib import Path, PurePosixPath
from typing import Dict, Iterator, List, Optional, Set, Tuple

#: chgen's own folder inside a tree: the manifest, and scratch space while a run writes
STATE_DIR = ".chgen"
MANIFEST = f"{STATE_DIR}/manifest.json"
#: the manifest of a run that was interrupted after it started changing directories
PENDING = f"{STATE_DIR}/manifest.next.json"
STAGING = f"{STATE_DIR}/staging"
#: where chgen before 0.2 kept the manifest (the tree's root); read once, then moved
LEGACY_MANIFEST = ".chgen-manifest.json"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def as_recorded(path: Path, entry: Dict[str, str]) -> bool:
    """The file at `path` holds what chgen wrote there, by its manifest `entry`'s hash."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == entry.get("sha256")
    except OSError:
        return False


@dataclass
class Manifest:
    """Which owner (spec, or the shared base class) wrote which file, with its hash.

    Everything here is a pure function of the specs and the generator: no input fingerprints, no
    record of verification (those are caches, kept in the user's cache folder, see
    incremental.py), so a fresh clone regenerates this file byte for byte."""

    files: Dict[str, Dict[str, str]] = field(default_factory=dict)  # path -> {sha256, owner}

    @classmethod
    def read(cls, root: Path) -> "Manifest":
        for name in (MANIFEST, LEGACY_MANIFEST):
            path = root / name
            if path.is_file() and not path.is_symlink():
                return cls.parse(path)
        return cls()

    @classmethod
    def parse(cls, path: Path) -> "Manifest":
        try:
            return cls(dict(json.loads(path.read_text()).get("files", {})))
        except (OSError, ValueError, AttributeError):
            return cls()

    def render(self) -> str:
        data = {"generator": "chgen", "files": dict(sorted(self.files.items()))}
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def owned_by(self, owners: set) -> Dict[str, str]:
        return {p: e["sha256"] for p, e in self.files.items() if e.get("owner") in owners}

    def owner(self, path: str) -> Optional[str]:
        return self.files.get(path, {}).get("owner")


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


def units(paths: List[str]) -> List[str]:
    """The directories a run exchanges whole for `paths`: each file's directory at most three
    levels down (`challenges/<difficulty>/<name>`, `challenges/core`), folded into an enclosing
    one where both occur; files at the root itself are replaced one by one (unit "")."""
    found: Set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        found.add("/".join(parts[: min(3, len(parts) - 1)]))
    kept = sorted(found)
    return [u for u in kept if u == "" or not any(_inside(u, o) for o in kept if o and o != u)]


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + "/")


def unit_of(path: str, all_units: List[str]) -> str:
    for unit in all_units:
        if unit and _inside(path, unit):
            return unit
    return ""


def _read_only_dirs(root: Path, touched: List[str]) -> Optional[Path]:
    """The first directory this run must write in (the root, its own folder, or one it
    renders) where this process may not."""
    candidates = [root, root / STATE_DIR]
    for unit in touched:
        directory = root / unit
        while directory != root and not directory.exists():
            directory = directory.parent
        candidates.append(directory)
        if directory.is_dir() and unit:
            candidates += [Path(d) for d, _, _ in os.walk(directory)]
            candidates.append(directory.parent)
    for directory in candidates:
        if directory.is_dir() and not os.access(directory, os.W_OK | os.X_OK):
            return directory
    return None


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """Serialise runs that write `root`: an exclusive flock on the tree's root folder itself, so
    nothing is created for it, inside the tree or beside it."""
    import fcntl

    root.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def recover(root: Path) -> None:
    """Remove what an interrupted run left in the staging folder (the manifest it was about to
    write stays: plan() reads it, so that run's files are not taken for hand edits)."""
    staging = root / STAGING
    if staging.is_dir() and not staging.is_symlink():
        _remove(staging)


def has_leftovers(root: Path) -> bool:
    """Whether an interrupted run left its staging folder or its pending manifest."""
    return (root / STAGING).exists() or (root / PENDING).exists()


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
    check_paths(root, [MANIFEST, PENDING, LEGACY_MANIFEST])
    manifest = _finished(root, Manifest.read(root))
    check_paths(root, sorted(set(output.files) | set(manifest.files)))
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
    legacy_text = _read(root / LEGACY_MANIFEST)
    if legacy_text is not None:
        changes.append(Change(LEGACY_MANIFEST, "removed", _diff(LEGACY_MANIFEST, legacy_text, "")))
    if current_text is None:
        changes.append(Change(MANIFEST, "added", _diff(MANIFEST, "", manifest_text)))
    elif current_text != manifest_text:
        changes.append(Change(MANIFEST, "changed", _diff(MANIFEST, current_text, manifest_text)))
    return Plan(changes, manifest_text, sorted(set(edited)))


def _finished(root: Path, manifest: Manifest) -> Manifest:
    """`manifest` with what an interrupted run had written: each file its pending manifest
    lists that is on disk with that run's bytes is that run's, not a hand edit."""
    pending_path = root / PENDING
    if not pending_path.is_file() or pending_path.is_symlink():
        return manifest
    pending = Manifest.parse(pending_path)
    files = dict(manifest.files)
    for path, entry in pending.files.items():
        current = _read(root / path)
        if current is not None and sha256(current) == entry.get("sha256"):
            files[path] = entry
    return Manifest(files)


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
    """Make the tree match `output`, directory by directory atomically. Raises TreeConflict on
    hand edits unless forced, UnsafeTree (an OSError) for a symbolic link or a read-only
    directory, with nothing written."""
    root = root.resolve()
    existed = root.exists()
    try:
        with locked(root):
            return _write_locked(root, output, force)
    finally:
        if not existed and root.is_dir() and not any(root.iterdir()):
            root.rmdir()  # a first run that wrote nothing leaves nothing


def _write_locked(root: Path, output: Output, force: bool) -> List[Change]:
    recover(root)
    planned = plan(root, output)
    changes, manifest_text = planned.changes, planned.manifest_text
    if planned.edited and not force:
        raise TreeConflict(planned.edited)
    if not changes:
        (root / PENDING).unlink(missing_ok=True)  # what it knew is in the manifest on disk
        return []
    own = {MANIFEST, LEGACY_MANIFEST}
    edits = [(c.path, output.files.get(c.path)) for c in changes if c.path not in own]
    touched = units([path for path, _ in edits])
    read_only = _read_only_dirs(root, touched)
    if read_only is not None:
        raise UnsafeTree(f"{_shown(read_only)} is not writable: make it writable and run again")
    had_pending = (root / PENDING).is_file()
    _replace(root / PENDING, manifest_text)
    started = False
    try:
        exchanged = _can_exchange(root)
        for unit in touched:
            mine = [(p, t) for p, t in edits if unit_of(p, touched) == unit]
            if unit and exchanged:
                _rewrite_unit(root, unit, mine)  # one step: done, or not at all
            else:
                started = True  # file by file: some may be written when it fails
                _apply(root, mine)
            started = True
    except BaseException:
        if not started and not had_pending:
            (root / PENDING).unlink(missing_ok=True)  # nothing changed: nothing to finish
            _prune_empty(root / STATE_DIR, root)
        raise
    finally:
        recover(root)
        _prune_empty(root / STATE_DIR, root)
    os.replace(root / PENDING, root / MANIFEST)
    (root / LEGACY_MANIFEST).unlink(missing_ok=True)
    return changes


def _rewrite_unit(root: Path, unit: str, edits: List[Tuple[str, Optional[str]]]) -> None:
    """Assemble the new `unit` directory in the staging folder and put it in place in one step;
    files chgen does not own there are carried over untouched."""
    staging = root / STAGING
    staging.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="unit-", dir=staging))
    target = root / unit
    staged = scratch / "new"
    if target.exists():
        shutil.copytree(target, staged, symlinks=True)
    else:
        staged.mkdir()
    _apply(staged, [(str(PurePosixPath(p).relative_to(unit)), t) for p, t in edits])
    if not any(staged.iterdir()):  # every file of the directory went: the directory goes too
        if target.exists():
            _swap(target, None, scratch)
            _prune_empty(target.parent, root)
        return
    _swap(target, staged, scratch)


def _swap(target: Path, staged: Optional[Path], scratch: Path) -> None:
    """Put `staged` at `target` (None: take `target` away); the old directory ends up in
    `scratch`, which the caller's staging folder removes."""
    if staged is None:
        os.rename(target, scratch / "old")
    elif not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(staged, target)
    else:
        exchange(staged, target)


def _apply(base: Path, edits: List[Tuple[str, Optional[str]]]) -> None:
    """Each edit under `base` (a text, or None to remove the file), every file replaced
    atomically."""
    for path, text in edits:
        target = base / path
        if text is None:
            target.unlink(missing_ok=True)
            _prune_empty(target.parent, base)
        else:
            _replace(target, text)


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
    """Whether this file system swaps directories in one step (tried on two scratch ones in the
    staging folder)."""
    staging = root / STAGING
    staging.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="probe-", dir=staging))
    try:
        (scratch / "a").mkdir()
        (scratch / "b").mkdir()
        exchange(scratch / "a", scratch / "b")
        return True
    except OSError:
        return False
    finally:
        _remove(scratch)
