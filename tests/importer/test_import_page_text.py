"""Nothing the author wrote is lost (fixtures/public_style/page_text, ours, in the public form):
every example, section and text of a page is carried into the spec, as values where the page
writes them readably, as the author's text otherwise, or the import refuses the challenge and
says what would be lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.cli import app
from generator.importer import ImportFailure, import_challenge
from generator.importer.report import reason_of

PAGE_TEXT = Path(__file__).parent / "fixtures" / "public_style" / "page_text" / "challenges"
SHIFT = PAGE_TEXT / "easy" / "221_shift_values"
PROSE = PAGE_TEXT / "medium" / "222_prose_rules"


def spec_of(imported) -> dict:
    return yaml.safe_load(imported.spec_text)


def regenerated_page(runner, imported, tmp_path: Path, challenge: Path) -> str:
    (spec, *_) = imported.write(tmp_path / "specs" / imported.spec_name)
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    tree = tmp_path / "tree" / "challenges" / challenge.parent.name / challenge.name
    return (tree / "challenge.html").read_text()


def test_every_example_of_a_page_is_kept(runner, tmp_path: Path):
    """A second <pre> example under names of its own (`values`, `shifted`, N left to the data's
    length) is read as values and keeps its text; a third written in words is the page's text
    alone; the bullet chgen would write with thousands separators stays as the page writes it."""
    imported = import_challenge(SHIFT)
    spec = spec_of(imported)
    first, second, third = spec["examples"]
    assert "display" not in first  # chgen writes it as the page does
    assert second["scalars"] == {"N": 3, "shift": -0.5}
    assert second["inputs"] == {"x": [-1.5, 0.0, 2.5]}
    assert second["outputs"] == {"y": [-2.0, -0.5, 2.0]}  # the reference's, as the page shows
    assert "Input:  values = [-1.5, 0.0, 2.5]" in second["display"]
    assert set(third) == {"display"} and "a vector of eight zeros" in third["display"]
    assert "example 3: shows no readable N, x; the spec keeps it as the page's text alone" in (
        imported.spec_text
    )
    assert spec["performance"]["bullet"] is False
    assert spec["constraints"][-1] == "Performance is measured with <code>N</code> = 25000000"
    assert imported.page_parts["example"] == {"values": 1, "text": 2, "text_only": 1}
    assert imported.page_parts["performance bullet"] == {"values": 0, "text": 1}
    assert imported.identical["challenge.html"]
    assert (
        regenerated_page(runner, imported, tmp_path, SHIFT)
        == (SHIFT / "challenge.html").read_text()
    )


def test_requirements_in_paragraphs_and_an_unlabelled_matrix_example(runner, tmp_path: Path):
    """Implementation Requirements written as paragraphs are kept as the section's HTML; a
    bmatrix example whose matrices carry no name and whose scalar is its Greek letter (`α` for
    alpha) is read as values, its sizes off the matrix."""
    imported = import_challenge(PROSE)
    spec = spec_of(imported)
    assert spec["requirements"].startswith("<p>\n  Keep the <code>solve</code> signature")
    second = spec["examples"][1]
    assert second["scalars"] == {"M": 2, "N": 1, "alpha": 3.0}
    assert second["inputs"] == {"A": [[1.0], [-2.0]]}
    assert second["outputs"] == {"B": [[3.0], [-6.0]]}
    assert imported.page_parts["section HTML"] == {"text": 1}
    assert (
        regenerated_page(runner, imported, tmp_path, PROSE)
        == (PROSE / "challenge.html").read_text()
    )


@pytest.mark.parametrize(
    "name, lost",
    [
        ("223_noted_limits", "the Constraints section holds text after its list"),
        ("224_lead_note", 'Constraints loses "Every size below is checked before solve runs"'),
    ],
)
def test_text_no_spec_field_keeps_refuses_the_challenge(name: str, lost: str):
    """Text the spec cannot hold (here, around the Constraints list) is never dropped: the
    challenge is refused, naming it; the second is caught by comparing the regenerated page's
    words with the original's."""
    with pytest.raises(ImportFailure) as caught:
        import_challenge(PAGE_TEXT / "easy" / name)
    message = str(caught.value)
    assert lost in message and "\n" not in message
    assert reason_of(message) == ("a part of the page no spec field keeps", "constraints")


def test_a_spec_keeping_an_example_as_text_alone_loads_and_refuses_misuse(tmp_path: Path):
    """An example of `display` alone has no values: it cannot be the first example (that is
    generate_example_test's) nor a case's from_example, nor carry values half-given."""
    from generator.spec import SpecErrors, load_spec

    spec = spec_of(import_challenge(SHIFT))
    path = tmp_path / "221_shift_values.yaml"

    def errors(data: dict) -> str:
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        with pytest.raises(SpecErrors) as caught:
            load_spec(path)
        return str(caught.value)

    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    assert load_spec(path).spec.examples[2].text_only
    first_alone = {**spec, "examples": [spec["examples"][2], spec["examples"][0]]}
    assert "the first example is what generate_example_test returns" in errors(first_alone)
    from_text = {**spec, "functional": [{"name": "third", "from_example": 3}]}
    assert "example 3 is the page's text alone" in errors(from_text)
    half = dict(spec, examples=spec["examples"][:2] + [{**spec["examples"][2], "scalars": {}}])
    assert "missing required field" in errors(half)


def test_the_tree_import_counts_what_it_kept_of_the_pages(runner, tmp_path: Path):
    """The tree summary: per kind of page part, kept as values, as text, refused."""
    specs, report = tmp_path / "specs", tmp_path / "report.json"
    result = runner.invoke(
        app, ["import", str(PAGE_TEXT.parent), "--out", str(specs), "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "examples: 1 as values, 2 as text (1 without values)" in result.output
    header = next(i for i, line in enumerate(lines) if line.startswith("page part "))
    rows = {line[:18].strip(): line[18:].split() for line in lines[header + 2 : header + 8]}
    assert rows["example"] == ["1", "4", "0"]  # 221: 1 + 2 as text; 222: both as text
    assert rows["list item"] == ["0", "6", "2"]  # 223 and 224 refused for their Constraints
    assert rows["section HTML"] == ["0", "1", "0"]
    assert "(of the 4 examples kept as text, 3 carry their values too" in result.output
    data = json.loads(report.read_text())
    assert data["page_parts"]["example"] == {"values": 1, "text": 4, "text_only": 1, "refused": 0}
    assert data["refused"] == 2
