"""Numbers and example data as the challenge pages write them.

The example block comes from the spec's example values (never typed twice): 2-D data as LaTeX
bmatrix, 1-D and rank >= 3 data in <pre> (nested lists broken per row, as the public set writes
them), never mixed in one page; an example of more than 4,096 elements is summarised by its shapes;
the performance bullet comes from the performance case.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

from generator.page.vocabulary import BULLET, INPUT_LABEL, MATRIX, OUTPUT_LABEL, PRE, SUMMARY

#: examples with more elements than this are shown by their shapes, not their values
SUMMARY_ELEMENTS = 4096

_EXP_RE = re.compile(r"e([+-])0*(\d)")


@dataclass(frozen=True)
class NumberFormat:
    """How an example writes its floats (see the spec's example `numbers`): rounded to
    `decimals` places (`fixed`: always that many, 5.00) or to `digits` significant digits, and
    int-valued floats as ints (`ints`: 2 for 2.0). The default is chgen's shortest form."""

    decimals: Optional[int] = None
    fixed: bool = False
    digits: Optional[int] = None
    ints: bool = False


PLAIN = NumberFormat()
#: int-valued floats as ints, as a drawn example's bounds are written ([&minus;1, 1])
INT_VALUED = NumberFormat(ints=True)


def format_number(value: Any, form: NumberFormat = PLAIN) -> str:
    """1.0, -0.5, 1.375, 1e-5, 3 — the way the public pages write numbers; `form` rounds as an
    example's `numbers` says (the values themselves stay as the spec gives them)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return repr(float(value))  # inf, -inf, nan
    if form.decimals is not None:
        value = round(value, form.decimals) + 0.0  # + 0.0: no "-0.0"
        if form.fixed:
            return f"{value:.{form.decimals}f}"
    elif form.digits is not None:
        value = float(f"{value:.{form.digits}g}") + 0.0
    if value == int(value) and abs(value) < 1e15:
        return str(int(value)) if form.ints else f"{value:.1f}"
    text = repr(float(value))
    return _EXP_RE.sub(lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), text)


def grouped(value: int) -> str:
    """16384 -> '16,384' (the performance bullet and constraints group thousands)."""
    return f"{value:,}"


def bmatrix(data: Any, form: NumberFormat = PLAIN) -> str:
    """A 1-D or 2-D literal as \\[ \\begin{bmatrix} ... \\end{bmatrix} \\]."""
    rows = data if isinstance(data, list) and data and isinstance(data[0], list) else [data]
    if not isinstance(rows[0], list):
        rows = [[rows[0]]]
    body = " \\\\\n".join(" & ".join(format_number(v, form) for v in row) for row in rows)
    return "\\[\n\\begin{bmatrix}\n" + body + "\n\\end{bmatrix}\n\\]"


def flat_list(data: Any, form: NumberFormat = PLAIN) -> str:
    if isinstance(data, list):
        return "[" + ", ".join(flat_list(v, form) for v in data) + "]"
    return format_number(data, form)


def pre_nested(data: Any, column: int, form: NumberFormat = PLAIN) -> str:
    """A nested list as the <pre> examples write it: one innermost row per line, aligned under
    its opening bracket (`column` is where the first bracket stands)."""
    if not isinstance(data, list) or not data or not isinstance(data[0], list):
        return flat_list(data, form)
    rows = [pre_nested(row, column + 1, form) for row in data]
    return "[" + (",\n" + " " * (column + 1)).join(rows) + "]"


@dataclass(frozen=True)
class Summarised:
    """An example tensor the page knows by its shape only: a seeded draw, or an output the
    reference gives for one; `draw` says how an input is drawn (HTML), None for an output."""

    dims: Tuple[int, ...]
    draw: Optional[str] = None


def element_count(data: Any) -> int:
    if isinstance(data, Summarised):
        return math.prod(data.dims)
    if isinstance(data, list):
        return sum(element_count(v) for v in data)
    return 1


def shape_text(shape: Sequence[int]) -> str:
    """(4, 768) or (7,087,872,): a summary's shape, thousands grouped."""
    dims = [grouped(d) for d in shape]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def performance_bullet(sizes: Sequence[Tuple[str, int]]) -> str:
    parts = ", ".join(f"<code>{name}</code> = {grouped(value)}" for name, value in sizes)
    return f"{BULLET} {parts}"


def unbatched(data: Any) -> Any:
    """A rank >= 3 literal whose leading dimensions are 1 as the matrix of its last two (a
    [1, 3, 4] batch of one as its 3x4 matrix); any other data as it is."""
    while isinstance(data, list) and len(data) == 1 and len(literal_dims(data)) > 2:
        data = data[0]
    return data


def scalar_line(name: str, latex: Optional[str], value: Any, form: NumberFormat = PLAIN) -> str:
    """'\\(\\alpha = 0.5\\)' for a scalar the page writes in LaTeX, else
    '<code>k</code>: 3'."""
    if latex:
        return f"\\({latex} = {format_number(value, form)}\\)"
    return f"<code>{name}</code>: {format_number(value, form)}"


@dataclass(frozen=True)
class MatrixExample:
    """A 2-D page's Example section: a label and a bmatrix per tensor, the other scalars (each
    line but the last ends in <br>), then the explanation's HTML if any. `split`: the Output part
    has a <p> of its own (`gap`: after a blank line)."""

    title: str
    inputs: List[str]
    outputs: List[str]
    scalar_lines: List[str]
    explanation: Optional[str]
    input_heading: str = "<strong>Input:</strong>"
    output_heading: str = "<strong>Output:</strong>"
    split: bool = True
    gap: bool = True
    matrix: bool = True
    display: Optional[str] = None


@dataclass(frozen=True)
class PreExample:
    """A 1-D, rank >= 3 or summarised page's Example section: the text of one <pre> block
    (`tight`: on the tags' own lines), then the explanation's HTML if any."""

    title: str
    pre_lines: List[str]
    explanation: Optional[str]
    tight: bool = False
    matrix: bool = False
    display: Optional[str] = None
    #: a drawn example's <p> above its shapes: the sizes and how each input is drawn
    intro: Optional[str] = None

    @property
    def pre_text(self) -> str:
        return "\n".join(self.pre_lines)


@dataclass(frozen=True)
class WrittenExample:
    """An example whose data block is the spec's `display` HTML, written as given (the escape
    hatch for a page whose text is no function of the example's values)."""

    title: str
    display: str
    explanation: Optional[str]
    matrix: bool = False


ExampleSection = Union[MatrixExample, PreExample, WrittenExample]

#: (name, symbolic shape, literal data) of one example tensor
Shown = Tuple[str, List[Any], Any]


def shown_value(dims: Sequence[Any], value: Any, column: int, form: NumberFormat = PLAIN) -> str:
    """A <pre> value: a tensor of shape [1] (a single result) as its number, `Output: mse = 0.25`
    as the public pages write it; anything else (a [N] tensor with N = 1 too) as its list."""
    if list(dims) == [1] and isinstance(value, list):
        return format_number(value[0], form)
    return pre_nested(value, column, form)


def example_form(tensors: Sequence[Shown], squeeze: bool = False) -> str:
    """'summary' past 4,096 elements, 'matrix' when the data is at most 2-D with a 2-D tensor
    (`squeeze`: a batch of one counting as its matrix, see `unbatched`), else 'pre'."""
    if any(isinstance(v, Summarised) for _, _, v in tensors):
        return SUMMARY
    if sum(element_count(v) for _, _, v in tensors) > SUMMARY_ELEMENTS:
        return SUMMARY
    ranks = [len(literal_dims(unbatched(v))) if squeeze else len(dims) for _, dims, v in tensors]
    return MATRIX if ranks and max(ranks) == 2 else PRE


def summary_lines(
    inputs: List[Shown], outputs: List[Shown], scalar_lines: List[Tuple[str, Optional[str], Any]]
) -> List[str]:
    width = len(f"{OUTPUT_LABEL} ")
    given = [(f"{n}.shape", shape_text(literal_dims(v))) for n, _, v in inputs]
    given += [(latex or n, format_number(v)) for n, latex, v in scalar_lines]
    got = [(f"{n}.shape", shape_text(literal_dims(v))) for n, _, v in outputs]
    pad = max(len(label) for label, _ in given + got)
    lines = [
        f"{f'{INPUT_LABEL}  ' if i == 0 else ' ' * width}{label.ljust(pad)} = {text}"
        for i, (label, text) in enumerate(given)
    ]
    lines += [
        f"{f'{OUTPUT_LABEL} ' if i == 0 else ' ' * width}{label.ljust(pad)} = {text}"
        for i, (label, text) in enumerate(got)
    ]
    return lines


def draw_text(kind: str, args: Sequence[Any]) -> str:
    """How a summary's intro says an input is drawn, in the words of the public summaries."""
    low, high = (format_number(v, INT_VALUED).replace("-", "&minus;") for v in args)
    if kind == "uniform":
        return f"uniformly drawn from [{low}, {high}]"
    if kind == "normal":
        return f"drawn from a normal distribution (mean {low}, standard deviation {high})"
    if kind == "randint":
        return f"random integers drawn from [{low}, {high})"
    return f"filled with {low}"


def summary_intro(sizes: Sequence[Tuple[str, Any]], inputs: List[Shown]) -> Optional[str]:
    """'With <code>N</code> = 4 and <code>x</code> uniformly drawn from [&minus;1, 1]:' above a
    drawn example's shapes, as the public summaries introduce them; None for literal data."""
    drawn = [(n, v.draw) for n, _, v in inputs if isinstance(v, Summarised) and v.draw]
    if not drawn:
        return None
    parts = [f"<code>{n}</code> = {grouped(v)}" for n, v in sizes]
    parts += [f"<code>{n}</code> {how}" for n, how in drawn]
    if len(parts) == 1:
        return f"With {parts[0]}:"
    joiner = ", and " if len(parts) > 2 else " and "
    return f"With {', '.join(parts[:-1])}{joiner}{parts[-1]}:"


def literal_dims(value: Any) -> List[int]:
    if isinstance(value, Summarised):
        return list(value.dims)
    dims = []
    while isinstance(value, list):
        dims.append(len(value))
        value = value[0]
    return dims
