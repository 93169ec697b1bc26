"""Collecting findings: the options that decide which rules run, and the sink rules write to."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from generator.checks.registry import DEEP, FORMATTERS, RULES, SPECS, STATIC, Finding, enabled

#: the checklist asks for 7-10 functional cases
DEFAULT_CASES = (7, 10)


@dataclass
class Options:
    deep: bool = False
    formatters: bool = False
    select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    against: Optional[Path] = None
    cases: Tuple[int, int] = DEFAULT_CASES
    generated: Path = Path("generated")  # the tree that spec files are compared with (G002)

    def tiers(self) -> Tuple[str, ...]:
        tiers = [STATIC, SPECS]
        if self.formatters:
            tiers.append(FORMATTERS)
        if self.deep:
            tiers.append(DEEP)
        return tuple(tiers)


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
            Finding(path, max(int(line), 1), max(int(col), 1), code, rule.severity, text)
        )

    def sorted(self) -> List[Finding]:
        return sorted(set(self.findings))
