"""`page.matrix`: how a bmatrix example labels its parts, written and read back side by side.

The writer builds a 2-D example's labels, bmatrix blocks and Input/Output headings from its values;
the reader takes the page's first bmatrix example section and says which flags it shows (only those
that differ from the defaults, keyed as the spec's `page.matrix`). `squeeze` is read by the form
of the data (see `chgen import`), not from the section's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from generator.html import (
    PLAIN,
    MatrixExample,
    NumberFormat,
    Shown,
    bmatrix,
    literal_dims,
    scalar_line,
    unbatched,
)
from generator.page.vocabulary import INPUT, OUTPUT

#: a line of scalars written inline: `<code>a</code>: 1, <code>b</code>: 2`
INLINE_SCALARS_RE = re.compile(r"^<code>\w+</code>: [^\s,<]+(?:, <code>\w+</code>: [^\s,<]+)+$")


@dataclass(frozen=True)
class MatrixLayout:
    """How a bmatrix example labels its parts (see the spec's page.matrix)."""

    strong: bool = True
    split: bool = True
    labels: str = "code"
    times: str = "&times;"
    gap: bool = True
    squeeze: bool = False
    indent: str = ""
    inline: bool = False


# ------------------------------------------------------------------ writing


def tensor_label(name: str, value: Any, style: str = "code", times: str = "&times;") -> str:
    """'<code>Q</code> (2&times;4):' — the label above one example matrix, as most public matrix
    pages write it; a 1-D tensor's label carries no size. The "latex" style writes
    'Matrix \\(A\\) (\\(2 \\times 2\\)):' and 'Vector \\(x\\):'."""
    dims = literal_dims(value)
    if style == "latex":
        if len(dims) >= 2:
            size = " \\times ".join(str(d) for d in dims)
            return f"Matrix \\({name}\\) (\\({size}\\)):"
        return f"Vector \\({name}\\):"
    suffix = f" ({times.join(str(d) for d in dims)})" if len(dims) >= 2 else ""
    return f"<code>{name}</code>{suffix}:"


def write(
    title: str,
    inputs: List[Shown],
    outputs: List[Shown],
    scalar_lines: List[Tuple[str, Optional[str], Any]],
    explanation: Optional[str],
    matrix: MatrixLayout,
    numbers: Tuple[NumberFormat, NumberFormat] = (PLAIN, PLAIN),
) -> MatrixExample:
    """A 2-D example's section: a label and a bmatrix per tensor under the Input and Output
    headings, the scalars between, as `matrix` lays them out."""
    given, got = numbers
    lines = [scalar_line(n, latex, v, given) for n, latex, v in scalar_lines]
    heading = "<strong>{}:</strong>" if matrix.strong else "{}:"

    def indented(text: str) -> str:
        return "\n".join(matrix.indent + line for line in text.split("\n"))

    def block(name: str, value: Any, form: NumberFormat) -> str:
        label = tensor_label(name, value, matrix.labels, matrix.times)
        shown = unbatched(value) if matrix.squeeze else value
        return indented(label + "\n" + bmatrix(shown, form))

    if matrix.inline and lines:
        lines = [", ".join(lines)]
    return MatrixExample(
        title=title,
        inputs=[block(n, v, given) for n, _, v in inputs],
        outputs=[block(n, v, got) for n, _, v in outputs],
        scalar_lines=[indented(line + "<br>") for line in lines[:-1]]
        + [indented(line) for line in lines[-1:]],
        explanation=explanation,
        input_heading=indented(heading.format(INPUT)),
        output_heading=indented(heading.format(OUTPUT)),
        split=matrix.split,
        gap=matrix.gap,
    )


# ------------------------------------------------------------------ reading


def read(body: str) -> Dict[str, Any]:
    """The flags the first bmatrix example's section `body` shows, as the spec's `page.matrix`."""
    form: Dict[str, Any] = {}
    if f"<strong>{INPUT}" not in body:
        form["strong"] = False
    split = re.search(rf"</p>(\s*)<p>\s*(?:<strong>)?{OUTPUT}", body)
    if not split:
        form["split"] = False
    elif "\n\n" not in split.group(1):
        form["gap"] = False
    if re.search(r"(?:Matrix|Vector) \\\(", body):
        form["labels"] = "latex"
    if re.search(r"</code> \(\d+×\d+", body):
        form["times"] = "×"
    inner = [
        line
        for part in re.findall(r"<p>\n(.*?)\n</p>", body, re.S)
        for line in part.split("\n")
        if line.strip()
    ]
    leads = {line[: len(line) - len(line.lstrip(" "))] for line in inner}
    if len(leads) == 1 and leads != {""}:
        form["indent"] = leads.pop()
    if any(INLINE_SCALARS_RE.match(line.strip()) for line in inner):
        form["inline"] = True
    return form
