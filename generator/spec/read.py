"""Spec files -> validated `Spec` objects, with every error at file:line:column.

Reading keeps the YAML positions (`yamlpos`) and the size limits; then two passes: pydantic checks
each field's form (its errors worded by `messages`), the section rules (`rules/`) check what spans
fields. The spec's own files (its name, a sidecar SVG) are checked here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional

from pydantic import ValidationError

from generator.naming import SPEC_NAME_RE
from generator.spec.derived import example_label
from generator.spec.limits import MAX_SPEC_BYTES
from generator.spec.messages import translate_pydantic
from generator.spec.model import Spec
from generator.spec.rules import cross_checks
from generator.spec.yamlpos import (
    BlockLine,
    PathKey,
    Position,
    PositionedData,
    SpecError,
    SpecErrors,
    as_written,
    block_line,
    load_positioned,
    read_text,
)


@dataclass(frozen=True)
class LoadedSpec:
    """A validated spec, where it came from, and the YAML positions for later error reports."""

    spec: Spec
    path: Path
    display: str
    svg: Optional[str]
    raw: PositionedData

    def position(self, *path: Any) -> Position:
        return self.raw.position(as_written(self.raw, tuple(path)))

    def example_position(self, index: int, *path: Any) -> Position:
        """Where example `index` (0-based) or one of its fields is written."""
        return self.position("examples", index, *path)

    def example_label(self, index: int) -> str:
        """'the example' when the spec gives one, else 'example 2'."""
        return example_label(self.spec, index)


def _issue_position(raw: PositionedData, text: str, where: PathKey) -> Position:
    """The node at `where`, or, for a path ending in a BlockLine, that line of its text."""
    if where and isinstance(where[-1], BlockLine):
        return block_line(text, raw.position(as_written(raw, where[:-1])), where[-1].index)
    return raw.position(as_written(raw, where))


def _display(path: Path, root: Optional[Path]) -> str:
    if root is not None:
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return str(path)


def load_spec(path: Path, root: Optional[Path] = None) -> LoadedSpec:
    """Load and validate one spec; raise SpecErrors listing every problem found."""
    display = _display(path, root)
    if path.is_file() and path.stat().st_size > MAX_SPEC_BYTES:
        raise SpecErrors(
            [
                SpecError(
                    Position(display, 1, 1),
                    "spec file is larger than 2 MB",
                    "keep data literal only in the examples; cases draw theirs",
                )
            ]
        )
    try:
        text = read_text(path, display)
        return load_spec_text(text, display, path)
    except SpecError as err:
        raise SpecErrors([err]) from None


def load_spec_text(text: str, display: str, path: Optional[Path] = None) -> LoadedSpec:
    try:
        raw = load_positioned(text, display)
    except SpecError as err:
        raise SpecErrors([err]) from None
    if not isinstance(raw.data, dict):
        raise SpecErrors(
            [
                SpecError(
                    Position(display, 1, 1),
                    "a spec is a YAML mapping (key: value lines)",
                    "start from the skeleton 'chgen new' writes",
                )
            ]
        )
    try:
        spec = Spec.model_validate(raw.data)
    except ValidationError as exc:
        raise SpecErrors(translate_pydantic(raw, exc.errors())) from None
    except (RecursionError, OverflowError, MemoryError):
        raise SpecErrors(
            [SpecError(Position(display, 1, 1), "spec is too deeply nested", "nest less")]
        )
    errors: List[SpecError] = []
    svg = None
    for where, message, hint in cross_checks(spec):
        errors.append(SpecError(_issue_position(raw, text, where), message, hint))
    if path is not None:
        errors.extend(_file_name_checks(spec, path, raw))
        try:
            svg = _load_svg(spec, path, raw)
        except SpecError as err:
            errors.append(err)
    if errors:
        raise SpecErrors(errors)
    return LoadedSpec(spec=spec, path=path or Path(display), display=display, svg=svg, raw=raw)


# ----------------------------------------------------------------------------------------------


def _file_name_checks(spec: Spec, path: Path, raw: PositionedData) -> List[SpecError]:
    match = SPEC_NAME_RE.match(path.name)
    expected = f"{spec.id}_{spec.slug}.yaml"
    if not match or path.name not in (expected, expected[:-5] + ".yml"):
        return [
            SpecError(
                raw.position(("slug",)),
                f"spec file is named {path.name!r} but id and slug say {expected!r}",
                "rename the file or fix id/slug",
            )
        ]
    return []


def svg_text(text: str) -> Optional[str]:
    """`text` as a spec holds an SVG (stripped), or None when it is no `<svg ...>` text."""
    text = text.strip()
    return text if text.startswith("<svg") else None


def _load_svg(spec: Spec, path: Path, raw: PositionedData) -> Optional[str]:
    """Inline SVG text, or a sidecar file that must sit in the spec's own folder."""
    if spec.svg is None:
        return None
    value = spec.svg.strip()
    where = raw.position(("svg",))
    if svg_text(value) is not None:
        return value
    if not value.endswith(".svg"):
        raise SpecError(
            where,
            "svg is inline '<svg ...>' text or a sidecar file name ending .svg",
            "e.g. svg: 142_rms_norm_backward.svg",
        )
    if "/" in value or "\\" in value or value.startswith(".") or value != Path(value).name:
        raise SpecError(
            where,
            f"sidecar SVG {value!r} must be a plain file name in the spec's folder",
            "no directories or '..'",
        )
    sidecar = path.parent / value
    if sidecar.is_symlink() or not sidecar.is_file():
        raise SpecError(
            where,
            f"sidecar SVG {value!r} not found next to the spec",
            "put the file in the spec's folder, or write the '<svg ...>' inline",
        )
    text = svg_text(read_text(sidecar, str(Path(raw.file).parent / value)))
    if text is None:
        raise SpecError(
            where, f"sidecar {value!r} does not start with '<svg'", "give it an SVG file"
        )
    return text


# ----------------------------------------------------------------------------------------------
# cross-field checks
