"""`chgen schema`: the spec format as a JSON Schema, for editors to check and complete specs, or
as its reference in Markdown (docs/spec.md, which an installed chgen does not otherwise ship)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from generator.commands import CommandFailure
from generator.commands.options import option, request


@request
class SchemaRequest:
    out_file: Optional[Path] = option(
        None, "--out", "-o", help="File to write (default: print it)."
    )
    markdown: bool = option(
        False, "--markdown", help="The spec format's reference (docs/spec.md) instead."
    )


@dataclass
class SchemaResult:
    text: str
    #: the file written; None when the schema is to be printed
    written: Optional[Path]


def run_schema(req: SchemaRequest) -> SchemaResult:
    from generator.spec_docs import schema_text, spec_markdown, write_atomically

    text = spec_markdown() if req.markdown else schema_text()
    if req.out_file is None:
        return SchemaResult(text, None)
    try:
        write_atomically(req.out_file, text)
    except OSError as exc:
        raise CommandFailure(f"error: could not write {req.out_file}: {exc}") from None
    return SchemaResult(text, req.out_file)
