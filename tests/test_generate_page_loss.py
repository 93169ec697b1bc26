"""`chgen generate` never writes over a page it did not write with one that shows less of its
text without saying so: one line, at the spec node that renders the part losing it, naming the
words lost; nothing written unless --force, which writes and still names the page. chgen's own
pages, and changes of markup alone, are regenerated as before."""

from __future__ import annotations

from pathlib import Path

from generator.cli import app
from generator.spec import load_spec
from tests.test_generate import CHALLENGE, snapshot

SPEC = Path("specs/142_rms_norm_backward.yaml")
PAGE = CHALLENGE / "challenge.html"
#: an example the page on disk shows and the spec does not
OWN_EXAMPLE = """<h2>Example 3:</h2>
<pre>
Input:  x = [[3.0, 4.0]], dy = [[1.0, 1.0]], weight = [1.0, 1.0]
Output: dx = [[0.1131, -0.0849]]
</pre>

"""


def lines_with(output: str, words: str) -> list:
    return [line for line in output.splitlines() if words in line]


def test_a_page_losing_its_authors_text_is_named_and_kept_unless_forced(workdir: Path, runner):
    page = workdir / PAGE
    written = page.read_text()
    page.write_text(written.replace("<h2>Constraints</h2>", OWN_EXAMPLE + "<h2>Constraints</h2>"))
    before = snapshot(workdir / "generated")
    result = runner.invoke(app, ["generate"])
    assert result.exit_code == 1
    (line,) = lines_with(result.output, "on disk shows text")
    where = load_spec(SPEC).example_position(0)  # the spec's one example: the 3rd would follow
    assert line.startswith(f"error {where}: {PAGE} on disk shows text ")
    assert 'Example 3 loses "Example 3 Input x 3.0 4.0 dy' in line
    assert "'chgen generate --force'" in line
    assert "nothing was written; 1 page(s) would lose text" in result.output
    assert snapshot(workdir / "generated") == before

    result = runner.invoke(app, ["generate", "--force"])
    assert result.exit_code == 0, result.output
    (line,) = lines_with(result.output, "on disk shows text")
    assert line.startswith(f"warning {where}: ") and "Example 3 loses" in line
    assert page.read_text() == written


def test_chgen_s_own_pages_and_markup_changes_are_not_losses(workdir: Path, runner):
    spec = workdir / SPEC
    spec.write_text(spec.read_text().replace("  - Use only native features", "  - Use native"))
    result = runner.invoke(app, ["generate"])  # the spec's word: the page chgen wrote shrinks
    assert result.exit_code == 0, result.output
    assert "Use only native" not in (workdir / PAGE).read_text()
    assert not lines_with(result.output, "shows text")

    page = workdir / PAGE
    page.write_text(page.read_text().replace("&le;", "≤").replace("<h2>", "<h2 >"))
    result = runner.invoke(app, ["generate"])  # a hand edit still, but no text lost
    assert result.exit_code == 1
    assert lines_with(
        result.output, "edited by hand: generated/" + str(PAGE.relative_to("generated"))
    )
    assert not lines_with(result.output, "shows text")
    result = runner.invoke(app, ["generate", "--force"])
    assert result.exit_code == 0 and not lines_with(result.output, "shows text")
