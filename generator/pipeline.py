"""The visible pipeline: spec files -> validated specs -> rendered, formatted files -> tree Output.

Every stage reports errors as SpecErrors (file:line:column); nothing is written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional

if TYPE_CHECKING:  # the spec model (pydantic) is imported only when a spec must be parsed
    from generator.spec import LoadedSpec

from generator import incremental
from generator.naming import SPEC_NAME_RE, find_specs
from generator.spec.yamlpos import Position, SpecError, SpecErrors
from generator.tree import Manifest, Output

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


def generate(paths: List[Path], tree_root: Path, root: Optional[Path] = None) -> tuple:
    """Output for `paths`, re-rendering only specs whose inputs changed; returns (output, count)."""
    manifest = Manifest.read(tree_root)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    verified: Dict[str, str] = {}
    inputs: Dict[str, str] = {}
    stale: List[Path] = []
    errors = _duplicate_file_ids(paths)
    for path in paths:
        match = SPEC_NAME_RE.match(path.name)
        fingerprint = incremental.spec_fingerprint(path) if path.is_file() else ""
        owner = f"{match.group(1)}_{match.group(2)}" if match else ""
        kept = (
            incremental.reusable_files(tree_root, manifest, owner, fingerprint) if owner else None
        )
        if kept is None or owner not in manifest.verified:
            stale.append(path)
            continue
        for name, text in kept.items():
            files[name], owners[name] = text, owner
        verified[owner], inputs[owner] = manifest.verified[owner], fingerprint
    core = incremental.reusable_files(
        tree_root, manifest, CORE_OWNER, incremental.generator_fingerprint()
    )
    if errors:
        raise SpecErrors(errors)
    if stale or core is None:
        from generator.render import render_core

        loaded = load_all(stale, root)
        fresh = build_output(loaded, tree_root, manifest)
        files.update(fresh.files)
        owners.update(fresh.owners)
        verified.update(fresh.verified)
        for item in loaded:
            inputs[item.spec.dir_name] = incremental.spec_fingerprint(item.path)
        core = render_core()
    for name, text in core.items():
        files[name], owners[name] = text, CORE_OWNER
    inputs[CORE_OWNER] = incremental.generator_fingerprint()
    return Output(files, owners, verified, inputs), len(stale)


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


def build_output(loaded: List["LoadedSpec"], tree_root: Path, manifest=None) -> Output:
    """Render specs (not the shared base class); verify examples that changed."""
    from generator.example_check import example_fingerprint, verify_example
    from generator.render import render_challenge

    manifest = manifest or Manifest.read(tree_root)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    verified: Dict[str, str] = {}
    errors: List[SpecError] = []
    for item in loaded:
        owner = item.spec.dir_name
        fingerprint = example_fingerprint(item)
        if manifest.verified.get(owner) != fingerprint:
            try:
                verify_example(item)
            except SpecErrors as exc:
                errors.extend(exc.errors)
                continue
        verified[owner] = fingerprint
        for path, text in render_challenge(item).items():
            files[path], owners[path] = text, owner
    if errors:
        raise SpecErrors(errors)
    return Output(files, owners, verified)
