"""The visible pipeline: spec files -> validated specs -> rendered, formatted files -> tree Output.

Every stage reports errors as SpecErrors (file:line:column); nothing is written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterable, List, Optional

from generator.example_check import example_fingerprint, verify_example
from generator.render import render_challenge, render_core
from generator.spec import LoadedSpec, SpecError, SpecErrors, find_specs, load_spec
from generator.tree import Manifest, Output

CORE_OWNER = "core"


def load_all(paths: Iterable[Path], root: Optional[Path] = None) -> List[LoadedSpec]:
    """Load every spec; collect the errors of all files before failing."""
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


def _duplicate_ids(loaded: List[LoadedSpec]) -> List[SpecError]:
    seen: Dict[int, LoadedSpec] = {}
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
    if specs:
        return specs
    return find_specs(specs_dir)


def build_output(loaded: List[LoadedSpec], tree_root: Path) -> Output:
    """Render every spec (and the shared base class); verify examples that changed."""
    manifest = Manifest.read(tree_root)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    verified: Dict[str, str] = {}
    errors: List[SpecError] = []
    for path, text in render_core().items():
        files[path], owners[path] = text, CORE_OWNER
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
