"""Collecting findings: the options that decide which rules run, and the sink rules write to."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Tuple

from generator.checks.registry import DEEP, FORMATTERS, RULES, SPECS, STATIC, Finding, enabled
from generator.diagnostic import Diagnostic

#: the functional-case counts of the public set (benchmarks/case_counts.py, at 5a5c5d8): the 91 of
#: its 98 challenges whose count is evident have 4 to 15 cases (median 8); a spec may set its own
#: range (`expected_cases: [MIN, MAX]`), `chgen check --cases MIN:MAX` another
DEFAULT_CASES = (4, 15)


@dataclass
class Options:
    deep: bool = False
    formatters: bool = False
    select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    against: Optional[Path] = None
    cases: Tuple[int, int] = DEFAULT_CASES
    generated: Path = Path("generated")  # the tree that spec files are compared with (G002)
    jobs: int = 0  # processes for the static rules; 0 picks by tree size
    #: honour a tree's manifest (checks/managed.py): its specs' tolerated_rules, and challenges
    #: it records no file of set apart; off, every finding counts (the importer's own reading)
    managed: bool = False
    #: with `managed`: count the findings of challenges chgen does not manage all the same
    count_unmanaged: bool = False
    #: the specs folder that a tree's manifest owners are found in (None: beside the tree)
    specs: Optional[Path] = None

    def tiers(self) -> Tuple[str, ...]:
        """Static and spec rules always run; a slower tier runs when its flag is given or when
        --select names one of its codes (`--select F003` runs clang-format)."""
        tiers = [STATIC, SPECS]
        if self.formatters or self._selects(FORMATTERS):
            tiers.append(FORMATTERS)
        if self.deep or self._selects(DEEP):
            tiers.append(DEEP)
        return tuple(tiers)

    def _selects(self, tier: str) -> bool:
        return any(
            code.startswith(prefix)
            for prefix in self.select
            for code, rule in RULES.items()
            if rule.tier == tier
        )

    @property
    def run_formatters(self) -> bool:
        return FORMATTERS in self.tiers()

    @property
    def run_deep(self) -> bool:
        return DEEP in self.tiers()


@dataclass
class Report:
    options: Options
    findings: List[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        tiers = self.options.tiers()
        self._active = {
            code
            for code, rule in RULES.items()
            if rule.tier in tiers and enabled(code, self.options.select, self.options.ignore)
        }

    def wants(self, *codes: str) -> bool:
        return any(code in self._active for code in codes)

    def add(
        self, code: str, path: str, line: int, col: int, message: str, fix: Optional[str] = None
    ) -> None:
        if code not in self._active:
            return
        rule = RULES[code]
        hint = rule.fix if fix is None else fix
        text = f"{message}; {hint}" if hint else message
        self.findings.append(
            Finding.at(path, max(int(line), 1), max(int(col), 1), code, rule.severity, text)
        )

    def add_diagnostics(self, code: str, diagnostics: Iterable[Diagnostic]) -> None:
        """Spec errors under rule `code` (G001: the spec loads), each with its own code kept
        in front of its message (a rendered challenge's D005, found while generating)."""
        for diagnostic in diagnostics:
            self.add(
                code,
                diagnostic.path,
                diagnostic.line,
                diagnostic.col,
                diagnostic.text,
                diagnostic.hint,
            )

    def sorted(self) -> List[Finding]:
        return sorted(set(self.findings))
