"""Numbers and example data as the challenge pages write them.

The example block comes from the spec's example values (never typed twice): 2-D data as LaTeX
bmatrix, 1-D data in <pre>, never mixed in one page; the performance bullet comes from the
performance case.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple, Union

_EXP_RE = re.compile(r"e([+-])0*(\d)")


def format_number(value: Any) -> str:
    """1.0, -0.5, 1.375, 1e-5, 3 — the way the public pages write numbers."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError(f"cannot show {value!r} in an example")
    if value == int(value) and abs(value) < 1e15:
        return f"{value:.1f}"
    text = repr(float(value))
    return _EXP_RE.sub(lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), text)


def grouped(value: int) -> str:
    """16384 -> '16,384' (the performance bullet and constraints group thousands)."""
    return f"{value:,}"


def bmatrix(data: Any) -> str:
    """A 1-D or 2-D literal as \\[ \\begin{bmatrix} ... \\end{bmatrix} \\]."""
    rows = data if isinstance(data, list) and data and isinstance(data[0], list) else [data]
    if not isinstance(rows[0], list):
        rows = [[rows[0]]]
    body = " \\\\\n".join(" & ".join(format_number(v) for v in row) for row in rows)
    return "\\[\n\\begin{bmatrix}\n" + body + "\n\\end{bmatrix}\n\\]"


def flat_list(data: Any) -> str:
    if isinstance(data, list):
        return "[" + ", ".join(flat_list(v) for v in data) + "]"
    return format_number(data)


def performance_bullet(sizes: Sequence[Tuple[str, int]]) -> str:
    parts = ", ".join(f"<code>{name}</code> = {grouped(value)}" for name, value in sizes)
    return f"Performance is measured with {parts}"


def tensor_label(name: str, dims: Sequence[Any], scalars: Dict[str, Any]) -> str:
    """'\\(\\text{x}\\) (N=2, C=4):' — the label above one example matrix."""
    named = [f"{d}={scalars[d]}" for d in dims if isinstance(d, str)]
    suffix = f" ({', '.join(named)})" if named else ""
    return f"\\(\\text{{{name}}}\\){suffix}:"


@dataclass(frozen=True)
class MatrixExample:
    """A 2-D page's Example section: a label and a bmatrix per tensor, the other scalars."""

    inputs: List[str]
    outputs: List[str]
    scalar_lines: List[str]
    matrix: bool = True


@dataclass(frozen=True)
class PreExample:
    """A 1-D page's Example section: the lines of one <pre> block."""

    pre_lines: List[str]
    matrix: bool = False


ExampleSection = Union[MatrixExample, PreExample]


def example_blocks(
    inputs: List[Tuple[str, List[Any], Any]],
    outputs: List[Tuple[str, List[Any], Any]],
    scalar_lines: List[Tuple[str, str, Any]],
    scalars: Dict[str, Any],
) -> ExampleSection:
    """Everything the template needs for the Example section.

    `inputs`/`outputs` are (name, symbolic shape, literal data); `scalar_lines` are the non-size
    scalars as (name, latex, value).
    """
    matrix = any(len(dims) >= 2 for _, dims, _ in inputs + outputs)
    if matrix:
        return MatrixExample(
            inputs=[tensor_label(n, d, scalars) + "\n" + bmatrix(v) for n, d, v in inputs],
            outputs=[tensor_label(n, d, scalars) + "\n" + bmatrix(v) for n, d, v in outputs],
            scalar_lines=[f"\\({latex}\\) = {format_number(v)}" for _, latex, v in scalar_lines],
        )
    lines: List[str] = []
    width = len("Output: ")
    for i, (name, _, value) in enumerate(inputs):
        lead = "Input:  " if i == 0 else " " * width
        lines.append(f"{lead}{name} = {flat_list(value)}")
    for name, _, value in scalar_lines:
        lines.append(f"{' ' * width}{name} = {format_number(value)}")
    for i, (name, _, value) in enumerate(outputs):
        lead = "Output: " if i == 0 else " " * width
        lines.append(f"{lead}{name} = {flat_list(value)}")
    return PreExample(pre_lines=lines)
