"""Wall time of `chgen generate` and `chgen generate --check` over ten specs.

Builds a scratch project with ten specs (the repository's specs and golden-record specs, renumbered
to reach ten), then times, as a user would see them (a fresh `chgen` process each time):
a cold generation into an empty tree, a no-op generation, `--check`, and a generation after one spec
was edited. Prints a table and writes benchmarks/results/generate_speed.json.

    python benchmarks/generate_speed.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHGEN = [sys.executable, "-m", "generator"]
NAME_RE = re.compile(r"^(\d+)_([a-z0-9_]+)\.yaml$")


def make_project(target: Path, count: int = 10) -> None:
    specs = target / "specs"
    specs.mkdir(parents=True)
    sources = sorted((ROOT / "specs").glob("*.yaml")) + sorted(
        (ROOT / "tests" / "golden" / "specs").glob("*.yaml")
    )
    for svg in (ROOT / "specs").glob("*.svg"):
        shutil.copy(svg, specs / svg.name)
    next_id = 1000
    made = 0
    while made < count:
        for source in sources:
            if made == count:
                break
            old_id, old_slug = NAME_RE.match(source.name).groups()
            new_slug = f"{old_slug}_{made}"
            text = source.read_text()
            text = re.sub(rf"^id: {old_id}$", f"id: {next_id}", text, flags=re.M)
            text = re.sub(rf"^slug: {old_slug}$", f"slug: {new_slug}", text, flags=re.M)
            (specs / f"{next_id}_{new_slug}.yaml").write_text(text)
            next_id += 1
            made += 1


def timed(args, cwd: Path, expect: int = 0) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    result = subprocess.run(CHGEN + args, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if result.returncode != expect:
        raise SystemExit(f"chgen {' '.join(args)} exited {result.returncode}:\n{result.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    rows = {"cold generate (empty tree)": [], "no-op generate": [], "generate --check": [],
            "generate after editing one spec": []}  # fmt: skip
    for _ in range(options.repeat):
        with tempfile.TemporaryDirectory() as scratch:
            project = Path(scratch)
            make_project(project)
            rows["cold generate (empty tree)"].append(timed(["generate"], project))
            rows["no-op generate"].append(timed(["generate"], project))
            rows["generate --check"].append(timed(["generate", "--check"], project))
            edited = sorted((project / "specs").glob("*.yaml"))[0]
            edited.write_text(
                edited.read_text().replace("access_tier: free", "access_tier: premium")
            )
            rows["generate after editing one spec"].append(timed(["generate"], project))
    result = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        ),
        "specs": 10,
        "median_seconds": {name: round(statistics.median(v), 3) for name, v in rows.items()},
        "all_seconds": {name: [round(t, 3) for t in v] for name, v in rows.items()},
    }
    print(
        f"10 specs, {options.repeat} runs each, a fresh process per command ({result['machine']})"
    )
    for name, value in result["median_seconds"].items():
        print(f"  {name:34} {value:6.2f} s (median)")
    out = ROOT / "benchmarks" / "results" / "generate_speed.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
