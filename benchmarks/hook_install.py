"""How long another repository's first use of chgen's exported hooks takes to install them.

    python benchmarks/hook_install.py [--repeat 3] [--hook chgen-check ...]

The working tree is committed into a scratch repository; a tiny LeetGPU-layout repository
(tests/hook_repos.py) names it in its .pre-commit-config.yaml. Each figure is
`pre-commit install-hooks` into an empty PRE_COMMIT_HOME (a fresh virtualenv, `pip install .`
plus the hook's extra), once with this machine's pip cache and once with pip's cache off (every
package fetched again from the indexes pip is configured with, which may include a local mirror);
then `pre-commit run --all-files` with the hook installed. The goal is under 60 s on a 2-core
machine. Prints a table and writes
benchmarks/results/hook_install-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import machine  # noqa: E402
from tests import hook_repos  # noqa: E402  (the same scratch repositories the tests use)

GOAL_SECONDS = 60.0
DEFAULT_HOOKS = ["chgen-check", "chgen-check-formatters"]


def pre_commit(args: List[str], repo: Path, home: Path, pip_cache: bool) -> float:
    env: Dict[str, str] = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    if not pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:  # the clean tree passes every hook measured here
        raise SystemExit(f"pre-commit {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return seconds


def measure(hook: str, hooks_repo: Path, rev: str, scratch: Path, pip_cache: bool) -> Dict:
    repo = hook_repos.challenge_set(scratch / "set")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks_repo}\n    rev: {rev}\n    hooks:\n      - id: {hook}\n"
    )
    hook_repos.git(repo, "add", ".pre-commit-config.yaml")
    hook_repos.git(repo, "commit", "-q", "-m", "hooks")
    home = scratch / "home"
    load = os.getloadavg()[0]
    install = pre_commit(["install-hooks"], repo, home, pip_cache)
    run = pre_commit(["run", "--all-files"], repo, home, pip_cache)
    return {"install_s": round(install, 2), "run_s": round(run, 2), "load": round(load, 2)}


def version(module: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True
    )
    first = result.stdout.strip().splitlines()[0] if result.stdout.strip() else "unknown"
    return first.split(" from ")[0]  # pip adds where it lives: a path of this machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hook", action="append", help=f"default: {', '.join(DEFAULT_HOOKS)}")
    options = parser.parse_args()
    hooks = options.hook or DEFAULT_HOOKS
    figures: Dict[str, Dict[str, Dict]] = {}
    with tempfile.TemporaryDirectory(prefix="chgen-hooks-") as temporary:
        scratch = Path(temporary)
        hooks_repo = scratch / "chgen"
        rev = hook_repos.committed_copy(hooks_repo)
        count = 0
        for hook in hooks:
            figures[hook] = {}
            for label, pip_cache in (("pip cache", True), ("pip cache off", False)):
                runs = []
                for _ in range(options.repeat):
                    count += 1
                    runs.append(measure(hook, hooks_repo, rev, scratch / str(count), pip_cache))
                installs = [r["install_s"] for r in runs]
                figures[hook][label] = {
                    "median_install_s": round(statistics.median(installs), 2),
                    "max_install_s": max(installs),
                    "median_run_s": round(statistics.median(r["run_s"] for r in runs), 2),
                    "runs": runs,
                }
    worst = max(f["max_install_s"] for by_mode in figures.values() for f in by_mode.values())
    now = datetime.now(timezone.utc)
    result = {
        "date": now.isoformat(timespec="seconds"),
        "machine": machine.describe(),
        "pre_commit": version("pre_commit"),
        "pip": version("pip"),
        "goal_install_s": GOAL_SECONDS,
        "goal_met": worst < GOAL_SECONDS,
        "hooks": figures,
    }
    print(f"{result['machine']}; {result['pre_commit']}; {options.repeat} fresh installs each")
    for hook, by_mode in figures.items():
        for label, figure in by_mode.items():
            print(
                f"  {hook:24} {label:13} install median {figure['median_install_s']:6.2f} s, "
                f"max {figure['max_install_s']:6.2f} s; run {figure['median_run_s']:5.2f} s"
            )
    print(f"slowest install {worst:.2f} s (goal < {GOAL_SECONDS:.0f} s)")
    out = ROOT / "benchmarks" / "results" / f"hook_install-{now.date().isoformat()}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
