"""docs/spec.md and the JSON Schema are the spec model's own words, and stay so.

The committed copies (docs/spec.md, the packaged schema, specs/'s schema) are regenerated here and
compared; the schema is checked with a real JSON Schema validator against every spec we ship and
against broken ones; the specs `chgen new` writes name the schema it writes beside them.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from generator import spec_docs
from generator.cli import app
from generator.naming import MODELINE, SCHEMA_NAME
from generator.spec.model import Spec
from generator.spec.yamlpos import load_positioned
from tests.conftest import ROOT

REGENERATE = "run `python -m generator.spec_docs` and commit the result"


@pytest.mark.parametrize("relative", sorted(spec_docs.COPIES))
def test_the_committed_copy_is_what_the_model_gives(relative: str):
    committed = (ROOT / relative).read_text(encoding="utf-8")
    assert committed == spec_docs.COPIES[relative](), f"{relative} is stale: {REGENERATE}"


def test_every_field_of_every_part_is_described():
    parts = [Spec] + [model for _, model in spec_docs._sections()]
    missing = [
        f"{model.__name__}.{name}"
        for model in parts
        for name, info in model.model_fields.items()
        if not (info.description or "").strip()
    ]
    assert missing == [], f"fields without Field(description=...): {missing}"
    page = spec_docs.spec_markdown()
    for heading in ("## `page`", "## `page.pre`", "## `page.matrix`", "## Inputs"):
        assert heading in page, heading


def chgen_data(path: Path):
    """A spec as chgen reads it (YAML 1.2 numbers: `1e-5` is a float, as editors read it)."""
    return load_positioned(path.read_text(encoding="utf-8"), str(path)).data


SHIPPED_SPECS = sorted(
    [*ROOT.glob("specs/*.yaml"), *ROOT.glob("tests/golden/specs/*.yaml")]
    + [*ROOT.glob("tests/fixtures/newcomer/*.yaml")]
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = spec_docs.spec_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", SHIPPED_SPECS, ids=lambda p: p.name)
def test_every_spec_we_ship_is_valid_under_the_schema(path: Path, validator):
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(chgen_data(path))]
    assert errors == []


@pytest.mark.parametrize(
    "change, complaint",
    [
        ({"difficulty": "extreme"}, "'extreme' is not one of"),
        ({"colour": "red"}, "'colour' was unexpected"),
        ({"num_gpus": 9}, "9 is greater than the maximum of 8"),
        ({"page": {"pre": {"tight": "yes"}}}, "'yes' is not of type 'boolean'"),
    ],
)
def test_the_schema_refuses_what_the_loader_refuses(change, complaint, validator):
    data = {**chgen_data(ROOT / "specs" / "143_row_inverse_rms.yaml"), **change}
    messages = [e.message for e in validator.iter_errors(data)]
    assert any(complaint in m for m in messages), messages


def test_one_example_or_a_list_of_them_but_not_neither(validator):
    data = chgen_data(ROOT / "specs" / "143_row_inverse_rms.yaml")
    examples = data.pop("examples", None) or [data.pop("example")]
    assert not list(validator.iter_errors({**data, "example": examples[0]}))
    assert not list(validator.iter_errors({**data, "examples": examples}))
    assert list(validator.iter_errors(data))


def test_our_specs_name_the_schema_beside_them():
    for path in ROOT.glob("specs/*.yaml"):
        assert path.read_text(encoding="utf-8").splitlines()[0] == MODELINE, path
    assert (ROOT / "specs" / SCHEMA_NAME).is_file()


def test_chgen_new_writes_the_modeline_and_the_schema_it_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    made = runner.invoke(app, ["new", "leaky_relu", "-d", "easy"])
    assert made.exit_code == 0, made.output
    assert made.output == f"wrote specs/1_leaky_relu.yaml\nwrote specs/{SCHEMA_NAME}\n"
    spec = tmp_path / "specs" / "1_leaky_relu.yaml"
    assert spec.read_text(encoding="utf-8").splitlines()[0] == MODELINE
    beside = (tmp_path / "specs" / SCHEMA_NAME).read_text(encoding="utf-8")
    assert beside == spec_docs.schema_text() == spec_docs.packaged_schema_text()
    again = runner.invoke(app, ["new", "leaky_relu_backward", "-d", "easy"])
    assert again.output == "wrote specs/2_leaky_relu_backward.yaml\n"  # the schema is there


def test_chgen_schema_prints_or_writes_the_schema(tmp_path):
    runner = CliRunner()
    printed = runner.invoke(app, ["schema"])
    assert printed.exit_code == 0 and printed.output == spec_docs.schema_text()
    target = tmp_path / "editor" / "spec.schema.json"
    written = runner.invoke(app, ["schema", "--out", str(target)])
    assert written.exit_code == 0, written.output
    assert target.read_text(encoding="utf-8") == spec_docs.schema_text()
    blocked = tmp_path / "file"
    blocked.write_text("")
    refused = runner.invoke(app, ["schema", "--out", str(blocked / "x.json")])
    assert refused.exit_code == 1 and refused.output.startswith("error: could not write")
    assert "Traceback" not in refused.output


def test_chgen_schema_prints_the_reference_an_installed_chgen_lacks():
    """The error hints name docs/spec.md; a wheel's user gets the same text from the command."""
    from generator.commands.schema import SchemaRequest, run_schema

    docs = Path(__file__).resolve().parent.parent / "docs" / "spec.md"
    assert run_schema(SchemaRequest(markdown=True)).text == docs.read_text()
