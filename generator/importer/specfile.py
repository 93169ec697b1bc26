"""The spec an import builds, as chgen's own model: validated in memory while the import still
decides (what the page renders, which starters it keeps, which cases need code), written as YAML
once at the end and verified once, by loading and rendering that text as `chgen generate` does.

A spec the in-memory path cannot vouch for (a field the model refuses, a section rule, a sidecar
SVG that would not load) goes the way a written spec goes, so that its errors name file:line:column
exactly as before.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from pydantic import ValidationError

from generator.importer.draft import SpecDraft
from generator.importer.report import ImportFailure
from generator.importer.writer import dump_spec, plain
from generator.naming import SPEC_NAME_RE
from generator.render import render_challenge, render_core
from generator.spec import SpecErrors, load_spec
from generator.spec.model import Spec
from generator.spec.read import LoadedSpec
from generator.spec.read import svg_text as as_svg
from generator.spec.rules import cross_checks
from generator.spec.yamlpos import PositionedData, load_positioned


class _WrittenPositions:
    """The YAML positions of a spec built in memory, read off its text only when an error needs
    one (verify_example's messages are file:line:column of the spec as written)."""

    def __init__(self, data: Dict[str, Any], display: str):
        self._data = copy.deepcopy(data)
        self._display = display
        self._raw: Optional[PositionedData] = None

    def _positioned(self) -> PositionedData:
        if self._raw is None:
            self._raw = load_positioned(dump_spec(self._data, []), self._display)
        return self._raw

    def __getattr__(self, name: str) -> Any:  # data, positions, file, position
        return getattr(self._positioned(), name)


def built_spec(draft: SpecDraft) -> LoadedSpec:
    """The draft as the model it stands for, with the sidecar SVG as load_spec would read it."""
    data, spec_name = draft.data(), draft.spec_name
    svg_name, svg_text = draft.svg_name, draft.svg_text
    spec = _validated(data, spec_name, svg_name, svg_text)
    if spec is None:  # the written route names every problem at its line
        return _loaded_from_text(data, spec_name, svg_name, svg_text)
    svg = None if spec.svg is None else _svg(spec.svg.strip(), svg_name, svg_text)
    return LoadedSpec(
        spec=spec,
        path=Path(spec_name),
        display=spec_name,
        svg=svg,
        raw=_WrittenPositions(data, spec_name),  # type: ignore[arg-type]
    )


def _validated(
    data: Dict[str, Any], spec_name: str, svg_name: Optional[str], svg_text: Optional[str]
) -> Optional[Spec]:
    """The model of `data` when it loads as written without a word to say; else None."""
    try:
        spec = Spec.model_validate(plain({k: v for k, v in data.items() if v is not None}))
    except (ValidationError, RecursionError, OverflowError, MemoryError):
        return None
    if next(iter(cross_checks(spec)), None) is not None:
        return None
    if not SPEC_NAME_RE.match(spec_name) or spec_name != f"{spec.id}_{spec.slug}.yaml":
        return None
    if spec.svg is not None and _svg(spec.svg.strip(), svg_name, svg_text) is None:
        return None
    return spec


def _svg(value: str, svg_name: Optional[str], svg_text: Optional[str]) -> Optional[str]:
    """What load_spec reads for the spec's svg field: inline text, or the sidecar written next to
    the spec (`svg_text` and a newline, stripped); None when it would refuse it."""
    if as_svg(value) is not None:
        return value
    if value != svg_name or svg_text is None:
        return None
    return as_svg(svg_text + "\n")


def write_files(
    root: Path, text: str, spec_name: str, svg_name: Optional[str], svg_text: Optional[str]
) -> Path:
    """The spec text (and its sidecar SVG) in `root`, as `chgen import` writes them."""
    spec_path = root / spec_name
    spec_path.write_text(text, encoding="utf-8")
    if svg_name:
        (root / svg_name).write_text(svg_text + "\n", encoding="utf-8")
    return spec_path


def _loaded_from_text(
    data: Dict[str, Any], spec_name: str, svg_name: Optional[str], svg_text: Optional[str]
) -> LoadedSpec:
    """`data` written and loaded back; raises SpecErrors as load_spec does."""
    with tempfile.TemporaryDirectory(prefix="chgen-import-") as tmp:
        root = Path(tmp)
        path = write_files(root, dump_spec(data, []), spec_name, svg_name, svg_text)
        return load_spec(path, root)


def verify_written(text: str, draft: SpecDraft, built: Dict[str, str]) -> None:
    """Load and render the text written, once, as `chgen generate` reads it; it must render every
    file as the spec built in memory did (else the writer lost something: a chgen bug)."""
    with tempfile.TemporaryDirectory(prefix="chgen-import-verify-") as tmp:
        root = Path(tmp)
        try:
            path = write_files(root, text, draft.spec_name, draft.svg_name, draft.svg_text)
            files = render_challenge(load_spec(path, root))
        except SpecErrors as exc:
            raise ImportFailure(
                "the spec written does not load (not representable):\n"
                + "\n".join(e.render() for e in exc.errors)
            ) from None
    differing: List[str] = sorted(
        name for name in {*files, *built} if files.get(name) != built.get(name)
    )
    if differing:
        raise ImportFailure(
            f"the spec written renders {differing[0]} otherwise than the spec built (a chgen "
            "import bug; report it)"
        )


def write_tree(tree: Path, loaded: Any, files: Dict[str, str]) -> str:
    """The rendered challenge and the base class under `tree`; the challenge's folder in it."""
    for path, text in {**render_core(), **files}.items():
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return f"challenges/{loaded.spec.difficulty}/{loaded.spec.dir_name}"
