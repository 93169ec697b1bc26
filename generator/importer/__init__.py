"""`chgen import`: read a challenge directory of the public layout back into a spec."""

from generator.importer.build import ImportResult, import_challenge
from generator.importer.report import ImportFailure, Report

__all__ = ["ImportFailure", "ImportResult", "Report", "import_challenge"]
