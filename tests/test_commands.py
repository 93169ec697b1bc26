"""The command layer: each command's options are its request type's fields, declared once, and
each run_<command>(request) works without the CLI, failing with one line and an exit code."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer.main

from generator import cli
from generator.commands import CommandFailure
from generator.commands.check import CheckRequest, run_check
from generator.commands.generate import GenerateRequest
from generator.commands.import_ import ImportRequest, run_import, spec_target
from generator.commands.judge import JudgeRequest
from generator.commands.new import NewRequest, run_new
from generator.commands.options import PARAMETER
from generator.commands.preview import PreviewRequest
from generator.commands.schema import SchemaRequest, run_schema
from generator.commands.test import TestRequest, suite_args
from generator.naming import SCHEMA_NAME
from tests.conftest import ROOT

REQUESTS = {
    "generate": GenerateRequest,
    "new": NewRequest,
    "schema": SchemaRequest,
    "check": CheckRequest,
    "judge": JudgeRequest,
    "test": TestRequest,
    "preview": PreviewRequest,
    "import": ImportRequest,
}


def test_every_command_parses_exactly_its_request():
    group = typer.main.get_command(cli.app)
    assert set(group.commands) == set(REQUESTS)
    for name, request_type in REQUESTS.items():
        parsed = [param.name for param in group.commands[name].params]
        declared = [f.name for f in dataclasses.fields(request_type) if PARAMETER in f.metadata]
        assert parsed == declared, name


def test_the_cli_declares_no_option_of_its_own():
    """Options live in generator/commands/; cli.py holds only --version."""
    text = (ROOT / "generator" / "cli.py").read_text(encoding="utf-8")
    assert text.count("typer.Option(") == 1 and "typer.Argument(" not in text


def test_run_new_writes_the_spec_and_the_schema_it_names(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = run_new(NewRequest(slug="leaky_relu", difficulty="easy"))
    assert made.written == [Path("specs/1_leaky_relu.yaml"), Path("specs") / SCHEMA_NAME]
    with pytest.raises(CommandFailure) as refused:
        run_new(NewRequest(slug="leaky_relu", difficulty="easy"))
    assert (
        str(refused.value) == "error: slug 'leaky_relu' is already used by specs/1_leaky_relu.yaml"
    )
    assert refused.value.code == 1


def test_run_schema_prints_or_writes(tmp_path: Path):
    printed = run_schema(SchemaRequest())
    assert printed.written is None and printed.text.startswith("{")
    target = tmp_path / "schema.json"
    assert run_schema(SchemaRequest(out_file=target)).written == target
    assert target.read_text(encoding="utf-8") == printed.text


def test_run_check_reports_and_refuses_bad_options_with_exit_code_2():
    listed = run_check(CheckRequest(list_rules=True))
    assert listed.rules and all(line.split()[0][0].isalpha() for line in listed.rules)
    checked = run_check(CheckRequest(paths=[ROOT / "specs" / "143_row_inverse_rms.yaml"]))
    assert checked.errors == 0 and "0 error(s)" in checked.text
    for bad, said in [
        (CheckRequest(output_format="xml"), "--format is 'human' or 'json'"),
        (CheckRequest(select=["Q9"]), "no rule code starts with Q9"),
        (CheckRequest(cases="9:4"), "--cases takes MIN:MAX"),
    ]:
        with pytest.raises(CommandFailure) as refused:
            run_check(bad)
        assert said in str(refused.value) and refused.value.code == 2


def test_the_import_policy_names_specs_by_id_and_slug(tmp_path: Path):
    assert spec_target(None, "301_double.yaml") == Path("specs/301_double.yaml")
    assert spec_target(tmp_path, "301_double.yaml") == tmp_path / "301_double.yaml"
    with pytest.raises(CommandFailure, match="must be named 301_double.yaml .*not other.yaml"):
        spec_target(tmp_path / "other.yaml", "301_double.yaml")
    # a folder that does not exist yet: typer hands `-o newdir/` over without its slash
    assert (
        spec_target(tmp_path / "newdir", "301_double.yaml")
        == tmp_path / "newdir" / "301_double.yaml"
    )


def test_run_import_refuses_what_is_no_challenge_before_any_work(tmp_path: Path):
    said = []
    for request, message in [
        (ImportRequest(path=tmp_path / "missing"), "is not a directory"),
        (ImportRequest(path=tmp_path, jobs=0), "--jobs takes a count of at least 1"),
        (ImportRequest(path=tmp_path), "holds no challenge.py and no challenges/"),
    ]:
        with pytest.raises(CommandFailure, match=message):
            run_import(request, said.append, said.append)
    assert said == []


def test_the_test_request_becomes_the_suites_settings():
    args = suite_args(TestRequest(specs=["142"], seeds="3", derive=False, tree_dir=Path("t")))
    assert args.specs == ["142"] and args.seeds == [0, 1, 2]
    assert args.mutants is None and args.tree_mode and args.specs_dir == Path("specs")
    assert suite_args(TestRequest()).mutants == 12 and not suite_args(TestRequest()).tree_mode
    with pytest.raises(CommandFailure, match="^error: "):
        suite_args(TestRequest(seeds="0,0"))
