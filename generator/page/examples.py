"""One Example section from the example's values: the form of its data (html.example_form) picks
the family that writes it (`pre`, `matrix`), or a summary of its shapes, or its `display` as given.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from generator.html import (
    PLAIN,
    ExampleSection,
    NumberFormat,
    PreExample,
    Shown,
    WrittenExample,
    example_form,
    summary_intro,
    summary_lines,
)
from generator.page import matrix as matrix_family
from generator.page import pre as pre_family
from generator.page.matrix import MatrixLayout
from generator.page.pre import PreLayout
from generator.page.vocabulary import MATRIX, SUMMARY


def example_blocks(
    title: str,
    inputs: List[Shown],
    outputs: List[Shown],
    scalar_lines: List[Tuple[str, Optional[str], Any]],
    explanation: Optional[str] = None,
    pre: PreLayout = PreLayout(),
    matrix: MatrixLayout = MatrixLayout(),
    sizes: Sequence[Tuple[str, Any]] = (),
    numbers: Tuple[NumberFormat, NumberFormat] = (PLAIN, PLAIN),
    display: Optional[str] = None,
) -> ExampleSection:
    """Everything the template needs for one Example section.

    `inputs`/`outputs` are (name, symbolic shape, literal data); `scalar_lines` are the scalars the
    section lists as (name, latex or None, value); `explanation` is HTML shown under the data;
    `pre` and `matrix` say how the page lays its form out; `sizes` are (name, value) of the sizes
    for a `size_note`; `numbers` are the number formats of the Input and the Output part;
    `display`, when given, is the data block's HTML as written.
    """
    if display is not None:
        return WrittenExample(title, display.strip("\n"), explanation)
    form = example_form(inputs + outputs, matrix.squeeze)
    if form == MATRIX:
        return matrix_family.write(
            title, inputs, outputs, scalar_lines, explanation, matrix, numbers
        )
    if form == SUMMARY:
        lines = summary_lines(inputs, outputs, scalar_lines)
        return PreExample(title, lines, explanation, intro=summary_intro(sizes, inputs))
    lines = pre_family.write_lines(inputs, outputs, scalar_lines, pre, sizes, numbers)
    return PreExample(title, lines, explanation, tight=pre.tight)
