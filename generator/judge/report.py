"""Reports: one rich table for the terminal, JSON for tools, Markdown for results files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.judge import verdicts as V
from generator.languages import LANGUAGES

COLUMNS = (
    "Challenge",
    "Kind",
    "Name",
    "Language",
    "Verdict",
    "OK",
    "Cases",
    "Seeds",
    "Max err",
    "Time s",
    "Median ms",
    "Min ms",
    "Spread",
    "GB/s",
    "% copy",
)
#: The terminal table leaves out what the Markdown and JSON reports keep.
TERMINAL_COLUMNS = tuple(c for c in COLUMNS if c not in ("Min ms", "Spread"))
RIGHT = (
    "Cases",
    "Seeds",
    "Max err",
    "Time s",
    "Median ms",
    "Min ms",
    "Spread",
    "GB/s",
    "% copy",
)


def _num(value: Optional[float], fmt: str) -> str:
    return "" if value is None else format(value, fmt)


def cells(row: Dict[str, Any]) -> Dict[str, str]:
    perf = row.get("perf") or {}
    cases = f"{row['cases_passed']}/{row['cases']}" if row["cases"] else ""
    if row["kind"] == "mutant" and row["cases"]:
        cases = f"caught {row['cases'] - row['cases_passed']}/{row['cases']} functional"
    if row.get("skipped"):
        cases += f" (+{row['skipped']} skipped)"
    seeds = row.get("seeds") or []
    passed = sum(1 for s in seeds if s.get("verdict") == V.PASS)
    return {
        "Challenge": row["challenge"].split("_")[0],
        "Kind": row["kind"],
        "Name": row["name"],
        "Language": row["language"],
        "Verdict": row["verdict"],
        "OK": "yes" if row["ok"] else "NO",
        "Cases": cases,
        "Seeds": f"{passed}/{len(seeds)}" if len(seeds) > 1 else "",
        "Max err": max_error(row),
        "Time s": _num(row.get("seconds"), ".1f"),
        "Median ms": _num(perf.get("median_ms"), ".4f"),
        "Min ms": _num(perf.get("min_ms"), ".4f"),
        "Spread": _num(perf.get("spread"), ".1%") if perf else "",
        "GB/s": _num(perf.get("gbps"), ".0f"),
        "% copy": _num(perf.get("pct_of_copy"), ".1f"),
    }


def max_error(row: Dict[str, Any]) -> str:
    """The max relative error of float outputs; for integer outputs (compared for equality) the
    count of mismatching elements, or "exact"."""
    if row.get("exact"):
        mismatches = row.get("mismatches") or 0
        return f"{mismatches:,} differ" if mismatches else "exact"
    value = row.get("max_rel")
    if isinstance(value, str):  # "nan" or "inf"
        return f"{value} rel"
    return "" if value is None else f"{value:.1e} rel"


def print_table(rows: List[Dict[str, Any]], console: Any, title: str = "") -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None, show_lines=False)
    for name in TERMINAL_COLUMNS:
        table.add_column(name, justify="right" if name in RIGHT else "left", no_wrap=True)
    for row in rows:
        values = cells(row)
        style = None if row["ok"] else "bold red"
        table.add_row(*(values[name] for name in TERMINAL_COLUMNS), style=style)
    # Never squeeze the table into an 80-column pipe; a narrow terminal wraps instead.
    wide = Console(file=console.file, width=max(console.width, 170), highlight=False)
    wide.print(table)
    for row in rows:
        if row["ok"] and row["kind"] == "mutant":
            continue  # its catching cases are in the mutant table
        if not row["ok"] or (row["verdict"] not in (V.PASS, V.BUILT) and row["message"]):
            mark = "ok  " if row["ok"] else "FAIL"
            console.print(f"{mark} {row['id']}: {row['verdict']}: {row['message']}", markup=False)
    for row in rows:
        if row.get("skipped_cases"):
            console.print(f"skipped {row['id']}: {skipped_text(row)}", markup=False)
    for challenge, forced in forced_ranks(rows).items():
        console.print(f"{challenge}: {ranks_line(forced)}", markup=False)


def ranks_line(forced: Dict[str, Any]) -> str:
    """What a run on --ranks N says: on how many ranks its cases ran instead of their own, and
    what that cannot prove."""
    ranks, instead = int(forced["ranks"]), [int(n) for n in forced.get("instead_of") or []]
    line = f"ranks: every case ran on {V.rank_count(ranks)} (--ranks {ranks})"
    if instead:
        line += f" instead of its own {V.rank_choices(instead)}"
    if instead and ranks < max(instead):
        line += "; a mistake that needs more ranks to show (a collective's) is not provable here"
    return line


def forced_ranks(rows: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """Per challenge run on --ranks N: {ranks, instead_of} (the ranks its cases asked for)."""
    found: Dict[str, Dict[str, Any]] = {}
    for row in rows:
        forced = (row.get("env") or {}).get("forced_ranks")
        if not forced:
            continue
        entry = found.setdefault(row["challenge"], {"ranks": forced["ranks"], "instead_of": []})
        entry["instead_of"] = sorted(set(entry["instead_of"]) | set(forced["instead_of"]))
    return found


def skipped_text(row: Dict[str, Any]) -> str:
    """The cases a row skipped and why, with the flag that runs them."""
    named = "; ".join(f"{s['name']} ({s['why']})" for s in row["skipped_cases"])
    return f"{named}: too large for the interpreter on the CPU (--cpu-max-elements N runs them)"


def _versions_of(lang: Any, packages: Dict[str, Any]) -> str:
    """The language's own distributions that the run saw (torch is listed once, on its own)."""
    found = [(name, packages.get(name)) for name in lang.packages if name != "torch"]
    return ", ".join(f"{name} {version}" for name, version in found if version)


def markdown(report: Dict[str, Any]) -> str:
    meta = report.get("meta", {})
    machine = meta.get("machine", {})
    packages = machine.get("packages", {})
    lines = [f"# {meta.get('title', 'chgen judge run')}", ""]
    facts = [
        ("Date", meta.get("date")),
        ("Device", meta.get("device")),
        ("GPU", machine.get("gpu")),
        ("Driver", machine.get("driver")),
        ("nvcc", machine.get("nvcc")),
        ("Python", packages.get("python")),
        ("torch", packages.get("torch")),
        *((lang.title, _versions_of(lang, packages)) for lang in LANGUAGES),
        ("Mojo (build)", meta.get("mojo_build")),
        ("Copy bandwidth", meta.get("copy_gbps") and f"{meta['copy_gbps']:.0f} GB/s"),
        ("Solutions ran", (meta.get("isolation") or {}).get("sandbox")),
    ]
    lines += [f"- {name}: {value}" for name, value in facts if value]
    for challenge, forced in forced_ranks(report.get("rows", [])).items():
        lines.append(f"- {challenge}: {ranks_line(forced)}")
    seeds = meta.get("seeds") or []
    if len(seeds) > 1:
        lines.append(f"- Seeds: {', '.join(str(s) for s in seeds)} (timing: seed {seeds[0]})")
    summary = report.get("summary", {})
    if summary:
        lines.append(
            f"- Result: {summary.get('ok')}/{summary.get('jobs')} as expected "
            f"in {summary.get('seconds')} s"
        )
        if summary.get("proof_failures"):
            lines.append(f"- Spec-level proofs: {len(summary['proof_failures'])} failure(s)")
    lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in report.get("rows", []):
        values = cells(row)
        lines.append("| " + " | ".join(values[c].replace("|", "\\|") for c in COLUMNS) + " |")
    seen = [v for v in V.MEANING if any(r["verdict"] == v for r in report.get("rows", []))]
    lines += ["", "Verdicts:", ""] + [f"- `{v}`: {V.MEANING[v]}" for v in seen]
    notes = [r for r in report.get("rows", []) if r["verdict"] not in (V.PASS, V.BUILT)]
    if notes:
        lines += ["", "Messages:", ""]
        for row in notes:
            message = row["message"].replace("\n", " ")
            lines.append(f"- `{row['id']}` ({row['verdict']}): {message}")
    proofs = report.get("proofs") or {}
    if proofs:
        from generator.judge.proofs import markdown_proofs

        lines += ["", "## Spec-level proofs", ""]
        for key, entry in proofs.items():
            lines += markdown_proofs(key, entry)
    return "\n".join(lines).rstrip("\n") + "\n"


#: what two runs of the same jobs may differ in: when, how long, and where (a Ray address) they ran
RUN_FIELDS = frozenset({"seconds", "date", "ray"})


def without_run_fields(value: Any) -> Any:
    """A report (or any part of one) without RUN_FIELDS, at every depth: what two runs of the same
    jobs (here and on a Ray cluster, say) must agree on."""
    if isinstance(value, dict):
        return {k: without_run_fields(v) for k, v in value.items() if k not in RUN_FIELDS}
    if isinstance(value, list):
        return [without_run_fields(v) for v in value]
    return value


def report_differences(one: Any, other: Any) -> List[str]:
    """Where two reports differ outside RUN_FIELDS, as paths (`rows[3].verdict: 'pass' != ...`)."""
    return _differences(without_run_fields(one), without_run_fields(other), "")


def _differences(one: Any, other: Any, where: str) -> List[str]:
    if isinstance(one, dict) and isinstance(other, dict):
        found = []
        for key in sorted(set(one) | set(other), key=str):
            if key not in one or key not in other:
                found.append(
                    f"{where}.{key}: only in {'the second' if key in other else 'the first'}"
                )
            else:
                found += _differences(one[key], other[key], f"{where}.{key}")
        return found
    if isinstance(one, list) and isinstance(other, list):
        if len(one) != len(other):
            return [f"{where}: {len(one)} entries != {len(other)}"]
        return [line for i, pair in enumerate(zip(one, other))
                for line in _differences(*pair, f"{where}[{i}]")]  # fmt: skip
    return [] if one == other else [f"{where}: {one!r:.80} != {other!r:.80}"]


def write_json(path: Path, report: Dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, default=str) + "\n")


def copy_bandwidth(rows: List[Dict[str, Any]]) -> Optional[float]:
    """The median of the copy bandwidths the timed workers measured."""
    values = sorted(r["perf"]["copy_gbps"] for r in rows if (r.get("perf") or {}).get("copy_gbps"))
    return values[len(values) // 2] if values else None


def rounds_line(rounds: Dict[str, Any]) -> str:
    """What the timing's defences did: where the inputs came from, resets, checked calls."""
    inputs = {
        "fresh": f"a fresh input set per call ({rounds.get('sets')} made)",
        "rotated": "two input sets in turn",
        "fixed": "the same inputs every call",
    }.get(str(rounds.get("inputs")), str(rounds.get("inputs")))
    why = f" ({rounds['why']})" if rounds.get("why") else ""
    line = (
        f"timed calls: {rounds.get('calls')}, each on {inputs}{why}, outputs reset before each, "
        f"{rounds.get('checked')} checked"
    )
    if rounds.get("judge_ms") is not None:
        line += f"; the judge's own figure {rounds['judge_ms']:.4f} ms per call"
    return line
