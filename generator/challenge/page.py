"""challenge.html read once: tags, sections, list items, examples, the performance bullet, math.

The page is a fragment mixing HTML and LaTeX, so a small tag scanner is enough (and keeps the
author's text verbatim). Every fact keeps its character offset; Page.pos() turns it into
line:column. chgen check, chgen import, --deep and the preview all read the page through here.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import functools
import html as html_text
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from generator.page import headings as heading_flags
from generator.page import lists as list_flags
from generator.page import matrix as matrix_flags
from generator.page import pre as pre_flags
from generator.page.matrix import INLINE_SCALARS_RE
from generator.page.pre import top_level_parts
from generator.page.vocabulary import (
    BMATRIX,
    BULLET,
    EXAMPLE,
    INPUT_LABEL,
    OUTPUT,
    OUTPUT_LABEL,
    PRE,
    section_of,
    standard_kind,
)

TAG_RE = re.compile(
    r"<!--.*?-->|<(/?)([a-zA-Z][a-zA-Z0-9]*)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S
)
ATTR_RE = re.compile(r"([a-zA-Z_:][\w:.-]*)\s*(?:=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+))?")
BLOCK_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "pre", "ul", "ol", "div", "table", "svg"}
MATH_RE = re.compile(r"\\\(|\\\[")
LITERAL_TAGS = ("pre", "code", "svg", "script", "style", "textarea")


@dataclass
class Tag:
    start: int
    end: int
    name: str  # lowercase; "" for a comment
    closing: bool
    attrs: str


@dataclass
class Heading:
    level: int
    start: int
    title: str
    closed: bool
    body_end: int  # where the section's content ends (next h2 or end of page)
    body_start: int = 0  # where it begins (after </h2>)
    end_tag: str = ""  # its end tag as written (`</h2>`, `</h2 >`); empty when not closed


def scan(text: str) -> List[Tag]:
    tags = []
    for m in TAG_RE.finditer(text):
        if m.group(0).startswith("<!--"):
            tags.append(Tag(m.start(), m.end(), "", False, ""))
        else:
            tags.append(Tag(m.start(), m.end(), m.group(2).lower(), bool(m.group(1)), m.group(3)))
    return tags


def attributes(raw: str) -> Dict[str, str]:
    found = {}
    for m in ATTR_RE.finditer(raw):
        value = m.group(2) or ""
        if value[:1] in "\"'":
            value = value[1:-1]
        found[m.group(1).lower()] = value
    return found


def strip_tags(fragment: str) -> str:
    text = re.sub(r"<[^>]*>", " ", fragment)
    return " ".join(html_text.unescape(text).split())


@dataclass
class ListItem:
    start: int  # of <li>
    end: int  # of the <li> tag's '>'
    html: str  # inner HTML, verbatim

    @property
    def text(self) -> str:
        """The inner HTML on one line."""
        return " ".join(self.html.split())


@dataclass
class Example:
    """One example section: its heading and how its data is written."""

    heading: Heading
    form: Optional[str]  # "pre", "bmatrix" or None
    form_offset: int  # of the first <pre or \\begin{bmatrix}
    input_labels: List[str] = field(default_factory=list)  # `label = value` lines before Output
    title: str = ""  # the heading's inner HTML as written ("Example 1:")
    explanation: Optional[str] = None  # a <p> after the data, verbatim


@dataclass
class MathSpan:
    start: int  # of the content (after the opening delimiter)
    end: int  # of the content; -1 when the span is never closed
    content: str
    display: bool  # \\[ \\] (else \\( \\))

    @property
    def outer(self) -> Tuple[int, int]:
        """(start, end) including the delimiters (closed spans only)."""
        return self.start - 2, self.end + 2


class Page:
    """challenge.html, scanned once; every offset turns into line:column with pos()."""

    def __init__(self, text: str, display: str = "challenge.html"):
        self.text = text
        self.display = display
        self.tags = scan(self.text)
        self.headings = self._headings()
        self.skip = self._skipped_ranges()
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _headings(self) -> List[Heading]:
        found: List[Heading] = []
        tags = self.tags
        for i, tag in enumerate(tags):
            if tag.closing or not re.fullmatch(r"h[1-6]", tag.name):
                continue
            end, closed = len(self.text), False
            for later in tags[i + 1 :]:
                if later.closing and later.name == tag.name:
                    end, closed = later.start, True
                    break
                if not later.closing and later.name in BLOCK_TAGS:
                    end = later.start
                    break
            title = strip_tags(self.text[tag.end : end]).rstrip(":").strip()
            body_start = self.text.find(">", end) + 1 if closed else end
            end_tag = self.text[end:body_start] if closed else ""
            found.append(
                Heading(
                    int(tag.name[1]), tag.start, title, closed, len(self.text), body_start, end_tag
                )
            )
        h2 = [h for h in found if h.level == 2]
        for current, following in zip(h2, h2[1:]):
            current.body_end = following.start
        return found

    def _skipped_ranges(self) -> List[Tuple[int, int]]:
        """<pre>, <code>, <svg>, <script>, <style>, <textarea> contents: shown literally, so no
        math and no raw-character rule."""
        ranges = []
        stack: List[Tag] = []
        for tag in self.tags:
            if tag.name in LITERAL_TAGS:
                if not tag.closing:
                    stack.append(tag)
                elif stack and stack[-1].name == tag.name:
                    ranges.append((stack.pop().start, tag.end))
        return ranges

    @functools.cached_property
    def segments(self) -> List[Tuple[int, int, str]]:
        return math_segments(self)

    def skipped(self, offset: int) -> bool:
        return any(a <= offset < b for a, b in self.skip)

    def pos(self, offset: int) -> Tuple[int, int]:
        """1-based (line, column) of a character offset."""
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return line + 1, offset - self._line_starts[line] + 1

    # ------------------------------------------------------------------ what the page holds

    @property
    def head(self) -> str:
        """Everything before the first <h2>: the description and the SVG."""
        first = next((h for h in self.headings if h.level == 2), None)
        return self.text[: first.start] if first else self.text

    def svgs(self, start: int = 0, end: Optional[int] = None) -> List[Tuple[int, int]]:
        """(start, end) of every top-level inline <svg>...</svg> in text[start:end]."""
        end = len(self.text) if end is None else end
        found = []
        depth, opened = 0, 0
        for tag in self.tags:
            if tag.name != "svg" or not start <= tag.start < end:
                continue
            if not tag.closing:
                depth += 1
                opened = tag.start if depth == 1 else opened
            elif depth:
                depth -= 1
                if depth == 0:
                    found.append((opened, tag.end))
        return found

    def body(self, heading: Heading) -> str:
        return self.text[heading.body_start : heading.body_end]

    def items(self, heading: Heading) -> List[ListItem]:
        """The <li> items of a section, in order, with their inner HTML."""
        found = []
        tags = [t for t in self.tags if heading.body_start <= t.start < heading.body_end]
        for i, tag in enumerate(tags):
            if tag.name != "li" or tag.closing:
                continue
            close = next((t for t in tags[i + 1 :] if t.name == "li" and t.closing), None)
            if close is None:
                continue
            found.append(ListItem(tag.start, tag.end, self.text[tag.end : close.start]))
        return found

    def after_list(self, heading: Heading) -> str:
        """What a section holds after its first list closes (text there has no spec field)."""
        close = next(
            (
                t
                for t in self.tags
                if heading.body_start <= t.start < heading.body_end
                and t.closing
                and t.name in ("ul", "ol")
            ),
            None,
        )
        return self.text[close.end : heading.body_end] if close else ""

    def examples(self) -> List[Example]:
        """The example sections, each with the form its data is written in."""
        return [_example(self, heading) for heading in self.sections("example")]

    def sections(self, kind: str) -> List[Heading]:
        return [h for h in self.headings if h.level == 2 and standard_kind(h.title) == kind]


@dataclass
class OwnSection:
    """A section that is none of the standard ones ("Loss Calculation", "References")."""

    heading: Heading
    title: str  # the heading's inner HTML as written
    html: str  # its content, verbatim, without the blank lines around it
    after: str  # the standard section it follows: description, requirements, examples, constraints
    gap: int  # blank lines before its <h2> (at most 3)
    between_examples: bool  # an example section follows it


def heading_html(page: Page, heading: Heading) -> str:
    """The inner HTML of a heading as written (its title when it is never closed)."""
    opening_end = page.text.find(">", heading.start) + 1
    closing = page.text.rfind("</", opening_end, heading.body_start) if heading.closed else -1
    return page.text[opening_end:closing] if closing >= 0 else heading.title


def own_sections(page: Page) -> List[OwnSection]:
    """The page's <h2> sections that are none of the standard ones, each with the standard
    section it follows (titles are matched by their start, as the importer reads them)."""
    places = {
        None: "description",
        "requirements": "requirements",
        "example": "examples",
        "constraints": "constraints",
    }
    found: List[OwnSection] = []
    last: Optional[str] = None
    h2 = [h for h in page.headings if h.level == 2]
    for i, heading in enumerate(h2):
        kind = _layout_kind(heading)
        if kind is not None:
            last = kind
            continue
        later = [_layout_kind(h) for h in h2[i + 1 :]]
        found.append(
            OwnSection(
                heading,
                heading_html(page, heading),
                own_html(page.body(heading)),
                places[last],
                _blank_lines_before(page.text, heading.start),
                last == "example" and "example" in later,
            )
        )
    return found


def own_html(body: str) -> str:
    """A section's HTML: its text, after the blank lines that stand between it and its <h2>
    (kept, as the page writes them)."""
    text = body.rstrip()
    blank = re.match(r"(?:[ \t]*\n)*", text)  # the first ends the <h2>'s own line
    return _blank_lines(blank.group(0)) + text[blank.end() :]


def _blank_lines(between: str) -> str:
    """The blank lines `between` two parts holds, as newlines (its first ends the line before)."""
    return "\n" * max(between.count("\n") - 1, 0)


def math_segments(page: Page) -> List[Tuple[int, int, str]]:
    """(start of content, end of content, content) of each \\( \\) and \\[ \\] outside pre/code/svg;
    an unterminated one has end -1."""
    found = []
    text = page.text
    i = 0
    while True:
        m = MATH_RE.search(text, i)
        if not m:
            break
        if page.skipped(m.start()):
            i = m.end()
            continue
        closer = "\\)" if m.group(0) == "\\(" else "\\]"
        end = text.find(closer, m.end())
        if end < 0:
            found.append((m.start(), -1, text[m.end() :]))
            break
        found.append((m.end(), end, text[m.end() : end]))
        i = end + 2
    return found


def math_spans(page: Page) -> List[MathSpan]:
    """The math of the page as spans that know whether they are display math."""
    return [
        MathSpan(start, end, content, page.text[start - 2 : start] == "\\[")
        for start, end, content in page.segments
    ]


def holds_section_heading(html: str) -> bool:
    """Whether HTML meant for one section's body starts a section of its own (an <h2>)."""
    return re.search(r"<h2\b", html, re.I) is not None


def example_forms(page: Page) -> Dict[str, int]:
    """'pre' / 'bmatrix' -> offset of the first use inside the example sections."""
    forms: Dict[str, int] = {}
    for section in page.sections("example"):
        body = page.text[section.start : section.body_end]
        pre = re.search(r"<pre\b", body)
        matrix = re.search(r"\\begin\s*\{bmatrix\}", body)
        if pre and PRE not in forms:
            forms[PRE] = section.start + pre.start()
        if matrix and BMATRIX not in forms:
            forms[BMATRIX] = section.start + matrix.start()
    return forms


def shapes_only_example(page: Page) -> bool:
    """Whether an example <pre> lists its tensors by shape (`x.shape = (4, 768)`), as pages do
    for data too large to show."""
    for section in page.sections("example"):
        body = page.text[section.start : section.body_end]
        if re.search(r"<pre\b[^>]*>.*?\w\.shape\s*=\s*\(", body, re.S):
            return True
    return False


def multi_row_matrix(page: Page) -> bool:
    for section in page.sections("example"):
        body = page.text[section.start : section.body_end]
        for m in re.finditer(r"\\begin\s*\{bmatrix\}(.*?)\\end\s*\{bmatrix\}", body, re.S):
            rows = [r for r in re.split(r"\\\\", m.group(1)) if r.strip()]
            if len(rows) > 1:
                return True
    return False


@dataclass
class BulletItem:
    name: str
    value: str  # as written, e.g. "16,384"
    offset: int  # of the <code> tag

    @property
    def number(self) -> Optional[int]:
        """The integer its leading digits (and commas) write, however they are grouped."""
        digits = re.match(r"[\d,]+", self.value)
        text = digits.group(0).replace(",", "") if digits else ""
        return int(text) if text else None


def performance_bullet(page: Page) -> Optional[Tuple[int, List[BulletItem]]]:
    """(offset of the <li>, the name = value pairs) of the performance bullet, if any."""
    text = page.text
    for i, tag in enumerate(page.tags):
        if tag.name != "li" or tag.closing:
            continue
        end = next((t.start for t in page.tags[i + 1 :] if t.name in ("li", "ul", "ol")), len(text))
        body = text[tag.end : end]
        if BULLET.lower() not in " ".join(strip_tags(body).split()).lower():
            continue
        items = []
        codes = list(re.finditer(r"<code>\s*([^<]*?)\s*</code>\s*=\s*", body))
        for j, m in enumerate(codes):
            stop = codes[j + 1].start() if j + 1 < len(codes) else len(body)
            value = re.sub(r"(\s*(,|\band\b|\.))+$", "", strip_tags(body[m.end() : stop]))
            items.append(BulletItem(html_text.unescape(m.group(1)), value, tag.end + m.start()))
        return tag.start, items
    return None


_BLANK_BEFORE_BULLET = re.compile(r"\n[ \t]*\n[ \t]*<li>\s*" + BULLET)


def blank_before_bullet(text: str) -> bool:
    """Whether a blank line stands before the performance bullet (most public pages have one)."""
    return bool(_BLANK_BEFORE_BULLET.search(text))


_GROUPED = re.compile(r"^-?\d{1,3}(,\d{3})*$")


def bullet_int(value: str) -> Optional[int]:
    """The integer a correctly written bullet value stands for."""
    if _GROUPED.match(value):
        return int(value.replace(",", ""))
    return None


_NAME_VALUE = re.compile(r"(?<![\w\]])([A-Za-z_]\w*)\s*=\s*")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_LABEL = re.compile(r"\b(Input|Output)s?\b", re.I)


class Shown(NamedTuple):
    """One value an example shows for a parameter."""

    values: List[Tuple[float, str]]  # flattened: (number, text as written)
    offset: int  # in the text it was read from (see ShownValues.base)
    nested: Any  # the number, or the nested lists as written (matrices: one list per row)


def _as_lists(value: Any) -> Any:
    return [_as_lists(v) for v in value] if isinstance(value, (list, tuple)) else value


def _literal_at(text: str, start: int) -> Optional[Tuple[List[Tuple[float, str]], Any]]:
    """The number or bracketed (possibly multi-line) list at text[start:]: flattened, and as
    written."""
    rest = text[start:]
    if rest.startswith("["):
        depth = 0
        for i, c in enumerate(rest):
            depth += c == "["
            depth -= c == "]"
            if depth == 0:
                chunk = rest[: i + 1]
                try:
                    value = ast.literal_eval(chunk)
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    return None
                flat = _flatten(value)
                texts = _NUMBER.findall(chunk)
                if flat is not None and len(texts) == len(flat):
                    return [(v, t) for v, t in zip(flat, texts)], _as_lists(value)
                return None
        return None
    m = _NUMBER.match(rest)
    if m and not rest[m.end() : m.end() + 1].isalnum():
        number = ast.literal_eval(m.group(0).lstrip("+"))
        return [(float(number), m.group(0))], number
    return None


def _flatten(value: Any) -> Optional[List[float]]:
    out: List[float] = []

    def walk(v: Any) -> bool:
        if isinstance(v, (list, tuple)):
            return all(walk(x) for x in v)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        out.append(float(v))
        return True

    return out if walk(value) else None


def _is_output_at(labels: List[Tuple[int, bool]], offset: int) -> bool:
    state = False
    for position, is_output in labels:
        if position > offset:
            break
        state = is_output
    return state


class Roles(NamedTuple):
    """The example's tensors by part, in signature order: a page that calls them otherwise
    (`x = [...]` for `input`) has its values read for them (chgen import, examples after the
    first)."""

    inputs: Tuple[str, ...]
    outputs: Tuple[str, ...]


#: `name = value`, and as pages also write it: `grid (3x3) = [...]`, `input [[...]]` (a list right
#: after a name at a line's start or after `Input:`)
_LENIENT_NAME_VALUE = re.compile(
    r"(?<![\w\]])([^\W\d]\w*)(?:\s*\(\s*\d+(?:\s*[x\u00d7,]\s*\d+)*\s*\))?\s*=\s*"
    r"|(?:^|(?<=:))[ \t]*([^\W\d]\w*)[ \t]+(?=\[)",
    re.M,
)
#: Greek letters a page writes for a parameter, and the names the parameter may have
_GREEK = {
    "α": ("alpha",),
    "β": ("beta",),
    "γ": ("gamma",),
    "δ": ("delta",),
    "ε": ("epsilon", "eps"),
    "η": ("eta",),
    "θ": ("theta",),
    "λ": ("lam", "lmbda", "lambda_"),
    "μ": ("mu",),
    "σ": ("sigma",),
    "τ": ("tau",),
    "ω": ("omega",),
}
_PART_WORDS = {"input", "inputs", "output", "outputs"}


def _alias(label: str, names: List[str]) -> Optional[str]:
    """The one parameter a label that is not its name stands for: the same letters in another
    case (`k` for `K`) or its Greek letter (`α` for `alpha`); None when not exactly one."""
    if label in names:
        return label
    same = [n for n in names if n.lower() == label.lower()]
    greek = [n for n in names if n in _GREEK.get(label, ())]
    found = same or greek
    return found[0] if len(found) == 1 else None


def _pre_values(
    text: str,
    names: List[str],
    sole_in: Optional[str],
    sole_out: Optional[str],
    roles: Optional[Roles] = None,
) -> Dict[Tuple[str, bool], List[Shown]]:
    """Every `name = value` of a <pre> example (values may span lines), and unnamed values
    right after `Input:` / `Output:` when there is a single input / output tensor. With `roles`,
    the forms pages also write: a name in another case or as its Greek letter, sizes in
    parentheses after it, no `=` before a list, and lists under names no parameter has, read
    for the tensors of their part that no name gave (when there are as many of each)."""
    found: Dict[Tuple[str, bool], List[Shown]] = {}
    labels = [(m.start(), m.group(1).lower() == "output") for m in _LABEL.finditer(text)]
    unknown: Dict[bool, List[Shown]] = {False: [], True: []}
    for m in (_LENIENT_NAME_VALUE if roles else _NAME_VALUE).finditer(text):
        label = next(g for g in m.groups() if g)
        name = _alias(label, names) if roles else (label if label in names else None)
        if name is None and (roles is None or label.lower() in _PART_WORDS):
            continue
        read = _literal_at(text, m.end())
        if read:
            output = _is_output_at(labels, m.start())
            if name is None:
                if isinstance(read[1], list):
                    unknown[output].append(Shown(read[0], m.start(), read[1]))
                continue
            found.setdefault((name, output), []).append(Shown(read[0], m.start(), read[1]))
    for m in re.finditer(r"\b(Input|Output)\s*:\s*", text, re.I):
        output = m.group(1).lower() == "output"
        sole = sole_out if output else sole_in
        read = _literal_at(text, m.end()) if sole else None
        if read:
            found.setdefault((sole, output), []).append(Shown(read[0], m.end(), read[1]))
    for key, shown in _sliced_values(text, names, labels).items():
        found.setdefault(key, []).append(shown)
    if roles is not None:
        for output, tensors in ((False, roles.inputs), (True, roles.outputs)):
            unnamed = [t for t in tensors if (t, output) not in found]
            if unknown[output] and len(unknown[output]) == len(unnamed):
                for name, shown in zip(unnamed, unknown[output]):
                    found[(name, output)] = [shown]
    return found


_SLICE_LEAD = re.compile(r"^\s*(?:(?:Input|Output)s?\s*:\s*)?$", re.I)
_SLICE = re.compile(r"(?<![\w\]])([A-Za-z_]\w*)\[(\d+(?:\s*,\s*\d+)*)\]\s*=\s*")


def _sliced_values(
    text: str, names: List[str], labels: List[Tuple[int, bool]]
) -> Dict[Tuple[str, bool], Shown]:
    """A tensor written slice by slice, one slice a line, `X[0,0] = [[1, 1], [1, 1]]`,
    `X[0,1] = ...`: the whole tensor, where the indices run over every position of their grid in
    order and the slices are alike (else nothing)."""
    slices: Dict[Tuple[str, bool], List[Tuple[Tuple[int, ...], int, Any]]] = {}
    for m in _SLICE.finditer(text):
        lead = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        if not _SLICE_LEAD.match(lead):  # a slice inside a derivation line is no example data
            continue
        read = _literal_at(text, m.end()) if m.group(1) in names else None
        if read is not None:
            index = tuple(int(i) for i in m.group(2).split(","))
            key = (m.group(1), _is_output_at(labels, m.start()))
            slices.setdefault(key, []).append((index, m.start(), read))
    found: Dict[Tuple[str, bool], Shown] = {}
    for key, parts in slices.items():
        indices = [index for index, _, _ in parts]
        grid = tuple(max(i[d] for i in indices) + 1 for d in range(len(indices[0])))
        if indices != list(itertools.product(*(range(n) for n in grid))):
            continue
        if len({_shape_of(read[1]) for _, _, read in parts}) != 1:
            continue
        nested: Any = [read[1] for _, _, read in parts]
        for size in reversed(grid[1:]):
            nested = [nested[i : i + size] for i in range(0, len(nested), size)]
        values = [pair for _, _, read in parts for pair in read[0]]
        found[key] = Shown(values, parts[0][1], nested)
    return found


def _shape_of(value: Any) -> Tuple[int, ...]:
    if isinstance(value, list):
        inner = {_shape_of(v) for v in value}
        return (len(value), *inner.pop()) if len(inner) == 1 else (len(value), -1)
    return ()


#: how a page names the matrix that follows: \text{x}, <code>x</code>, \(x\) or "x ="
_LABEL_NAME = re.compile(
    r"\\(?:text|mathbf|mathrm|mathit)\{\\?([A-Za-z_][\w\\]*)\}|<code>(\w+)</code>"
    r"|\\\(\s*([A-Za-z_]\w*)\s*\\\)|\b([A-Za-z_]\w*)\s*="
)
_DIRECT = re.compile(
    r"(?:\\text\{([A-Za-z_][\w\\]*)\}|([A-Za-z_][\w]*))\s*(?:_\{?\w+\}?)?\s*&?=\s*$"
)
_CONTINUATION = re.compile(r"^\s*(\\\\|\\]|\\\[|\s|\\quad|\\qquad|,)*\s*(=|\+|-|\\cdot|\\times)")


def _matrix_values(
    section: str, names: List[str], roles: Optional[Roles] = None
) -> Dict[Tuple[str, bool], List[Shown]]:
    """Matrices of a bmatrix example, each attributed to the tensor its label names; with
    `roles`, an unlabelled one to the sole tensor of its part."""
    found: Dict[Tuple[str, bool], List[Shown]] = {}
    plain = re.sub(r"<[^>]*>", lambda m: " " * len(m.group(0)), section)
    labels = [(m.start(), m.group(1).lower() == "output") for m in _LABEL.finditer(plain)]
    previous_end, previous_name = 0, None
    for m in re.finditer(r"\\begin\s*\{bmatrix\}(.*?)\\end\s*\{bmatrix\}", section, re.S):
        label = section[previous_end : m.start()]
        previous_end = m.end()
        direct = _DIRECT.search(label)
        if direct:
            name = (direct.group(1) or direct.group(2)).replace("\\_", "_")
            name = name if name in names else None
        else:
            mentioned = [
                next(g for g in mm.groups() if g).replace("\\_", "_")
                for mm in _LABEL_NAME.finditer(label)
            ]
            mentioned = [n for n in mentioned if n in names]
            if mentioned:
                name = mentioned[-1]
            elif previous_name and _CONTINUATION.match(label):
                name = previous_name  # a derivation chain: "= A + B = C"
            else:
                name = None
        if name is None and roles is not None:
            part = roles.outputs if _is_output_at(labels, m.start()) else roles.inputs
            name = part[0] if len(part) == 1 else None
        previous_name = name
        if name is None:
            continue
        cells: List[Tuple[float, str]] = []
        rows: List[List[float]] = []
        for row in re.split(r"\\\\", m.group(1)):
            rows.append([])
            for cell in row.split("&") if row.strip() else []:
                text = cell.strip()
                if not _NUMBER.fullmatch(text):
                    cells = []
                    break
                cells.append((float(text), text))
                rows[-1].append(float(text))
            else:
                continue
            break
        if cells:
            key = (name, _is_output_at(labels, m.start()))
            nested = [row for row in rows if row]
            found.setdefault(key, []).append(Shown(cells, m.start(), nested))
    return found


#: a scalar in a bmatrix example, `h = 1` or `N &= 2`; leniently also `<code>k</code>: 3` and a
#: name in another case or as its Greek letter
_MATRIX_SCALAR = re.compile(r"(?<![\w\\{])([A-Za-z_]\w*)\s*&?=\s*")
_LENIENT_MATRIX_SCALAR = re.compile(r"(?<![\w\\{])([^\W\d]\w*)\s*(?:&?=|:)[ \t]*")


def _matrix_scalars(
    section: str, names: List[str], lenient: bool = False
) -> Dict[Tuple[str, bool], List[Shown]]:
    """Scalars a bmatrix example writes in its math, `h = 1` or `N &= 2`: a name followed by one
    number (a matrix after the name is not one)."""
    plain = re.sub(r"<[^>]*>", lambda m: " " * len(m.group(0)), section)
    labels = [(m.start(), m.group(1).lower() == "output") for m in _LABEL.finditer(plain)]
    found: Dict[Tuple[str, bool], List[Shown]] = {}
    for m in (_LENIENT_MATRIX_SCALAR if lenient else _MATRIX_SCALAR).finditer(plain):
        name = _alias(m.group(1), names) if lenient else m.group(1)
        if name not in names:
            continue
        number = _NUMBER.match(plain, m.end())
        if number and not plain[number.end() : number.end() + 1].isalnum():
            value = ast.literal_eval(number.group(0).lstrip("+"))
            key = (name, _is_output_at(labels, m.start()))
            found.setdefault(key, []).append(
                Shown([(float(value), number.group(0))], m.start(), value)
            )
    return found


@dataclass
class ShownValues:
    """The values an example shows, per (tensor or scalar name, shown in the Output part)."""

    found: Dict[Tuple[str, bool], List[Shown]]
    base: int  # page offset that the Shown offsets count from
    labelled: bool  # the example has Input/Output parts


def example_values(
    page: Page,
    example: Example,
    names: List[str],
    tensor_names: List[str],
    sole_in: Optional[str] = None,
    sole_out: Optional[str] = None,
    roles: Optional[Roles] = None,
) -> ShownValues:
    """Every value the example writes for a parameter: `name = value` in <pre> (unnamed values
    after `Input:`/`Output:` go to the sole input/output), or the bmatrix a label names; with
    `roles` (the tensors of each part) also the looser forms pages write (_pre_values)."""
    heading = example.heading
    body = page.text[heading.start : heading.body_end]
    pre = re.search(r"<pre\b[^>]*>(.*?)</pre>", body, re.S)
    if pre:
        found = _pre_values(html_text.unescape(pre.group(1)), names, sole_in, sole_out, roles)
        base = heading.start + pre.start(1)
    else:
        found = _matrix_values(body, tensor_names, roles)
        for key, shown in _matrix_scalars(body, names, roles is not None).items():
            found.setdefault(key, shown)
        base = heading.start
    labelled = bool(re.search(r"\bOutputs?\b", re.sub(r"<[^>]*>", " ", body), re.I))
    return ShownValues(found, base, labelled)


#: a matrix example's scalar line: `\\(\\varepsilon = 1e-5\\)`, `<code>k</code>: 3`, or the older
#: `\\(\\text{eps}\\) = 1e-5`; group 1 is the label
_SCALAR_LINE_RE = re.compile(
    r"^(?:\\\((.+?) = [^\s\\]+\\\)|<code>(\w+)</code>: \S+?|\\\((.*?)\\\) = \S+?)(?:<br>)?$"
)
#: several scalars on one line, joined by ", ": `<code>a</code>: 1, <code>b</code>: 2`


def _example(page: Page, heading: Heading) -> Example:
    body = page.text[heading.start : heading.body_end]
    pre = re.search(r"<pre\b", body)
    matrix = re.search(r"\\begin\s*\{bmatrix\}", body)
    if matrix and not pre:
        form, offset = BMATRIX, heading.start + matrix.start()
        labels = _matrix_labels(page.body(heading))
    elif pre:
        form, offset = PRE, heading.start + pre.start()
        labels = _pre_labels(page.body(heading))
    else:
        form, offset, labels = None, heading.start, []
    title = heading_html(page, heading)
    return Example(heading, form, offset, labels, title, _explanation(page.body(heading), form))


def _explanation(body: str, form: Optional[str]) -> Optional[str]:
    """The <p> paragraphs that follow a <pre> example's block, or a bmatrix example's last
    matrix's <p> (a bmatrix example's data is itself in <p>: the paragraphs after it)."""
    if form == BMATRIX:
        last = body.rfind("\\end{bmatrix}")
        closing = body.find("</p>", last) if last >= 0 else -1
        rest = body[closing + len("</p>") :].rstrip() if closing >= 0 else ""
        text = rest.lstrip()
        if not (text.startswith("<p") and text.endswith("</p>")) or "bmatrix" in text:
            return None
        # the blank lines between the data and the explanation are kept: the page's gap
        return _blank_lines(rest[: len(rest) - len(text)]) + text
    if form != PRE:
        return None
    closing = body.rfind("</pre>")
    rest = body[closing + len("</pre>") :].strip() if closing >= 0 else ""
    return rest if rest.startswith("<p") and rest.endswith("</p>") else None


def _pre_labels(body: str) -> List[str]:
    """The names of the `name = value` parts of the Input part of a <pre> example (one or several
    a line)."""
    match = re.search(r"<pre\s*>(.*?)</pre\s*>", body, re.S | re.I)
    labels: List[str] = []
    in_output = False
    for raw in match.group(1).splitlines() if match else []:
        line = raw.strip()
        for label in (INPUT_LABEL, OUTPUT_LABEL):
            if line.startswith(label):
                in_output = label == OUTPUT_LABEL
                line = line[len(label) :].strip()
        if not in_output:
            labels += [part.split(" = ", 1)[0] for part in top_level_parts(line) if " = " in part]
    return labels


def _matrix_labels(body: str) -> List[str]:
    """The labels of the `\\(label\\) = value` scalar lines before a bmatrix example's Output."""
    before = re.split(rf"{OUTPUT}:\s*(?:<br>)?", body, maxsplit=1)[0]
    labels = []
    for line in before.splitlines():
        if INLINE_SCALARS_RE.match(line.strip()):
            labels.extend(re.findall(r"<code>(\w+)</code>:", line))
            continue
        match = _SCALAR_LINE_RE.match(line.strip())
        if match:
            labels.append(next(g for g in match.groups() if g is not None))
    return labels


def read_page(text: str, display: str = "challenge.html") -> Page:
    """The page of `text` (shown as `display` in positions)."""
    return Page(text, display)


def _layout_kind(heading: Heading) -> Optional[str]:
    """A section title matched by its start ("Example 1", "Examples"), as the importer does."""
    return section_of(heading.title)


def page_layout(page: Page, examples: List[Example]) -> Dict[str, Any]:
    """The page's layout choices that differ from chgen's default form, keyed as a spec's
    `page:` block; each family of flags is read by its module in generator/page/ from the parts
    of the page found here."""
    text = page.text
    h2 = [h for h in page.headings if h.level == 2]
    listed = [h for h in h2 if _layout_kind(h) in ("requirements", "constraints")]
    items = [i for h in listed for i in page.items(h) if not i.text.startswith(BULLET)]
    form: Dict[str, Any] = list_flags.read(
        [text[text.rfind("\n", 0, i.start) + 1 : i.start] for i in items]
    )
    standard = [h for h in h2 if _layout_kind(h) is not None]
    gapped = {}
    for kind in ("requirements", "example", "constraints"):
        first = next((h for h in h2 if _layout_kind(h) == kind), None)
        gapped[kind] = first is not None and bool(
            re.match(r"[ \t]*\n[ \t]*\n", text[first.body_start :])
        )
    form.update(
        heading_flags.read(
            {text[text.rfind("\n", 0, h.start) + 1 : h.start] for h in standard},
            gapped,
            [_blank_lines_before(text, h.start) for h in standard],
            [h.end_tag for h in standard],
        )
    )
    for key, family, kind in (("pre", pre_flags, PRE), ("matrix", matrix_flags, BMATRIX)):
        shown = next((e for e in examples if e.form == kind), None)
        flags = family.read(page.body(shown.heading)) if shown is not None else {}
        if flags:
            form[key] = flags
    return form


def _blank_lines_before(text: str, offset: int) -> int:
    """How many blank lines stand right before `offset` (at most 3)."""
    before = re.search(r"(?:\n[ \t]*)*$", text[:offset]).group(0)
    return min(max(before.count("\n") - 1, 0), 3)


# ------------------------------------------------------------------ the text a reader sees

#: a token of the text a reader sees: a number (its sign, thousands groups, decimals, exponent)
#: or a run of letters; punctuation and spacing are layout, not text
_TOKEN_RE = re.compile(
    r"[-\u2212]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r"|[-\u2212]?\.\d+(?:[eE][-+]?\d+)?"
    r"|[^\W\d_]+"
)
#: TeX markup: an environment's delimiters (`\begin{bmatrix}`) and command names (`\frac`)
_TEX_MARKUP_RE = re.compile(r"\\(?:begin|end)\s*\{[^}]*\}|\\[A-Za-z]+")
#: elements whose content a reader never sees
_UNSEEN_TAGS = ("script", "style")


@dataclass(frozen=True)
class Word:
    """One token of the page's visible text, and the page offset of the text run holding it."""

    text: str
    offset: int


def _word(token: str) -> str:
    """A token as the reader reads it: `8,192` is 8192, a typographic minus a minus."""
    token = token.replace("\u2212", "-")
    return token.replace(",", "") if token[:1].isdigit() or token[1:2].isdigit() else token


def visible_words(text: str) -> List[Word]:
    """The words and numbers a reader of the page sees, in page order: tags, attributes,
    comments, scripts and TeX commands are markup; entities are read as what they show."""
    words: List[Word] = []
    unseen = 0
    position = 0
    for tag in [*scan(text), Tag(len(text), len(text), "", False, "")]:
        if not unseen and position < tag.start:
            run = _TEX_MARKUP_RE.sub(" ", html_text.unescape(text[position : tag.start]))
            words.extend(Word(_word(t), position) for t in _TOKEN_RE.findall(run))
        if tag.name in _UNSEEN_TAGS:
            unseen = max(unseen + (-1 if tag.closing else 1), 0)
        position = max(position, tag.end)
    return words


def lost_words(old: str, new: str) -> List[Word]:
    """The words of page `old` that page `new` no longer shows, in the old page's order: as many
    of each word as the new page shows fewer of (a word that only moved is not lost), taken where
    the new page's text departs from the old one's (difflib's alignment of the two)."""
    before, after = visible_words(old), visible_words(new)
    short: Dict[str, int] = {}
    for word in before:
        short[word.text] = short.get(word.text, 0) + 1
    for word in after:
        short[word.text] = short.get(word.text, 0) - 1
    if not any(count > 0 for count in short.values()):
        return []
    matcher = difflib.SequenceMatcher(
        None, [w.text for w in before], [w.text for w in after], autojunk=False
    )
    departed = {
        i
        for tag, i1, i2, _, _ in matcher.get_opcodes()
        if tag in ("delete", "replace")
        for i in range(i1, i2)
    }
    taken = set()
    for preferred in (True, False):  # where the text departs first, then anywhere
        for i, word in enumerate(before):
            if i not in taken and (i in departed) == preferred and short.get(word.text, 0) > 0:
                short[word.text] -= 1
                taken.add(i)
    return [word for i, word in enumerate(before) if i in taken]


@dataclass
class TextLoss:
    """The words one part of a page loses: the description, a standard section (an example by
    its number), an own section (by its title) or the performance bullet."""

    kind: str  # description, requirements, example, constraints, performance, section
    label: str  # as a reader names it: "Example 2", "Constraints", "References"
    number: int  # an example's number (1-based) or an own section's index (0-based); else 0
    words: List[Word]

    def phrase(self, width: int = 60) -> str:
        """The lost words as one quoted phrase, cut at about `width` characters."""
        text = " ".join(word.text for word in self.words)
        return f'"{text}"' if len(text) <= width else f'"{text[:width].rsplit(" ", 1)[0]} …"'


def text_losses(old: str, new: str) -> List[TextLoss]:
    """What page `new` loses of the text page `old` shows, grouped by the old page's parts, in
    page order; empty when the change is markup (tags, spacing, entities, TeX commands) only."""
    lost = lost_words(old, new)
    if not lost:
        return []
    page = read_page(old)
    h2 = [h for h in page.headings if h.level == 2]
    bullet = performance_bullet(page)
    bullet_end = -1
    if bullet is not None:
        closing = next((t for t in page.tags if t.start > bullet[0] and t.name == "li"), None)
        bullet_end = closing.start if closing else len(old)
    examples = [h for h in h2 if _layout_kind(h) == "example"]
    owns = [h for h in h2 if _layout_kind(h) is None]
    found: Dict[Tuple[str, str, int], List[Word]] = {}
    for word in lost:
        heading = next((h for h in reversed(h2) if h.start <= word.offset), None)
        kind = _layout_kind(heading) if heading is not None else None
        if bullet is not None and bullet[0] <= word.offset < bullet_end:
            key = ("performance", "the performance bullet", 0)
        elif heading is None:
            key = ("description", "the description", 0)
        elif kind == "example":
            number = examples.index(heading) + 1
            key = ("example", heading.title or f"{EXAMPLE} {number}", number)
        elif kind is None:
            key = ("section", heading.title, owns.index(heading))
        else:
            name = "requirements" if kind.startswith("implementation") else kind
            key = (name, heading.title, 0)
        found.setdefault(key, []).append(word)
    return [TextLoss(kind, label, number, words) for (kind, label, number), words in found.items()]


def describe_losses(losses: List[TextLoss], width: int = 60) -> str:
    """One line for a page's losses: `Example 2 loses "Input x -1.5 …"; Constraints loses ...`."""
    return "; ".join(f"{loss.label} loses {loss.phrase(width)}" for loss in losses)


#: a page line that is one <h2>, and a rule's words for a section the page lacks (checks/html.py)
_H2_LINE_RE = re.compile(r"^\s*<h2>(.*?)</h2>\s*$")
_MISSING_SECTION_RE = re.compile(r"no <h2>(.*?)</h2> section")


def heading_title(line: str) -> Optional[str]:
    """The title of a page line that is one <h2> heading, else None."""
    match = _H2_LINE_RE.match(line)
    return match.group(1) if match else None


def missing_section_title(message: str) -> Optional[str]:
    """The section a finding says the page lacks (`no <h2>Example</h2> section`), else None."""
    match = _MISSING_SECTION_RE.search(message)
    return match.group(1) if match else None
