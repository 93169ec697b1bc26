"""The spec-level proofs of a `chgen test` run, from the rows the workers returned.

- Mutants: each known mistake must be caught by some functional case; the catching cases are
  compared with the spec's `caught_by` when it gives them. A case catches a mutant when an
  output's error/tolerance exceeds 1, the call raises, an output is left at its pre-fill, or a
  guard or an input was disturbed.
- Tolerance margin: per mutant, its error/tolerance on the cases that catch it, the weakest (min)
  and the strongest (max); the run's margin is the min over mutants of the strongest (goal >= 10:
  every mistake is missed by a wide gap by at least one case), and the min over all (mutant,
  catching case) pairs is shown too. A raise counts as infinite.
- Oracle: per functional case, the reference's error/tolerance against the float64 oracle; it
  must stay <= 0.1, so that the tolerance measures the solution, not the reference.
- Accuracy floor: per functional case with at least `min_elements` elements of the floor's
  output, a solution's mean relative error against float64 must be <= factor x the spec
  baseline's (evaluated on the same device and inputs); smaller cases are shown, not enforced.

Only the parent runs this: no torch, no spec model. The numbers come from the workers.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from generator.judge import verdicts as V
from generator.judge.precision import ORACLE_LIMIT

MARGIN_GOAL = 10.0
DEFAULT_MIN_ELEMENTS = 64


def _float(value: Any) -> Optional[float]:
    """Worker numbers: floats, or "inf"/"nan" strings for the non-finite ones."""
    return None if value is None else float(value)


def fmt(value: Optional[float], spec: Optional[str] = None) -> str:
    """Three significant digits; scientific outside [0.01, 1000) so 1001.8 is not shown as 1e+03."""
    if value is None:
        return "—"
    if math.isinf(value):
        return "inf"
    if spec is None:
        spec = ".3g" if value == 0 or 0.01 <= abs(value) < 1000 else ".2e"
    return format(value, spec)


def collect(plan: Any, rows: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Proofs per challenge that declares mutants, an oracle or an accuracy floor, or whose
    derived jobs ran (generator/judge/derived_proofs.py)."""
    from generator.judge.derived_proofs import DERIVED_KINDS, collect_derived

    proofs: Dict[str, Dict[str, Any]] = {}
    for key, challenge in plan.challenges.items():
        mine = [r for r in rows if r["challenge"] == key]
        derived = any(r["kind"] in DERIVED_KINDS for r in mine)
        if not (challenge.mutants or challenge.oracle or challenge.accuracy_floor or derived):
            continue
        failures: List[str] = []
        warnings: List[str] = []
        entry: Dict[str, Any] = {"atol": challenge.atol, "rtol": challenge.rtol}
        if challenge.mutants:
            entry["mutants"] = mutant_table(key, challenge, mine, failures, warnings)
            entry["margin"] = margin(key, entry["mutants"], warnings)
        if challenge.oracle:
            entry["oracle"] = oracle_table(key, challenge, mine, failures, warnings)
        if challenge.accuracy_floor:
            entry["floor"] = floor_table(key, challenge, mine, failures, warnings)
        if derived:
            limit = plan.meta.get("perf_bytes_limit")
            entry["derived"] = collect_derived(key, challenge, mine, limit)
            failures += entry["derived"]["failures"]
            warnings += entry["derived"]["warnings"]
        entry["failures"], entry["warnings"] = failures, warnings
        proofs[key] = entry
    return proofs


def all_failures(proofs: Dict[str, Dict[str, Any]]) -> List[str]:
    return [f for entry in proofs.values() for f in entry["failures"]]


def all_warnings(proofs: Dict[str, Dict[str, Any]]) -> List[str]:
    return [w for entry in proofs.values() for w in entry["warnings"]]


# ------------------------------------------------------------------------------------ mutants
def _case_ratio(case: Dict[str, Any]) -> Optional[float]:
    if case.get("ratio") is None:
        return math.inf if case.get("caught") else None
    return _float(case["ratio"])


def mutant_table(
    key: str,
    challenge: Any,
    rows: List[Dict[str, Any]],
    failures: List[str],
    warnings: List[str],
) -> List[Dict[str, Any]]:
    """Each mutant's catches; one that survived on --ranks N is a warning (not provable)."""
    by_name = {r["name"]: r for r in rows if r["kind"] == "mutant"}
    table = []
    for mutant in challenge.mutants:
        row = by_name.get(mutant["name"])
        if row is None:  # left out of this run (e.g. --kind solution)
            continue
        expected = mutant.get("caught_by")
        cases = [c for c in row.get("case_results") or [] if "caught" in c]
        ratios = {c["name"]: _case_ratio(c) for c in cases}
        caught_by = [c["name"] for c in cases if c["caught"]]
        catching = [ratios[name] for name in caught_by if ratios[name] is not None]
        record = {
            "name": mutant["name"],
            "mistake": mutant["mistake"],
            "verdict": row["verdict"],
            "caught_by": caught_by,
            "cases_run": len(cases),
            "expected": expected,
            "missing": sorted(set(expected) - set(caught_by)) if expected is not None else [],
            "extra": sorted(set(caught_by) - set(expected)) if expected is not None else [],
            "weakest": min(catching) if catching else None,
            "strongest": max(catching) if catching else None,
            "ratios": ratios,
            "reasons": {c["name"]: c.get("reasons", []) for c in cases if c["caught"]},
        }
        forced = (row.get("env") or {}).get("forced_ranks")
        # on --ranks N the spec's caught_by (cases on their own ranks) is shown, not enforced
        record["forced_ranks"] = forced
        record["differs"] = bool(record["missing"] or record["extra"]) and not forced
        if row["verdict"] == V.NOT_PROVABLE:
            on = V.rank_count(forced["ranks"])
            instead = V.rank_choices(forced["instead_of"])
            warnings.append(
                f"{key}: mutant {mutant['name']} is not provable at {on}: it survived all "
                f"{len(cases)} functional cases on {on} instead of {instead}; judge it without "
                "--ranks to prove it"
            )
        elif row["verdict"] == V.PASS:
            failures.append(
                f"{key}: mutant {mutant['name']} survived all {len(cases)} functional cases "
                f"({mutant['mistake']})"
            )
        elif row["verdict"] not in V.CAUGHT:
            failures.append(
                f"{key}: mutant {mutant['name']} could not be judged: {row['verdict']}: "
                f"{row['message']}"
            )
        if forced and row["verdict"] in V.CAUGHT and (record["missing"] or record["extra"]):
            warnings.append(
                f"{key}: mutant {mutant['name']} on {V.rank_count(forced['ranks'])} is caught by "
                f"{_names(caught_by)}; the spec expects {_names(expected)} on the cases' own ranks"
            )
        if record["differs"] and row["verdict"] in V.CAUGHT:
            failures.append(
                f"{key}: mutant {mutant['name']} is caught by {_names(caught_by)}; the spec "
                f"expects {_names(expected)} (missing: {_names(record['missing'])}; "
                f"unexpected: {_names(record['extra'])})"
            )
        table.append(record)
    return table


def _names(names: Optional[List[str]]) -> str:
    return ", ".join(names) if names else "none"


def margin(key: str, mutants: List[Dict[str, Any]], warnings: List[str]) -> Dict[str, Any]:
    """min over mutants of the strongest catch, and the weakest (mutant, catching case) pair."""
    found: Dict[str, Any] = {"goal": MARGIN_GOAL}
    strong = [(m["strongest"], m["name"]) for m in mutants if m["strongest"] is not None]
    if not strong:
        return found
    value, name = min(strong)
    found.update({"min_strongest": value, "min_strongest_mutant": name})
    pairs: List[Tuple[float, str, str]] = [
        (ratio, m["name"], case)
        for m in mutants
        for case, ratio in m["ratios"].items()
        if case in m["caught_by"] and ratio is not None
    ]
    if pairs:
        low, mutant, case = min(pairs)
        found.update({"min_pair": low, "min_pair_mutant": mutant, "min_pair_case": case})
    found["met"] = value >= MARGIN_GOAL
    if not found["met"]:
        warnings.append(
            f"{key}: tolerance margin {fmt(value)} is below the goal of {MARGIN_GOAL:g} "
            f"(mutant {name}: its strongest catch is only {fmt(value)} x the tolerance)"
        )
    return found


# ------------------------------------------------------------------------------------- oracle
def _functional_entries(row: Dict[str, Any], field: str) -> List[Dict[str, Any]]:
    return [c for c in row.get("case_results") or [] if field in c]


def oracle_table(
    key: str,
    challenge: Any,
    rows: List[Dict[str, Any]],
    failures: List[str],
    warnings: List[str],
) -> Dict[str, Any]:
    """The reference's deviation per case: the largest any worker measured (they should agree)."""
    worst: Dict[str, float] = {}
    outputs: Dict[str, Dict[str, float]] = {}
    sources = 0
    for row in rows:
        entries = _functional_entries(row, "oracle_dev")
        sources += bool(entries)
        for case in entries:
            value = _float(case["oracle_dev"])
            if case["name"] not in worst or value > worst[case["name"]]:
                worst[case["name"]] = value
                outputs[case["name"]] = {
                    k: _float(v) for k, v in case.get("oracle_devs", {}).items()
                }
    cases = [
        {"name": name, "deviation": worst.get(name), "outputs": outputs.get(name, {})}
        for name in challenge.case_names
    ]
    measured = [c for c in cases if c["deviation"] is not None]
    table = {"limit": ORACLE_LIMIT, "cases": cases, "jobs": sources}
    if not measured:
        warnings.append(f"{key}: the oracle was not evaluated (no job ran the functional cases)")
        return table
    top = max(measured, key=lambda c: c["deviation"])
    table["max"] = top["deviation"]
    for case in measured:
        if case["deviation"] > ORACLE_LIMIT:
            failures.append(
                f"{key}: on case {case['name']} the reference deviates from the float64 oracle by "
                f"{fmt(case['deviation'])} x the tolerance (limit {ORACLE_LIMIT:g})"
            )
    return table


# ------------------------------------------------------------------------------ accuracy floor
def solution_label(row: Dict[str, Any]) -> str:
    return f"{row['name']} {row['language']}"


def floor_table(
    key: str,
    challenge: Any,
    rows: List[Dict[str, Any]],
    failures: List[str],
    warnings: List[str],
) -> Dict[str, Any]:
    spec = challenge.accuracy_floor
    factor = float(spec["factor"])
    min_elements = int(spec.get("min_elements") or DEFAULT_MIN_ELEMENTS)
    table: Dict[str, Any] = {
        "output": spec["output"],
        "baseline_expression": spec["baseline"],
        "factor": factor,
        "min_elements": min_elements,
        "cases": [],
        "solutions": [],
    }
    measured_rows = [r for r in rows if r["kind"] == "solution" and _functional_entries(r, "floor")]
    per_row = {
        r["id"]: {c["name"]: c["floor"] for c in _functional_entries(r, "floor")}
        for r in measured_rows
    }
    for name in challenge.case_names:
        first = next(
            (per_row[r["id"]][name] for r in measured_rows if name in per_row[r["id"]]), None
        )
        if first is None:
            table["cases"].append({"name": name, "elements": None, "enforced": False})
            continue
        elements = int(first["elements"])
        table["cases"].append(
            {
                "name": name,
                "elements": elements,
                "enforced": elements >= min_elements,
                "reference": _float(first["reference"]),
                "baseline": _float(first["baseline"]),
            }
        )
    enforced = {c["name"] for c in table["cases"] if c.get("enforced")}
    for row in measured_rows:
        results: Dict[str, Dict[str, Any]] = {}
        worst: Optional[float] = None
        broken: List[str] = []
        for name, floor in per_row[row["id"]].items():
            error, base = _float(floor["solution"]), _float(floor["baseline"])
            ratio = error / base if base > 0 else (0.0 if error == 0 else math.inf)
            results[name] = {"error": error, "baseline": base, "ratio": ratio}
            if name in enforced:
                worst = ratio if worst is None else max(worst, ratio)
                if error > factor * base:
                    broken.append(name)
                    failures.append(
                        f"{key}: {solution_label(row)} breaks the accuracy floor on case {name}: "
                        f"mean relative error {fmt(error)} > {factor:g} x the baseline's "
                        f"{fmt(base)}"
                    )
        table["solutions"].append(
            {
                "id": row["id"],
                "label": solution_label(row),
                "cases": results,
                "worst_ratio": worst,
                "enforced_cases": sum(1 for name in results if name in enforced),
                "ok": not broken,
            }
        )
    if not measured_rows:
        warnings.append(f"{key}: the accuracy floor was not evaluated (no solution ran here)")
    return table


# ---------------------------------------------------------------------------------- rendering
def _expected_cell(m: Dict[str, Any]) -> str:
    if m["expected"] is None:
        return "—"
    if m.get("forced_ranks") and (m["missing"] or m["extra"]):
        return f"not enforced at {V.rank_count(m['forced_ranks']['ranks'])}"
    if not m["differs"]:
        return "as expected"
    parts = []
    if m["missing"]:
        parts.append("missing " + ", ".join(m["missing"]))
    if m["extra"]:
        parts.append("unexpected " + ", ".join(m["extra"]))
    return "DIFFERS: " + "; ".join(parts)


def _caught_cell(m: Dict[str, Any]) -> str:
    if m["verdict"] == V.NOT_PROVABLE:
        return f"not provable at {V.rank_count(m['forced_ranks']['ranks'])}"
    if not m["caught_by"]:
        return "SURVIVED"
    if len(m["caught_by"]) == m["cases_run"]:
        return f"all {m['cases_run']} cases"
    return ", ".join(m["caught_by"])


def margin_lines(entry: Dict[str, Any]) -> List[str]:
    found = entry.get("margin") or {}
    if "min_strongest" not in found:
        return []
    lines = [
        f"tolerance margin (min over mutants of the strongest error/tolerance): "
        f"{fmt(found['min_strongest'])} (mutant {found['min_strongest_mutant']}; goal >= "
        f"{found['goal']:g}{'' if found['met'] else ', NOT MET'})"
    ]
    if "min_pair" in found:
        lines.append(
            f"min over all (mutant, catching case) pairs: {fmt(found['min_pair'])} "
            f"(mutant {found['min_pair_mutant']} on case {found['min_pair_case']})"
        )
    return lines


def measured(oracle: Optional[Dict[str, Any]]) -> bool:
    """An oracle table with a deviation in it: without the reference job (`--kind solution`)
    every cell would be empty, and no table is printed."""
    return bool(oracle) and any(case["deviation"] is not None for case in oracle["cases"])


def _oracle_cell(case: Dict[str, Any]) -> str:
    if case["deviation"] is None:
        return "—"
    if len(case["outputs"]) > 1:
        parts = ", ".join(f"{k} {fmt(v, '.2e')}" for k, v in case["outputs"].items())
        return f"{fmt(case['deviation'], '.2e')} ({parts})"
    return fmt(case["deviation"], ".2e")


def _floor_cell(result: Optional[Dict[str, Any]], enforced: bool, factor: float) -> str:
    if result is None:
        return "—"
    mark = " FAIL" if enforced and result["ratio"] > factor else ""
    return f"{fmt(result['error'], '.2e')} ({fmt(result['ratio'], '.2f')}x){mark}"


def floor_rows(floor: Dict[str, Any]) -> Tuple[List[str], List[List[str]]]:
    """Header and rows of the floor table: case | elements | reference | baseline | solutions."""
    header = ["Case", "Elements", "Reference", "Baseline"]
    header += [s["label"] for s in floor["solutions"]]
    lines = []
    for case in floor["cases"]:
        elements = "—" if case["elements"] is None else str(case["elements"])
        if case["elements"] is not None and not case["enforced"]:
            elements += " (not enforced)"
        cells = [
            case["name"],
            elements,
            fmt(case.get("reference"), ".2e"),
            fmt(case.get("baseline"), ".2e"),
        ]
        for solution in floor["solutions"]:
            result = solution["cases"].get(case["name"])
            cells.append(_floor_cell(result, case.get("enforced", False), floor["factor"]))
        lines.append(cells)
    return header, lines


def print_proofs(proofs: Dict[str, Dict[str, Any]], console: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    for key, entry in proofs.items():
        mutants = entry.get("mutants") or []
        floor = entry.get("floor")
        columns = 6 + (len(floor["solutions"]) if floor else 0)
        wide = Console(file=console.file, width=max(console.width, 60 + 22 * columns))
        if mutants:
            table = Table(title=f"{key}: mutants (error/tolerance on the catching cases)")
            for name in ("Mutant", "Mistake", "Caught by", "Expected", "Weakest", "Strongest"):
                table.add_column(
                    name, justify="right" if name in ("Weakest", "Strongest") else "left"
                )
            for m in mutants:
                lost = not m["caught_by"] and m["verdict"] != V.NOT_PROVABLE
                style = (
                    "bold red"
                    if lost or m["differs"]
                    else ("yellow" if not m["caught_by"] else None)
                )
                table.add_row(
                    m["name"],
                    m["mistake"],
                    _caught_cell(m),
                    _expected_cell(m),
                    fmt(m["weakest"]),
                    fmt(m["strongest"]),
                    style=style,
                )
            wide.print(table)
            for line in margin_lines(entry):
                console.print(line, markup=False)
        oracle = entry.get("oracle")
        if measured(oracle):
            table = Table(title=f"{key}: reference vs float64 oracle")
            table.add_column("Case")
            table.add_column(f"Ref deviation / tol (limit {oracle['limit']:g})", justify="right")
            for case in oracle["cases"]:
                bad = case["deviation"] is not None and case["deviation"] > oracle["limit"]
                table.add_row(case["name"], _oracle_cell(case), style="bold red" if bad else None)
            wide.print(table)
        if floor and floor["solutions"]:
            title = (
                f"{key}: accuracy floor (mean relative error of {floor['output']} vs float64, "
                f"and its ratio to the baseline's)"
            )
            caption = (
                f"baseline: {floor['baseline_expression']}; each solution <= "
                f"{floor['factor']:g}x on cases of >= {floor['min_elements']} elements"
            )
            table = Table(title=title, caption=caption)
            header, lines = floor_rows(floor)
            for name in header:
                table.add_column(name, justify="left" if name == "Case" else "right")
            for cells in lines:
                table.add_row(*cells)
            wide.print(table)
        for line in entry["failures"]:
            console.print(f"FAIL {line}", markup=False)
        for line in entry["warnings"]:
            console.print(f"warning: {line}", markup=False)


def _md_row(cells: List[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def markdown_proofs(key: str, entry: Dict[str, Any]) -> List[str]:
    """The proofs of one challenge as Markdown sections."""
    from generator.judge.derived_proofs import markdown_derived

    lines: List[str] = markdown_derived(key, entry["derived"]) if entry.get("derived") else []
    mutants = entry.get("mutants") or []
    if mutants:
        lines += [f"### {key}: mutants", ""]
        lines.append("Error/tolerance of each mutant on the functional cases that catch it.")
        lines += ["", _md_row(["Mistake", "Caught by", "Expected", "Weakest", "Strongest"])]
        lines.append("|---|---|---|---:|---:|")
        for m in mutants:
            lines.append(
                _md_row(
                    [
                        f"{m['mistake']} (`{m['name']}`)",
                        _caught_cell(m),
                        _expected_cell(m),
                        fmt(m["weakest"]),
                        fmt(m["strongest"]),
                    ]
                )
            )
        lines += [""] + [f"- {line}" for line in margin_lines(entry)] + [""]
    oracle = entry.get("oracle")
    if measured(oracle):
        lines += [f"### {key}: reference vs float64 oracle", ""]
        lines.append(f"Error/tolerance of the reference; limit {oracle['limit']:g}.")
        lines += ["", "| Case | Ref deviation / tol |", "|---|---:|"]
        lines += [_md_row([c["name"], _oracle_cell(c)]) for c in oracle["cases"]]
        lines.append("")
    floor = entry.get("floor")
    if floor and floor["solutions"]:
        lines += [f"### {key}: accuracy floor", ""]
        lines.append(
            f"Mean relative error of `{floor['output']}` against float64, and its ratio to the "
            f"baseline `{floor['baseline_expression']}` on the same device; a solution must stay "
            f"within {floor['factor']:g}x on cases of at least {floor['min_elements']} elements."
        )
        header, rows = floor_rows(floor)
        lines += ["", _md_row(header), "|---|" + "---:|" * (len(header) - 1)]
        lines += [_md_row(cells) for cells in rows]
        lines.append("")
    for line in entry.get("failures", []):
        lines.append(f"- FAIL: {line}")
    for line in entry.get("warnings", []):
        lines.append(f"- warning: {line}")
    if entry.get("failures") or entry.get("warnings"):
        lines.append("")
    return lines
