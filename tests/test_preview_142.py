"""`chgen preview 142 --png`: the real page of challenge 142 in a real browser.

The page renders without math errors, the example's bmatrix values come out as MathML numbers, and
the SVG is visible: inside the box of its #222 background there are drawn (non-background) pixels.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.cli import app
from tests.conftest import ROOT
from tests.test_preview import _pixel, _read_png, _require_browser

SVG_BACKGROUND = (0x22, 0x22, 0x22)
SVG_WIDTH = 520  # the 142 SVG's width in CSS pixels (device scale factor 1)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    _require_browser()
    from typer.testing import CliRunner

    out = tmp_path_factory.mktemp("p142")
    html, png = out / "142.html", out / "142.png"
    result = CliRunner().invoke(
        app, ["preview", "142", "--tree", str(ROOT / "generated"), "--html", str(html),
              "--png", str(png)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return html.read_text(), _read_png(png)


def test_no_math_error_remains(rendered):
    page, _ = rendered
    assert 'class="math-error"' not in page and 'class="math-warnings"' not in page
    assert page.count("<math") >= 10


def test_bmatrix_example_shows_the_example_values(rendered):
    page, _ = rendered
    for value in ("1.375", "1.625", "0.875", "0.625", "3.0", "-1.0", "2.0", "0.5"):
        assert f"<mn>{value.lstrip('-')}</mn>" in page, value


def svg_box(width, height, rows, bpp):
    """Rows and columns of the widest band of #222 pixels (the SVG's background rect)."""
    found = []
    for y in range(height):
        run = best = start = best_start = 0
        for x in range(width):
            if _pixel(rows, bpp, x, y) == SVG_BACKGROUND:
                if run == 0:
                    start = x
                run += 1
                if run > best:
                    best, best_start = run, start
            else:
                run = 0
        if best >= SVG_WIDTH - 20:
            found.append((y, best_start, best_start + best))
    assert found, "no #222 SVG background band in the screenshot"
    return found[0][0], found[-1][0], found[0][1], found[0][2]


def test_svg_is_visible(rendered):
    _, (width, height, rows, bpp) = rendered
    top, bottom, left, right = svg_box(width, height, rows, bpp)
    assert bottom - top > 200, "the SVG box is too short"
    drawn = sum(
        1
        for y in range(top, bottom + 1, 2)
        for x in range(left, right, 2)
        if _pixel(rows, bpp, x, y) != SVG_BACKGROUND
    )
    assert drawn > 2000, f"only {drawn} drawn pixels inside the SVG box"


def test_preview_of_an_unknown_id_is_a_clean_error(tmp_path: Path):
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["preview", "99999", "--tree", str(ROOT / "generated")])
    assert result.exit_code == 1
    assert "no challenge '99999'" in result.output and "Traceback" not in result.output
