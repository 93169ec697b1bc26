"""`page`, `after_svg` and `sections`: the layout fields agree with the page's sections."""

from __future__ import annotations

from typing import Iterable

from generator.spec.derived import SpecView
from generator.spec.rules.common import Issue


#: the page fields that give one value per standard section: what each counts, and the fix
PER_SECTION = (
    ("section_gaps", "gap(s)", "give one number of blank lines per section"),
    ("heading_ends", "end tag(s)", "give one end tag per section"),
)


def validate_page(view: SpecView) -> Iterable[Issue]:
    spec = view.spec
    sections = len(spec.examples) + 2
    for name, unit, hint in PER_SECTION:
        given = getattr(spec.page, name)
        if given is not None and len(given) != sections:
            yield (
                ("page", name),
                f"{name} gives {len(given)} {unit}; the page has {sections} sections "
                "(Implementation Requirements, each example, Constraints)",
                hint,
            )
    if spec.after_svg is not None and spec.svg is None:
        yield (
            ("after_svg",),
            "after_svg places HTML after the SVG, and the spec has no svg",
            "give the svg, or move this HTML to the end of the description",
        )
    indents = spec.page.item_indents
    items = len(spec.requirement_items) + len(spec.constraints)
    if indents is not None and len(indents) != items:
        yield (
            ("page", "item_indents"),
            f"item_indents gives {len(indents)} indentation(s); the page has {items} items "
            "(Implementation Requirements, then Constraints, the performance bullet apart)",
            "give one indentation per item, in page order",
        )
    order = ["description", "requirements", "examples", "constraints"]
    for i, (before, section) in enumerate(zip(spec.sections, spec.sections[1:]), start=1):
        if order.index(section.after) < order.index(before.after):
            yield (
                ("sections", i, "after"),
                f"section {section.title!r} comes after {section.after}, before the section "
                f"{before.title!r} above it (after {before.after})",
                "list the sections in page order",
            )
