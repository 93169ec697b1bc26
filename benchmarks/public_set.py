"""The whole public challenge set through `chgen import` and `chgen generate`, against itself.

    python benchmarks/public_set.py TREE [--jobs 2] [--timeout 120] [--no-mojo] [--constructs]

TREE is a folder holding challenges/ (a clone of the public LeetGPU set). The pipeline, as a user
runs it: `chgen import TREE --out SPECS --report` (timed) -> `chgen generate` of those specs into a
temporary tree with an empty cache (timed; a spec it refuses is dropped and the rest generated
again) -> `chgen check TREE` (which public starters and pages pass the starter and HTML rules) ->
file by file comparison of the regenerated tree with the public one (a page identical because an
example keeps the page's own text, its `display`, is counted again apart) -> every regenerated Mojo
starter built with Mojo (the judge's build command, two at a time, no warnings allowed).

With --constructs it also counts, over the imported specs, challenge.py equivalent (the import's
own check), challenge.py byte-identical, the cases that carry a seed, an output start (prefill),
descriptors or code inputs; and it checks equivalence again, independently of the import, between
each public challenge.py and the one `chgen generate` wrote: drawn with the judge's seeds, the
example and functional inputs and reference results bit-identical, the performance inputs in
shape and dtype and, where they fit on the CPU, in value (printed, and in the results'
"constructs" and "generated_equivalence").

Writes benchmarks/results/public-set-<date>.json and .md: counts, reasons, challenge names and rule
codes only, never any content of the public set (its licence allows no copies). The load average is
recorded beside every time, since other processes on the machine slow a run down.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.languages.mojo import Mojo  # noqa: E402

CHGEN = [sys.executable, "-m", "generator"]
STARTERS = (
    "starter.cu",
    "starter.cute.py",
    "starter.jax.py",
    "starter.pytorch.py",
    "starter.triton.py",
)
GOALS = {
    "import_and_generate": 93,  # of 98
    "starters_identical_percent": 95.0,  # of public starters passing the starter rules
    "pages_identical_percent": 80.0,  # of public pages passing the HTML rules
    "mojo_builds_percent": 100.0,
    "import_generate_seconds": 120.0,
}


def load() -> float:
    return round(os.getloadavg()[0], 2)


def chgen(args: List[str], cwd: Path, env: Optional[dict] = None) -> Tuple[Dict[str, Any], str]:
    """One chgen process: wall seconds and the load average at its start and end."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    started_load, started = load(), time.perf_counter()
    done = subprocess.run(CHGEN + args, cwd=cwd, env=environment, capture_output=True, text=True)
    timing = {
        "seconds": round(time.perf_counter() - started, 2),
        "load_start": started_load,
        "load_end": load(),
        "exit": done.returncode,
    }
    return timing, done.stdout + done.stderr


def tree_revision(tree: Path) -> Optional[str]:
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


def challenges_root(tree: Path) -> Path:
    return tree / "challenges" if (tree / "challenges").is_dir() else tree


# ------------------------------------------------------------------------------- the phases


def run_import(tree: Path, work: Path, jobs: int, timeout: float) -> Tuple[dict, dict]:
    report = work / "import.json"
    args = ["import", str(tree), "--out", str(work / "specs"), "--report", str(report)]
    timing, output = chgen(args + ["--jobs", str(jobs), "--timeout", str(timeout)], work)
    if not report.is_file():
        raise SystemExit(f"chgen import wrote no report:\n{output[-3000:]}")
    return timing, json.loads(report.read_text())


SPEC_ERROR = re.compile(r"(?:^|[\s/])(\d+_\w+)\.yaml:\d+:\d+: (.*)$", re.MULTILINE)


def run_generate(work: Path) -> Tuple[List[dict], Dict[str, str]]:
    """`chgen generate` of every imported spec; a spec it refuses is set aside with the reason
    and the rest generated again (each run timed)."""
    specs, aside = work / "specs", work / "refused-by-generate"
    aside.mkdir(exist_ok=True)
    runs, refused = [], {}
    for _ in range(5):
        if not any(specs.glob("*.yaml")):
            break
        args = ["generate", "--specs", str(specs), "--out", str(work / "tree")]
        timing, output = chgen(args, work, {"CHGEN_CACHE": str(work / "cache")})
        runs.append(timing)
        if timing["exit"] == 0:
            break
        bad = {name: why for name, why in SPEC_ERROR.findall(output)}
        if not bad:
            raise SystemExit(f"chgen generate failed without naming a spec:\n{output[-3000:]}")
        for name, why in bad.items():
            refused[name] = why
            for path in specs.glob(f"{name}.*"):
                path.rename(aside / path.name)
    return runs, refused


def public_findings(tree: Path) -> Dict[str, List[str]]:
    """Rule codes `chgen check` reports per public file (relative to challenges/)."""
    done = subprocess.run(
        CHGEN + ["check", str(tree), "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    root = challenges_root(tree).resolve()
    found: Dict[str, List[str]] = defaultdict(list)
    for item in json.loads(done.stdout):
        try:
            relative = Path(item["path"]).resolve().relative_to(root)
        except ValueError:
            continue
        found[str(relative)].append(item["code"])
    return found


def mojo_build(source: Path, workdir: Path) -> Tuple[bool, str]:
    """The judge's Mojo build of one starter; a warning fails it as an error does."""
    workdir.mkdir(parents=True, exist_ok=True)
    command, env = Mojo().build_command(source, workdir / "starter.so", None)
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=workdir)
    output = (done.stderr + done.stdout).replace(str(source.parent) + "/", "")
    if done.returncode == 0 and "warning" not in output:
        return True, ""
    lines = [line for line in output.splitlines() if "error" in line or "warning" in line]
    return False, (lines or output.splitlines() or [f"exit {done.returncode}"])[0][:300]


# ------------------------------------------------------------------------------ comparison


def compare(
    tree: Path, work: Path, imported: List[dict], generated: List[str], findings: dict
) -> dict:
    """Starters, pages and challenge.py of every generated challenge against the public ones."""
    public_root, ours = challenges_root(tree), work / "tree" / "challenges"
    starters: Dict[str, Counter] = {s: Counter() for s in STARTERS}
    differing, pages, pages_differing = [], Counter(), []
    equivalent, not_equivalent = 0, []
    for entry in imported:
        if entry["spec"][: -len(".yaml")] not in generated:
            continue
        label = entry["challenge"]
        difficulty = label.split("/")[0]
        public_dir = public_root / label
        our_dir = ours / difficulty / entry["spec"][: -len(".yaml")]
        for starter in STARTERS:
            relative = f"{label}/starter/{starter}"
            flags = sorted({c for c in findings.get(relative, []) if c.startswith("S")})
            same = _same(public_dir / "starter" / starter, our_dir / "starter" / starter)
            starters[starter]["compared"] += 1
            starters[starter]["identical"] += same
            if not flags:
                starters[starter]["public_passes_rules"] += 1
                starters[starter]["identical_where_public_passes"] += same
            if not same:
                differing.append({"challenge": label, "starter": starter, "public_flagged": flags})
        page_flags = [c for c in findings.get(f"{label}/challenge.html", []) if c.startswith("H")]
        page_same = _same(public_dir / "challenge.html", our_dir / "challenge.html")
        written = page_same and _uses_display(work / "specs" / entry["spec"])
        pages["compared"] += 1
        pages["identical"] += page_same
        pages["identical_through_display"] += written
        if not page_flags:
            pages["public_passes_rules"] += 1
            pages["identical_where_public_passes"] += page_same
            pages["identical_through_display_where_public_passes"] += written
            if not page_same:
                pages_differing.append(label)
        if entry["not_equivalent"]:
            not_equivalent.append({"challenge": label, "problems": len(entry["not_equivalent"])})
        else:
            equivalent += 1
    return {
        "starters": {k: dict(v) for k, v in starters.items()},
        "starters_differing": differing,
        "pages": dict(pages),
        "pages_differing_where_public_passes": pages_differing,
        "challenge_py_equivalent": equivalent,
        "challenge_py_not_equivalent": not_equivalent,
    }


def _uses_display(spec: Path) -> bool:
    """Whether an example of the imported spec keeps the page's own text (`display`) instead of
    being written from its values."""
    import yaml

    data = yaml.safe_load(spec.read_text()) if spec.is_file() else {}
    examples = data.get("examples") or [data.get("example") or {}]
    return any("display" in example for example in examples)


def _same(a: Path, b: Path) -> bool:
    return a.is_file() and b.is_file() and a.read_bytes() == b.read_bytes()


def public_totals(tree: Path, findings: dict) -> dict:
    """Over the whole public set: starters and pages that pass chgen check's rules."""
    root = challenges_root(tree)
    directories = [d for d in root.glob("*/*_*") if (d / "challenge.py").is_file()]
    starters = sum(
        not any(
            c.startswith("S") for c in findings.get(f"{d.parent.name}/{d.name}/starter/{s}", [])
        )
        for d in directories
        for s in STARTERS
    )
    pages = sum(
        not any(
            c.startswith("H") for c in findings.get(f"{d.parent.name}/{d.name}/challenge.html", [])
        )
        for d in directories
    )
    return {"challenges": len(directories), "starters_passing_rules": starters,
            "starters": len(directories) * len(STARTERS), "pages_passing_rules": pages}  # fmt: skip


CONSTRUCT_COUNTS = [
    "imported",
    "refused",
    "challenge.py equivalent (the import's check)",
    "challenge.py byte-identical",
    "specs with a spec-wide prefill",
    "cases with seed",
    "cases with prefill",
    "cases with descriptors",
    "cases with code inputs",
    "specs with code inputs",
]


def constructs(report: dict, specs: Path) -> Dict[str, List[str]]:
    """Challenge labels behind each construct count (a label once per case that carries it)."""
    import yaml

    names: Dict[str, List[str]] = {key: [] for key in CONSTRUCT_COUNTS}
    for entry in report["results"]:
        label = entry["challenge"]
        if entry["status"] != "imported":
            names["refused"].append(label)
            continue
        names["imported"].append(label)
        if not entry["not_equivalent"]:
            names["challenge.py equivalent (the import's check)"].append(label)
        if entry["identical"].get("challenge.py"):
            names["challenge.py byte-identical"].append(label)
        path = specs / entry["spec"]
        if not path.is_file():  # set aside by generate
            path = specs.parent / "refused-by-generate" / entry["spec"]
        spec = yaml.safe_load(path.read_text())
        if "prefill" in spec:
            names["specs with a spec-wide prefill"].append(label)
        coded = False
        examples = spec.get("examples") or [spec.get("example") or {}]
        for case in spec["functional"] + [spec["performance"]] + examples:
            for key in ("seed", "prefill", "descriptors"):
                if key in case and case not in examples:
                    names[f"cases with {key}"].append(label)
            if any(
                isinstance(v, dict) and "code" in v for v in (case.get("inputs") or {}).values()
            ):
                names["cases with code inputs"].append(label)
                coded = True
        if coded or any(
            "code" in v for v in ((spec.get("defaults") or {}).get("inputs") or {}).values()
        ):
            names["specs with code inputs"].append(label)
    return names


def generated_equivalence(
    tree: Path, work: Path, imported: List[dict], generated: List[str]
) -> Dict[str, Any]:
    """Each public challenge.py against the one `chgen generate` wrote (its tree, not the
    import's own rendering): generator.importer.equivalence.compare_trees, in a sandboxed child."""
    import yaml

    from generator.importer.equivalence import compare_trees

    pairs, labels = [], []
    for entry in imported:
        stem = entry["spec"][: -len(".yaml")]
        if stem not in generated:
            continue
        difficulty = entry["challenge"].split("/")[0]
        spec = yaml.safe_load((work / "specs" / entry["spec"]).read_text())
        pairs.append(
            {
                "original": str(challenges_root(tree) / entry["challenge"]),
                "generated": str(work / "tree" / "challenges" / difficulty / stem),
                "names": [case["name"] for case in spec["functional"]],
            }
        )
        labels.append(entry["challenge"])
    started = time.perf_counter()
    differing: Dict[str, List[str]] = {}
    values = 0
    for seed in SEEDS:
        found = compare_trees(pairs, seed)
        for label, item in zip(labels, found):
            problems = item.get("problems") or ([item["error"]] if item.get("error") else [])
            if problems:
                differing.setdefault(label, []).extend(f"seed {seed}: {p}" for p in problems)
        values = max(values, sum(1 for item in found if item.get("performance_values")))
    return {
        "compared": len(pairs),
        "seeds": list(SEEDS),
        "equivalent": len(pairs) - len(differing),
        "performance_values_compared": values,
        "differing": [{"challenge": k, "problems": v} for k, v in differing.items()],
        "seconds": round(time.perf_counter() - started, 1),
    }


#: the judge's seeds the generated tree is compared with (example seed, functional seed + 1,
#: performance seed + 2): the import's own and another
SEEDS = (0, 1)


def print_generated_equivalence(found: Dict[str, Any]) -> None:
    print(
        f"{'generated challenge.py equivalent to the public one':<52} "
        f"{found['equivalent']:>4} of {found['compared']} (seeds {found['seeds']}; performance "
        f"values compared in {found['performance_values_compared']}; {found['seconds']} s)"
    )
    for item in found["differing"]:
        print(f"  {item['challenge']}: {'; '.join(str(p) for p in item['problems'][:3])}")


def print_constructs(names: Dict[str, List[str]], challenges: int) -> None:
    print(f"{'challenges':<52} {challenges:>4}")
    for key, labels in names.items():
        print(f"{key:<52} {len(labels):>4}")


# ---------------------------------------------------------------------------------- results


def percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def summary(data: dict) -> List[Tuple[str, str, str, bool]]:
    """(measure, figure, goal, met) rows."""
    total = data["public"]["challenges"]
    generated = data["generated"]
    starters = data["comparison"]["starters"]
    passing = sum(v.get("public_passes_rules", 0) for v in starters.values())
    same = sum(v.get("identical_where_public_passes", 0) for v in starters.values())
    pages = data["comparison"]["pages"]
    page_pass = pages.get("public_passes_rules", 0)
    page_same = pages.get("identical_where_public_passes", 0)
    page_written = pages.get("identical_through_display_where_public_passes", 0)
    mojo = data["mojo"]
    seconds = data["seconds"]["import"] + data["seconds"]["generate"]
    rows = [
        ("imported", f"{data['imported']} of {total}", "", True),
        ("imported and generated", f"{generated} of {total}",
         f">= {GOALS['import_and_generate']}", generated >= GOALS["import_and_generate"]),
        ("non-Mojo starters identical (public passes the starter rules)",
         f"{same} of {passing} ({percent(same, passing)}%)",
         f">= {GOALS['starters_identical_percent']}%",
         percent(same, passing) >= GOALS["starters_identical_percent"]),
        ("pages identical (public page passes the HTML rules)",
         f"{page_same} of {page_pass} ({percent(page_same, page_pass)}%)",
         f">= {GOALS['pages_identical_percent']}%",
         percent(page_same, page_pass) >= GOALS["pages_identical_percent"]),
        ("pages identical through the author's display text (of those above)",
         f"{page_written} of {page_same}; from the values alone {page_same - page_written} of "
         f"{page_pass} ({percent(page_same - page_written, page_pass)}%)", "", True),
        ("challenge.py equivalent",
         f"{data['comparison']['challenge_py_equivalent']} of {generated}", "", True),
        ("Mojo starters built without warnings", f"{mojo['built']} of {mojo['tried']}",
         "100%", mojo["tried"] > 0 and mojo["built"] == mojo["tried"]),
        ("import + generate wall time", f"{seconds:.1f} s (load {data['load']})",
         f"<= {GOALS['import_generate_seconds']:g} s", seconds <= GOALS["import_generate_seconds"]),
    ]  # fmt: skip
    again = data.get("generated_equivalence")
    if again:
        figure = (
            f"{again['equivalent']} of {again['compared']} (performance values in "
            f"{again['performance_values_compared']})"
        )
        measure = "generated challenge.py equivalent to the public one (seeded inputs, references)"
        rows.insert(6, (measure, figure, "all", again["equivalent"] == again["compared"]))
    return rows


def markdown(data: dict, rows) -> str:
    lines = [
        f"# The public set through chgen import and generate ({data['date']})",
        "",
        f"Tree: {data['tree']} at {data['revision'] or 'an unknown revision'}; {data['machine']}; "
        f"{data['jobs']} import worker(s). Counts and reasons only.",
        "",
        "| measure | figure | goal | met |",
        "|---|---|---|---|",
    ]
    lines += [f"| {m} | {f} | {g} | {'yes' if ok else 'no'} |" for m, f, g, ok in rows]
    lines += [
        "",
        "## Times",
        "",
        "| phase | seconds | load at start | load at end |",
        "|---|---:|---:|---:|",
    ]
    for phase in data["timings"]:
        lines.append(
            f"| {phase['phase']} | {phase['seconds']} | {phase['load_start']} | "
            f"{phase['load_end']} |"
        )
    lines += ["", "## Refused, by reason", "", "| reason | count | challenges |", "|---|---:|---|"]
    for group in data["refused_by_reason"]:
        shown = ", ".join(group["challenges"])
        details = f" ({', '.join(group['details'][:6])})" if group.get("details") else ""
        lines.append(f"| {group['reason']}{details} | {group['count']} | {shown} |")
    lines += ["", "## Non-Mojo starters per language (generated challenges)", "",
              "| starter | compared | identical | public passes the rules | identical among "
              "those |",
              "|---|---:|---:|---:|---:|"]  # fmt: skip
    for name, counts in data["comparison"]["starters"].items():
        lines.append(
            f"| {name} | {counts.get('compared', 0)} | {counts.get('identical', 0)} | "
            f"{counts.get('public_passes_rules', 0)} | "
            f"{counts.get('identical_where_public_passes', 0)} |"
        )
    lines += ["", "## Starters that differ", "",
              "| challenge | starter | rules that flag the public starter |",
              "|---|---|---|"]  # fmt: skip
    for item in data["comparison"]["starters_differing"]:
        flags = ", ".join(item["public_flagged"]) or "none (chgen's gap)"
        lines.append(f"| {item['challenge']} | {item['starter']} | {flags} |")
    lines += ["", "## Pages that differ (public page passes the HTML rules)", ""]
    differing_pages = data["comparison"].get("pages_differing_where_public_passes", [])
    lines += [f"- {label}" for label in differing_pages] or ["none"]
    lines += ["", "## Mojo builds that fail", ""]
    failures = data["mojo"]["failures"]
    lines += [f"- {f['challenge']}: `{f['first_error']}`" for f in failures] or ["none"]
    again = data.get("generated_equivalence")
    if again and again["differing"]:
        lines += ["", "## Generated challenge.py not equivalent to the public one", ""]
        lines += [
            f"- {item['challenge']}: {'; '.join(str(p) for p in item['problems'][:3])}"
            for item in again["differing"]
        ]
    if data["comparison"]["challenge_py_not_equivalent"]:
        lines += ["", "## challenge.py not equivalent", ""]
        lines += [
            f"- {item['challenge']}: {item['problems']} difference(s)"
            for item in data["comparison"]["challenge_py_not_equivalent"]
        ]
    return "\n".join(lines) + "\n"


def print_table(rows) -> None:
    width = max(len(r[0]) for r in rows)
    for measure, figure, goal, ok in rows:
        mark = "" if not goal else ("  ok" if ok else "  MISSED")
        print(f"{measure:{width}}  {figure:28}  {goal:10}{mark}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--no-mojo", action="store_true", help="skip the Mojo builds")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--keep", type=Path, help="work in this (empty) folder and keep it")
    parser.add_argument(
        "--constructs",
        action="store_true",
        help="also count equivalence, byte-identical challenge.py and the case constructs used",
    )
    args = parser.parse_args()
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="chgen-public-set-") as tmp:
        work = args.keep.resolve() if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        import_timing, report = run_import(tree, work, args.jobs, args.timeout)
        print(
            f"import: {report['imported']} of {report['challenges']} in "
            f"{import_timing['seconds']} s"
        )
        generate_runs, generate_refused = run_generate(work)
        generated = sorted(p.stem for p in (work / "specs").glob("*.yaml"))
        print(
            f"generate: {len(generated)} spec(s) in "
            f"{sum(r['seconds'] for r in generate_runs):.1f} s"
        )
        findings = public_findings(tree)
        imported = [r for r in report["results"] if r["status"] == "imported"]
        comparison = compare(tree, work, imported, generated, findings)
        mojo = {"tried": 0, "built": 0, "failures": []}
        if not args.no_mojo:
            mojo = build_mojo(work, imported, generated)
        construct_names = constructs(report, work / "specs") if args.constructs else None
        regenerated = (
            generated_equivalence(tree, work, imported, generated) if args.constructs else None
        )
    reasons = list(report["reasons"])
    for name, why in sorted(generate_refused.items()):
        label = next(r["challenge"] for r in imported if r["spec"] == f"{name}.yaml")
        reasons.append({"reason": f"chgen generate refuses the spec: {why[:80]}", "count": 1,
                        "details": [], "challenges": [label]})  # fmt: skip
    timings = [{"phase": "import", **import_timing}] + [
        {"phase": f"generate (run {i + 1})", **run} for i, run in enumerate(generate_runs)
    ]
    data = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "tree": "public LeetGPU set (AlphaGPU/leetgpu-challenges)",
        "revision": tree_revision(tree),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "jobs": args.jobs,
        "public": public_totals(tree, findings),
        "imported": report["imported"],
        "generated": len(generated),
        "seconds": {
            "import": import_timing["seconds"],
            "generate": round(sum(r["seconds"] for r in generate_runs), 2),
        },
        "load": import_timing["load_start"],
        "timings": timings,
        "refused_by_reason": reasons,
        "comparison": comparison,
        "mojo": mojo,
    }
    if construct_names is not None:
        data["constructs"] = {key: len(labels) for key, labels in construct_names.items()}
        data["generated_equivalence"] = regenerated
    rows = summary(data)
    data["summary"] = [{"measure": m, "figure": f, "goal": g, "met": ok} for m, f, g, ok in rows]
    args.results.mkdir(parents=True, exist_ok=True)
    stem = args.results / f"public-set-{data['date']}"
    stem.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n")
    stem.with_suffix(".md").write_text(markdown(data, rows))
    print_table(rows)
    if construct_names is not None:
        print_constructs(construct_names, report["challenges"])
        print_generated_equivalence(regenerated)
    print(f"wrote {stem}.json and .md")


def build_mojo(work: Path, imported: List[dict], generated: List[str]) -> dict:
    """Every regenerated Mojo starter, two builds at a time."""
    jobs = []
    for entry in imported:
        stem = entry["spec"][: -len(".yaml")]
        if stem in generated:
            difficulty = entry["challenge"].split("/")[0]
            source = work / "tree" / "challenges" / difficulty / stem / "starter" / "starter.mojo"
            jobs.append((entry["challenge"], source, work / "mojo" / stem))
    started_load, started = load(), time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: (job[0], *mojo_build(job[1], job[2])), jobs))
    failures = [{"challenge": c, "first_error": e} for c, ok, e in results if not ok]
    return {
        "tried": len(results),
        "built": sum(ok for _, ok, _ in results),
        "failures": failures,
        "seconds": round(time.perf_counter() - started, 1),
        "load_start": started_load,
        "load_end": load(),
    }


if __name__ == "__main__":
    main()
