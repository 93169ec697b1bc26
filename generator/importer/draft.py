"""The spec an import builds: one field per field of `generator.spec.model.Spec`, filled section by
section, and the files it is written as. `data()` is what the model validates and the writer
writes; a field left None is not written."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Dict, List, Optional, Union

#: the draft's fields that are no spec fields: where the spec and its SVG are written
FILE_FIELDS = ("spec_name", "svg_name", "svg_text")


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
    signature: List[Dict[str, Any]]
    reference_helpers: Optional[str]
    reference: str
    reference_jax: Optional[str]
    exploded_reference_jax: Optional[bool]
    description: str
    svg: Optional[str]
    after_svg: Optional[str]
    requirements: Union[List[str], str]  # the items, or the section's HTML as the page writes it
    constraints: List[str]
    examples: List[Dict[str, Any]]  # written as `example:` when there is one
    prefill: Any
    scaffold: Optional[Dict[str, Any]]
    starter_helpers: Optional[Dict[str, str]]
    exploded_solve: Optional[List[str]]
    defaults: Optional[Dict[str, Any]]
    functional: List[Dict[str, Any]]
    performance: Dict[str, Any]
    page: Optional[Dict[str, Any]]
    sections: Optional[List[Dict[str, Any]]]
    tolerated_rules: Optional[List[str]]
    kept_starters: Optional[Dict[str, str]] = None

    def entry(self, label: str) -> Dict[str, Any]:
        """The functional case named `label`."""
        return next(e for e in self.functional if e["name"] == label)

    def tolerate(self, code: str) -> None:
        self.tolerated_rules = sorted({*(self.tolerated_rules or []), code})

    def data(self) -> Dict[str, Any]:
        """The spec's fields by name, as `Spec` and the YAML writer take them."""
        found: Dict[str, Any] = {}
        for f in fields(self):
            if f.name in FILE_FIELDS:
                continue
            if f.name == "examples":
                one = len(self.examples) == 1
                found["example"] = self.examples[0] if one else None
                found["examples"] = self.examples if len(self.examples) > 1 else None
                continue
            found[f.name] = getattr(self, f.name)
        return found
