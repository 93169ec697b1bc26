"""Wall time of `chgen check` on a challenge tree and on generated/, and its findings per rule.

    python benchmarks/check_speed.py TREE [--repeat 5] [--deep]

TREE is any folder that holds challenges/, e.g. a clone of the public challenge set. Every timing is
a fresh `chgen check` process, as a user or a pre-commit hook runs it (interpreter start and imports
included); the goal for the static tier is 2 s on the 98-challenge public set on a 2-core machine.
The load average is recorded next to each figure, since other processes on the machine slow a run
down. Then the findings are counted per rule (with --deep, the deep tier's too). Prints a table and
writes benchmarks/results/check_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import machine  # noqa: E402

CHGEN = [sys.executable, "-m", "generator", "check"]
GOAL_SECONDS = 2.0


def timed(args: List[str]) -> Dict[str, float]:
    """One `chgen check` process: wall and CPU seconds, and the load average when it started."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(CHGEN + args, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in (0, 1):
        raise SystemExit(
            f"chgen check {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "load": load}


def summarize(runs: List[Dict[str, float]]) -> Dict[str, float]:
    walls = [r["wall"] for r in runs]
    return {
        "min_wall_s": round(min(walls), 3),
        "median_wall_s": round(statistics.median(walls), 3),
        "median_cpu_s": round(statistics.median(r["cpu"] for r in runs), 3),
        "load_average": round(statistics.median(r["load"] for r in runs), 2),
        "runs_wall_s": [round(w, 3) for w in walls],
    }


def findings(args: List[str]) -> List[dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        CHGEN + args + ["--format", "json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if result.returncode not in (0, 1):
        raise SystemExit(
            f"chgen check {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        )
    return json.loads(result.stdout)


def per_rule(items: List[dict], tree: Path) -> Dict[str, dict]:
    counts = Counter(item["code"] for item in items)
    examples: Dict[str, List[str]] = defaultdict(list)
    prefix = str(tree).rstrip("/") + "/"
    for item in items:
        if len(examples[item["code"]]) < 3:
            path = item["path"][len(prefix) :] if item["path"].startswith(prefix) else item["path"]
            examples[item["code"]].append(
                f"{path}:{item['line']}:{item['col']}: {item['message'][:160]}"
            )
    return {code: {"count": counts[code], "examples": examples[code]} for code in sorted(counts)}


def count_challenges(tree: Path) -> int:
    return sum(
        1
        for group in ("easy", "medium", "hard")
        for path in (tree / "challenges" / group).glob("*")
        if path.is_dir()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="a folder holding challenges/ (the public set)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--deep", action="store_true", help="also time and count the deep tier")
    options = parser.parse_args()
    tree = options.tree.resolve()
    if not (tree / "challenges").is_dir():
        raise SystemExit(f"{options.tree} holds no challenges/ folder")
    generated = ROOT / "generated"
    timings = {
        "static, public tree": summarize([timed([str(tree)]) for _ in range(options.repeat)]),
        "static, generated/": summarize([timed([str(generated)]) for _ in range(options.repeat)]),
        "static + formatters, generated/": summarize(
            [timed(["--formatters", str(generated)]) for _ in range(options.repeat)]
        ),
    }
    static = findings([str(tree)])
    deep_items: List[dict] = []
    if options.deep:
        timings["static + deep, public tree"] = summarize([timed(["--deep", str(tree)])])
        deep_items = findings(["--deep", "--select", "D", str(tree)])
    result = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": machine.describe(),
        "tree": {"name": tree.name, "challenges": count_challenges(tree)},
        "generated_challenges": count_challenges(generated),
        "goal_static_public_s": GOAL_SECONDS,
        "goal_met": timings["static, public tree"]["min_wall_s"] <= GOAL_SECONDS,
        "timings": timings,
        "findings_per_rule": per_rule(static + deep_items, tree),
        "findings_total": len(static) + len(deep_items),
    }
    print(f"{result['machine']}; {options.repeat} fresh processes per figure")
    for name, figures in timings.items():
        low, mid = figures["min_wall_s"], figures["median_wall_s"]
        print(
            f"  {name:34} min {low:5.2f} s, median {mid:5.2f} s wall, "
            f"{figures['median_cpu_s']:5.2f} s CPU (load {figures['load_average']})"
        )
    print(f"findings on {tree.name} ({result['tree']['challenges']} challenges), per rule:")
    for code, entry in result["findings_per_rule"].items():
        print(f"  {code} {entry['count']:5}")
    out = ROOT / "benchmarks" / "results" / "check_speed.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
