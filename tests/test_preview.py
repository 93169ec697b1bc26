"""The preview page: math converted, starters shown, SVG visible in a real browser screenshot.

Browser tests skip, saying why, on a machine without Chromium (`make test` installs it); set
CHGEN_REQUIRE_BROWSER=1 to make a missing browser a failure instead.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import struct
import zlib
from pathlib import Path

import pytest

from generator import preview
from generator.languages import IN_TAB_ORDER, for_gpus
from generator.preview import PreviewError

FIXTURE = Path(__file__).parent / "fixtures" / "preview_challenge"
# Values of the bmatrix example in the fixture; each must come out as an <mn> element.
MATRIX_NUMBERS = ("7.25", "3.5", "42.125", "19.75", "0.5", "1.0", "15.0", "8.0", "84.75", "38.5")
# The fixture's SVG draws a 200x80 rectangle of this colour at the centre of a #222 panel.
MARKER_RGB = (0xFF, 0x00, 0xAA)
MARKER_SIZE = (200, 80)
SVG_PANEL_RGB = (0x22, 0x22, 0x22)


def _require_browser() -> str:
    """The browser, or a skip whose reason says what is missing and how to get it."""
    try:
        return preview.find_browser()
    except PreviewError as exc:
        if os.environ.get("CHGEN_REQUIRE_BROWSER") == "1":
            pytest.fail(f"CHGEN_REQUIRE_BROWSER=1 but {exc}")
        pytest.skip(f"needs Chromium: {exc}")


def _read_png(path: Path) -> tuple[int, int, list[bytes], int]:
    """Decode an 8-bit RGB/RGBA PNG with zlib only: Pillow is not a project dependency."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    position, chunks, header = 8, [], None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    assert header is not None, "PNG without IHDR"
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(chunks))
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def _pixel(rows: list[bytes], bpp: int, x: int, y: int) -> tuple[int, int, int]:
    return tuple(rows[y][x * bpp : x * bpp + 3])


@pytest.fixture(scope="module")
def page() -> str:
    return preview.render_preview(FIXTURE)


@pytest.fixture(scope="module")
def shot(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, int, list[bytes], int]:
    """One screenshot of the fixture preview, shared by the pixel checks."""
    _require_browser()
    out = tmp_path_factory.mktemp("preview")
    html_path, png_path = out / "preview.html", out / "preview.png"
    assert preview.write_preview(FIXTURE, html_path) == []
    preview.screenshot(html_path, png_path)
    return _read_png(png_path)


# --- math conversion ------------------------------------------------------------------------


def test_inline_and_display_math_become_mathml() -> None:
    out, errors = preview.convert_math(r"<p>\(a &lt; b\) and \[\frac{x}{y}\]</p>")
    assert errors == []
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in out
    assert 'display="block"' in out and "<mfrac>" in out
    assert "&#x0003C;" in out, "HTML-escaped '<' must reach the converter as '<'"
    assert "\\(" not in out and "\\[" not in out


def test_math_inside_code_stays_literal() -> None:
    out, errors = preview.convert_math(r"<code>\(x\)</code> \(y\)")
    assert errors == []
    assert out.startswith(r"<code>\(x\)</code> <math")


def test_align_text_and_row_spacing_convert() -> None:
    tex = r"\[\begin{aligned} \text{lhs} &= a \\[4pt] b &= c \end{aligned}\]"
    out, errors = preview.convert_math(tex)
    assert errors == []
    assert "<mtext>lhs</mtext>" in out
    assert 'columnalign="right"' in out and 'columnalign="left"' in out
    assert "4pt" not in out, "row spacing must not be printed as text"


@pytest.mark.parametrize(
    ("tex", "reason"),
    [
        (r"\(x^\)", "MissingSuperScriptOrSubscriptError"),
        (r"\(\begin{bmatrix} 1 \end{pmatrix}\)", "MissingEndError"),
        (r"\(a & b\)", "'&' outside"),
        (r"\(\notacommand x\)", r"unknown command \notacommand"),
    ],
)
def test_bad_math_is_kept_visible_and_reported(tex: str, reason: str) -> None:
    out, errors = preview.convert_math(f"<p>{tex}</p>")
    assert len(errors) == 1 and reason in errors[0] and "\n" not in errors[0]
    assert '<span class="math-error" data-tex="' in out
    assert tex in out, "the original TeX must stay on the page"
    assert "<math" not in out


# --- the page -------------------------------------------------------------------------------


def test_fixture_page_has_no_math_errors(page: str) -> None:
    source = (FIXTURE / "challenge.html").read_text(encoding="utf-8")
    assert 'class="math-error"' not in page and 'class="math-warnings"' not in page
    math_tags = re.findall(r'<math xmlns="[^"]+" display="(\w+)">', page)
    assert math_tags.count("inline") == len(re.findall(r"\\\(", source))
    assert math_tags.count("block") == len(re.findall(r"\\\[", source))
    assert "\\(" not in page and "\\[" not in page


def test_fixture_page_matrix_numbers_are_mathml(page: str) -> None:
    for number in MATRIX_NUMBERS:
        assert f"<mn>{number}</mn>" in page, number
    assert page.count('<mtable class="bmatrix">') == 3
    assert "<mtext>output</mtext>" in page
    assert "<mtext>(1)</mtext>" in page, "align keeps its equation numbers"


def test_fixture_page_shows_name_svg_and_all_starters(page: str) -> None:
    assert "<title>Scaled Bias Add</title>" in page
    assert '<svg id="preview-marker"' in page
    for lang in IN_TAB_ORDER:
        filename, label = lang.starter_name, lang.title
        if not lang.required_in_tree:  # the fixture predates it: left out, not "missing"
            assert f">{filename}</span>" not in page
            continue
        assert f">{label}</span>" in page and f">{filename}</span>" in page
    assert "is missing" not in page
    assert 'class="hl"' in page and page.count('class="linenos"') > 40


def test_a_multi_gpu_page_shows_only_the_starters_it_ships() -> None:
    tree = Path(__file__).parents[1] / "generated" / "challenges" / "hard"
    page = preview.render_preview(tree / "144_distributed_rms_norm_backward")
    for lang in IN_TAB_ORDER:
        shipped = lang in for_gpus(4)
        assert (f">{lang.starter_name}</span>" in page) == shipped, lang.title
    assert "is missing" not in page


def test_page_is_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    for needle in ("<script", "<link", " src=", "url(", "@import", "https:"):
        assert needle not in page, needle
    namespaces = {"http://www.w3.org/1998/Math/MathML", "http://www.w3.org/2000/svg"}
    assert set(re.findall(r"http://[^\"' )]+", page)) <= namespaces


def test_missing_starter_and_title_parts(tmp_path: Path) -> None:
    challenge = tmp_path / "medium" / "7_scaled_bias_add"
    shutil.copytree(FIXTURE, challenge)
    (challenge / "starter" / "starter.mojo").unlink()
    html_out = tmp_path / "out" / "page.html"
    assert preview.write_preview(challenge, html_out) == []
    text = html_out.read_text(encoding="utf-8")
    assert '<span class="number">7.</span>' in text and "badge-medium" in text
    assert "starter.mojo is missing" in text


def test_write_preview_returns_math_errors(tmp_path: Path) -> None:
    challenge = tmp_path / "broken"
    shutil.copytree(FIXTURE, challenge)
    with (challenge / "challenge.html").open("a", encoding="utf-8") as handle:
        handle.write("<p>Broken: \\(x^\\)</p>\n")
    errors = preview.write_preview(challenge, tmp_path / "page.html")
    assert len(errors) == 1 and errors[0].startswith("\\(x^\\)")
    text = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert 'class="math-error"' in text and 'class="math-warnings"' in text


def test_missing_description_is_a_preview_error(tmp_path: Path) -> None:
    with pytest.raises(PreviewError, match="has no challenge.html"):
        preview.render_preview(tmp_path)


# --- the browser ----------------------------------------------------------------------------


def test_screenshot_shows_the_svg(shot: tuple[int, int, list[bytes], int]) -> None:
    width, height, rows, bpp = shot
    assert width == 1280 and height > 1000
    assert max(_pixel(rows, bpp, 2, 2)) < 0x30, "page background must be dark"
    marker = bytes(MARKER_RGB)
    xs: list[int] = []
    ys: list[int] = []
    for y, row in enumerate(rows):
        for x in range(width):
            if row[x * bpp : x * bpp + 3] == marker:
                xs.append(x)
                ys.append(y)
    assert len(xs) > 0.8 * MARKER_SIZE[0] * MARKER_SIZE[1], "SVG rectangle not visible"
    box_w, box_h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    assert abs(box_w - MARKER_SIZE[0]) <= 2 and abs(box_h - MARKER_SIZE[1]) <= 2, (box_w, box_h)
    # The rectangle sits on the SVG's own #222 panel, 20 px in from its edges.
    assert _pixel(rows, bpp, min(xs) - 10, min(ys) + 40) == SVG_PANEL_RGB
    assert _pixel(rows, bpp, max(xs) + 10, max(ys) - 40) == SVG_PANEL_RGB
    assert max(ys) < height // 2, "the description (with its SVG) comes before the starters"


def test_screenshot_is_full_page_height(shot: tuple[int, int, list[bytes], int]) -> None:
    _, height, rows, bpp = shot
    # The last rows are page padding below the starter card, not clipped content.
    assert max(_pixel(rows, bpp, 640, height - 3)) < 0x30


def _expect_one_line_error(html_path: Path, png_path: Path) -> str:
    with pytest.raises(PreviewError) as caught:
        preview.screenshot(html_path, png_path)
    message = str(caught.value)
    assert message and "\n" not in message
    assert not png_path.exists()
    return message


def test_browser_override_to_missing_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    html_path = tmp_path / "page.html"
    preview.write_preview(FIXTURE, html_path)
    monkeypatch.setenv("CHGEN_CHROMIUM", str(tmp_path / "no-such-browser"))
    message = _expect_one_line_error(html_path, tmp_path / "page.png")
    assert "CHGEN_CHROMIUM" in message and "apt-get install -y chromium" in message


def test_no_browser_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    html_path = tmp_path / "page.html"
    preview.write_preview(FIXTURE, html_path)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.delenv("CHGEN_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    message = _expect_one_line_error(html_path, tmp_path / "page.png")
    assert "no Chromium browser found" in message and "apt-get install -y chromium" in message


def test_failing_browser_reports_its_last_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    html_path = tmp_path / "page.html"
    preview.write_preview(FIXTURE, html_path)
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\necho 'starting' >&2\necho 'cannot open display' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("CHGEN_CHROMIUM", str(fake))
    message = _expect_one_line_error(html_path, tmp_path / "page.png")
    assert "exit status 3" in message and "cannot open display" in message
