"""challenge.html -> description, SVG, requirements, constraints, and the example as shown.

The page is read by its landmarks (the first <h2>, the sections' titles, <li> items, <pre> lines,
bmatrix blocks) rather than by a full HTML parser: pages mix HTML with LaTeX, and what chgen needs
back is the author's text verbatim.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

_H2_RE = re.compile(r"<h2\s*>(.*?)</h2\s*>", re.S | re.I)
_LI_RE = re.compile(r"<li\s*>(.*?)</li\s*>", re.S | re.I)
_SVG_RE = re.compile(r"<svg\b.*?</svg\s*>", re.S | re.I)
_PERF_RE = re.compile(r"^Performance is measured with", re.I)
_PERF_SIZE_RE = re.compile(r"<code>(\w+)</code>\s*=\s*([\d,]+)")
_BMATRIX_RE = re.compile(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", re.S)
_LABEL_RE = re.compile(r"\\\((.*?)\\\)[^\\\n]*:\s*$")
_TEXT_RE = re.compile(r"^\\text\{(.*)\}$")
_SCALAR_LINE_RE = re.compile(r"^\\\((.*?)\\\) = (\S+?)(?:<br>)?$")


@dataclass
class Page:
    description: str
    svg: Optional[str]
    requirements: List[str]
    constraints: List[str]
    performance: Dict[str, int]  # sizes in the performance bullet, as shown
    example_outputs: Dict[str, Any]  # output name -> number or nested list, as shown
    scalar_labels: List[str]  # labels of the scalar lines of the example, in order
    matrix: bool  # the example is LaTeX bmatrix (else <pre>)
    has_example: bool
    notes: List[str] = field(default_factory=list)


def _sections(text: str) -> List[Tuple[str, str]]:
    """(title, body) for every <h2> section, in page order."""
    heads = list(_H2_RE.finditer(text))
    found = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        found.append((" ".join(head.group(1).split()), text[head.end() : end]))
    return found


def _items(body: str) -> List[str]:
    return [" ".join(item.split()) for item in _LI_RE.findall(body)]


def _number(text: str) -> Any:
    text = text.strip().rstrip(",")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, tuple):
        value = list(value)
    return value if _numeric(value) else None


def _numeric(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_numeric(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _leading_value(text: str) -> Any:
    """`[1.0, 2.0]  (comment)` or `70.0  (comment)` -> the value before the comment."""
    text = text.strip()
    if text.startswith("["):
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == "["
            depth -= ch == "]"
            if depth == 0:
                inner = re.sub(r"(?<=\d)\s+(?=[-\d])", ", ", text[: i + 1])
                return _number(inner)
        return None
    token = text.split()[0] if text.split() else ""
    return _number(token)


def _pre_example(body: str, outputs: List[str]) -> Tuple[Dict[str, Any], List[str]]:
    match = re.search(r"<pre\s*>(.*?)</pre\s*>", body, re.S | re.I)
    if not match:
        return {}, []
    found: Dict[str, Any] = {}
    labels: List[str] = []
    in_output = False
    for raw in match.group(1).splitlines():
        line = raw.strip()
        for label in ("Input:", "Output:"):
            if line.startswith(label):
                in_output = label == "Output:"
                line = line[len(label) :].strip()
        if " = " not in line:
            continue
        name, value = line.split(" = ", 1)
        name = name.strip()
        if in_output and name in outputs:
            parsed = _leading_value(value)
            if parsed is not None:
                found[name] = parsed
        elif not in_output:
            labels.append(name)
    return found, labels


def _matrix_example(body: str, outputs: List[str]) -> Tuple[Dict[str, Any], List[str]]:
    split = re.split(r"Output:\s*(?:<br>)?", body, maxsplit=1)
    labels = []
    for line in split[0].splitlines():
        match = _SCALAR_LINE_RE.match(line.strip())
        if match:
            labels.append(match.group(1))
    found: Dict[str, Any] = {}
    if len(split) < 2:
        return found, labels
    part = split[1]
    for block in _BMATRIX_RE.finditer(part):
        before = part[: block.start()].rstrip()
        before = before[: before.rfind("\\[")].rstrip() if before.endswith("\\[") else before
        label = _LABEL_RE.search(before.splitlines()[-1] if before.splitlines() else "")
        if not label:
            continue
        name = label.group(1)
        text_match = _TEXT_RE.match(name)
        name = text_match.group(1) if text_match else name
        if name not in outputs:
            continue
        rows = [r for r in block.group(1).strip().split("\\\\") if r.strip()]
        values = [[_number(x) for x in row.split("&")] for row in rows]
        if any(v is None for row in values for v in row):
            continue
        found[name] = values
    return found, labels


def read_page(text: str, outputs: List[str]) -> Page:
    """Split the page into the spec's fields; `outputs` are the output names to look for."""
    notes: List[str] = []
    first = _H2_RE.search(text)
    head = text[: first.start()] if first else text
    svg = None
    svgs = list(_SVG_RE.finditer(head))
    if svgs:
        svg = svgs[0].group(0).strip()
        after = head[svgs[0].end() :].strip()
        before = head[: svgs[0].start()].strip()
        if len(svgs) > 1:
            notes.append("challenge.html: only the first inline <svg> is kept (not representable)")
            after = _SVG_RE.sub("", after).strip()
        if after:
            notes.append("challenge.html: text after the <svg> now comes before it")
        head = before + ("\n\n" + after if after else "")
    description = head.strip()
    requirements: List[str] = []
    constraints: List[str] = []
    performance: Dict[str, int] = {}
    examples: List[str] = []
    other: List[str] = []
    for title, body in _sections(text):
        lowered = title.lower()
        if lowered.startswith("implementation requirements"):
            requirements = _items(body)
        elif lowered.startswith("example"):
            examples.append(body)
        elif lowered.startswith("constraints"):
            constraints = _items(body)
            tail = re.split(r"</ul\s*>", body, maxsplit=1)
            if len(tail) == 2 and tail[1].strip():
                notes.append("challenge.html: text after the Constraints list is dropped")
        else:
            other.append(title)
    if other:
        notes.append(
            "challenge.html: sections " + ", ".join(repr(t) for t in other) + " have no place "
            "in a spec and are dropped (not representable)"
        )
    if constraints and _PERF_RE.match(constraints[-1]):
        bullet = constraints.pop()
        performance = {n: int(v.replace(",", "")) for n, v in _PERF_SIZE_RE.findall(bullet)}
    else:
        notes.append("challenge.html: no performance bullet; chgen writes one from the test")
    if len(examples) > 1:
        notes.append(
            f"challenge.html: {len(examples)} examples; the spec keeps the first "
            "(one example per spec)"
        )
    outputs_found: Dict[str, Any] = {}
    labels: List[str] = []
    matrix = False
    if examples:
        body = examples[0]
        matrix = "\\begin{bmatrix}" in body and "<pre" not in body
        if matrix:
            outputs_found, labels = _matrix_example(body, outputs)
        else:
            outputs_found, labels = _pre_example(body, outputs)
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
    )
