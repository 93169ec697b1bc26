"""`chgen import`: read a challenge directory of the public layout back into a spec.

The names below load on first use, so that what only dispatches imports (the CLI, the worker pool
in isolated.py) does not import torch with them."""

from generator.importer.report import ImportFailure, Report

__all__ = ["ImportFailure", "ImportResult", "Report", "import_challenge"]


def __getattr__(name: str):
    if name == "ImportResult":
        from generator.importer.result import ImportResult

        return ImportResult
    if name == "import_challenge":
        from generator.importer import build

        return build.import_challenge
    raise AttributeError(f"module 'generator.importer' has no attribute {name!r}")
