"""The visible pipeline: spec files -> validated specs -> rendered, formatted files -> the tree.

`generate(specs, out, check=..., force=...)` is the whole stage behind `chgen generate`, `chgen
check SPEC` and the tests; it returns a GenerateResult and prints nothing. Every stage reports
errors as SpecErrors (file:line:column).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple

if TYPE_CHECKING:  # the spec model (pydantic) is imported only when a spec must be parsed
    from generator.spec import LoadedSpec

from generator import tree
from generator.incremental import (
    GenerateCache,
    files_on_disk,
    generator_fingerprint,
    spec_fingerprint,
)
from generator.naming import SPEC_NAME_RE, find_specs
from generator.spec.yamlpos import Position, SpecError, SpecErrors
from generator.tree import Change, Output

CORE_OWNER = "core"


def load_all(paths: Iterable[Path], root: Optional[Path] = None) -> List["LoadedSpec"]:
    """Load every spec; collect the errors of all files before failing."""
    from generator.spec import load_spec

    loaded, errors = [], []
    for path in paths:
        try:
            loaded.append(load_spec(path, root))
        except SpecErrors as exc:
            errors.extend(exc.errors)
    errors.extend(_duplicate_ids(loaded))
    if errors:
        raise SpecErrors(errors)
    return loaded


def _duplicate_ids(loaded: List["LoadedSpec"]) -> List[SpecError]:
    seen: Dict[int, "LoadedSpec"] = {}
    errors = []
    for item in loaded:
        other = seen.get(item.spec.id)
        if other is not None and other.path.resolve() != item.path.resolve():
            errors.append(
                SpecError(
                    item.position("id"),
                    f"id {item.spec.id} is also used by {other.display}",
                    "every challenge needs its own id",
                )
            )
        seen.setdefault(item.spec.id, item)
    return errors


def spec_paths(specs: List[Path], specs_dir: Path) -> List[Path]:
    return specs or find_specs(specs_dir)


@dataclass(frozen=True)
class GenerateResult:
    """What one generation found (and, unless `check`, did) in the tree at `out`."""

    out: Path
    specs: int  # specs asked for
    rendered: int  # specs parsed and rendered (the others were reused from the cache)
    changes: Tuple[Change, ...]  # the tree on disk -> what the specs render to
    conflicts: Tuple[str, ...]  # generated files edited by hand (nothing is written over them)
    written: bool  # the changes are on disk now

    @property
    def up_to_date(self) -> bool:
        return not self.changes

    def paths(self, kind: str) -> List[str]:
        return [change.path for change in self.changes if change.kind == kind]

    @property
    def added(self) -> List[str]:
        return self.paths("added")

    @property
    def changed(self) -> List[str]:
        return self.paths("changed")

    @property
    def removed(self) -> List[str]:
        return self.paths("removed")

    @property
    def diff(self) -> str:
        """The unified diff from the tree on disk to the rendered one."""
        return "".join(change.diff for change in self.changes)


def generate(
    specs: Sequence[Path],
    out: Path,
    *,
    check: bool = False,
    force: bool = False,
    root: Optional[Path] = None,
    cache: Optional[GenerateCache] = None,
) -> GenerateResult:
    """Render `specs` and compare them with the tree at `out` (`check`) or write them there.

    Writing is atomic and refuses files edited by hand (the result lists them as conflicts and
    nothing is written) unless `force`. Raises SpecErrors for bad specs, FormatError when a
    formatter rejects rendered text, OSError when the tree cannot be written."""
    output, rendered = render_tree(list(specs), out, root, cache or GenerateCache())
    planned = tree.plan(out.resolve(), output)
    result = GenerateResult(
        out, len(specs), rendered, tuple(planned.changes), tuple(planned.edited), written=False
    )
    if check or result.up_to_date or (result.conflicts and not force):
        return result
    try:
        changes = tree.write(out, output, force=force)
    except tree.TreeConflict as exc:  # found only once an interrupted swap was recovered
        return replace(result, conflicts=tuple(exc.paths))
    return replace(result, changes=tuple(changes), written=True)


def render_tree(
    paths: List[Path], tree_root: Path, root: Optional[Path], cache: GenerateCache
) -> Tuple[Output, int]:
    """The tree's files for `paths`, rendering only specs whose inputs the cache has not seen
    rendered into exactly the files on disk; returns the output and how many were rendered."""
    errors = _duplicate_file_ids(paths)
    if errors:
        raise SpecErrors(errors)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    stale: Dict[Path, str] = {}
    for path in paths:
        fingerprint = spec_fingerprint(path) if path.is_file() else ""
        kept = _reusable(cache, tree_root, fingerprint)
        if kept is None:
            stale[path] = fingerprint
            continue
        owner = _owner(path)
        for name, text in kept.items():
            files[name], owners[name] = text, owner
    if stale:
        loaded = load_all(list(stale), root)
        fresh = build_output(loaded, cache)
        for item in loaded:
            own = {p: t for p, t in fresh.files.items() if fresh.owners[p] == item.spec.dir_name}
            cache.remember_rendered(stale[item.path], own)
        files.update(fresh.files)
        owners.update(fresh.owners)
    core_key = core_fingerprint()
    core = _reusable(cache, tree_root, core_key)
    if core is None:
        from generator.render import render_core

        core = render_core()
        cache.remember_rendered(core_key, core)
    for name, text in core.items():
        files[name], owners[name] = text, CORE_OWNER
    return Output(files, owners), len(stale)


def core_fingerprint() -> str:
    return f"{CORE_OWNER}-{generator_fingerprint()}"


def _owner(path: Path) -> str:
    match = SPEC_NAME_RE.match(path.name)
    return f"{match.group(1)}_{match.group(2)}"


def _reusable(cache: GenerateCache, tree_root: Path, fingerprint: str) -> Optional[Dict[str, str]]:
    hashes = cache.rendered(fingerprint) if fingerprint else None
    return files_on_disk(tree_root, hashes) if hashes else None


def _duplicate_file_ids(paths: List[Path]) -> List[SpecError]:
    seen: Dict[str, Path] = {}
    errors = []
    for path in paths:
        match = SPEC_NAME_RE.match(path.name)
        if not match:
            continue
        other = seen.setdefault(match.group(1), path)
        if other != path:
            errors.append(
                SpecError(
                    Position(str(path), 1, 1),
                    f"id {match.group(1)} is also used by {other}",
                    "every challenge needs its own id",
                )
            )
    return errors


def build_output(loaded: List["LoadedSpec"], cache: GenerateCache) -> Output:
    """Render specs (not the shared base class), then verify what the cache has not seen pass:
    each example against the reference, and the rendered files against the rules `chgen check
    --formatters --deep` applies (generator/validation.py), every finding at its spec line.

    The verification runs the spec's reference: it happens in one sandboxed child for the run
    (generator/example_runner.py), never in this process. A spec that fails adds nothing."""
    from generator.example_check import example_fingerprint
    from generator.example_runner import verify_examples
    from generator.render import render_challenge

    rendered = [render_challenge(item) for item in loaded]
    keys = [
        _validation_key(example_fingerprint(item), files) for item, files in zip(loaded, rendered)
    ]
    pending = [i for i, key in enumerate(keys) if not cache.example_verified(key)]
    failed = verify_examples([loaded[i] for i in pending], [rendered[i] for i in pending])
    errors: List[SpecError] = []
    for position, index in enumerate(pending):
        if position in failed:
            errors.extend(failed[position])
        else:
            cache.remember_example(keys[index])
    if errors:
        raise SpecErrors(errors)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    for item, own in zip(loaded, rendered):
        for path, text in own.items():
            files[path], owners[path] = text, item.spec.dir_name
    return Output(files, owners)


def _validation_key(example: str, files: Dict[str, str]) -> str:
    """A spec passes again without a check when its example and its rendered files are the same
    (chgen's own version is part of every key: generator/incremental.py)."""
    from generator.incremental import sha256

    listing = "".join(f"{path}\0{sha256(text)}\0" for path, text in sorted(files.items()))
    return sha256(f"{example}\0{listing}")
