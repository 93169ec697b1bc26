"""The spec's `page:` block: each layout choice renders as documented, bad values are positioned
errors, and `chgen import`'s page reader finds every choice again on a page rendered with it."""

from __future__ import annotations

import pytest
import yaml

from generator.importer import html as page_reader
from generator.render import challenge_html_context, render_template
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import ROOT

SPECS = ROOT / "tests" / "golden" / "specs"
VECTOR = (SPECS / "1_vector_add.yaml").read_text()
MATRIX = (SPECS / "3_matrix_transpose.yaml").read_text()


def with_page(text: str, block: str) -> str:
    return text.rstrip("\n") + "\n\npage:\n" + block


def page_of(text: str) -> str:
    loaded = load_spec_text(text, "spec.yaml")
    return render_template("challenge.html.j2", challenge_html_context(loaded))


def errors_of(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "spec.yaml")
    return [e.render() for e in info.value.errors]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_defaults_render_the_page_unchanged():
    assert page_of(with_page(VECTOR, "  item_indent: '  '\n")) == page_of(VECTOR)


def test_pre_form_choices():
    block = (
        "  pre: {tight: true, aligned: false, inline: true, unnamed: [output], indent: '  ',"
        " size_note: true}\n"
    )
    page = page_of(with_page(VECTOR, block))
    assert (
        "<pre>  Input: A = [1.0, 2.0, 3.0, 4.0], B = [5.0, 6.0, 7.0, 8.0]  (N=4)\n"
        "  Output: [6.0, 8.0, 10.0, 12.0]</pre>\n"
    ) in page


def test_list_and_section_layout():
    text = with_page(
        VECTOR,
        "  item_indent: '    '\n  heading_gap: [constraints]\n  section_gaps: [0, 2, 1, 0]\n",
    )
    text = text.replace(
        "  - External libraries are not permitted",
        '  - "External libraries\\n      are not permitted\\n  "',
    )
    page = page_of(text)
    assert "</p>\n<h2>Implementation Requirements</h2>\n<ul>\n" in page
    assert "    <li>External libraries\n      are not permitted\n  </li>\n" in page
    assert "</ul>\n\n\n<h2>Example 1:</h2>" in page
    assert "</p>\n<h2>Constraints</h2>\n\n<ul>\n    <li>Input vectors" in page
    assert "\n\n  <li>Performance is measured" in page  # the bullet keeps its own indentation


def test_matrix_form_choices():
    page = page_of(with_page(MATRIX, "  matrix: {strong: false, split: false, labels: latex}\n"))
    assert "<p>\nInput:<br>\nMatrix \\(input\\) (\\(2 \\times 3\\)):\n\\[" in page
    assert "\\]\nOutput:<br>\nMatrix \\(output\\) (\\(3 \\times 2\\)):\n" in page
    assert "</p>\n\n<p>" not in page.split("<h2>Example")[1]
    page = page_of(with_page(MATRIX, "  matrix: {times: ×}\n"))
    assert "<code>input</code> (2×3):" in page


@pytest.mark.parametrize(
    "block, needle, expect",
    [
        ("  item_indent: '\\t'\n", "item_indent", "an indentation is spaces only"),
        ("  section_gaps: [1, 1]\n", "section_gaps", "section_gaps gives 2 gap(s)"),
        ("  section_gaps: [1, 1, 9, 1]\n", "section_gaps", "it must be at most 3"),
        ("  heading_gap: [examples, examples]\n", "heading_gap", "name each section once"),
        ("  pre: {unnamed: [middle]}\n", "unnamed", "'input' or 'output'"),
        ("  matrix: {labels: plain}\n", "labels", "'code' or 'latex'"),
        ("  matrix: {bold: true}\n", "bold", "bold"),
    ],
)
def test_bad_page_values_are_positioned(block, needle, expect):
    text = with_page(VECTOR, block)
    errors = errors_of(text)
    assert any(expect in e for e in errors), errors
    wanted = line_of(text, needle)
    assert any(e.startswith(f"spec.yaml:{wanted}:") for e in errors), errors


@pytest.mark.parametrize(
    "spec, block",
    [
        (VECTOR, "  item_indent: '    '\n  heading_gap: [requirements, examples]\n"),
        (VECTOR, "  section_gaps: [0, 0, 2, 1]\n"),
        (VECTOR, "  pre: {tight: true, aligned: false, unnamed: [output], size_note: true}\n"),
        (VECTOR, "  pre: {inline: true, indent: '  '}\n"),
        (MATRIX, "  matrix: {strong: false, split: false, labels: latex}\n"),
        (MATRIX, "  matrix: {times: ×}\n"),
    ],
)
def test_the_page_reader_finds_each_choice_again(spec, block):
    text = with_page(spec, block)
    page = page_of(text)
    loaded = load_spec_text(text, "spec.yaml").spec
    outputs = [p.name for p in loaded.signature if p.is_tensor and p.direction != "in"]
    read = page_reader.read_page(page, outputs, [p.name for p in loaded.signature])
    assert read.form == yaml.safe_load("page:\n" + block)["page"]


# ------------------------------------------------------------------ example numbers and display


def with_example_field(text: str, line: str) -> str:
    """The first example of the spec with one more field (`line`, at the example's indent)."""
    anchor = "      C: [6.0, 8.0, 10.0, 12.0]\n" if "C: [6.0" in text else "    output: [[1.0"
    head, tail = text.split(anchor, 1)
    rest = tail.split("\n", 1) if not anchor.endswith("\n") else ["", tail]
    indent = "    " if anchor.startswith("      ") else "  "
    first = anchor + (rest[0] + "\n" if rest[0] else "")
    return head + first + indent + line + "\n" + rest[1]


def test_numbers_round_the_shown_values_only():
    page = page_of(
        with_example_field(VECTOR, "numbers: {decimals: 2, fixed: true, parts: [output]}")
    )
    assert "Input:  A = [1.0, 2.0, 3.0, 4.0]\n" in page
    assert "Output: C = [6.00, 8.00, 10.00, 12.00]\n" in page
    page = page_of(with_example_field(VECTOR, "numbers: {ints: true}"))
    assert "Input:  A = [1, 2, 3, 4]\n        B = [5, 6, 7, 8]\nOutput: C = [6, 8, 10, 12]" in page
    page = page_of(with_example_field(MATRIX, "numbers: {decimals: 1, fixed: true}"))
    assert "1.0 & 4.0 \\\\\n2.0 & 5.0" in page


@pytest.mark.parametrize(
    "value, form, shown",
    [
        (5.6667, {"decimals": 2}, "5.67"),
        (5.0, {"decimals": 2, "fixed": True}, "5.00"),
        (0.5, {"decimals": 4}, "0.5"),
        (-0.0001, {"decimals": 2}, "0.0"),
        (0.365148126, {"digits": 8}, "0.36514813"),
        (2.0, {"ints": True}, "2"),
        (3, {"decimals": 2, "fixed": True}, "3"),  # ints stay ints
    ],
)
def test_number_formats(value, form, shown):
    from generator.html import NumberFormat, format_number

    assert format_number(value, NumberFormat(**form)) == shown


def test_the_importer_finds_the_page_rounding_again():
    assert page_reader.example_numbers([(1.0, "1.0")], [(5.6667, "5.67"), (5.0, "5.0")]) == {
        "decimals": 2
    }
    assert page_reader.example_numbers([(1.0, "1.0")], [(5.0, "5.00"), (4.289, "4.29")]) == {
        "decimals": 2,
        "fixed": True,
        "parts": ["output"],
    }
    assert page_reader.example_numbers([(2.0, "2")], [(0.5, "0.5")]) == {"ints": True}
    assert page_reader.example_numbers([(1.0, "1.0")], [(0.5, "0.5")]) is None
    assert page_reader.example_numbers([], [(0.5, "0.6")]) is None  # no rounding writes it


def test_a_display_replaces_the_data_block_and_keeps_the_explanation():
    text = with_example_field(VECTOR, 'display: "<pre>\\nA + B = C\\n</pre>\\n"')
    text = with_example_field(text, "explanation: <p>Each element is added.</p>")
    page = page_of(text)
    assert "<h2>Example 1:</h2>\n<pre>\nA + B = C\n</pre>\n<p>Each element is added.</p>\n" in page


@pytest.mark.parametrize(
    "line, needle, expect",
    [
        ("numbers: {decimals: 2, digits: 3}", "numbers: {", "give decimals or digits, not both"),
        ("numbers: {fixed: true}", "numbers: {", "fixed needs decimals"),
        ("numbers: {decimals: 20}", "decimals", "it must be at most 12"),
        ("numbers: {decimals: 2, parts: [middle]}", "parts", "'input' or 'output'"),
        ("numbers: {decimals: 2, parts: []}", "numbers: {", "parts names input and/or output"),
    ],
)
def test_bad_numbers_are_positioned(line, needle, expect):
    text = with_example_field(VECTOR, line)
    errors = errors_of(text)
    assert any(expect in e for e in errors), errors
    wanted = line_of(text, needle)
    assert any(e.startswith(f"spec.yaml:{wanted}:") for e in errors), errors


def test_matrix_gap_and_its_round_trip():
    block = "  matrix: {gap: false}\n"
    page = page_of(with_page(MATRIX, block))
    assert "</p>\n<p>\n<strong>Output:</strong>" in page
    text = with_page(MATRIX, block)
    loaded = load_spec_text(text, "spec.yaml").spec
    read = page_reader.read_page(page, ["output"], [p.name for p in loaded.signature])
    assert read.form == {"matrix": {"gap": False}}


@pytest.mark.parametrize(
    "spec, numbers",
    [
        (VECTOR, "{decimals: 2, fixed: true, parts: [output]}"),
        (VECTOR, "{ints: true}"),
        (MATRIX, "{decimals: 3, fixed: true}"),
    ],
)
def test_the_importer_finds_numbers_again(spec, numbers):
    from generator.importer.draft import ExampleEntry
    from generator.importer.examples import number_pairs

    text = with_example_field(spec, f"numbers: {numbers}")
    page = page_of(text)
    loaded = load_spec_text(text, "spec.yaml").spec
    names = [p.name for p in loaded.signature]
    outputs = [p.name for p in loaded.signature if p.is_tensor and p.direction != "in"]
    read = page_reader.read_page(page, outputs, names)
    example = loaded.examples[0]
    entry = ExampleEntry(scalars=example.scalars, inputs=example.inputs, outputs=example.outputs)
    found = page_reader.example_numbers(*number_pairs(entry, read.examples[0].shown))
    assert found == yaml.safe_load(f"n: {numbers}")["n"]


# ------------------------------------------------------------- own sections and indentation

SECTIONS = """
sections:
  - title: Background
    after: description
    html: |
      <p>Vectors are added.</p>
  - title: How It Is Computed
    after: requirements
    gap: 2
    html: |
      <p>Each element:</p>
      \\[ C_i = A_i + B_i \\]
  - title: Walkthrough
    after: examples
    html: |
      <p>One element at a time.</p>
  - title: References
    after: constraints
    html: |
      <ul>
        <li><a href="https://example.org/vectors">Vector addition</a></li>
      </ul>
"""


def test_own_sections_render_after_the_section_they_follow():
    page = page_of(VECTOR.rstrip("\n") + "\n" + SECTIONS)
    assert "</p>\n\n<h2>Background</h2>\n<p>Vectors are added.</p>\n\n<h2>Implementation" in page
    assert "</ul>\n\n\n<h2>How It Is Computed</h2>\n<p>Each element:</p>\n\\[ C_i" in page
    last_example = page.rindex("</pre>")
    assert (
        page.index("\n\n<h2>Walkthrough</h2>\n<p>One element at a time.</p>\n\n<h2>Constraints")
        > last_example
    )
    assert page.endswith(
        '</ul>\n\n<h2>References</h2>\n<ul>\n  <li><a href="https://example.org/vectors">'
        "Vector addition</a></li>\n</ul>\n"
    )
    order = [page.index(f"<h2>{title}") for title in ("Background", "Implementation", "How It")]
    assert order == sorted(order)


def test_structural_indent_and_item_indents():
    block = "  indent: '  '\n  item_indents: ['  ', '    ', '    ', '  ', '  ']\n"
    page = page_of(with_page(VECTOR, block))
    assert "\n  <h2>Implementation Requirements</h2>\n  <ul>\n  <li>External" in page
    assert "\n    <li>The <code>solve</code>" in page
    assert "\n  <pre>\nInput:  A = " in page and "\n  </pre>\n" in page
    assert page.endswith(
        "  <li>Performance is measured with <code>N</code> = 25,000,000</li>\n</ul>\n"
    )


@pytest.mark.parametrize(
    "text, needle, expect",
    [
        (
            SECTIONS.replace("title: Background", "title: Constraints"),
            "title: Constraints",
            "reads as a standard section's title",
        ),
        (
            SECTIONS.replace("title: Walkthrough", "title: Example 3"),
            "title: Example 3",
            "reads as a standard section's title",
        ),
        (
            SECTIONS.replace("<p>Vectors are added.</p>", "<h2>More</h2>"),
            "html: |",
            "holds an <h2>",
        ),
        (
            SECTIONS.replace("after: description", "after: introduction"),
            "introduction",
            "'description', 'requirements', 'examples' or 'constraints'",
        ),
        (SECTIONS.replace("gap: 2", "gap: 7"), "gap: 7", "it must be at most 3"),
        (
            SECTIONS.replace("after: examples", "after: introduction"),
            "introduction",
            "'description', 'requirements', 'examples' or 'constraints'",
        ),
    ],
)
def test_bad_sections_are_positioned(text, needle, expect):
    spec = VECTOR.rstrip("\n") + "\n" + text
    errors = errors_of(spec)
    assert any(expect in e for e in errors), errors
    assert any(e.startswith(f"spec.yaml:{line_of(spec, needle)}:") for e in errors), errors


def test_own_sections_are_listed_in_page_order():
    spec = VECTOR.rstrip("\n") + "\n" + SECTIONS.replace("after: examples", "after: description")
    errors = errors_of(spec)
    assert any("list the sections in page order" in e for e in errors), errors
    wanted = line_of(spec, "title: Walkthrough") + 1
    assert any(e.startswith(f"spec.yaml:{wanted}:") for e in errors), errors


def test_a_wrong_item_indent_count_is_positioned():
    text = with_page(VECTOR, "  item_indents: ['  ', '    ']\n")
    errors = errors_of(text)
    assert any("item_indents gives 2 indentation(s); the page has 5 items" in e for e in errors)
    assert any(e.startswith(f"spec.yaml:{line_of(text, 'item_indents')}:") for e in errors)


def test_the_page_reader_finds_sections_and_indentation_again():
    block = "  indent: '  '\n  item_indents: ['  ', '    ', '    ', '  ', '  ']\n"
    text = with_page(VECTOR, block).rstrip("\n") + "\n" + SECTIONS
    page = page_of(text)
    loaded = load_spec_text(text, "spec.yaml").spec
    read = page_reader.read_page(page, ["C"], [p.name for p in loaded.signature])
    assert read.form == yaml.safe_load("page:\n" + block)["page"]
    assert [s.data() for s in read.sections] == yaml.safe_load(SECTIONS)["sections"]


def test_after_svg_follows_the_svg_and_comes_back_on_import():
    text = VECTOR.replace(
        "\nrequirements:",
        '\nsvg: <svg viewBox="0 0 1 1"><rect/></svg>\n\n'
        "after_svg: |\n  <p>\n    Then this.\n  </p>\n\nrequirements:",
        1,
    )
    loaded = load_spec_text(text, "spec.yaml", SPECS / "1_vector_add.yaml")
    page = render_template("challenge.html.j2", challenge_html_context(loaded))
    assert '</p>\n\n<svg viewBox="0 0 1 1"><rect/></svg>\n\n<p>\n  Then this.\n</p>\n\n<h2>' in page
    read = page_reader.read_page(page, ["C"], ["A", "B", "C", "N"])
    assert read.after_svg == "<p>\n  Then this.\n</p>"
    assert read.description.endswith("</p>") and "Then this" not in read.description


def test_after_svg_needs_an_svg():
    text = VECTOR.replace("\nrequirements:", "\nafter_svg: <p>Then.</p>\n\nrequirements:", 1)
    errors = errors_of(text)
    assert any("after_svg places HTML after the SVG, and the spec has no svg" in e for e in errors)
    assert any(e.startswith(f"spec.yaml:{line_of(text, 'after_svg')}:") for e in errors), errors
