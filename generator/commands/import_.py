"""`chgen import`: the spec that regenerates an existing challenge, or every challenge of a tree.

The import policy lives here: where a spec goes (specs/ by default, a folder, or a file that must
be named <id>_<slug>.yaml), that an existing spec is overwritten only with --force, and that a
tree's specs are written all at once, after every import has finished, or not at all.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

from generator.commands import CommandFailure
from generator.commands.generate import SPECS_DIR
from generator.commands.options import argument, option, request


@request
class ImportRequest:
    path: Path = argument(
        ...,
        help="challenges/<difficulty>/<id>_<slug> to read, or a tree holding challenges/ "
        "(every challenge in it)",
    )
    output: Optional[Path] = option(
        None,
        "--out",
        "-o",
        help="Spec file or folder (default: specs/<id>_<slug>.yaml); '-' prints; for a tree, the "
        "folder of specs",
    )
    force: bool = option(False, "--force", help="Overwrite existing specs.")
    report_file: Optional[Path] = option(
        None, "--report", help="For a tree: also write the outcomes as JSON."
    )
    jobs: int = option(2, "--jobs", "-j", help="Challenges imported at once (processes).")
    timeout: float = option(
        120.0, "--timeout", help="Seconds one challenge's import may take in its process."
    )


@dataclass
class ImportResult:
    #: what goes to standard output: the spec itself (`-o -`), or a tree's tables
    stdout: str = ""
    #: the files written, in order
    written: List[Path] = field(default_factory=list)
    #: the closing line (none when the spec was printed)
    summary: Optional[str] = None
    exit_code: int = 0
    #: a tree's import: its files are counted in the summary, not listed one by one
    tree: bool = False


#: where the import says what it does as it goes: a single import's notes, a tree's progress lines
Say = Callable[[str], None]


def run_import(req: ImportRequest, note: Say, progress: Say) -> ImportResult:
    """Import one challenge directory or every challenge of a tree (challenge.py runs in worker
    processes, never in chgen's own)."""
    from generator.importer import batch
    from generator.importer.isolated import ImportPool, PoolError

    if not req.path.is_dir():
        raise CommandFailure(f"error: {req.path} is not a directory")
    if req.jobs < 1 or req.timeout <= 0:
        raise CommandFailure(
            "error: --jobs takes a count of at least 1 and --timeout a positive number of seconds"
        )
    single = (req.path / "challenge.py").is_file()
    if not single and not batch.is_tree(req.path):
        raise CommandFailure(
            f"error: cannot import {req.path}: it holds no challenge.py and no "
            "challenges/<easy|medium|hard>/ folder (give a challenge directory or a tree)"
        )
    try:
        if single:
            return _import_one(req, ImportPool(1, req.timeout), note)
        return _import_tree(req, ImportPool(req.jobs, req.timeout), progress)
    except PoolError as exc:
        raise CommandFailure(f"error: {exc}", 2) from None


def spec_target(output: Optional[Path], spec_name: str) -> Path:
    """Where a single import's spec goes: specs/ by default, into a folder (an existing one, or
    a path that does not name a YAML file: `-o newdir/` reaches here without its '/'), or the
    file given, which must bear the spec's own name."""
    target = output if output is not None else SPECS_DIR
    named_file = target.suffix in (".yaml", ".yml")
    if target.is_dir() or (output is None) or str(target).endswith("/") or not named_file:
        target = target / spec_name
    if target.name != spec_name:
        raise CommandFailure(
            f"error: the spec must be named {spec_name} (id and slug), not {target.name}"
        )
    return target


def _import_one(req: ImportRequest, pool, note: Say) -> ImportResult:
    from generator.importer import batch

    directory, output = req.path, req.output
    to_stdout = output is not None and str(output) == "-"
    (outcome,) = pool.run([directory], inline_svg=to_stdout)
    if not outcome.imported:
        raise CommandFailure(f"error: cannot import {directory}: {outcome.message}")
    result = outcome.result
    for line in result.report.lines():
        note(line)
    if to_stdout:
        return ImportResult(stdout=result.spec_text)
    target = spec_target(output, result.spec_name)
    if target.exists() and not req.force:
        raise CommandFailure(f"error: {target} exists; use --force to overwrite it")
    written = result.write(target)
    kept = sum(result.identical.values())
    summary = (
        f"{kept} of {len(result.identical)} files regenerate byte-identical; "
        f"{batch.examples_phrase(result.page_parts)}; {len(result.report.lines())} note(s)"
    )
    return ImportResult(written=written, summary=summary)


def _import_tree(req: ImportRequest, pool, progress: Say) -> ImportResult:
    """Every challenge of the tree; refusals do not stop the others and are grouped by reason."""
    from generator.importer import batch

    tree, output = req.path, req.output
    specs_dir = output if output is not None else SPECS_DIR
    if str(specs_dir) == "-" or specs_dir.suffix in (".yaml", ".yml"):
        raise CommandFailure(
            f"error: a tree is imported into a folder of specs (--out DIR), not {specs_dir}"
        )
    try:
        directories = batch.find_challenges(tree)
    except batch.TreeError as exc:
        raise CommandFailure(f"error: {exc}") from None
    if not directories:
        raise CommandFailure(f"error: {tree} holds no challenge directories")
    started = time.perf_counter()

    def said(outcome) -> None:
        name = batch.label(outcome.directory)
        if outcome.imported:
            result = outcome.result
            kept = sum(result.identical.values())
            shown = (
                f"{name} -> {result.spec_name} ({kept} of {len(result.identical)} identical; "
                f"{batch.examples_phrase(result.page_parts)})"
            )
            if result.challenge_py is not None and not result.challenge_py.identical:
                shown += f"; {result.challenge_py.summary()}"
            progress(f"  imported {shown}")
        else:
            progress(f"  refused  {name}: {outcome.reason}")

    outcomes = batch.import_all(pool, directories, said)
    seconds = time.perf_counter() - started
    taken = batch.existing_specs(outcomes, specs_dir)
    if taken and not req.force:
        shown = ", ".join(str(p) for p in taken[:3]) + (", ..." if len(taken) > 3 else "")
        raise CommandFailure(
            f"error: {len(taken)} spec file(s) exist ({shown}); nothing was written (use --force)"
        )
    written = batch.write_specs(outcomes, specs_dir)
    tables = (
        batch.table(outcomes)
        + batch.page_table(batch.page_tally(outcomes))
        + batch.py_table(outcomes)
        + batch.starter_table(outcomes)
    )
    imported = sum(o.imported for o in outcomes)
    summary = (
        f"{imported} of {len(outcomes)} challenge(s) imported into {specs_dir}/ "
        f"({len(written)} file(s)) in {seconds:.1f} s; {len(outcomes) - imported} refused"
    )
    if req.report_file is not None:
        batch.write_report(
            batch.report_data(outcomes, seconds, pool.jobs, pool.timeout), req.report_file
        )
        summary += f"; report: {req.report_file}"
    return ImportResult(tables, written, summary, 0 if imported else 1, tree=True)
