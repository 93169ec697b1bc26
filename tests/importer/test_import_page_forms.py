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


def test_an_own_section_keeps_the_blank_line_after_its_heading():
    imported = import_challenge(PAGE_FORMS / "easy" / "211_noted_scale")
    (section,) = yaml.safe_load(imported.spec_text)["sections"]
    assert section["title"] == "Why Order Does Not Matter" and section["after"] == "examples"
    assert section["html"].startswith("\n<p>No element of <code>y</code>")
    assert imported.identical["challenge.html"]


def test_without_written_examples_the_derivation_is_rewritten_from_the_values():
    imported = import_challenge(PAGE_FORMS / "easy" / "211_noted_scale", written_examples=False)
    assert all("display" not in example for example in examples_of(imported))
    assert not imported.identical["challenge.html"]


def test_a_tensor_written_slice_by_slice_is_read_for_a_later_example(runner, tmp_path: Path):
    """`x[0] = [[...]]`, `x[1] = ...`: the second example is only on the page; its values are
    read from the slices and its outputs verified by the reference when generated."""
    challenge = PAGE_FORMS / "medium" / "212_channel_scale"
    imported = import_challenge(challenge)
    first, second = examples_of(imported)
    assert first["inputs"]["x"] == [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]
    assert second["scalars"] == {"C": 3, "H": 1, "W": 2}
    assert second["inputs"] == {"x": [[[1.0, -1.0]], [[0.5, 2.0]], [[4.0, 0.0]]],
                                "s": [3.0, 2.0, -0.5]}  # fmt: skip
    assert second["outputs"] == {"y": [[[3.0, -3.0]], [[1.0, 4.0]], [[-2.0, 0.0]]]}
    assert "Note:   each channel c" in second["display"]
    page = regenerated_page(runner, imported, tmp_path, challenge)
    assert page == (challenge / "challenge.html").read_text()


def test_an_aligned_latex_example_gives_its_matrix_and_scalars(runner, tmp_path: Path):
    """`A &= \\begin{bmatrix}...` and `M &= 1, \\quad N = 3, \\quad k = -0.5` in a bmatrix
    example: the second example is kept from those values."""
    challenge = PAGE_FORMS / "medium" / "213_matrix_times"
    imported = import_challenge(challenge)
    first, second = examples_of(imported)
    assert first["scalars"] == {"M": 2, "N": 2, "k": 2.0}
    assert second["scalars"] == {"M": 1, "N": 3, "k": -0.5}
    assert second["inputs"] == {"A": [[2.0, -4.0, 1.0]]}
    assert second["outputs"] == {"B": [[-1.0, 2.0, -0.5]]}
    page = regenerated_page(runner, imported, tmp_path, challenge)
    assert page == (challenge / "challenge.html").read_text()


def test_a_scalar_the_page_does_not_write_is_hidden(runner, tmp_path: Path):
    """`nnz` is passed to solve but the page's example leaves it to the data: `hide: [nnz]`
    reproduces the page from the values, without a display."""
    challenge = PAGE_FORMS / "medium" / "214_sparse_scale"
    imported = import_challenge(challenge)
    (example,) = examples_of(imported)
    assert example["hide"] == ["nnz"] and "display" not in example
    assert example["scalars"] == {"N": 4, "nnz": 2, "scale": 3.0}
    page = regenerated_page(runner, imported, tmp_path, challenge)
    assert page == (challenge / "challenge.html").read_text()


def test_hide_names_a_scalar(runner, tmp_path: Path):
    challenge = PAGE_FORMS / "medium" / "214_sparse_scale"
    imported = import_challenge(challenge)
    (spec, *_) = imported.write(tmp_path / "specs" / imported.spec_name)
    spec.write_text(spec.read_text().replace("hide: [nnz]", "hide: [x]"))
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 1
    assert "'x' is not a scalar of the signature (name one of N, nnz, scale)" in result.output


def test_an_indented_bmatrix_example_with_inline_scalars_comes_from_its_values(
    runner, tmp_path: Path
):
    """Lines indented inside the <p>s, the scalars on one line, an explanation after a blank
    line: page.matrix.indent and .inline, the explanation keeping its blank line, no display."""
    challenge = PAGE_FORMS / "medium" / "215_matrix_shift"
    imported = import_challenge(challenge)
    (example,) = examples_of(imported)
    assert "display" not in example
    assert example["explanation"].startswith("\n<p>\n  Every element is scaled")
    assert yaml.safe_load(imported.spec_text)["page"] == {
        "matrix": {"indent": "  ", "inline": True}
    }
    page = regenerated_page(runner, imported, tmp_path, challenge)
    assert page == (challenge / "challenge.html").read_text()


def test_a_performance_bullet_broken_over_lines_is_kept_as_written(runner, tmp_path: Path):
    challenge = PAGE_FORMS / "medium" / "215_matrix_shift"
    imported = import_challenge(challenge)
    data = yaml.safe_load(imported.spec_text)
    assert data["performance"]["bullet"] is False
    assert data["constraints"][-1].split() == [
        "Performance", "is", "measured", "with", "<code>M</code>", "=", "4,096,",
        "<code>N</code>", "=", "4,096",
    ]  # fmt: skip
    assert imported.identical["challenge.html"]
    (spec, *_) = imported.write(tmp_path / "specs" / imported.spec_name)
    spec.write_text(spec.read_text().replace("\\n    Performance is measured", "\\n    Timed"))
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 1
    assert "performance.bullet is false but the last constraint is no 'Performance" in result.output


def test_an_authors_text_with_wrong_values_is_kept_and_said(runner, tmp_path: Path):
    """A derivation whose output disagrees with challenge.py's reference is still the author's
    text: the import keeps it (nothing of the page is lost), tolerates D001, which generate would
    otherwise refuse, and says so; the values stay challenge.py's."""
    import shutil

    original = PAGE_FORMS / "easy" / "211_noted_scale"
    tree = tmp_path / "public" / "challenges"
    shutil.copytree(PAGE_FORMS / "core", tree / "core")
    challenge = tree / "easy" / original.name
    shutil.copytree(original, challenge)
    page = challenge / "challenge.html"
    right = "Output: y = [2.5, -5.0, 1.25, 10.0]"
    assert right in page.read_text()
    page.write_text(page.read_text().replace(right, "Output: y = [2.5, -5.0, 1.25, 11.0]"))
    imported = import_challenge(challenge)
    first = examples_of(imported)[0]
    assert "y = [2.5, -5.0, 1.25, 11.0]" in first["display"]
    assert first["outputs"] == {"y": [2.5, -5.0, 1.25, 10.0]}  # challenge.py's, verified
    assert "D001" in yaml.safe_load(imported.spec_text)["tolerated_rules"]
    assert "its own challenge.py does not produce (D001 " in imported.spec_text
    assert "correct the page or challenge.py" in imported.spec_text
    assert regenerated_page(runner, imported, tmp_path, challenge) == page.read_text()


def test_2d_data_a_page_writes_in_pre_keeps_its_block_without_show_sizes(runner, tmp_path: Path):
    """A page listing the sizes beside 2-D data in <pre>: chgen writes such data as matrices, so
    the block is kept as `display` and no `show_sizes` is written (it would change nothing, and
    the spec loader refuses it)."""
    import shutil

    tree = tmp_path / "public" / "challenges"
    shutil.copytree(PAGE_FORMS.parent / "challenges" / "core", tree / "core")
    challenge = tree / "medium" / "215_matrix_shift"
    shutil.copytree(PAGE_FORMS / "medium" / "215_matrix_shift", challenge)
    page = (challenge / "challenge.html").read_text()
    start, end = page.index("<h2>Example</h2>"), page.index("<h2>Constraints</h2>")
    block = (
        "<h2>Example</h2>\n<pre>\nInput:  M = 2, N = 2\n        A = [[1.0, 2.0], [3.0, 4.0]]\n"
        "        k = 2.0, b = 1.0\nOutput: B = [[3.0, 5.0], [7.0, 9.0]]\n</pre>\n\n"
    )
    (challenge / "challenge.html").write_text(page[:start] + block + page[end:])
    imported = import_challenge(challenge)
    (example,) = examples_of(imported)
    assert "show_sizes" not in example and "M = 2, N = 2" in example["display"]
    regenerated_page(runner, imported, tmp_path, challenge)
