"""The spec an import builds: one field per field of `generator.spec.model.Spec`, filled section by
section, and the files it is written as. The sections the importer edits are typed, each a small
dataclass standing for its model class field for field (Parameter: Param, ExampleEntry: Example,
CaseEntry: Case, PerformanceEntry: Performance, DefaultsEntry: Defaults, ScaffoldEntry: Scaffold,
StarterScaffoldEntry: StarterScaffold, SectionEntry: Section, PageLayout: PageForm, PreFlags:
PreForm, MatrixFlags: MatrixForm), so that a misspelt field is an error where it is written, not a
key the spec loader refuses later. `data()` is what the model validates and the writer writes:
each section's fields in the order the spec writes them, a field at its default (None, or the
value the model defaults to) left out."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, Dict, List, Optional, Union

#: the draft's fields that are no spec fields: where the spec and its SVG are written
FILE_FIELDS = ("spec_name", "svg_name", "svg_text")

#: the metadata marking a field that says how a section is written, not a field of the spec
_LAYOUT = {"layout": True}


def written(part: Any) -> Dict[str, Any]:
    """A section's fields as the spec writes them, in order: every field without a default, the
    others where they differ from it; a section held in a field as its own data."""
    found: Dict[str, Any] = {}
    for f in fields(part):
        if f.metadata.get("layout"):
            continue
        value = getattr(part, f.name)
        if f.default is MISSING or value != f.default:
            found[f.name] = _plain(value)
    return found


def _coded_order(found: Dict[str, Any]) -> Dict[str, Any]:
    """A case whose inputs are the original's torch calls: its inputs right after its scalars
    (after its name, without scalars), made in that order; its seed last."""
    ordered: Dict[str, Any] = {}
    for key, value in found.items():
        if key in ("inputs", "seed"):
            continue
        ordered[key] = value
        if key == "scalars" or (key == "name" and "scalars" not in found):
            ordered["inputs"] = found.get("inputs")
    ordered.setdefault("inputs", found.get("inputs"))
    if "seed" in found:
        ordered["seed"] = found["seed"]
    return ordered


@dataclass
class Parameter:
    """One parameter of the signature (model.Param)."""

    name: str
    dtype: str
    direction: Optional[str] = None  # tensors only
    shape: Optional[List[Union[str, int]]] = None  # tensors only
    latex: Optional[str] = None

    def data(self) -> Dict[str, Any]:
        return written(self)


@dataclass
class CaseEntry:
    """One functional case (model.Case)."""

    name: str
    note: Optional[str] = None
    from_example: bool = False
    scalars: Optional[Dict[str, Any]] = None
    inputs: Optional[Dict[str, Any]] = None
    shapes: Optional[Dict[str, Any]] = None
    seed: Optional[int] = None
    prefill: Any = None
    descriptors: bool = False
    #: its inputs are the original's own torch calls (written in the order they are made)
    coded: bool = field(default=False, metadata=_LAYOUT)

    def data(self) -> Dict[str, Any]:
        found = written(self)
        return _coded_order(found) if self.coded else found


@dataclass
class PerformanceEntry:
    """The performance case and the page's performance bullet (model.Performance)."""

    scalars: Dict[str, Any]
    shown: Optional[List[str]] = None
    bullet: bool = True
    blank_line: bool = True
    inputs: Optional[Dict[str, Any]] = None
    min_bytes: Optional[str] = None
    shapes: Optional[Dict[str, Any]] = None
    seed: Optional[int] = None
    prefill: Any = None
    descriptors: bool = False
    note: Optional[str] = None
    #: its inputs are the original's own torch calls (written in the order they are made)
    coded: bool = field(default=False, metadata=_LAYOUT)

    def data(self) -> Dict[str, Any]:
        found = written(self)
        return _coded_order(found) if self.coded else found


#: the order of an example kept as the page's text alone (no values): its text first
_TEXT_ONLY = ("display", "explanation", "title")


@dataclass
class ExampleEntry:
    """One example (model.Example); one without values (`outputs` None) is the page's text alone."""

    scalars: Optional[Dict[str, Any]] = None
    seed: Optional[int] = None
    inputs: Optional[Dict[str, Any]] = None
    outputs: Union[Dict[str, Any], str, None] = None  # by name, or "reference"
    title: Optional[str] = None
    explanation: Optional[str] = None
    show_sizes: bool = False
    hide: Optional[List[str]] = None
    numbers: Optional[Dict[str, Any]] = None
    display: Optional[str] = None

    def data(self) -> Dict[str, Any]:
        found = written(self)
        if self.outputs is None:
            first = {key: found.pop(key) for key in _TEXT_ONLY if key in found}
            found = {**first, **found}
        return found


@dataclass
class DefaultsEntry:
    """The scalars and input forms the functional cases share (model.Defaults); empty: none."""

    scalars: Optional[Dict[str, Any]] = None
    inputs: Optional[Dict[str, Any]] = None

    def data(self) -> Optional[Dict[str, Any]]:
        return written(self) or None


@dataclass
class StarterScaffoldEntry:
    """Where one Python easy starter's stub and launch depart from chgen's
    (model.StarterScaffold)."""

    kernel: Optional[str] = None
    parameters: Optional[List[str]] = None
    grid: Optional[str] = None
    block_keyword: bool = False

    def data(self) -> Dict[str, Any]:
        return written(self)


@dataclass
class ScaffoldEntry:
    """An easy challenge's kernel stub and launch grid (model.Scaffold)."""

    kernel: str
    grid: List[str]
    starters: Optional[Dict[str, StarterScaffoldEntry]] = None  # by language key

    def data(self) -> Dict[str, Any]:
        found = written(self)
        if self.starters is not None:
            found["starters"] = {key: entry.data() for key, entry in self.starters.items()}
        return found


@dataclass
class SectionEntry:
    """A section of the page's own (model.Section)."""

    title: str
    html: str
    after: str
    gap: int = 1

    def data(self) -> Dict[str, Any]:
        return written(self)


@dataclass
class PreFlags:
    """How the page writes a <pre> example where it departs from chgen (model.PreForm), in the
    order generator/page/pre.py reads them."""

    tight: bool = False
    indent: str = ""
    aligned: bool = True
    unnamed: Optional[List[str]] = None
    size_note: bool = False
    inline: bool = False

    def data(self) -> Dict[str, Any]:
        return written(self)


@dataclass
class MatrixFlags:
    """How the page labels a bmatrix example where it departs from chgen (model.MatrixForm), in
    the order generator/page/matrix.py reads them, `squeeze` (which the import decides) last."""

    strong: bool = True
    split: bool = True
    gap: bool = True
    labels: str = "code"
    times: str = "&times;"
    indent: str = ""
    inline: bool = False
    squeeze: bool = False

    def data(self) -> Dict[str, Any]:
        return written(self)


@dataclass
class PageLayout:
    """The page's layout choices that differ from chgen's (model.PageForm); empty: none."""

    item_indent: Optional[str] = None
    item_indents: Optional[List[str]] = None
    indent: Optional[str] = None
    heading_gap: Optional[List[str]] = None
    section_gaps: Optional[List[int]] = None
    heading_ends: Optional[List[str]] = None
    pre: Optional[PreFlags] = None
    matrix: Optional[MatrixFlags] = None

    def data(self) -> Optional[Dict[str, Any]]:
        return written(self) or None


@dataclass
class SpecDraft:
    spec_name: str  # <id>_<slug>.yaml
    svg_name: Optional[str]  # the sidecar SVG's file name; None when the SVG is inline or absent
    svg_text: Optional[str]  # the page's SVG, whether inline or written to the sidecar
    id: int
    slug: str
    directory: Optional[str]
    name: str
    difficulty: str
    access_tier: str
    num_gpus: int
    atol: float
    rtol: float
    signature: List[Parameter]
    reference_helpers: Optional[str]
    reference: str
    reference_jax: Optional[str]
    exploded_reference_jax: Optional[bool]
    description: str
    svg: Optional[str]
    after_svg: Optional[str]
    requirements: Union[List[str], str]  # the items, or the section's HTML as the page writes it
    constraints: List[str]
    examples: List[ExampleEntry]  # written as `example:` when there is one
    prefill: Any
    scaffold: Optional[ScaffoldEntry]
    starter_helpers: Optional[Dict[str, str]]
    exploded_solve: Optional[List[str]]
    defaults: DefaultsEntry
    functional: List[CaseEntry]
    performance: PerformanceEntry
    page: PageLayout
    sections: Optional[List[SectionEntry]]
    tolerated_rules: Optional[List[str]]
    kept_starters: Optional[Dict[str, str]] = None

    def entry(self, label: str) -> CaseEntry:
        """The functional case named `label`."""
        return next(e for e in self.functional if e.name == label)

    def tolerate(self, code: str) -> None:
        self.tolerated_rules = sorted({*(self.tolerated_rules or []), code})

    def data(self) -> Dict[str, Any]:
        """The spec's fields by name, as `Spec` and the YAML writer take them."""
        found: Dict[str, Any] = {}
        for f in fields(self):
            if f.name in FILE_FIELDS:
                continue
            value = getattr(self, f.name)
            if f.name == "examples":
                examples = [_plain(e) for e in value]
                found["example"] = examples[0] if len(examples) == 1 else None
                found["examples"] = examples if len(examples) > 1 else None
                continue
            found[f.name] = [_plain(v) for v in value] if isinstance(value, list) else _plain(value)
        return found


def _plain(part: Any) -> Any:
    """A typed section as its data; anything else as it is."""
    return part.data() if is_dataclass(part) else part
