"""challenge.html rules: structure, SVG, LaTeX, example form and the performance bullet.

The page is read by generator/challenge/page.py; LaTeX goes through latex2mathml (loaded only when
a page has math) plus the balance checks that parser is lenient about.
"""

from __future__ import annotations

import functools
import html as html_text
import re
from typing import Dict, List, Optional

from generator.challenge.page import (
    Page,
    Tag,
    attributes,
    bullet_int,
    example_forms,
    multi_row_matrix,
    performance_bullet,
    read_page,
    shapes_only_example,
)
from generator.challenge.pyfile import ChallengePy
from generator.checks.model import example_ranks
from generator.checks.report import Report
from generator.checks.source import ChallengeDir
from generator.html import grouped
from generator.page.vocabulary import BULLET, TITLES, standard_kind

TEXT_MACRO_RE = re.compile(r"\\text(?:bf|it|tt|rm|sf|normal)?\s*\{")
_PLAIN_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)$")
RAW_MATH_CHARS = {"\u2264": "&le;", "\u2265": "&ge;", "\u00d7": "&times;"}


def check(ch: ChallengeDir, model: Optional[ChallengePy], report: Report) -> Optional[Page]:
    source = ch.file("challenge.html")
    if source is None:
        return None
    page = read_page(source.text, source.display)
    where = source.display
    _start(page, report, where)
    _headings(page, report, where)
    if report.wants("H004", "H005"):
        _svgs(page, report, where)
    if report.wants("H006", "H007"):
        _math(page, report, where)
    _examples(page, model, report, where)
    _bullet(page, model, report, where)
    if report.wants("H013"):
        _raw_characters(page, report, where)
    return page


def _start(page: Page, report: Report, where: str) -> None:
    text = page.text
    offset = len(text) - len(text.lstrip())
    for tag in page.tags:
        if tag.start != offset:
            break
        if tag.name == "":
            rest = text[tag.end :]
            offset = tag.end + len(rest) - len(rest.lstrip())
            continue
        if tag.name == "p" and not tag.closing:
            return
        break
    line, col = page.pos(offset)
    found = text[offset : offset + 20].split("\n")[0]
    report.add("H001", where, line, col, f"the page starts with `{found}`, not <p>")


def _headings(page: Page, report: Report, where: str) -> None:
    for heading in page.headings:
        line, col = page.pos(heading.start)
        if heading.level != 2:
            report.add(
                "H003", where, line, col, f"<h{heading.level}> {heading.title[:40]!r} is not <h2>"
            )
        elif not heading.closed:
            report.add("H003", where, line, col, f"<h2> {heading.title[:40]!r} is never closed")
    kinds = [
        (standard_kind(h.title), h)
        for h in page.headings
        if h.level == 2 and standard_kind(h.title)
    ]
    order = {"requirements": 0, "example": 1, "constraints": 2}
    present = {kind for kind, _ in kinds}
    for kind in order:
        if kind not in present:
            line, col = page.pos(len(page.text.rstrip()))
            report.add("H002", where, line, col, f"no <h2>{TITLES[kind]}</h2> section")
    highest = -1
    for kind, heading in kinds:
        if order[kind] < highest:
            line, col = page.pos(heading.start)
            report.add(
                "H002", where, line, col, f"<h2>{heading.title}</h2> comes after a later section"
            )
        highest = max(highest, order[kind])


def _svgs(page: Page, report: Report, where: str) -> None:
    for i, tag in enumerate(page.tags):
        if tag.name != "svg" or tag.closing:
            continue
        attrs = attributes(tag.attrs)
        line, col = page.pos(tag.start)
        if "viewbox" not in attrs:
            report.add("H004", where, line, col, "<svg> has no viewBox")
        end = next(
            (t.start for t in page.tags[i + 1 :] if t.name == "svg" and t.closing), len(page.text)
        )
        if not _dark_background(attrs, page.tags[i + 1 :], end):
            report.add("H005", where, line, col, "<svg> has no #222 background")


_DARK = re.compile(r"#222(222)?\b", re.I)


def _dark_background(svg_attrs: Dict[str, str], inner: List[Tag], end: int) -> bool:
    style = svg_attrs.get("style", "")
    if re.search(r"background(-color)?\s*:\s*#222(222)?\b", style, re.I):
        return True
    for tag in inner:
        if tag.start >= end:
            break
        if tag.name == "rect" and not tag.closing:
            attrs = attributes(tag.attrs)
            fill = attrs.get("fill", "")
            fill_style = re.search(r"fill\s*:\s*([^;]+)", attrs.get("style", ""))
            if _DARK.fullmatch(fill.strip()) or (
                fill_style and _DARK.fullmatch(fill_style.group(1).strip())
            ):
                return True
    return False


# ---------------------------------------------------------------------------------- LaTeX


_SYNTAX = re.compile(r"[\\{}^_&]")


@functools.lru_cache(maxsize=4096)
def latex_problem(formula: str) -> Optional[str]:
    """Why a formula does not parse, or None."""
    if not _SYNTAX.search(formula):
        return None  # letters, digits and operators only: nothing that can fail to parse
    depth = 0
    i = 0
    while i < len(formula):
        c = formula[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return "a '}' closes nothing"
        i += 1
    if depth > 0:
        return f"{depth} '{{' never closed"
    begins = re.findall(r"\\begin\s*\{(\w+\*?)\}", formula)
    ends = re.findall(r"\\end\s*\{(\w+\*?)\}", formula)
    if begins != list(reversed(ends)) and sorted(begins) != sorted(ends):
        return f"\\begin{{{','.join(begins)}}} and \\end{{{','.join(ends)}}} do not match"
    lefts = len(re.findall(r"\\left(?![a-zA-Z])", formula))
    rights = len(re.findall(r"\\right(?![a-zA-Z])", formula))
    if lefts != rights:
        return f"{lefts} \\left but {rights} \\right"
    from latex2mathml import walker  # the parser; its errors are the converter's errors

    try:
        walker.walk(formula)
    except Exception as exc:  # latex2mathml raises its own exception types and a few builtins
        name = type(exc).__name__
        detail = str(exc).strip()
        return f"{name}{': ' + detail if detail else ''}"
    return None


def _math(page: Page, report: Report, where: str) -> None:
    for start, end, content in page.segments:
        if end < 0:
            line, col = page.pos(start)
            report.add(
                "H006", where, line, col, "math opened here is never closed", "add \\) or \\]"
            )
            continue
        formula = html_text.unescape(content)
        if report.wants("H006"):
            problem = latex_problem(formula)
            if problem:
                line, col = page.pos(start)
                shown = " ".join(formula.split())
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                report.add("H006", where, line, col, f"`{shown}`: {problem}")
        for m in TEXT_MACRO_RE.finditer(content):
            close = _closing_brace(content, m.end() - 1)
            inner = content[m.end() : close if close > 0 else len(content)]
            if "\\_" in inner:
                line, col = page.pos(start + m.start())
                report.add(
                    "H007", where, line, col, f"`{m.group(0)}{inner}}}` writes \\_ inside \\text"
                )


def _closing_brace(text: str, open_index: int) -> int:
    depth = 0
    i = open_index
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


# ---------------------------------------------------------------------------------- examples


def _examples(page: Page, model: Optional[ChallengePy], report: Report, where: str) -> None:
    forms = example_forms(page)
    if len(forms) == 2:
        later = max(forms.values())
        line, col = page.pos(later)
        report.add("H008", where, line, col, "the examples use both <pre> and bmatrix")
        return
    if not forms or model is None or not model.tensors:
        return
    ranks = example_ranks(model)
    form, offset = next(iter(forms.items()))
    line, col = page.pos(offset)
    summary = shapes_only_example(page)  # shapes of data too large to show: no form to fit
    if form == "pre" and not summary and any(r == 2 for r in ranks.values()):  # rank >= 3 too
        multi = [n for n, r in ranks.items() if r == 2]
        report.add(
            "H009", where, line, col, f"{', '.join(multi)} is 2-D but the example uses <pre>"
        )
    elif (
        form == "bmatrix"
        and len(ranks) == len(model.tensors)
        and max(ranks.values()) <= 1
        and not multi_row_matrix(page)
    ):
        # flat tensors may hold 2-D data; a page that shows only one-row matrices has none
        report.add("H009", where, line, col, "all example data is 1-D but the example uses bmatrix")


def _bullet(page: Page, model: Optional[ChallengePy], report: Report, where: str) -> None:
    found = performance_bullet(page)
    if found is None:
        sections = page.sections("constraints")
        offset = sections[0].start if sections else len(page.text.rstrip())
        line, col = page.pos(offset)
        report.add("H010", where, line, col, f"no '{BULLET} ...' bullet")
        return
    li, items = found
    if not items:
        line, col = page.pos(li)
        report.add(
            "H011",
            where,
            line,
            col,
            "the bullet does not read `<code>name</code> = value, ...`",
        )
        return
    signature = model.signature if model is not None else None
    scalars = [e for e in signature or [] if not e.is_tensor]
    index = {e.name: i for i, e in enumerate(scalars)}
    if signature is not None:
        known = [item for item in items if item.name in index]
        ordered = sorted(known, key=lambda item: index[item.name])
        names = [item.name for item in known]
        if len(set(names)) != len(names) or ordered != known:
            line, col = page.pos(known[0].offset)
            report.add(
                "H011",
                where,
                line,
                col,
                f"the bullet lists {', '.join(names)}; the signature orders them "
                f"{', '.join(dict.fromkeys(item.name for item in ordered))}",
            )
    for item in items:
        line, col = page.pos(item.offset)
        if signature is not None and item.name not in index:
            kind = "a tensor" if any(e.name == item.name for e in signature) else "not a parameter"
            report.add("H011", where, line, col, f"the bullet names '{item.name}', which is {kind}")
        entry = next((e for e in scalars if e.name == item.name), None)
        is_float = entry is not None and entry.dtypes and entry.dtypes[0].kind == "float"
        value = item.value
        if bullet_int(value) is not None:
            continue
        if _PLAIN_INT.match(value):
            report.add(
                "H012",
                where,
                line,
                col,
                f"{item.name} = {value} lacks thousands separators",
                f"write {grouped(int(value))}",
            )
        elif not (is_float and _FLOAT.match(value)):
            report.add(
                "H012",
                where,
                line,
                col,
                f"{item.name} = {value!r} is not a plain comma-grouped number",
            )


def _raw_characters(page: Page, report: Report, where: str) -> None:
    for char, entity in RAW_MATH_CHARS.items():
        for m in re.finditer(re.escape(char), page.text):
            if page.skipped(m.start()) or _inside_math(page, m.start()):
                continue
            line, col = page.pos(m.start())
            report.add("H013", where, line, col, f"raw '{char}' in the page", f"write {entity}")
            break


def _inside_math(page: Page, offset: int) -> bool:
    limit = len(page.text)
    return any(start <= offset < (end if end >= 0 else limit) for start, end, _ in page.segments)
