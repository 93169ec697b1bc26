"""challenge.html -> description, SVG, requirements, constraints, and the example as shown.

The page is read by generator/challenge/page.py (sections, <li> items, the SVG, the example's
values, the performance bullet, all verbatim); this module maps those facts onto spec fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from generator.challenge.page import (
    Heading,
    ListItem,
    Roles,
    ShownValues,
    example_values,
    own_html,
    own_sections,
    page_layout,
    performance_bullet,
)
from generator.challenge.page import read_page as read_page_facts
from generator.html import NumberFormat, format_number
from generator.importer.draft import SectionEntry
from generator.importer.report import ImportFailure
from generator.page.vocabulary import BULLET, section_of


@dataclass
class PageExample:
    """One example section as the page writes it."""

    title: str  # the heading as written
    explanation: Optional[str]  # HTML under the data
    labels: List[str]  # `name = value` labels of the Input part (<pre>)
    shown: ShownValues  # every value it writes, per (name, in the Output part)
    form: Optional[str] = None  # "pre", "bmatrix", or None (neither)
    #: the section's content as an example's `display` holds it (its explanation included)
    block: str = ""


@dataclass
class Page:
    description: str
    svg: Optional[str]
    #: the items; or the section's HTML as written where it is not one list
    requirements: Union[List[str], str]
    constraints: List[str]
    performance: Dict[str, int]  # sizes in the performance bullet, as shown
    example_outputs: Dict[str, Any]  # output name -> number or nested list, as shown
    scalar_labels: List[str]  # labels of the scalar lines of the example, in order
    matrix: bool  # the example is LaTeX bmatrix (else <pre>)
    has_example: bool
    notes: List[str] = field(default_factory=list)
    examples: List[PageExample] = field(default_factory=list)
    #: the spec's `page:` block: the layout choices where the page departs from the defaults
    form: Dict[str, Any] = field(default_factory=dict)
    #: the page's HTML after its SVG (the spec's `after_svg`)
    after_svg: Optional[str] = None
    #: the spec's `sections:`: the page's own sections, in page order
    sections: List[SectionEntry] = field(default_factory=list)
    #: the performance bullet's HTML on one line, as written (not among `constraints`)
    bullet: Optional[str] = None


def read_page(
    text: str,
    outputs: List[str],
    names: Optional[List[str]] = None,
    sole_in: Optional[str] = None,
    inputs: Optional[List[str]] = None,
) -> Page:
    """Split the page into the spec's fields; `outputs` are the output names to look for, `names`
    every parameter and `inputs` the input tensors (for the values of examples after the first),
    `sole_in` the only input. Text after the Constraints list, which no spec field keeps, is
    refused (ImportFailure)."""
    page = read_page_facts(text)
    notes: List[str] = []
    head = page.head
    svg = after = None
    svgs = page.svgs(0, len(head))
    if svgs:
        start, end = svgs[0]
        svg = head[start:end].strip()
        after = head[end:].strip()  # other drawings included: the spec's `after_svg`
        head = head[:start].strip()
    description = head.strip()
    requirements: Union[List[str], str] = []
    constraints: List[str] = []
    examples = []
    for heading in [h for h in page.headings if h.level == 2]:
        kind = section_of(heading.title)
        if kind == "requirements":
            requirements = _requirements(page, heading)
        elif kind == "example":
            examples.append(heading)
        elif kind == "constraints":
            constraints = [item_html(item) for item in page.items(heading)]
            if page.after_list(heading).strip():
                raise ImportFailure(
                    "challenge.html: the Constraints section holds text after its list, which no "
                    "spec field keeps (page part not representable: constraints)"
                )
    sections = []
    for own in own_sections(page):
        if own.between_examples:
            notes.append(
                f"challenge.html: section {own.heading.title!r} stands between examples; "
                "chgen places it after the last one"
            )
        sections.append(SectionEntry(own.title, own.html + "\n", own.after, own.gap))
    performance: Dict[str, int] = {}
    bullet = performance_bullet(page)
    last = " ".join(constraints[-1].split()).lower() if constraints else ""
    bullet_html = None
    if bullet is not None and last.startswith(BULLET.lower()):
        if "\n" not in constraints[-1]:  # else kept as the page breaks it (performance.bullet)
            bullet_html = constraints.pop()
        performance = {item.name: item.number for item in bullet[1] if item.number is not None}
    else:
        notes.append("challenge.html: no performance bullet; chgen writes one from the test")
    outputs_found: Dict[str, Any] = {}
    labels: List[str] = []
    matrix = False
    shown_examples = [e for e in page.examples() if e.heading in examples]
    if shown_examples:
        example = shown_examples[0]
        matrix = example.form == "bmatrix"
        labels = example.input_labels
        shown = example_values(page, example, outputs, outputs)
        for name in outputs:
            candidates = shown.found.get((name, True))
            if candidates:
                outputs_found[name] = candidates[0].nested
    sole_out = outputs[0] if len(outputs) == 1 else None
    roles = Roles(tuple(inputs or ()), tuple(outputs))
    every = [
        PageExample(
            e.title,
            e.explanation,
            e.input_labels,
            example_values(
                page, e, names or outputs, names or outputs, sole_in, sole_out, roles if i else None
            ),
            e.form,
            written_block(page.body(e.heading)),
        )
        for i, e in enumerate(shown_examples)
    ]
    return Page(
        description=description,
        svg=svg,
        requirements=requirements,
        constraints=constraints,
        performance=performance,
        example_outputs=outputs_found,
        scalar_labels=labels,
        matrix=matrix,
        has_example=bool(examples),
        notes=notes,
        examples=every,
        form=page_layout(page, shown_examples),
        sections=[section for section in sections if section.html.strip()],
        after_svg=after or None,
        bullet=bullet_html,
    )


def written_block(body: str) -> str:
    """A section's content as an example's `display` holds it: its own lines, not the blank
    lines (nor the next heading's indentation) around it, which the page's layout writes."""
    return re.sub(r"^(?:[ \t]*\n)+", "", body.rstrip())


def _requirements(page: Any, heading: Heading) -> Union[List[str], str]:
    """The Implementation Requirements items, or the section's HTML as written where it holds
    anything but one list (paragraphs, text around the list)."""
    items = page.items(heading)
    body = page.body(heading)
    opening = re.search(r"<(ul|ol)\b", body)
    around = body[: opening.start()] if opening else body
    if items and opening and not around.strip() and not page.after_list(heading).strip():
        return [item_html(item) for item in items]
    return own_html(body) + "\n"


def item_html(item: ListItem) -> str:
    """An item on one line as the spec writes it; one the page breaks over lines, verbatim."""
    return item.html if "\n" in item.html else item.text


def _number_forms() -> Iterator[Dict[str, Any]]:
    """The example number formats an import tries, simplest first ({}: chgen's own)."""
    yield {}
    yield {"ints": True}
    for decimals in range(0, 11):
        yield {"decimals": decimals}
        yield {"decimals": decimals, "fixed": True}
        yield {"decimals": decimals, "ints": True}
    for digits in range(1, 18):
        yield {"digits": digits}


def number_form(pairs: List[Tuple[Any, str]]) -> Optional[Dict[str, Any]]:
    """The first format that writes every (spec value, text on the page) pair as the page does;
    None when none does (the page's text is no rounding of the values)."""
    floats = [(value, text) for value, text in pairs if isinstance(value, float)]
    for fields in _number_forms():
        form = NumberFormat(**fields)
        if all(format_number(value, form) == text for value, text in floats):
            return fields
    return None


def example_numbers(
    inputs: List[Tuple[Any, str]], outputs: List[Tuple[Any, str]]
) -> Optional[Dict[str, Any]]:
    """An example's `numbers:` from the (value, text) pairs of its Input and Output parts: one
    format for both where one fits, else the parts' own (chgen's where a part needs none)."""
    both = number_form(inputs + outputs)
    if both is not None:
        return both or None
    given, got = number_form(inputs), number_form(outputs)
    if got:
        return {**got, "parts": ["output"]}
    if given:
        return {**given, "parts": ["input"]}
    return None
