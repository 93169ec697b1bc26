"""How `chgen import` keeps a page's examples (fixtures/public_style/page_forms, ours): an example
whose page text is no function of its values keeps that text as its `display`; the values still
come from challenge.py and are verified when the spec is generated."""

from __future__ import annotations

from pathlib import Path

import yaml

from generator.cli import app
from generator.importer import import_challenge

PAGE_FORMS = Path(__file__).parent / "fixtures" / "public_style" / "page_forms" / "challenges"


def examples_of(imported) -> list:
    data = yaml.safe_load(imported.spec_text)
    return data.get("examples") or [data["example"]]


def regenerated_page(runner, imported, tmp_path: Path, challenge: Path) -> str:
    (spec, *_) = imported.write(tmp_path / "specs" / imported.spec_name)
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    tree = tmp_path / "tree" / "challenges" / challenge.parent.name / challenge.name
    return (tree / "challenge.html").read_text()


def test_an_example_with_a_derivation_keeps_the_authors_text(runner, tmp_path: Path):
    challenge = PAGE_FORMS / "easy" / "211_noted_scale"
    imported = import_challenge(challenge)
    first, second = examples_of(imported)
    assert (
        first["display"].startswith("<pre>\n") and "Step:   y[i] = x[i] * 2.5" in first["display"]
    )
    assert first["explanation"].startswith("<p>Each element is scaled")  # not in the display
    assert first["outputs"] == {"y": [2.5, -5.0, 1.25, 10.0]}  # the values stay challenge.py's
    assert "display" not in second  # rendered from its values as the page writes it
    assert "display: |" in imported.spec_text  # a literal block, readable as the page
    assert imported.identical["challenge.html"]
    page = regenerated_page(runner, imported, tmp_path, challenge)
    assert page == (challenge / "challenge.html").read_text()


def test_without_written_examples_the_derivation_is_rewritten_from_the_values():
    imported = import_challenge(PAGE_FORMS / "easy" / "211_noted_scale", written_examples=False)
    assert all("display" not in example for example in examples_of(imported))
    assert not imported.identical["challenge.html"]
