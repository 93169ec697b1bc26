"""`chgen check`: the challenge set's review list as rules with codes, severities and fixes.

One module per area: layout (L), challenge_py (P), starters (S), html (H), deep (D), specs (G),
formatters (F); registry holds every rule, runner walks the paths given. Importing this package
imports no toolchain and no torch (the deep tier imports torch when it runs).
"""

from generator.checks.registry import RULES, Finding, Rule
from generator.checks.report import Options
from generator.checks.runner import Result, TargetError, collect, run

__all__ = ["RULES", "Finding", "Rule", "Options", "Result", "TargetError", "collect", "run"]
