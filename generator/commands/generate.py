"""`chgen generate`: render specs into a challenge tree, or verify the tree (--check)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from generator.commands import CommandFailure
from generator.commands.options import argument, option, request

SPECS_DIR = Path("specs")
TREE_DIR = Path("generated")


@request
class GenerateRequest:
    specs: List[Path] = argument(None, help="Spec files (default: every spec in --specs).")
    out_dir: Path = option(TREE_DIR, "--out", "-o", help="Tree to write.")
    specs_dir: Path = option(SPECS_DIR, "--specs", help="Folder of specs.")
    check: bool = option(False, "--check", help="Write nothing; exit 1 if out of date.")
    force: bool = option(
        False,
        "--force",
        help="Overwrite files chgen did not write as they stand (edited by hand, or not chgen's, "
        "as in a tree adopting chgen), even a page whose visible text the new one does not show "
        "all of: each such page is named, with the words it loses, as a warning. Without "
        "--force that page is named as an error and nothing is written.",
    )
    languages: Optional[str] = option(
        None,
        "--languages",
        help="Starter languages to write, e.g. cuda,pytorch or all (default: the specs folder's "
        "chgen.yaml, else the languages the tree already ships, else all).",
    )


@dataclass
class GenerateResult:
    request: GenerateRequest
    #: what pipeline.generate reports: changes, conflicts, losses, the diff under --check
    outcome: object
    seconds: float


def run_generate(req: GenerateRequest) -> GenerateResult:
    """Render (or, with --check, compare) every spec given; spec errors raise SpecErrors."""
    from generator import pipeline, tree_policy
    from generator.formatting import FormatError

    started = time.perf_counter()
    given = list(req.specs or [])
    folders = [p for p in given if p.is_dir()]
    if folders:
        raise CommandFailure(
            f"error: {folders[0]} is a folder; give spec files, or the folder as --specs "
            f"{folders[0]}"
        )
    paths = pipeline.spec_paths(given, req.specs_dir)
    if not paths:
        raise CommandFailure(
            f"no specs found in {req.specs_dir}/ (files are named <id>_<slug>.yaml)"
        )
    try:
        keys = tree_policy.parse_languages(req.languages, "--languages") if req.languages else None
        outcome = pipeline.generate(
            paths,
            req.out_dir,
            check=req.check,
            force=req.force,
            root=Path.cwd(),
            languages=keys,
            specs_dir=req.specs_dir,
        )
    except FormatError as exc:
        raise CommandFailure(f"error: {exc}", 2) from None
    except OSError as exc:  # tree.UnsafeTree among them: a symbolic link, a read-only folder
        what = "read" if req.check else "write"
        raise CommandFailure(
            f"error: could not {what} {req.out_dir}/: {exc}; the old tree is unchanged"
        ) from None
    return GenerateResult(req, outcome, time.perf_counter() - started)
