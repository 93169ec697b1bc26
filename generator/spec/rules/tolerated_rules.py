"""`tolerated_rules`: codes of `chgen check --list-rules`."""

from __future__ import annotations

import difflib
from typing import Iterable

from generator.spec.derived import SpecView
from generator.spec.rules.common import Issue


def validate_tolerated_rules(view: SpecView) -> Iterable[Issue]:
    """Codes of `chgen check --list-rules`, each once; the spec rules (G) are not tolerable, as
    they are about the spec and its tree, not about a form the spec keeps."""
    from generator.checks.registry import RULES

    seen = set()
    for j, code in enumerate(view.spec.tolerated_rules):
        where = ("tolerated_rules", j)
        if code not in RULES:
            close = difflib.get_close_matches(code, sorted(RULES), n=1)
            hint = f"did you mean {close[0]!r}?" if close else "see chgen check --list-rules"
            yield where, f"{code!r} is not a rule code", hint
        elif code.startswith("G"):
            yield where, f"{code} is about the spec itself and cannot be tolerated", "fix it"
        elif code in seen:
            yield where, f"{code} is named twice", "name each rule once"
        seen.add(code)
