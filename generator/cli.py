"""The `chgen` command line: parses each command's request (generator/commands/, where its options
are declared once), runs it, and prints the result.

Every expected failure (a bad spec, a hand-edited file, a missing toolchain) ends in a one-line
message per problem and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import functools
import sys
from typing import Callable

import typer
from rich.console import Console
from rich.text import Text

from generator import __version__, extras
from generator.commands import CommandFailure
from generator.commands.check import CheckRequest, run_check
from generator.commands.generate import GenerateRequest, run_generate
from generator.commands.import_ import ImportRequest, run_import
from generator.commands.judge import JudgeRequest, run_judge
from generator.commands.new import NewRequest, run_new
from generator.commands.options import takes
from generator.commands.preview import PreviewRequest, run_preview
from generator.commands.schema import SchemaRequest, run_schema
from generator.commands.test import TestRequest, run_test
from generator.spec.yamlpos import SpecErrors

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Describe a GPU programming challenge once, in YAML; generate and prove everything else.",
)
# Messages carry user text (spec keys, file names, error messages): print it literally, never as
# rich markup (`[/]` would crash the printer) or emoji codes (`:100:` would eat a line number).
out = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)


def fail(message: str, code: int = 1) -> None:
    err.print(message, markup=False)
    raise typer.Exit(code)


def report_spec_errors(exc: SpecErrors) -> None:
    for error in exc.errors:
        err.print(Text("error", style="bold red"), error.render())
    fail(f"{len(exc.errors)} error(s); nothing was written")


def reports_missing_extras(command: Callable) -> Callable:
    """A command that finds an extra missing (extras.require) says which one in one line; an
    expected failure of the command (CommandFailure) is its one line and exit code."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except extras.MissingExtra as exc:
            fail(f"error: {exc}", 2)
        except CommandFailure as exc:
            fail(str(exc), exc.code)

    return run


def needs(extra: str, what: str) -> Callable[[Callable], Callable]:
    """A command that cannot start without `extra` (see pyproject.toml's optional dependencies)."""

    def wrap(command: Callable) -> Callable:
        @functools.wraps(command)
        def run(*args, **kwargs):
            extras.require(extra, what)
            return command(*args, **kwargs)

        return reports_missing_extras(run)

    return wrap


def print_version(value: bool) -> None:
    if value:
        out.print(f"chgen {__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def options(
    version: bool = typer.Option(
        False, "--version", callback=print_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Describe a GPU programming challenge once, in YAML; generate and prove everything else."""


@app.command()
@needs("generate", "chgen generate")
@takes(GenerateRequest)
def generate(request: GenerateRequest) -> None:
    """Render challenge trees from specs (deterministic, atomic per challenge directory)."""
    from generator import tree

    try:
        done = run_generate(request)
    except SpecErrors as exc:
        report_spec_errors(exc)
    result, out_dir = done.outcome, request.out_dir
    if request.check:
        if result.up_to_date:
            out.print(f"{out_dir}/ is up to date ({result.specs} spec(s))")
            return
        sys.stdout.write(result.diff)
        for change in result.changes:
            hand = ", edited by hand" if change.path in result.conflicts else ""
            err.print(f"out of date: {change.path} ({change.kind}{hand})", markup=False)
        if result.conflicts:
            fail(f"{out_dir}/ is out of date; {tree.hand_edit_summary(len(result.conflicts))}")
        fail(f"{out_dir}/ is out of date: run 'chgen generate'")
    if result.conflicts and not result.written:
        losing = _print_losses(result.losses, "error")
        for path in result.conflicts:
            if path not in losing:
                err.print(f"edited by hand: {out_dir / path}", markup=False)
        pages = f"{len(losing)} page(s) would lose text; " if losing else ""
        fail(
            f"error: nothing was written; {pages}"
            f"{tree.hand_edit_summary(len(result.conflicts))}"
        )
    _print_losses(result.losses, "warning")  # written over with --force: said all the same
    written = result.changes if result.written else ()
    for change in written:
        out.print(f"  {change.kind:8} {out_dir / change.path}", markup=False)
    out.print(
        f"{result.specs} spec(s), {result.rendered} rendered -> {out_dir}/: {len(written)} file(s) "
        f"changed in {done.seconds:.2f} s"
    )


def _print_losses(losses, severity: str) -> set:
    """One line per page that loses visible text; the tree paths of those pages."""
    style = "bold red" if severity == "error" else "yellow"
    for loss in losses:
        err.print(Text(severity, style=style), loss.error.render())
    return {loss.path for loss in losses}


@app.command()
@reports_missing_extras
@takes(NewRequest)
def new(request: NewRequest) -> None:
    """Write a spec skeleton that already generates; edit it, then run 'chgen generate'."""
    for path in run_new(request).written:
        out.print(f"wrote {path}", markup=False)


@app.command()
@reports_missing_extras
@takes(SchemaRequest)
def schema(request: SchemaRequest) -> None:
    """Write the spec format as a JSON Schema, for editors to validate and complete specs with."""
    result = run_schema(request)
    if result.written is None:
        sys.stdout.write(result.text)
    else:
        out.print(f"wrote {result.written}", markup=False)


@app.command("check")
@reports_missing_extras
@takes(CheckRequest)
def check_command(request: CheckRequest) -> None:
    """Check challenges, trees and specs against the set's rules (static; --deep runs code).

    Without PATH: ./challenges, or this project's generated/ and specs/."""
    result = run_check(request)
    if result.rules is not None:
        for line in result.rules:
            out.print(line, markup=False)
        return
    sys.stdout.write(result.text)
    if result.errors:
        raise typer.Exit(1)


@app.command("judge")
@needs("judge", "chgen judge")
@takes(JudgeRequest)
def judge_cmd(request: JudgeRequest) -> None:
    """Judge one solution against any LeetGPU-layout challenge; exit 0 only if all cases pass."""
    from generator.judge.commands import print_result

    done = run_judge(request)
    print_result(done.result, out)
    raise typer.Exit(done.exit_code)


@app.command("test")
@needs("judge", "chgen test")
@takes(TestRequest)
def test_cmd(request: TestRequest) -> None:
    """Judge every starter, solution and mutant of our challenges (or of any tree), the
    reference as a solution and the mistakes derived from it, check the reference against the
    float64 oracle and half precision; print the tables, write a JSON report."""
    try:
        done = run_test(request, out, err)
    except SpecErrors as exc:
        report_spec_errors(exc)
    raise typer.Exit(done.exit_code)


@app.command()
@needs("preview", "chgen preview")
@takes(PreviewRequest)
def preview(request: PreviewRequest) -> None:
    """Render challenge.html as a solver sees it: dark page, MathML math, SVG, six starters."""
    result = run_preview(request)
    for problem in result.math_errors:
        err.print(f"math error: {problem}", markup=False)
    out.print(f"wrote {result.page}" + (f" and {result.png}" if result.png else ""), markup=False)
    if result.math_errors:
        raise typer.Exit(1)


@app.command("import")
@needs("generate", "chgen import")
@takes(ImportRequest)
def import_challenge(request: ImportRequest) -> None:
    """Write the spec that regenerates an existing challenge (or every challenge of a tree);
    report what it cannot carry. challenge.py runs in child processes, never in chgen's own."""

    def note(line: str) -> None:
        err.print(Text("note", style="yellow"), line)

    def progress(line: str) -> None:
        out.print(line, markup=False)

    result = run_import(request, note, progress)
    sys.stdout.write(result.stdout)
    if not result.tree:
        for written in result.written:
            out.print(f"wrote {written}", markup=False)
    if result.summary is not None:
        out.print(result.summary, markup=False)
    if result.exit_code:
        raise typer.Exit(result.exit_code)


def main() -> None:
    try:
        app()
    except ModuleNotFoundError as exc:  # an import no extra check foresaw: still one line
        err.print(
            f"error: chgen could not import {exc.name!r}; install the extra that provides it "
            "(pip install 'chgen[test]' installs all of them)",
            markup=False,
        )
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
