"""The words challenge.html is written and read in: the standard sections' titles, the performance
bullet, the example labels and titles.

Two matchers, on purpose: a reader takes a section by the start of its title ("Example 2",
"Constraints and notes" feed examples and constraints, as `chgen import` reads public pages); the
checks ask for a title written exactly as the public set writes it ("Example 1", "Examples").
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

REQUIREMENTS = "Implementation Requirements"
EXAMPLE = "Example"
CONSTRAINTS = "Constraints"
#: the standard sections in page order, as the template and the checks name them
TITLES = {"requirements": REQUIREMENTS, "example": EXAMPLE, "constraints": CONSTRAINTS}
#: how the last constraint, the performance bullet, starts
BULLET = "Performance is measured with"
#: the labels of an example's two parts
INPUT = "Input"
OUTPUT = "Output"
INPUT_LABEL = f"{INPUT}:"
OUTPUT_LABEL = f"{OUTPUT}:"
#: the forms an example's data takes, as the writer chooses them (html.example_form)
PRE = "pre"
MATRIX = "matrix"
SUMMARY = "summary"
#: the forms a reader finds on a page: a <pre> block or a LaTeX bmatrix
BMATRIX = "bmatrix"
#: the form a reader finds for each form the writer chooses (a summary is a <pre> block)
FOUND_AS = {PRE: PRE, MATRIX: BMATRIX, SUMMARY: PRE}
#: an Example section's title as the checks accept it: "Example", "Examples", "Example 2"
EXAMPLE_TITLE_RE = re.compile(r"^examples?(\s*\d+)?$", re.I)


def section_of(title: str) -> Optional[str]:
    """The standard section ("requirements", "example", "constraints") a title starts with,
    case aside, else None: how a reader takes a page's sections."""
    lowered = title.lower()
    return next((kind for kind, said in TITLES.items() if lowered.startswith(said.lower())), None)


def standard_kind(title: str) -> Optional[str]:
    """The standard section a title names exactly (an Example title may be numbered), else
    None: how the checks read a heading."""
    if title.lower() == REQUIREMENTS.lower():
        return "requirements"
    if EXAMPLE_TITLE_RE.match(title):
        return "example"
    if title.lower() == CONSTRAINTS.lower():
        return "constraints"
    return None


def example_titles(given: Sequence[Optional[str]]) -> List[str]:
    """The public majority: "Example" alone; "Example 1:", "Example 2:", ... when there are
    several; an example's own title wins."""
    count = len(given)
    default = [EXAMPLE] if count == 1 else [f"{EXAMPLE} {i}:" for i in range(1, count + 1)]
    return [title or fallback for title, fallback in zip(given, default)]
