"""`page.indent`, `page.heading_gap`, `page.section_gaps` and `page.heading_ends`: the spaces
before the standard sections' <h2>s, the blank lines around them and how each <h2> ends, written
and read back side by side."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Set

#: the sections `heading_gap` names, in page order, with the section kind each is read from
GAP_SECTIONS = (
    ("requirements", "requirements"),
    ("examples", "example"),
    ("constraints", "constraints"),
)


def write_gaps(form: Any, examples: int) -> List[str]:
    """The blank lines before each standard <h2> in page order (Implementation Requirements, each
    example, Constraints), as the newlines the template writes; one each by default."""
    counts = form.section_gaps or [1] * (examples + 2)
    return ["\n" * count for count in counts]


#: how an <h2> ends unless the page says otherwise
END_TAG = "</h2>"


def write_ends(form: Any, examples: int) -> List[str]:
    """The end tag of each standard <h2> in page order (Implementation Requirements, each example,
    Constraints); `</h2>` each by default."""
    return list(form.heading_ends or [END_TAG] * (examples + 2))


def read(
    leads: Set[str],
    gapped: Mapping[str, bool],
    gaps_before: Sequence[int],
    ends: Sequence[str] = (),
) -> Dict[str, Any]:
    """The flags a page's standard sections show: `leads`, the text before each <h2> on its line;
    `gapped`, whether the first section of each kind has a blank line after its <h2>;
    `gaps_before`, the blank lines before each <h2> in page order; `ends`, each <h2>'s end tag
    in page order."""
    form: Dict[str, Any] = {}
    if len(leads) == 1:
        lead = next(iter(leads))
        if lead and not lead.strip(" "):
            form["indent"] = lead
    gaps = [section for section, kind in GAP_SECTIONS if gapped.get(kind)]
    if gaps:
        form["heading_gap"] = gaps
    if any(gap != 1 for gap in gaps_before):
        form["section_gaps"] = list(gaps_before)
    if any(end != END_TAG for end in ends):
        form["heading_ends"] = list(ends)
    return form
