"""The page rules whose findings have one mechanical fix that keeps every word a reader sees:
H007 (`\\_` inside `\\text{}` written `_`), H011 (the performance bullet's names put in signature
order), H012 (its plain integers comma-grouped) and H013 (raw ≤ ≥ × written as entities). The
import applies them to an original page the rules flag, so that the regenerated page passes
`chgen check`; each fix is reported with its rule."""

from __future__ import annotations

import re
from typing import List, Sequence, Tuple

from generator.challenge.page import Page, performance_bullet
from generator.checks.html import (
    _PLAIN_INT,
    RAW_MATH_CHARS,
    TEXT_MACRO_RE,
    _closing_brace,
    _inside_math,
)
from generator.html import grouped

_SEPARATOR = re.compile(r"(\s*(,|\band\b)\s*)+$")
_ITEM = re.compile(r"^(<code>\s*[^<]*?\s*</code>\s*=\s*)(.*?)(\s*\.?\s*)$", re.S)


def _replaced(text: str, edits: Sequence[Tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def text_underscores(text: str) -> Tuple[str, int]:
    """H007: `\\_` inside `\\text{...}` in math written as a plain `_`; the count fixed."""
    page = Page(text)
    edits = []
    for start, end, content in page.segments:
        if end < 0:
            continue
        for m in TEXT_MACRO_RE.finditer(content):
            close = _closing_brace(content, m.end() - 1)
            if close < 0:
                continue
            inner = content[m.end() : close]
            if "\\_" in inner:
                edits.append((start + m.end(), start + close, inner.replace("\\_", "_")))
    return _replaced(text, edits), len(edits)


def raw_characters(text: str) -> Tuple[str, int]:
    """H013: raw ≤ ≥ × in the page's text (not in <pre>, <code>, <svg> or math) as entities."""
    page = Page(text)
    edits = []
    for char, entity in RAW_MATH_CHARS.items():
        for m in re.finditer(re.escape(char), text):
            if not page.skipped(m.start()) and not _inside_math(page, m.start()):
                edits.append((m.start(), m.end(), entity))
    return _replaced(text, edits), len(edits)


def bullet_order_and_grouping(text: str, scalars: Sequence[str]) -> Tuple[str, List[str]]:
    """H011 and H012 on the performance bullet: its `<code>name</code> = value` items put in the
    order of `scalars` (the signature's scalar parameters) where it names only those, each once;
    a plain integer value comma-grouped. The codes fixed."""
    page = Page(text)
    found = performance_bullet(page)
    if found is None or not found[1]:
        return text, []
    li, items = found
    close = text.find("</li>", items[-1].offset)
    if close < 0:
        return text, []
    spans = []
    for i, item in enumerate(items):
        stop = items[i + 1].offset if i + 1 < len(items) else close
        piece = text[item.offset : stop]
        separator = _SEPARATOR.search(piece) if i + 1 < len(items) else None
        core_end = item.offset + (separator.start() if separator else len(piece))
        match = _ITEM.match(text[item.offset : core_end])
        if match is None:
            return text, []
        spans.append((item.offset, core_end, match))
    fixed: List[str] = []
    cores = []
    for item, (_, _, match) in zip(items, spans):
        value = match.group(2)
        if _PLAIN_INT.match(value) and grouped(int(value)) != value:
            value = grouped(int(value))
            if "H012" not in fixed:
                fixed.append("H012")
        cores.append((item.name, match.group(1) + value))
    names = [name for name, _ in cores]
    if set(names) <= set(scalars) and len(set(names)) == len(names):
        ordered = sorted(cores, key=lambda core: list(scalars).index(core[0]))
        if ordered != cores:
            cores = ordered
            fixed.append("H011")
    # what follows each value (a closing period) stays where it is
    edits = [
        (start, end, core + match.group(3)) for (start, end, match), (_, core) in zip(spans, cores)
    ]
    return (_replaced(text, edits) if fixed else text), fixed
