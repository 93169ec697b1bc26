"""The command layer: one request type per command, its options declared once (each field carries
its typer metadata, generator/commands/options.py), and one `run_<command>(request)` that does
the work and returns a result. generator/cli.py only parses a request and prints the result.

A command's expected failures raise CommandFailure: one line, and the exit code the CLI ends
with.
"""

from __future__ import annotations


class CommandFailure(Exception):
    """An expected failure: the one-line message the CLI prints, and its exit code."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code
