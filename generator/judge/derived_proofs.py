"""The proofs derived from a challenge alone, from the rows of its derived jobs (no torch here).

- The reference as a solution: it must pass every functional case (every seed), and, timed,
  the performance case: its row says so; here only its figures are kept (cases, median ms); the
  same for reference_impl_jax as a JAX solution, where challenge.py has one.
- The tolerance audit: the judge's reference against the same code in float64 must stay within
  a tenth of the tolerance on every case (the margin, the largest error/tolerance, is reported),
  and for a float32 challenge the code in float16 must fail some case (error/tolerance > 1):
  otherwise the tolerance accepts a half-precision solution. The performance case's tensors must
  fit five times in 16 GB (rule D003).
- The derived mistakes: each is `killed` (some case caught it: an error over the tolerance, a
  raise, an unwritten output, a disturbed guard or input), `equivalent` (every case's outputs
  equal the reference's exactly: the cases cannot tell them apart, so it is set apart), a
  `survivor` (it differs from the reference on some case, yet within the tolerance on all: a
  mistake the tests miss), `not applicable` (it cannot differ on this challenge), or `not judged`
  (it timed out or crashed the solution's process). The mutation score is killed / (killed +
  survivors); a mistake killed only by raising on every case is counted apart too (it says
  little about the tests).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from generator.judge import verdicts as V
from generator.judge.precision import ORACLE_LIMIT

#: the jobs generator/judge/derived.py adds to a plan
DERIVED_KINDS = ("derived", "reference_solution", "reference_jax")
#: the float64 reference must agree with the judge's within this fraction of the tolerance
MARGIN_LIMIT = ORACLE_LIMIT
KILLED, EQUIVALENT, SURVIVOR = "killed", "equivalent", "survivor"
NOT_APPLICABLE, NOT_JUDGED = "not applicable", "not judged"


def _float(value: Any) -> Optional[float]:
    return None if value is None else float(value)


def classify(variant: Dict[str, Any]) -> str:
    verdict = variant.get("verdict")
    if verdict == "not_applicable":
        return NOT_APPLICABLE
    cases = variant.get("cases") or []
    if verdict in V.CAUGHT or any(c.get("caught") for c in cases):
        return KILLED
    if verdict != V.PASS or not cases:
        return NOT_JUDGED
    ratios = [_float(c.get("ratio")) for c in cases]
    if all(r == 0.0 for r in ratios):
        return EQUIVALENT
    return SURVIVOR


def _rows_of(rows: List[Dict[str, Any]], key: str, kind: str) -> Optional[Dict[str, Any]]:
    return next((r for r in rows if r["challenge"] == key and r["kind"] == kind), None)


def _outcome(row: Dict[str, Any]) -> Dict[str, Any]:
    """What a reference's row says: its verdict and the cases and seeds it passed."""
    return {
        "verdict": row["verdict"],
        "ok": row["ok"],
        "cases": row["cases"],
        "cases_passed": row["cases_passed"],
        "seeds": len(row.get("seeds") or []),
    }


def collect_derived(
    key: str, challenge: Any, rows: List[Dict[str, Any]], limit: Optional[int]
) -> Dict[str, Any]:
    """One challenge's derived proofs: {reference, audit, mutants, failures, warnings}."""
    failures: List[str] = []
    warnings: List[str] = []
    entry: Dict[str, Any] = {"notes": list(challenge.notes)}
    row = _rows_of(rows, key, "derived")
    timed = _rows_of(rows, key, "reference_solution")
    if row is not None:
        entry["reference"] = {**_outcome(row), "message": row["message"]}
        entry["audit"] = audit_entry(key, row, limit, failures, warnings)
        entry["mutants"] = mutants_entry(key, challenge, row, warnings)
    jax = _rows_of(rows, key, "reference_jax")
    if jax is not None:  # reference_impl_jax as a JAX solution: its row holds it to pass
        entry["reference_jax"] = _outcome(jax)
    if timed is not None:
        perf = timed.get("perf") or {}
        entry.setdefault("reference", {})["median_ms"] = perf.get("median_ms")
        entry["reference"]["timed"] = timed["verdict"]
    entry["failures"], entry["warnings"] = failures, warnings
    return entry


def audit_entry(
    key: str, row: Dict[str, Any], limit: Optional[int], failures: List[str], warnings: List[str]
) -> Dict[str, Any]:
    found = row.get("audit") or {}
    cases = found.get("cases") or []
    margins = [(float(c["margin"]), c["name"]) for c in cases if "margin" in c]
    halves = [(float(c["half"]), c["name"]) for c in cases if "half" in c]
    entry: Dict[str, Any] = {"float32": bool(found.get("float32"))}
    if not cases:
        failures.append(f"{key}: the tolerance audit could not run: {row['message']}")
        return entry
    if margins:
        value, case = max(margins)
        entry.update({"margin": value, "margin_case": case, "margin_ok": value <= MARGIN_LIMIT})
        if value > MARGIN_LIMIT:
            failures.append(
                f"{key}: on case {case} the reference deviates from itself computed in float64 "
                f"by {_fmt(value)} x the tolerance (limit {MARGIN_LIMIT:g}): the tolerance "
                "measures the reference's own error"
            )
    elif found.get("float64_failed"):
        entry["margin_error"] = found["float64_failed"]
        warnings.append(f"{key}: the reference does not run in float64 ({found['float64_failed']})")
    if entry["float32"]:
        # the float16 run stops at the first case it fails: it must fail one
        if halves and (len(halves) == len(cases) or max(halves)[0] > 1):
            value, case = max(halves)
            entry.update({"half": value, "half_case": case, "half_fails": value > 1})
            if value <= 1:
                failures.append(
                    f"{key}: the reference computed in float16 passes every functional case (at "
                    f"most {_fmt(value)} x the tolerance, on case {case}): the tolerance is too "
                    "loose for a float32 challenge"
                )
        elif found.get("float16_failed"):
            entry["half_error"] = found["float16_failed"]
    if found.get("perf_bytes") is not None:
        size = int(found["perf_bytes"])
        entry.update({"perf_bytes": size, "perf_gb": size / 1e9})
        if limit is not None:
            entry["perf_fits"] = size <= limit
            if size > limit:
                failures.append(
                    f"{key}: the performance case's tensors take {size / 1e9:.2f} GB; five "
                    f"copies must fit in 16 GB (at most {limit / 1e9:.1f} GB, rule D003)"
                )
    elif found.get("perf_error"):
        entry["perf_error"] = found["perf_error"]
        failures.append(
            f"{key}: the performance case could not be generated: {found['perf_error']}"
        )
    return entry


def mutants_entry(
    key: str, challenge: Any, row: Dict[str, Any], warnings: List[str]
) -> Dict[str, Any]:
    described = {v["name"]: v for v in challenge.derived}
    table = []
    for variant in row.get("variants") or []:
        about = described.get(variant["name"], {})
        cases = variant.get("cases") or []
        ratios = [_float(c.get("ratio")) for c in cases if not c.get("caught")]
        table.append(
            {
                "name": variant["name"],
                "operator": about.get("operator", variant["name"]),
                "line": about.get("line"),
                "mistake": about.get("mistake", ""),
                "status": classify(variant),
                "verdict": variant.get("verdict"),
                "caught_by": [c["name"] for c in cases if c.get("caught")],
                # killed only by raising on every case: it says little about the tests
                "only_raised": bool(cases) and all(c.get("reasons") == ["raised"] for c in cases),
                "cases_run": len(cases),
                # how near a survivor came to being caught: its largest error/tolerance
                "closest": max((r for r in ratios if r is not None), default=None),
            }
        )
    counts = {s: 0 for s in (KILLED, EQUIVALENT, SURVIVOR, NOT_APPLICABLE, NOT_JUDGED)}
    for item in table:
        counts[item["status"]] += 1
    counts["only_raised"] = sum(1 for m in table if m["status"] == KILLED and m["only_raised"])
    scored = counts[KILLED] + counts[SURVIVOR]
    score = counts[KILLED] / scored if scored else None
    survivors = [m for m in table if m["status"] == SURVIVOR]
    if not row.get("variants"):
        warnings.append(f"{key}: the derived mistakes could not be judged: {row['message']}")
    for m in survivors:
        warnings.append(
            f"{key}: a mistake the tests miss: {m['name']} ({m['mistake']}; at most "
            f"{_fmt(m['closest'])} x the tolerance)"
        )
    return {
        "table": table,
        "counts": counts,
        "score": score,
        "survivors": [m["name"] for m in survivors],
    }


def _fmt(value: Optional[float]) -> str:
    if value is None:
        return "—"
    if math.isinf(value):
        return "inf"
    return format(value, ".3g" if value == 0 or 0.01 <= abs(value) < 1000 else ".2e")


# ---------------------------------------------------------------------------------- rendering
def summary_cells(key: str, entry: Dict[str, Any]) -> List[str]:
    """Challenge | reference | float64 margin | float16 | perf GB | score | survivors."""
    reference = entry.get("reference") or {}
    audit = entry.get("audit") or {}
    mutants = entry.get("mutants") or {}
    if reference.get("verdict"):
        ref = f"{reference['verdict']} {reference['cases_passed']}/{reference['cases']}"
        if reference.get("seeds", 0) > 1:
            ref += f" x {reference['seeds']} seeds"
        if reference.get("median_ms") is not None:
            ref += f", {reference['median_ms']:.4f} ms"
    else:
        ref = "—"
    jax = entry.get("reference_jax")
    if jax:
        ref += f"; JAX {jax['verdict']} {jax['cases_passed']}/{jax['cases']}"
    margin = _fmt(audit.get("margin")) if "margin" in audit else audit.get("margin_error", "—")
    if "margin" in audit and not audit.get("margin_ok"):
        margin += " (over 0.1)"
    if not audit.get("float32"):
        half = "n/a (not float32)"
    elif "half" in audit:
        half = ("fails " if audit["half_fails"] else "PASSES ") + _fmt(audit["half"])
    else:
        half = "not measured" if not audit.get("half_error") else "does not run"
    size = f"{audit['perf_gb']:.3g}" if "perf_gb" in audit else "—"
    if audit.get("perf_fits") is False:
        size += " (over D003)"
    counts = mutants.get("counts") or {}
    if mutants:
        score = "—" if mutants["score"] is None else f"{mutants['score']:.0%}"
        score += f" ({counts[KILLED]}/{counts[KILLED] + counts[SURVIVOR]}"
        score += f", {counts[EQUIVALENT]} equivalent" if counts[EQUIVALENT] else ""
        score += f", {counts['only_raised']} only raise" if counts.get("only_raised") else ""
        score += ")"
    else:
        score = "—"
    survivors = ", ".join(mutants.get("survivors") or []) or "—"
    return [key, ref, margin, half, size, score, survivors]


SUMMARY_HEADER = [
    "Challenge",
    "Reference as solution",
    "Float64 margin",
    "Float16",
    "Perf GB",
    "Mutation score",
    "Mistakes the tests miss",
]


def print_derived(proofs: Dict[str, Dict[str, Any]], console: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    entries = {k: e["derived"] for k, e in proofs.items() if e.get("derived")}
    if not entries:
        return
    table = Table(title="derived from each challenge.py (reference, tolerance audit, mistakes)")
    for name in SUMMARY_HEADER:
        table.add_column(name)
    for key, entry in entries.items():
        table.add_row(*summary_cells(key, entry), style="bold red" if entry["failures"] else None)
    Console(file=console.file, width=max(console.width, 180), highlight=False).print(table)


def markdown_derived(key: str, entry: Dict[str, Any]) -> List[str]:
    """One challenge's derived proofs as Markdown: the summary row's facts and the mistakes."""
    cells = summary_cells(key, entry)
    lines = [f"### {key}: derived from challenge.py", ""]
    lines += [f"- {name}: {value}" for name, value in zip(SUMMARY_HEADER[1:], cells[1:])]
    mutants = entry.get("mutants") or {}
    if mutants.get("table"):
        lines += ["", "| Mistake | Status | Caught by |", "|---|---|---|"]
        for m in mutants["table"]:
            caught = ", ".join(m["caught_by"]) or "—"
            lines.append(f"| `{m['name']}` | {m['status']} | {caught} |")
    lines.append("")
    return lines
