"""The `chgen` command line: thin wrappers that call the pipeline stages and report.

Every expected failure (a bad spec, a hand-edited file, a missing toolchain) ends in a one-line
message per problem and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from generator.formatting import FormatError
from generator.spec import SpecErrors

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Describe a GPU programming challenge once, in YAML; generate and prove everything else.",
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

SPECS_DIR = Path("specs")
TREE_DIR = Path("generated")


def fail(message: str, code: int = 1) -> None:
    err.print(message, markup=False)
    raise typer.Exit(code)


def report_spec_errors(exc: SpecErrors) -> None:
    for error in exc.errors:
        err.print(f"[bold red]error[/] {error.render()}", highlight=False)
    fail(f"{len(exc.errors)} error(s); nothing was written")


@app.command()
def generate(
    specs: List[Path] = typer.Argument(None, help="Spec files (default: every spec in --specs)."),
    out_dir: Path = typer.Option(TREE_DIR, "--out", "-o", help="Tree to write."),
    specs_dir: Path = typer.Option(SPECS_DIR, "--specs", help="Folder of specs."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if out of date."),
    force: bool = typer.Option(False, "--force", help="Overwrite generated files edited by hand."),
) -> None:
    """Render challenge trees from specs (deterministic, atomic)."""
    from generator import pipeline, tree

    started = time.perf_counter()
    paths = pipeline.spec_paths(list(specs or []), specs_dir)
    if not paths:
        fail(f"no specs found in {specs_dir}/ (files are named <id>_<slug>.yaml)")
    try:
        loaded = pipeline.load_all(paths, Path.cwd())
        output = pipeline.build_output(loaded, out_dir)
    except SpecErrors as exc:
        report_spec_errors(exc)
    except FormatError as exc:
        fail(f"error: {exc}", 2)
    if check:
        changes, _, _ = tree.plan(out_dir.resolve(), output)
        if not changes:
            out.print(f"{out_dir}/ is up to date ({len(loaded)} spec(s))")
            return
        for change in changes:
            if change.diff:
                sys.stdout.write(change.diff)
        for change in changes:
            err.print(f"out of date: {change.path} ({change.kind})", markup=False)
        fail(f"{out_dir}/ is out of date: run 'chgen generate'")
    try:
        changes = tree.write(out_dir, output, force=force)
    except tree.TreeConflict as exc:
        for path in exc.paths:
            err.print(f"edited by hand: {out_dir / path}", markup=False)
        fail(f"error: {exc}; nothing was written (use --force to overwrite them)")
    except OSError as exc:
        fail(f"error: could not write {out_dir}/: {exc}; the old tree is unchanged")
    seconds = time.perf_counter() - started
    for change in changes:
        out.print(f"  {change.kind:8} {out_dir / change.path}", markup=False)
    out.print(
        f"{len(loaded)} spec(s) -> {out_dir}/: {len(changes)} file(s) changed in {seconds:.2f} s"
    )


@app.command()
def new(
    slug: str = typer.Argument(..., help="lowercase_words for the directory name"),
    difficulty: str = typer.Option(..., "--difficulty", "-d", help="easy, medium or hard"),
    name: Optional[str] = typer.Option(None, "--name", help="Display name (default: from slug)"),
    challenge_id: Optional[int] = typer.Option(None, "--id", help="Default: the next free id"),
    specs_dir: Path = typer.Option(SPECS_DIR, "--specs", help="Folder of specs."),
    against: Optional[Path] = typer.Option(
        None, "--against", help="Also avoid ids used in this challenge tree (e.g. the public set)"
    ),
) -> None:
    """Write a spec skeleton that already generates; edit it, then run 'chgen generate'."""
    from generator import scaffold

    try:
        path = scaffold.new_spec(slug, difficulty, name, challenge_id, specs_dir, against)
    except scaffold.ScaffoldError as exc:
        fail(f"error: {exc}")
    out.print(f"wrote {path}", markup=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
