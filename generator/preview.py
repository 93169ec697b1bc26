"""Standalone HTML preview of a challenge directory, and a PNG screenshot of it.

The page must open anywhere, offline: math is converted to MathML (rendered natively by
browsers), code is highlighted with Pygments into inline CSS, and nothing is fetched.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from latex2mathml.converter import convert as latex_to_mathml
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from generator.challenge.page import math_spans, read_page
from generator.challenge.pyfile import read_challenge_py
from generator.languages import IN_TAB_ORDER, for_gpus
from generator.naming import DIFFICULTIES
from generator.resources import template_dir

CODE_STYLE = "one-dark"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
BROWSER_ENV = "CHGEN_CHROMIUM"
INSTALL_HINT = "install it with: apt-get install -y chromium (or set CHGEN_CHROMIUM)"
BROWSER_TIMEOUT_S = 90
MAX_SCREENSHOT_HEIGHT = 16000

# latex2mathml mangles these environments (stray & and ignored line breaks); rewrite them
# to equivalents it converts properly.
_ENV_REWRITES = (
    (re.compile(r"\\(begin|end)\{aligned\}"), r"\\\1{align*}"),
    (re.compile(r"\\begin\{(?:gather\*?|gathered)\}"), r"\\begin{array}{c}"),
    (re.compile(r"\\end\{(?:gather\*?|gathered)\}"), r"\\end{array}"),
    (re.compile(r"\\(?:begin|end)\{equation\*?\}"), ""),
    # Extra row spacing (\\[4pt]) would otherwise be printed as text.
    (
        re.compile(r"(\\\\)\s*\[\s*-?(?:\d+\.?\d*|\.\d+)\s*(?:pt|em|ex|mm|cm|in|mu|px|bp|pc)\s*\]"),
        r"\1",
    ),
)
# A bare & left in the output means it sat outside any tabular environment: KaTeX rejects it.
_STRAY_AMPERSAND = "<mi>&</mi>"
# Unknown commands come back verbatim as identifiers; KaTeX would reject them.
_UNKNOWN_COMMAND_RE = re.compile(r"<m[ion][^>]*>(\\[A-Za-z]+)")


class PreviewError(Exception):
    """A preview could not be made; the message is one line, fit for a CLI error."""


@dataclass
class Preview:
    """A rendered page plus the math that failed, so callers can report it."""

    html: str
    math_errors: list[str] = field(default_factory=list)


def _one_line(text: str, limit: int = 160) -> str:
    """Collapse whitespace so TeX and browser output fit in a one-line message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _prepare_tex(tex: str) -> str:
    """Undo HTML escaping and work around environments the converter gets wrong."""
    tex = html.unescape(tex).strip()
    for pattern, replacement in _ENV_REWRITES:
        tex = pattern.sub(replacement, tex)
    return tex


_OPEN_BRACKET = "<mo>&#x0005B;</mo><mtable>"
_CLOSE_BRACKET = "</mtable><mo>&#x0005D;</mo>"
_TABLE_TAG_RE = re.compile(r"<mtable\b|</mtable>")


def _css_brackets(mathml: str) -> str:
    """Draw bmatrix brackets with CSS: stretching the glyphs needs a math font, often absent."""
    out: list[str] = []
    position = 0
    while (start := mathml.find(_OPEN_BRACKET, position)) != -1:
        depth, cursor = 1, start + len(_OPEN_BRACKET)
        while depth and (match := _TABLE_TAG_RE.search(mathml, cursor)):
            depth += 1 if match.group(0) != "</mtable>" else -1
            cursor = match.end()
        end = cursor - len("</mtable>")
        if depth or not mathml.startswith(_CLOSE_BRACKET, end):
            out.append(mathml[position : start + len(_OPEN_BRACKET)])
            position = start + len(_OPEN_BRACKET)
            continue
        inner = _css_brackets(mathml[start + len(_OPEN_BRACKET) : end])
        out.append(mathml[position:start] + f'<mtable class="bmatrix">{inner}</mtable>')
        position = end + len(_CLOSE_BRACKET)
    out.append(mathml[position:])
    return "".join(out)


def _convert_one(tex: str, display: bool) -> str:
    """Convert one TeX span, raising ValueError when the result would not render."""
    prepared = _prepare_tex(tex)
    if not prepared:
        raise ValueError("empty formula")
    try:
        mathml = latex_to_mathml(prepared, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many unrelated exception types
        detail = str(exc).strip()
        raise ValueError(
            f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
        ) from exc
    if _STRAY_AMPERSAND in mathml:
        raise ValueError("'&' outside an align/matrix environment")
    unknown = _UNKNOWN_COMMAND_RE.search(mathml)
    if unknown:
        raise ValueError(f"unknown command {unknown.group(1)}")
    return _css_brackets(mathml)


def convert_math(fragment: str) -> tuple[str, list[str]]:
    """Replace \\( \\) and \\[ \\] spans with MathML; failures stay visible as TeX.

    The spans are the page reader's (outside <pre>, <code>, <svg> and the like); one that is never
    closed is left as written."""
    errors: list[str] = []

    def replace(tex: str, display: bool, written: str) -> str:
        try:
            mathml = _convert_one(tex, display)
        except ValueError as exc:
            shown = f"\\[{_one_line(tex, 80)}\\]" if display else f"\\({_one_line(tex, 80)}\\)"
            errors.append(f"{shown}: {_one_line(str(exc), 120)}")
            return (
                f'<span class="math-error" data-tex="{html.escape(tex, quote=True)}" '
                f'title="{html.escape(str(exc), quote=True)}">{written}</span>'
            )
        if display:
            return f'<div class="math-display">{mathml}</div>'
        return mathml

    pieces: list[str] = []
    position = 0
    for span in math_spans(read_page(fragment)):
        if span.end < 0:
            break
        start, end = span.outer
        pieces.append(fragment[position:start])
        pieces.append(replace(span.content, span.display, fragment[start:end]))
        position = end
    pieces.append(fragment[position:])
    return "".join(pieces), errors


def challenge_name(challenge_dir: Path) -> str:
    """Read Challenge.name statically: importing challenge.py would need torch and the judge."""
    source_path = challenge_dir / "challenge.py"
    if not source_path.is_file():
        return challenge_dir.name
    name = read_challenge_py(source_path.read_text(encoding="utf-8")).literal("name")
    return name if isinstance(name, str) else challenge_dir.name


def _title_parts(challenge_dir: Path) -> tuple[str, str | None]:
    """Number prefix and difficulty come from the directory layout (easy/113_name)."""
    number = challenge_dir.name.split("_", 1)[0]
    number = number if number.isdigit() else ""
    difficulty = challenge_dir.parent.name.lower()
    return number, difficulty if difficulty in DIFFICULTIES else None


def _offered(challenge_dir: Path) -> set[str]:
    """The languages the challenge ships starters in: a multi-GPU challenge (challenge.py's
    num_gpus) only those that can reach their peer ranks."""
    source = challenge_dir / "challenge.py"
    num_gpus = 1
    if source.is_file():
        text = source.read_text(encoding="utf-8", errors="replace")
        num_gpus = read_challenge_py(text).literal("num_gpus", 1)
    return {lang.key for lang in for_gpus(num_gpus if isinstance(num_gpus, int) else 1)}


def _highlight_starters(challenge_dir: Path) -> list[dict[str, str | Markup | None]]:
    """Highlight each starter; a missing file is shown as such rather than hidden, unless the
    tree need not hold it (a language newer than the tree, or one a multi-GPU challenge leaves
    out)."""
    starters: list[dict[str, str | Markup | None]] = []
    offered = _offered(challenge_dir)
    for lang in IN_TAB_ORDER:
        if lang.key not in offered:
            continue
        filename, label, lexer_name = lang.starter_name, lang.title, lang.lexer
        slug = filename.split(".")[1]
        path = challenge_dir / "starter" / filename
        code = None
        if path.is_file():
            # One span per line (ids unique per starter) lets wrapped lines hang-indent.
            formatter = HtmlFormatter(
                style=CODE_STYLE, cssclass="hl", linenos="inline", wrapcode=True, linespans=slug
            )
            source = path.read_text(encoding="utf-8")
            code = Markup(highlight(source, get_lexer_by_name(lexer_name), formatter))
        elif not lang.required_in_tree:
            continue
        starters.append({"file": filename, "label": label, "slug": slug, "code": code})
    return starters


def _environment() -> jinja2.Environment:
    """Autoescaping on: only the converted description and highlighted code go in raw."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir() / "preview")),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def build_preview(challenge_dir: Path) -> Preview:
    """Render the page and keep the math errors next to it."""
    challenge_dir = Path(challenge_dir)
    description_path = challenge_dir / "challenge.html"
    if not description_path.is_file():
        raise PreviewError(f"{challenge_dir} has no challenge.html")
    body, errors = convert_math(description_path.read_text(encoding="utf-8"))
    number, difficulty = _title_parts(challenge_dir)
    code_css = HtmlFormatter(style=CODE_STYLE).get_style_defs(".hl")
    template = _environment().get_template("page.html.j2")
    page = template.render(
        name=challenge_name(challenge_dir),
        number=number,
        difficulty=difficulty,
        body=Markup(body),
        starters=_highlight_starters(challenge_dir),
        page_css=Markup((template_dir() / "preview" / "page.css").read_text("utf-8")),
        code_css=Markup(code_css),
        math_errors=errors,
    )
    return Preview(html=page, math_errors=errors)


def render_preview(challenge_dir: Path) -> str:
    """The full standalone HTML page for a challenge directory."""
    return build_preview(challenge_dir).html


def write_preview(challenge_dir: Path, out_html: Path) -> list[str]:
    """Write the page and return the math errors, which the caller decides how to report."""
    preview = build_preview(challenge_dir)
    out_html = Path(out_html)
    out_html.parent.mkdir(parents=True, exist_ok=True)
    out_html.write_text(preview.html, encoding="utf-8")
    return preview.math_errors


def find_browser() -> str:
    """The Chromium executable: CHGEN_CHROMIUM when set (and then only it), else PATH."""
    override = os.environ.get(BROWSER_ENV)
    if override:
        found = shutil.which(override)
        if found is None:
            raise PreviewError(
                f"{BROWSER_ENV}={override} is not an executable browser; "
                "point it at chromium or unset it (apt-get install -y chromium)"
            )
        return found
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise PreviewError(
        f"no Chromium browser found on PATH (tried {', '.join(BROWSER_NAMES)}); " + INSTALL_HINT
    )


def _run_browser(browser: str, args: list[str], width: int, height: int) -> str:
    """Run one headless pass with a throwaway profile, so no state leaks between runs."""
    with tempfile.TemporaryDirectory(prefix="chgen-chromium-", ignore_cleanup_errors=True) as prof:
        command = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={prof}",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={width},{height}",
            *args,
        ]
        try:
            result = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=BROWSER_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as exc:
            raise PreviewError(f"{browser} did not finish within {BROWSER_TIMEOUT_S} s") from exc
        except OSError as exc:
            raise PreviewError(f"cannot run {browser}: {exc.strerror or exc}") from exc
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        detail = _one_line(lines[-1]) if lines else "no output"
        raise PreviewError(f"{browser} failed with exit status {result.returncode}: {detail}")
    return result.stdout


_MEASURE_SCRIPT = (
    "<script>document.title='chgen-height:'+Math.ceil(Math.max("
    "document.documentElement.scrollHeight,document.body?document.body.scrollHeight:0));"
    "</script>"
)
_HEIGHT_RE = re.compile(r"chgen-height:(\d+)")


def _page_height(browser: str, html_path: Path, width: int) -> int:
    """Lay the page out once at the final width and read its height back from the DOM."""
    text = html_path.read_text(encoding="utf-8", errors="surrogateescape")
    base = f'<base href="{html_path.parent.as_uri()}/">'
    text = re.sub(r"<head\b[^>]*>", lambda m: m.group(0) + base, text, count=1, flags=re.I)
    # At the end of the body the whole document is parsed, so scrollHeight is final.
    if re.search(r"</body\s*>", text, flags=re.I):
        text = re.sub(r"</body\s*>", _MEASURE_SCRIPT + "</body>", text, count=1, flags=re.I)
    else:
        text += _MEASURE_SCRIPT
    with tempfile.TemporaryDirectory(prefix="chgen-measure-") as tmp:
        probe = Path(tmp) / "measure.html"
        probe.write_text(text, encoding="utf-8", errors="surrogateescape")
        dom = _run_browser(browser, ["--dump-dom", probe.as_uri()], width, 600)
    match = _HEIGHT_RE.search(dom)
    if match is None:
        raise PreviewError(f"{browser} did not report the page height (is it a Chromium?)")
    return int(match.group(1))


def screenshot(html_path: Path, png_path: Path, width: int = 1280) -> None:
    """Full-page PNG of an HTML file through headless Chromium (two passes: measure, shoot)."""
    html_path = Path(html_path).resolve()
    png_path = Path(png_path).resolve()
    if not html_path.is_file():
        raise PreviewError(f"{html_path} does not exist")
    browser = find_browser()
    height = min(max(_page_height(browser, html_path, width), 200), MAX_SCREENSHOT_HEIGHT)
    png_path.parent.mkdir(parents=True, exist_ok=True)
    png_path.unlink(missing_ok=True)
    _run_browser(browser, [f"--screenshot={png_path}", html_path.as_uri()], width, height)
    if not png_path.is_file() or png_path.stat().st_size == 0:
        raise PreviewError(f"{browser} exited without writing {png_path}")
