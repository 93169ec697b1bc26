"""`chgen new`: a spec skeleton that already generates, and the schema its first line names."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from generator.commands import CommandFailure
from generator.commands.generate import SPECS_DIR
from generator.commands.options import argument, option, request


@request
class NewRequest:
    slug: str = argument(..., help="lowercase_words for the directory name")
    difficulty: str = option(..., "--difficulty", "-d", help="easy, medium or hard")
    name: Optional[str] = option(None, "--name", help="Display name (default: from slug)")
    challenge_id: Optional[int] = option(None, "--id", help="Default: the next free id")
    specs_dir: Path = option(SPECS_DIR, "--specs", help="Folder of specs.")
    against: Optional[Path] = option(
        None, "--against", help="Also avoid ids used in this challenge tree (e.g. the public set)"
    )


@dataclass
class NewResult:
    spec: Path
    #: the files written: the spec, then the schema beside it when it was not there already
    written: List[Path]


def run_new(req: NewRequest) -> NewResult:
    from generator import scaffold
    from generator.spec_docs import write_schema_beside

    try:
        path = scaffold.new_spec(
            req.slug, req.difficulty, req.name, req.challenge_id, req.specs_dir, req.against
        )
    except scaffold.ScaffoldError as exc:
        raise CommandFailure(f"error: {exc}") from None
    schema = write_schema_beside(path.parent)  # the file the spec's first line names
    return NewResult(path, [path] + ([schema] if schema else []))
