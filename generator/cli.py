"""The `chgen` command line: thin wrappers that call the pipeline stages and report.

Every expected failure (a bad spec, a hand-edited file, a missing toolchain) ends in a one-line
message per problem and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional

import typer
from rich.console import Console
from rich.text import Text

from generator import __version__, extras
from generator.formatting import FormatError
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

SPECS_DIR = Path("specs")
TREE_DIR = Path("generated")
#: generator/judge/derived.py's default (the CLI imports no judge module at start-up)
DEFAULT_MUTANTS = 12


def fail(message: str, code: int = 1) -> None:
    err.print(message, markup=False)
    raise typer.Exit(code)


def report_spec_errors(exc: SpecErrors) -> None:
    for error in exc.errors:
        err.print(Text("error", style="bold red"), error.render())
    fail(f"{len(exc.errors)} error(s); nothing was written")


def reports_missing_extras(command: Callable) -> Callable:
    """A command that finds an extra missing (extras.require) says which one in one line."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except extras.MissingExtra as exc:
            fail(f"error: {exc}", 2)

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


#: `chgen judge` and `chgen test`: the Triton interpreter's size limit on the CPU
CPU_MAX_ELEMENTS = typer.Option(
    None,
    "--cpu-max-elements",
    help="On the CPU, skip Triton (interpreted) cases with a tensor over N elements "
    "(default 100000).",
    min=1,
)
#: `chgen judge` and `chgen test`: a multi-GPU challenge on fewer (or more) ranks than its cases'
RANKS = typer.Option(
    None,
    "--ranks",
    help="Run every case of a multi-GPU challenge on N ranks (GPUs 0..N-1) instead of its own; "
    "a mutant that survives there is reported as not provable at N ranks.",
    min=1,
    max=8,
)


@app.command()
@needs("generate", "chgen generate")
def generate(
    specs: List[Path] = typer.Argument(None, help="Spec files (default: every spec in --specs)."),
    out_dir: Path = typer.Option(TREE_DIR, "--out", "-o", help="Tree to write."),
    specs_dir: Path = typer.Option(SPECS_DIR, "--specs", help="Folder of specs."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if out of date."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Overwrite files chgen did not write as they stand (edited by hand, or not chgen's, "
        "as in a tree adopting chgen), even a page whose visible text the new one does not show "
        "all of: each such page is named, with the words it loses, as a warning. Without "
        "--force that page is named as an error and nothing is written.",
    ),
    languages: Optional[str] = typer.Option(
        None,
        "--languages",
        help="Starter languages to write, e.g. cuda,pytorch or all (default: the specs folder's "
        "chgen.yaml, else the languages the tree already ships, else all).",
    ),
) -> None:
    """Render challenge trees from specs (deterministic, atomic per challenge directory)."""
    from generator import pipeline, tree, tree_policy

    started = time.perf_counter()
    given = list(specs or [])
    folders = [p for p in given if p.is_dir()]
    if folders:
        fail(
            f"error: {folders[0]} is a folder; give spec files, or the folder as --specs "
            f"{folders[0]}"
        )
    paths = pipeline.spec_paths(given, specs_dir)
    if not paths:
        fail(f"no specs found in {specs_dir}/ (files are named <id>_<slug>.yaml)")
    try:
        keys = tree_policy.parse_languages(languages, "--languages") if languages else None
        result = pipeline.generate(
            paths,
            out_dir,
            check=check,
            force=force,
            root=Path.cwd(),
            languages=keys,
            specs_dir=specs_dir,
        )
    except SpecErrors as exc:
        report_spec_errors(exc)
    except FormatError as exc:
        fail(f"error: {exc}", 2)
    except OSError as exc:  # tree.UnsafeTree among them: a symbolic link, a read-only folder
        what = "read" if check else "write"
        fail(f"error: could not {what} {out_dir}/: {exc}; the old tree is unchanged")
    if check:
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
    seconds = time.perf_counter() - started
    written = result.changes if result.written else ()
    for change in written:
        out.print(f"  {change.kind:8} {out_dir / change.path}", markup=False)
    out.print(
        f"{result.specs} spec(s), {result.rendered} rendered -> {out_dir}/: {len(written)} file(s) "
        f"changed in {seconds:.2f} s"
    )


def _print_losses(losses, severity: str) -> set:
    """One line per page that loses visible text; the tree paths of those pages."""
    style = "bold red" if severity == "error" else "yellow"
    for loss in losses:
        err.print(Text(severity, style=style), loss.error.render())
    return {loss.path for loss in losses}


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


@app.command("check")
@reports_missing_extras
def check_command(
    paths: List[Path] = typer.Argument(
        None, help="Spec files, challenge directories, or trees holding challenges/."
    ),
    deep: bool = typer.Option(
        False, "--deep", help="Also import each challenge.py on the CPU and run its generators."
    ),
    formatters: bool = typer.Option(
        False, "--formatters", help="Also run black/isort, flake8, clang-format and mojo format."
    ),
    output_format: str = typer.Option("human", "--format", help="human or json."),
    select: List[str] = typer.Option([], "--select", help="Only these codes or prefixes (S, H00)."),
    ignore: List[str] = typer.Option([], "--ignore", help="Skip these codes or prefixes."),
    against: Optional[Path] = typer.Option(
        None, "--against", help="Another tree whose ids a new challenge must not reuse."
    ),
    cases: str = typer.Option(
        "",
        "--cases",
        help="Expected functional case count, MIN:MAX (default: the public set's 4:15).",
    ),
    generated: Path = typer.Option(TREE_DIR, "--tree", help="Tree that specs are compared with."),
    jobs: int = typer.Option(0, "--jobs", help="Processes for the static rules (0: by tree size)."),
    list_rules: bool = typer.Option(False, "--list-rules", help="Print every rule and exit."),
) -> None:
    """Check challenges, trees and specs against the set's rules (static; --deep runs code).

    Without PATH: ./challenges, or this project's generated/ and specs/."""
    from generator.checks import registry, runner
    from generator.checks.report import DEFAULT_CASES, Options

    if list_rules:
        for rule in registry.RULES.values():
            out.print(f"{rule.code} {rule.severity:7} {rule.tier:10} {rule.summary}", markup=False)
        return
    if output_format not in ("human", "json"):
        fail(f"error: --format is 'human' or 'json', not {output_format!r}", 2)
    chosen, skipped = registry.parse_codes(select), registry.parse_codes(ignore)
    unknown = registry.unknown_codes(chosen + skipped)
    if unknown:
        fail(f"error: no rule code starts with {', '.join(unknown)} (see --list-rules)", 2)
    low, _, high = (cases or "{}:{}".format(*DEFAULT_CASES)).partition(":")
    if not (low.isdigit() and high.isdigit() and int(low) <= int(high)):
        fail(f"error: --cases takes MIN:MAX, e.g. 4:15, not {cases!r}", 2)
    if (
        against is not None
        and not (against / "challenges").is_dir()
        and against.name != "challenges"
    ):
        fail(f"error: --against {against} holds no challenges/ folder", 2)
    if formatters:
        extras.require("formatters", "chgen check --formatters")
    if deep:
        extras.require("judge", "chgen check --deep")
    options = Options(
        deep, formatters, chosen, skipped, against, (int(low), int(high)), generated, jobs
    )
    try:
        result = runner.run(list(paths or runner.default_paths()), options)
    except runner.TargetError as exc:
        fail(f"error: {exc}", 2)
    if output_format == "json":
        sys.stdout.write(runner.render_json(result))
    else:
        sys.stdout.write(runner.render_human(result))
    if result.errors:
        raise typer.Exit(1)


@app.command("judge")
@needs("judge", "chgen judge")
def judge_cmd(
    challenge_dir: Path = typer.Argument(..., help="A challenge folder (with challenge.py)."),
    solution: Path = typer.Argument(
        ..., help="The solution; its suffix names the language (.cu .mojo .pytorch.py ...)."
    ),
    device: Optional[str] = typer.Option(
        None, "--device", help="cuda or cpu (default: cuda when a GPU is visible)."
    ),
    perf: bool = typer.Option(False, "--perf", help="Also time the performance case."),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Seconds one case may take (first-call compilation included)."
    ),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the result as JSON."),
    seed: Optional[int] = typer.Option(
        None, "--seed", help="Seed of the random test inputs (default: a secret one per run)."
    ),
    arch: Optional[str] = typer.Option(
        None, "--arch", help="CUDA/Mojo target such as sm_90 (default: the GPU's)."
    ),
    rerun: bool = typer.Option(False, "--rerun", help="Ignore cached results."),
    specs_dir: Path = typer.Option(SPECS_DIR, "--specs", help="Where case names are looked up."),
    memory_limit: Optional[float] = typer.Option(
        None, "--memory-limit", help="GiB the solution's processes may hold (default: 1/4 of RAM)."
    ),
    no_sandbox: bool = typer.Option(
        False, "--no-sandbox", help="Run the solution without bubblewrap (limits still apply)."
    ),
    cpu_max_elements: Optional[int] = CPU_MAX_ELEMENTS,
    ranks: Optional[int] = RANKS,
) -> None:
    """Judge one solution against any LeetGPU-layout challenge; exit 0 only if all cases pass."""
    from generator.judge.commands import CommandError, judge_command

    try:
        code = judge_command(
            challenge_dir=challenge_dir,
            solution=solution,
            device=device,
            perf=perf,
            timeout=timeout,
            json_out=json_out,
            seed=seed,
            arch=arch,
            rerun=rerun,
            specs_dir=specs_dir,
            console=out,
            memory_limit=memory_limit,
            sandbox=not no_sandbox,
            cpu_max_elements=cpu_max_elements,
            ranks=ranks,
        )
    except CommandError as exc:
        fail(f"error: {exc}")
    raise typer.Exit(code)


@app.command("test")
@needs("judge", "chgen test")
def test_cmd(
    specs: List[str] = typer.Argument(None, help="Spec files or ids (default: every spec)."),
    device: Optional[str] = typer.Option(None, "--device", help="cuda or cpu (default: auto)."),
    perf: bool = typer.Option(False, "--perf", help="Time solutions and the spec's baselines."),
    build_only: bool = typer.Option(
        False, "--build-only", help="Build everything into --out for another machine to run."
    ),
    bundle_out: Optional[Path] = typer.Option(None, "--out", help="Bundle folder to write."),
    prebuilt: Optional[Path] = typer.Option(
        None, "--prebuilt", help="Run a bundle made by --build-only (needs no spec model)."
    ),
    json_out: Optional[Path] = typer.Option(None, "--json", help="JSON report path."),
    markdown_out: Optional[Path] = typer.Option(None, "--markdown", help="Markdown report."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Parallel correctness runs."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds one case may take."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random test inputs."),
    seeds: Optional[str] = typer.Option(
        None, "--seeds", help="Seeds every solution must pass: a list (0,1,2,3,4) or a count (5)."
    ),
    kinds: List[str] = typer.Option(
        [],
        "--kind",
        help="Only these jobs: starter, build (a starter for each GPU the platform lists), "
        "solution, baseline, mutant, reference, derived, reference_solution.",
    ),
    arch: Optional[str] = typer.Option(None, "--arch", help="CUDA/Mojo target, e.g. sm_90."),
    rerun: bool = typer.Option(False, "--rerun", help="Ignore cached results."),
    specs_dir: Optional[Path] = typer.Option(
        None, "--specs", help="Folder of specs (default: specs/)."
    ),
    tree_dir: Optional[Path] = typer.Option(
        None,
        "--tree",
        help="The challenge tree (default: generated/). Without --specs: every challenge of "
        "the tree (or those named by id or directory), read from its files, no spec needed.",
    ),
    solutions_dir: Path = typer.Option(Path("solutions"), "--solutions", help="Solutions."),
    mutants: int = typer.Option(
        DEFAULT_MUTANTS,
        "--mutants",
        help="Mistakes derived from each reference_impl (besides the generic wrong outputs).",
    ),
    warm: bool = typer.Option(
        False,
        "--warm",
        help="Correctness runs on warm workers (torch imported once per worker, jobs streamed).",
    ),
    derive: bool = typer.Option(
        True,
        "--derive/--no-derive",
        help="Also judge the reference as a solution, audit the tolerance and judge the "
        "derived mistakes.",
    ),
    ray: Optional[str] = typer.Option(
        None,
        "--ray",
        metavar="ADDRESS",
        help="Send every job to this Ray cluster ('local': start one here for the run).",
    ),
    cpu_max_elements: Optional[int] = CPU_MAX_ELEMENTS,
    ranks: Optional[int] = RANKS,
) -> None:
    """Judge every starter, solution and mutant of our challenges (or of any tree), the
    reference as a solution and the mistakes derived from it, check the reference against the
    float64 oracle and half precision; print the tables, write a JSON report."""
    from generator.judge.commands import CommandError, TestArgs, parse_seeds, test_command

    try:
        seed_list = parse_seeds(seeds, seed)
    except CommandError as exc:
        fail(f"error: {exc}")
    args = TestArgs(
        specs=list(specs or []),
        device=device,
        perf=perf,
        build_only=build_only,
        out=bundle_out,
        prebuilt=prebuilt,
        json_out=json_out,
        markdown_out=markdown_out,
        jobs=jobs,
        timeout=timeout,
        seed=seed,
        arch=arch,
        rerun=rerun,
        specs_dir=specs_dir or SPECS_DIR,
        tree_dir=tree_dir or TREE_DIR,
        solutions_dir=solutions_dir,
        tree_mode=tree_dir is not None and specs_dir is None,
        mutants=mutants if derive else None,
        warm=warm,
        ray=ray,
        seeds=seed_list,
        kinds=list(kinds or []),
        cpu_max_elements=cpu_max_elements,
        ranks=ranks,
    )
    try:
        code = test_command(args, out, err)
    except SpecErrors as exc:
        report_spec_errors(exc)
    except CommandError as exc:
        fail(f"error: {exc}")
    raise typer.Exit(code)


@app.command()
@needs("preview", "chgen preview")
def preview(
    challenge: str = typer.Argument(
        ..., help="A challenge id (in --tree) or a challenge directory"
    ),
    tree_dir: Path = typer.Option(TREE_DIR, "--tree", help="Tree in which ids are looked up."),
    html_out: Optional[Path] = typer.Option(None, "--html", help="Page to write (default: tmp)."),
    png: Optional[Path] = typer.Option(
        None, "--png", help="Also screenshot it (headless Chromium)."
    ),
    open_page: bool = typer.Option(False, "--open", help="Open the page in a browser."),
) -> None:
    """Render challenge.html as a solver sees it: dark page, MathML math, SVG, six starters."""
    import tempfile
    import webbrowser

    from generator import preview as pages
    from generator.scaffold import find_challenge_dir

    directory = find_challenge_dir(challenge, tree_dir)
    if directory is None:
        fail(
            f"error: no challenge {challenge!r} (give an id present in {tree_dir}/ or a directory)"
        )
    target = html_out or Path(tempfile.mkdtemp(prefix="chgen-preview-")) / f"{directory.name}.html"
    try:
        errors = pages.write_preview(directory, target)
        if png is not None:
            pages.screenshot(target, png)
    except pages.PreviewError as exc:
        fail(f"error: {exc}")
    for problem in errors:
        err.print(f"math error: {problem}", markup=False)
    out.print(f"wrote {target}" + (f" and {png}" if png else ""), markup=False)
    if open_page:
        webbrowser.open(target.resolve().as_uri())
    if errors:
        raise typer.Exit(1)


@app.command("import")
@needs("generate", "chgen import")
def import_challenge(
    path: Path = typer.Argument(
        ...,
        help="challenges/<difficulty>/<id>_<slug> to read, or a tree holding challenges/ "
        "(every challenge in it)",
    ),
    output: Optional[Path] = typer.Option(
        None,
        "--out",
        "-o",
        help="Spec file or folder (default: specs/<id>_<slug>.yaml); '-' prints; for a tree, the "
        "folder of specs",
    ),
    force: bool = typer.Option(False, "--force", help="Overwrite existing specs."),
    report_file: Optional[Path] = typer.Option(
        None, "--report", help="For a tree: also write the outcomes as JSON."
    ),
    jobs: int = typer.Option(2, "--jobs", "-j", help="Challenges imported at once (processes)."),
    timeout: float = typer.Option(
        120.0, "--timeout", help="Seconds one challenge's import may take in its process."
    ),
) -> None:
    """Write the spec that regenerates an existing challenge (or every challenge of a tree);
    report what it cannot carry. challenge.py runs in child processes, never in chgen's own."""
    from generator.importer import batch
    from generator.importer.isolated import ImportPool, PoolError

    if not path.is_dir():
        fail(f"error: {path} is not a directory")
    if jobs < 1 or timeout <= 0:
        fail("error: --jobs takes a count of at least 1 and --timeout a positive number of seconds")
    single = (path / "challenge.py").is_file()
    if not single and not batch.is_tree(path):
        fail(
            f"error: cannot import {path}: it holds no challenge.py and no "
            "challenges/<easy|medium|hard>/ folder (give a challenge directory or a tree)"
        )
    try:
        if single:
            _import_one(path, output, force, ImportPool(1, timeout))
        else:
            _import_tree(path, output, force, report_file, ImportPool(jobs, timeout))
    except PoolError as exc:
        fail(f"error: {exc}", 2)


def _import_one(directory: Path, output: Optional[Path], force: bool, pool) -> None:
    to_stdout = output is not None and str(output) == "-"
    (outcome,) = pool.run([directory], inline_svg=to_stdout)
    if not outcome.imported:
        fail(f"error: cannot import {directory}: {outcome.message}")
    result = outcome.result
    for line in result.report.lines():
        err.print(Text("note", style="yellow"), line)
    if to_stdout:
        sys.stdout.write(result.spec_text)
        return
    target = output if output is not None else SPECS_DIR
    if target.is_dir() or (output is None) or str(target).endswith("/"):
        target = target / result.spec_name
    if target.name != result.spec_name:
        fail(f"error: the spec must be named {result.spec_name} (id and slug), not {target.name}")
    if target.exists() and not force:
        fail(f"error: {target} exists; use --force to overwrite it")
    for written in result.write(target):
        out.print(f"wrote {written}", markup=False)
    from generator.importer import batch

    kept = sum(result.identical.values())
    out.print(
        f"{kept} of {len(result.identical)} files regenerate byte-identical; "
        f"{batch.examples_phrase(result.page_parts)}; {len(result.report.lines())} note(s)",
        markup=False,
    )


def _import_tree(
    tree: Path, output: Optional[Path], force: bool, report_file: Optional[Path], pool
) -> None:
    """Every challenge of `tree`; refusals do not stop the others and are grouped by reason."""
    from generator.importer import batch

    specs_dir = output if output is not None else SPECS_DIR
    if str(specs_dir) == "-" or specs_dir.suffix in (".yaml", ".yml"):
        fail(f"error: a tree is imported into a folder of specs (--out DIR), not {specs_dir}")
    try:
        directories = batch.find_challenges(tree)
    except batch.TreeError as exc:
        fail(f"error: {exc}")
    if not directories:
        fail(f"error: {tree} holds no challenge directories")
    started = time.perf_counter()

    def progress(outcome) -> None:
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
            out.print(f"  imported {shown}", markup=False)
        else:
            out.print(f"  refused  {name}: {outcome.reason}", markup=False)

    outcomes = batch.import_all(pool, directories, progress)
    seconds = time.perf_counter() - started
    taken = batch.existing_specs(outcomes, specs_dir)
    if taken and not force:
        shown = ", ".join(str(p) for p in taken[:3]) + (", ..." if len(taken) > 3 else "")
        fail(f"error: {len(taken)} spec file(s) exist ({shown}); nothing was written (use --force)")
    written = batch.write_specs(outcomes, specs_dir)
    sys.stdout.write(batch.table(outcomes))
    sys.stdout.write(batch.page_table(batch.page_tally(outcomes)))
    sys.stdout.write(batch.py_table(outcomes))
    sys.stdout.write(batch.starter_table(outcomes))
    imported = sum(o.imported for o in outcomes)
    summary = (
        f"{imported} of {len(outcomes)} challenge(s) imported into {specs_dir}/ "
        f"({len(written)} file(s)) in {seconds:.1f} s; {len(outcomes) - imported} refused"
    )
    if report_file is not None:
        batch.write_report(
            batch.report_data(outcomes, seconds, pool.jobs, pool.timeout), report_file
        )
        summary += f"; report: {report_file}"
    out.print(summary, markup=False)
    if not imported:
        raise typer.Exit(1)


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
