"""`page.pre`: how a <pre> example writes its lines, written and read back side by side.

The writer lays out `Input:  name = value` and `Output: name = value` lines from the example's
values; the reader takes the inner text of a page's first <pre> example and says which flags it
shows (only those that differ from the defaults, keyed as the spec's `page.pre`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from generator.html import PLAIN, NumberFormat, Shown, format_number, shown_value
from generator.page.vocabulary import INPUT_LABEL, OUTPUT_LABEL


@dataclass(frozen=True)
class PreLayout:
    """How a <pre> example writes its lines (see the spec's page.pre)."""

    tight: bool = False
    aligned: bool = True
    unnamed: Tuple[str, ...] = ()
    inline: bool = False
    indent: str = ""
    size_note: bool = False


# ------------------------------------------------------------------ writing


def write_lines(
    inputs: List[Shown],
    outputs: List[Shown],
    scalar_lines: List[Tuple[str, Optional[str], Any]],
    pre: PreLayout,
    sizes: Sequence[Tuple[str, Any]] = (),
    numbers: Tuple[NumberFormat, NumberFormat] = (PLAIN, PLAIN),
) -> List[str]:
    """`Input:  name = value` lines, then `Output: name = value`: one per value, or the Input
    part on one line (`inline`); a sole tensor without its name in the `unnamed` parts; the sizes
    after the first line, `  (N=4)`, for a `size_note`."""
    in_lead = f"{INPUT_LABEL}  " if pre.aligned else f"{INPUT_LABEL} "
    out_lead = f"{OUTPUT_LABEL} "

    def part(lead: str, shown: List[Tuple[Optional[str], str]]) -> List[str]:
        if pre.inline and shown:
            joined = ", ".join(text if name is None else f"{name} = {text}" for name, text in shown)
            return [lead + joined]
        return [
            (lead if i == 0 else " " * len(lead)) + (text if name is None else f"{name} = {text}")
            for i, (name, text) in enumerate(shown)
        ]

    def tensors(lead: str, given: List[Shown], part: str) -> List[Tuple[Optional[str], str]]:
        bare = part in pre.unnamed and len(given) == 1
        column = len(pre.indent) + len(lead)
        form = numbers[part == "output"]
        return [
            (
                (None, shown_value(dims, value, column, form))
                if bare
                else (name, shown_value(dims, value, column + len(name) + 3, form))
            )
            for name, dims, value in given
        ]

    given = tensors(in_lead, inputs, "input") + [
        (latex or name, format_number(value, numbers[0])) for name, latex, value in scalar_lines
    ]
    input_lines = part(in_lead, given)
    if pre.size_note and sizes and input_lines:
        note = ", ".join(f"{name}={format_number(value)}" for name, value in sizes)
        input_lines[0] += f"  ({note})"
    lines = input_lines + part(out_lead, tensors(out_lead, outputs, "output"))
    return [pre.indent + line for line in lines]


# ------------------------------------------------------------------ reading


def top_level_parts(line: str) -> List[str]:
    """`A = [1, 2], N = 2` -> ['A = [1, 2]', 'N = 2']: the line split at commas outside brackets
    and parentheses, each part stripped."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(line):
        depth += char in "[("
        depth -= char in "])"
        if char == "," and depth == 0:
            parts.append(line[start:i].strip())
            start = i + 1
    parts.append(line[start:].strip())
    return [part for part in parts if part]


def read(body: str) -> Dict[str, Any]:
    """The flags the first <pre> example's section `body` shows, as the spec's `page.pre`."""
    match = re.search(r"<pre>(.*?)</pre>", body, re.S)
    if match is None:
        return {}
    inner = match.group(1)
    form: Dict[str, Any] = {}
    if not inner.startswith("\n") and not inner.endswith("\n"):
        form["tight"] = True
    lines = [line for line in inner.strip("\n").splitlines() if line.strip()]
    indents = {
        len(line) - len(line.lstrip(" "))
        for line in lines
        if line.lstrip().startswith((INPUT_LABEL, OUTPUT_LABEL))
    }
    if len(indents) == 1 and indents != {0}:
        form["indent"] = " " * indents.pop()
    labelled = [line.strip() for line in lines]
    inputs = next((line for line in labelled if line.startswith(INPUT_LABEL)), None)
    if (
        inputs is not None
        and inputs.startswith(f"{INPUT_LABEL} ")
        and not inputs.startswith(f"{INPUT_LABEL}  ")
    ):
        form["aligned"] = False
    unnamed = [
        part
        for part, label in (("input", INPUT_LABEL), ("output", OUTPUT_LABEL))
        if any(
            line.startswith(label) and line[len(label) :].strip()[:1] in "[-0123456789"
            for line in labelled
        )
    ]
    if unnamed:
        form["unnamed"] = unnamed
    if inputs is not None:
        written_in = inputs.split(":", 1)[1]
        note = re.search(r"\s\s\((?:\w+=[\d.]+(?:, )?)+\)$", written_in)
        if note:
            form["size_note"] = True
            written_in = written_in[: note.start()]
        following = labelled[labelled.index(inputs) + 1 :]
        alone = not following or following[0].startswith(OUTPUT_LABEL)
        if alone and len(top_level_parts(written_in)) > 1:
            form["inline"] = True
    return form
