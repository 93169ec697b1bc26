"""Adopting chgen in a challenge repository, measured: import and regenerate in place.

    python benchmarks/migration.py CLONE [--languages KEYS] [--perf-mb 256] [--no-hooks]
                                         [--keep DIR]

CLONE is a git checkout of a challenge set in the LeetGPU layout (e.g. the public set). On a copy
of it, as a maintainer would: `chgen import . --out specs`, then `chgen generate --out . --force`
(each timed, with an empty cache). Then, from `git status` and `git diff` of the copy:
- files changed, added and removed, by kind (challenge.py, challenge.html, starter.<language>),
  lines added and removed, directories added and removed;
- files touched outside the challenge directories chgen rendered (the `specs/` folder the import
  was asked to write is not counted; chgen's own `.chgen/` folder is reported apart);
- pages that lose visible text (the words and numbers a reader sees, old against new);
- challenges whose seeded test data differ from the original's: example and functional inputs,
  the reference's outputs on them, the performance case's shapes and dtypes (and its values
  where they fit --perf-mb), drawn by benchmarks/seeded_data.py in the spec-code sandbox, one
  child per tree;
- duplicate ids in the tree afterwards;
- the repository's hooks (black, isort, flake8 with bugbear, clang-format, mojo format, trailing
  whitespace, end of file) on every changed file, at chgen's pins;
- whether `chgen generate --check` and `chgen check` are clean in the copy afterwards.

Writes benchmarks/results/migration-<date>.json and .md: counts, reasons and challenge names only,
never any content of the tree (the public set's licence allows no copies). The load average is
recorded beside the times, since other processes slow a run down.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import describe  # noqa: E402
from generator.challenge.page import lost_words  # noqa: E402
from generator.isolation.bwrap import sandboxed_command  # noqa: E402

CHALLENGE_DIR = re.compile(r"^challenges/(easy|medium|hard)/[^/]+/")
CORE = "challenges/core/"
STATE = ".chgen/"
SPECS = "specs/"


def chgen(*args: str, cwd: Path, env: Dict[str, str]) -> Tuple[float, subprocess.CompletedProcess]:
    command = [str(Path(sys.executable).parent / "chgen"), *args]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - started, done


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def kind_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    if name.startswith("starter."):
        return name
    if name in ("challenge.py", "challenge.html"):
        return name
    return "other"


def status(copy: Path) -> List[Tuple[str, str]]:
    """(code, path) of every change in the copy, untracked files one by one."""
    rows = []
    for line in git("status", "--porcelain=v1", "-uall", cwd=copy).splitlines():
        code, path = line[:2].strip(), line[3:]
        rows.append((code, path.strip('"')))
    return rows


def rendered_dirs(copy: Path) -> List[str]:
    manifest = copy / ".chgen" / "manifest.json"
    if not manifest.is_file():
        return []
    files = json.loads(manifest.read_text()).get("files", {})
    return sorted({m.group(0) for p in files if (m := CHALLENGE_DIR.match(p))})


def directories(tree: Path) -> List[str]:
    found = []
    for difficulty in ("easy", "medium", "hard"):
        folder = tree / "challenges" / difficulty
        if folder.is_dir():
            found += [f"challenges/{difficulty}/{p.name}" for p in sorted(folder.iterdir())]
    return found


def seeded_digests(tree: Path, names: List[str], perf_bytes: int) -> Dict[str, Any]:
    """benchmarks/seeded_data.py over `names` of `tree`, sandboxed."""
    job = {"tree": str(tree), "directories": names, "seed": 0, "perf_bytes": perf_bytes}
    script = ROOT / "benchmarks" / "seeded_data.py"
    command, _ = sandboxed_command([sys.executable, str(script)], [tree, ROOT])
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        command, input=json.dumps(job), capture_output=True, text=True, env=env, timeout=3600
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"seeded_data.py failed on {tree}: {tail[0]}")
    return json.loads(done.stdout)


def data_differences(original: Dict[str, Any], regenerated: Dict[str, Any]) -> Dict[str, str]:
    """Per challenge: the first part of its seeded data that differs (or why it was not read)."""
    differ = {}
    for name, before in original.items():
        after = regenerated.get(name)
        if after is None:
            differ[name] = "missing after the migration"
            continue
        if "error" in before or "error" in after:
            if before.get("error") != after.get("error"):
                differ[name] = f"error: {before.get('error')} -> {after.get('error')}"
            continue
        for part in ("example", "functional", "reference", "performance", "perf_values"):
            if before.get(part) != after.get(part):
                differ[name] = f"{part} differs"
                break
    return differ


def duplicate_ids(tree: Path) -> Dict[int, List[str]]:
    seen: Dict[int, List[str]] = {}
    for name in directories(tree):
        match = re.match(r"(\d+)_", name.rsplit("/", 1)[-1])
        if match:
            seen.setdefault(int(match.group(1)), []).append(name)
    return {k: v for k, v in seen.items() if len(v) > 1}


def hook_failures(copy: Path, paths: List[str]) -> Dict[str, List[str]]:
    """Each changed file that a hook of the repository's kind would change or reject."""
    bin_dir = Path(sys.executable).parent
    failures: Dict[str, List[str]] = {}

    def run(hook: str, command: List[str]) -> None:
        done = subprocess.run(command, cwd=copy, capture_output=True, text=True)
        if done.returncode != 0:
            failures.setdefault(hook, []).append(command[-1])

    for path in paths:
        full = copy / path
        if not full.is_file():
            continue
        text = full.read_bytes()
        if re.search(rb"[ \t]+\n", text):
            failures.setdefault("trailing-whitespace", []).append(path)
        if text and (not text.endswith(b"\n") or text.endswith(b"\n\n")):
            failures.setdefault("end-of-file-fixer", []).append(path)
        if path.endswith(".py"):
            run("black", [str(bin_dir / "black"), "-q", "--check", "-l", "100", path])
            run(
                "isort",
                [str(bin_dir / "isort"), "-q", "--check", "--profile", "black", "-l", "100", path],
            )
            run("flake8", [str(bin_dir / "flake8"), "--max-line-length=100", path])
        elif path.endswith((".cu", ".cpp", ".h")):
            run("clang-format", [str(bin_dir / "clang-format"), "--dry-run", "-Werror", path])
        elif path.endswith(".mojo"):  # the hook rewrites the file: it fails where bytes change
            subprocess.run(
                [str(bin_dir / "mojo"), "format", "-q", path], cwd=copy, capture_output=True
            )
            if full.read_bytes() != text:
                failures.setdefault("mojo format", []).append(path)
                full.write_bytes(text)
    return failures


def measure(clone: Path, work: Path, languages: Optional[str], perf_mb: int, hooks: bool):
    copy = work / "tree"
    shutil.copytree(clone, copy, symlinks=True)
    env = dict(os.environ, CHGEN_CACHE=str(work / "cache"))
    report_path = work / "import-report.json"
    import_seconds, done = chgen(
        "import", ".", "--out", "specs", "--report", str(report_path), cwd=copy, env=env
    )
    summary = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode not in (0, 1):
        raise SystemExit(f"chgen import failed: {(done.stderr.strip().splitlines() or [''])[-1]}")
    args = ["generate", "--out", ".", "--force"] + (["--languages", languages] if languages else [])
    generate_seconds, done = chgen(*args, cwd=copy, env=env)
    generate_error = None
    if done.returncode != 0:
        generate_error = (done.stderr.strip().splitlines() or ["no message"])[-1]
    rows = [(c, p) for c, p in status(copy) if not p.startswith(SPECS)]
    rendered = rendered_dirs(copy)
    by_kind: Dict[str, Counter] = {}
    added_dirs, removed_dirs = set(), set()
    outside, state = [], []
    for code, path in rows:
        kind = {"M": "changed", "??": "added", "A": "added", "D": "removed"}.get(code, code)
        if path.startswith(STATE):
            state.append(path)  # chgen's own folder: reported apart, not counted as a change
            continue
        by_kind.setdefault(kind, Counter())[kind_of(path)] += 1
        if not any(path.startswith(d) for d in rendered):
            outside.append(path)
        parent = str(Path(path).parent)
        if kind == "added" and not (clone / parent).exists() and not path.startswith(STATE):
            added_dirs.add(_top_new(clone, parent))
        if kind == "removed" and not (copy / parent).exists():
            removed_dirs.add(parent)
    numstat = git("diff", "--numstat", cwd=copy).splitlines()
    added_lines = sum(int(line.split()[0]) for line in numstat if line.split()[0].isdigit())
    removed_lines = sum(int(line.split()[1]) for line in numstat if line.split()[1].isdigit())
    pages_lost = {}
    for code, path in rows:
        if code == "M" and path.endswith("challenge.html"):
            lost = lost_words((clone / path).read_text(), (copy / path).read_text())
            if lost:
                pages_lost[path.rsplit("/", 2)[-2]] = len(lost)
    names = [n for n in directories(clone) if (clone / n / "challenge.py").is_file()]
    names = [n for n in names if not n.endswith("/core")]
    started = time.perf_counter()
    before = seeded_digests(clone, names, perf_mb << 20)
    after = seeded_digests(copy, names, perf_mb << 20)
    data_seconds = time.perf_counter() - started
    differ = data_differences(before, after)
    unreadable = sorted(n for n, d in before.items() if "error" in d)
    perf_values = sum(1 for d in before.values() if "perf_values" in d)
    changed_files = [p for c, p in rows if c in ("M", "??", "A") and not p.startswith(STATE)]
    failing = hook_failures(copy, changed_files) if hooks else {}
    check_seconds, checked = chgen("generate", "--check", "--out", ".", cwd=copy, env=env)
    _, static = chgen("check", ".", cwd=copy, env=env)
    _, static_json = chgen("check", ".", "--format", "json", cwd=copy, env=env)
    _, static_before = chgen("check", ".", "--format", "json", cwd=clone, env=env)
    before_parts, after_parts = _findings(static_before.stdout), _findings(static_json.stdout)
    findings_before = set().union(*before_parts.values())
    findings_after = after_parts["counted"]
    tolerated, unmanaged = after_parts["tolerated"], after_parts["unmanaged"]
    return {
        "import": {"seconds": round(import_seconds, 1), "summary": _counts_only(summary)},
        "generate": {"seconds": round(generate_seconds, 1), "error": _counts_only(generate_error)},
        "files": {kind: dict(sorted(c.items())) for kind, c in sorted(by_kind.items())},
        "lines": {"added": added_lines, "removed": removed_lines},
        "directories": {"added": sorted(added_dirs), "removed": sorted(removed_dirs)},
        "outside_rendered_dirs": sorted(outside),
        "chgen_state": sorted(state),
        "pages_losing_text": pages_lost,
        "seeded_data": {
            "challenges": len(names),
            "differ": dict(sorted(differ.items())),
            "not_readable_in_original": unreadable,
            "performance_values_compared": perf_values,
            "seconds": round(data_seconds, 1),
        },
        "duplicate_ids": {str(k): v for k, v in duplicate_ids(copy).items()},
        "hooks": {"checked": len(changed_files) if hooks else 0, "failing": failing},
        "after": {
            "generate_check_clean": checked.returncode == 0,
            "generate_check_seconds": round(check_seconds, 1),
            "check_exit": static.returncode,
            "check_summary": _counts_only((static.stdout.strip().splitlines() or [""])[-1]),
            "check_findings_before": len(findings_before),
            "check_findings_after": len(findings_after),
            "check_new_findings": sorted(findings_after - findings_before),
            "check_findings_gone": len(findings_before - findings_after - tolerated - unmanaged),
            # findings that do not count (chgen check): a spec tolerates them, or no spec owns
            # their challenge; a tolerated one the original did not have is a new finding hidden
            "check_tolerated": len(tolerated),
            "check_tolerated_new": sorted(tolerated - findings_before),
            "check_unmanaged": len(unmanaged),
        },
        "changed_by_challenge": _changed_by_challenge(rows),
        "starters_changed": _starters_by_cause(rows, report_path),
        "unexplained_challenge_py": _unexplained_py(rows, report_path),
    }


def _import_entries(report_path: Path) -> Dict[str, Dict[str, Any]]:
    """The tree import's report (`chgen import --report`), by challenge directory name."""
    if not report_path.is_file():
        return {}
    data = json.loads(report_path.read_text(encoding="utf-8"))
    entries = [e for e in data.get("results", []) if e.get("status") == "imported"]
    return {e["challenge"].rsplit("/", 1)[-1]: e for e in entries}


def _starters_by_cause(rows: List[Tuple[str, str]], report_path: Path) -> Dict[str, List[str]]:
    """Every changed or added starter under the cause the import gave it (the Mojo 1.2 migration,
    the rules the original breaks, ...); one it gave none is listed under `unexplained`."""
    from generator.languages import LANGUAGES

    starter_files = {f"starter/{lang.starter_name}" for lang in LANGUAGES}
    entries = _import_entries(report_path)
    found: Dict[str, List[str]] = {}
    for _, path in rows:
        match = CHALLENGE_DIR.match(path)
        rest = path[match.end() :] if match else ""
        if rest not in starter_files:
            continue
        name = match.group(0).rstrip("/").rsplit("/", 1)[-1]
        status = entries.get(name, {}).get("starters", {}).get(rest)
        explained = status not in (None, "identical", "kept")
        cause = status if explained else "unexplained"
        found.setdefault(cause, []).append(f"{name}/{rest}")
    return {cause: sorted(paths) for cause, paths in sorted(found.items())}


def _unexplained_py(rows: List[Tuple[str, str]], report_path: Path) -> List[str]:
    """Changed challenge.py files whose import gave no account of the change (its causes)."""
    entries = _import_entries(report_path)
    found = []
    for _, path in rows:
        match = CHALLENGE_DIR.match(path)
        if match and path[match.end() :] == "challenge.py":
            name = match.group(0).rstrip("/").rsplit("/", 1)[-1]
            account = entries.get(name, {}).get("challenge_py") or {}
            if not account.get("changes"):
                found.append(name)
    return sorted(found)


def _findings(output: str) -> Dict[str, set]:
    """`chgen check --format json` findings as (challenge, file, rule) names, without positions
    or text, by how they count: counted, tolerated (by a spec), unmanaged (no spec)."""
    found: Dict[str, set] = {"counted": set(), "tolerated": set(), "unmanaged": set()}
    try:
        rows = json.loads(output or "[]")
    except ValueError:
        return found
    for row in rows:
        match = re.match(r"^challenges/\w+/([^/]+)(?:/(\S+))?$", row.get("path", ""))
        if not match:
            continue
        part = "tolerated" if "tolerated_by" in row else "counted"
        part = "unmanaged" if row.get("managed") is False else part
        found[part].add(f"{match.group(1)} {match.group(2) or '.'} {row.get('code')}")
    return found


def _top_new(clone: Path, parent: str) -> str:
    """The outermost directory of `parent` that the original does not have."""
    parts = Path(parent).parts
    for i in range(1, len(parts) + 1):
        if not (clone / Path(*parts[:i])).exists():
            return str(Path(*parts[:i]))
    return parent


def _changed_by_challenge(rows: List[Tuple[str, str]]) -> Dict[str, List[str]]:
    found: Dict[str, List[str]] = {}
    for _, path in rows:
        match = CHALLENGE_DIR.match(path)
        if match:
            name = match.group(0).rstrip("/").rsplit("/", 1)[-1]
            found.setdefault(name, []).append(path[match.end() :])
    return dict(sorted(found.items()))


def _counts_only(line: Optional[str]) -> Optional[str]:
    """A summary line keeps its counts and chgen's words, never a path of the tree."""
    if line is None:
        return None
    return re.sub(r"\S+/\S+", "<path>", line)[:300]


def markdown(result: Dict[str, Any], meta: Dict[str, Any]) -> str:
    seeded = result["seeded_data"]
    lines = [
        f"# Migration: import + in-place generate ({meta['date']})",
        "",
        f"Tree: {meta['tree']} (commit {meta['commit']}); machine: {meta['machine']}; load "
        f"average before {meta['load_before']}, after {meta['load_after']}.",
        f"Command: `python benchmarks/migration.py CLONE{meta['flags']}`.",
        "",
        "| measure | figure |",
        "|---|---|",
        f"| import | {result['import']['seconds']} s ({result['import']['summary']}) |",
        f"| generate in place | {result['generate']['seconds']} s"
        + (f", refused: {result['generate']['error']}" if result["generate"]["error"] else "")
        + " |",
        f"| lines added / removed | {result['lines']['added']} / {result['lines']['removed']} |",
        f"| directories added / removed | {len(result['directories']['added'])} / "
        f"{len(result['directories']['removed'])} |",
        f"| files outside the rendered challenge directories | "
        f"{len(result['outside_rendered_dirs'])} |",
        f"| chgen's own folder (.chgen/) | {', '.join(result['chgen_state']) or 'none'} |",
        f"| pages losing visible text | {len(result['pages_losing_text'])} |",
        f"| challenges whose seeded data differ | {len(seeded['differ'])} of "
        f"{seeded['challenges']} (performance values compared for "
        f"{seeded['performance_values_compared']}) |",
        f"| duplicate ids | {len(result['duplicate_ids'])} |",
        f"| changed files failing a hook | "
        f"{sum(len(v) for v in result['hooks']['failing'].values())} of "
        f"{result['hooks']['checked']} |",
        "| `chgen generate --check` clean afterwards | "
        f"{result['after']['generate_check_clean']} |",
        f"| `chgen check` afterwards | exit {result['after']['check_exit']}: "
        f"{result['after']['check_summary']} |",
        f"| `chgen check` findings before / after / new / gone | "
        f"{result['after']['check_findings_before']} / {result['after']['check_findings_after']} / "
        f"{len(result['after']['check_new_findings'])} / "
        f"{result['after']['check_findings_gone']} |",
        f"| `chgen check` afterwards, not counted: tolerated by a spec (of them not in the "
        f"original) / not managed by chgen | {result['after']['check_tolerated']} "
        f"({len(result['after']['check_tolerated_new'])}) / "
        f"{result['after']['check_unmanaged']} |",
        "",
        "## Files by kind",
        "",
        "| change | kind | files |",
        "|---|---|---:|",
    ]
    for change, kinds in result["files"].items():
        lines += [f"| {change} | {kind} | {count} |" for kind, count in kinds.items()]
    if result["pages_losing_text"]:
        lines += ["", "## Pages losing text (words lost)", ""]
        lines += [f"- {name}: {n}" for name, n in result["pages_losing_text"].items()]
    if seeded["differ"]:
        lines += ["", "## Seeded data that differ", ""]
        lines += [f"- {name}: {why}" for name, why in seeded["differ"].items()]
    if result["hooks"]["failing"]:
        lines += ["", "## Hooks failing", ""]
        for hook, paths in result["hooks"]["failing"].items():
            lines.append(f"- {hook}: {len(paths)}")
    lines += ["", "## Changed starters by cause (from the import's report)", ""]
    lines += ["| cause | starters |", "|---|---:|"]
    lines += [f"| {cause} | {len(paths)} |" for cause, paths in result["starters_changed"].items()]
    lines += ["", f"challenge.py files changed with no account of why: "
              f"{len(result['unexplained_challenge_py'])}"]  # fmt: skip
    lines += [f"- {name}" for name in result["unexplained_challenge_py"]]
    if result["outside_rendered_dirs"]:
        lines += ["", "## Touched outside the rendered directories", ""]
        lines += [f"- {p}" for p in result["outside_rendered_dirs"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("--languages", help="passed to chgen generate --languages")
    parser.add_argument("--perf-mb", type=int, default=256, help="compare perf values up to this")
    parser.add_argument("--no-hooks", action="store_true", help="skip the formatter hooks")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--keep", type=Path, help="work in this (empty) folder and keep it")
    args = parser.parse_args()
    clone = args.clone.resolve()
    if not (clone / "challenges").is_dir():
        raise SystemExit(f"{args.clone} has no challenges/ folder: give a challenge repository")
    load_before = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="chgen-migration-") as tmp:
        work = args.keep.resolve() if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        result = measure(clone, work, args.languages, args.perf_mb, not args.no_hooks)
    now = datetime.now(timezone.utc)
    flags = (f" --languages {args.languages}" if args.languages else "") + (
        " --no-hooks" if args.no_hooks else ""
    )
    meta = {
        "date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "tree": clone.name,
        "commit": git("rev-parse", "--short", "HEAD", cwd=clone).strip(),
        "machine": describe(),
        "load_before": load_before,
        "load_after": round(os.getloadavg()[0], 2),
        "flags": flags,
    }
    args.results.mkdir(parents=True, exist_ok=True)
    stem = args.results / f"migration-{now.strftime('%Y-%m-%d')}"
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, **result}, indent=2) + "\n")
    text = markdown(result, meta)
    stem.with_suffix(".md").write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
