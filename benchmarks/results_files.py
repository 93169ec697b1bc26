"""Results files from a GPU judge run, one pair per challenge, for benchmarks/results/.

    python benchmarks/results_files.py gpu-judge-out/judge.json --out benchmarks/results

`judge.json` is what `benchmarks/gpu_judge.py run` (or `chgen test --perf --json`) wrote. For each
challenge with solutions or baselines it writes `<id>_<slug>-<tag>.json` with exactly

    {"gpu", "date", "driver", "versions", "copy_gbps",
     "results": [{"name", "language", "variant", "median_ms", "gbps", "pct_copy_bw",
                  "speedup"}],
     "strongest_baseline": {"name", "median_ms", "easier"} or null,
     "crosscheck": {"name", "judge_ms", "do_bench_ms", "ratio", ...} or null,
     "baseline_crosscheck": [{"name", "job", "outputs_ok", "judge_ms", "do_bench_ms", ...}],
     "dispatch_floor": {"add_ms", "add_jax_loop_ms", "add_dlpack_loop_ms", "add_harness_ms",
                        "pallas_identity_ms", ...} or null,
     "profile": [{"name", "stream_ordered", "judge_ms", "kernel_ms", "overhead_ms", ...}]}

(variant: naive | optimized | baseline; untimed entries have null timings). The strongest baseline
is the fastest timed one; `easier` marks a baseline handed part of the answer (a name with
"precomputed", e.g. rstd given), which the files label as an easier problem. `speedup` is the
strongest baseline's median over the entry's. `crosscheck` is the judge's time of one solution
beside triton.testing.do_bench's, `baseline_crosscheck` the same for the strongest baselines, each
in its library's own calling form with its outputs checked outside the clock, and
`dispatch_floor` what a trivial jitted JAX call costs timed as the judge times a JAX solution
(benchmarks/harness_check.py measures them, gpu_judge.py records them in judge.json's meta);
`profile` says, per solution profiled there, whether its work is ordered with the caller's
stream, its kernels' time and what launching and waiting add. A Markdown rendering next
to it also carries the run's spec-level proofs (mutants, oracle, accuracy floor) and the seeds
every solution passed, when the run has them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.judge import verdicts as V  # noqa: E402
from generator.judge.proofs import markdown_proofs  # noqa: E402
from generator.languages import BY_KEY  # noqa: E402
from generator.languages import packages as language_packages  # noqa: E402

VARIANTS = ("naive", "optimized")
#: The judge and do_bench agree when their medians' ratio is within this of 1.
AGREEMENT = 0.05
#: A baseline whose name says it was given a precomputed intermediate solves an easier problem.
EASIER_MARK = "precomputed"
#: Package versions worth recording, in the order the files list them: the judge's own, then every
#: language's distributions (from the adapters), then the baselines' libraries.
VERSION_KEYS = tuple(
    dict.fromkeys(["python", "torch", "jaxlib", *language_packages(), "liger-kernel", "numpy"])
)


def tag_for(gpu: Optional[str]) -> str:
    """`h200` for an NVIDIA H200, a slug of the name otherwise."""
    if not gpu:
        return "cpu"
    match = re.search(r"\b([A-Z]+\d+[A-Za-z]*)\b", gpu)
    if match:
        return match.group(1).lower()
    return re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")


def _variant(row: Dict[str, Any]) -> Optional[str]:
    if row["kind"] == "baseline":
        return "baseline"
    if row["kind"] == "solution" and row["name"] in VARIANTS:
        return row["name"]
    return None


def _entry(row: Dict[str, Any]) -> Dict[str, Any]:
    perf = row.get("perf") or {}
    variant = _variant(row)
    language = BY_KEY.get(row["language"])
    title = language.title if language else row["language"]
    return {
        "name": row["name"] if variant == "baseline" else f"{title} {variant}",
        "language": row["language"],
        "variant": variant,
        "median_ms": perf.get("median_ms"),
        "gbps": perf.get("gbps"),
        "pct_copy_bw": perf.get("pct_of_copy"),
    }


def strongest_baseline(entries: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The fastest timed baseline (None without one); `easier` when it was given part of the
    answer."""
    timed = [e for e in entries if e["variant"] == "baseline" and e["median_ms"]]
    if not timed:
        return None
    best = min(timed, key=lambda e: e["median_ms"])
    easier = EASIER_MARK in best["name"]
    return {"name": best["name"], "median_ms": best["median_ms"], "easier": easier}


def versions(report: Dict[str, Any]) -> Dict[str, str]:
    meta = report.get("meta", {})
    machine = meta.get("machine", {})
    packages = machine.get("packages", {})
    found = {key: packages[key] for key in VERSION_KEYS if packages.get(key)}
    runtime = next(
        ((r.get("env") or {}).get("cuda_runtime") for r in report.get("rows", []) if r.get("env")),
        None,
    )
    extra = {
        "cuda_runtime": runtime,
        "nvcc": machine.get("nvcc"),
        "mojo (build)": meta.get("mojo_build"),
    }
    found.update({key: value for key, value in extra.items() if value})
    return found


def results_for(report: Dict[str, Any], challenge: str) -> Dict[str, Any]:
    """The results file of one challenge (exactly the documented schema)."""
    meta = report.get("meta", {})
    machine = meta.get("machine", {})
    rows = [r for r in report.get("rows", []) if r["challenge"] == challenge and _variant(r)]
    entries = [_entry(r) for r in rows]
    strongest = strongest_baseline(entries)
    for entry in entries:
        timed = strongest and entry["median_ms"]
        entry["speedup"] = strongest["median_ms"] / entry["median_ms"] if timed else None
    return {
        "gpu": machine.get("gpu"),
        "date": meta.get("date"),
        "driver": machine.get("driver"),
        "versions": versions(report),
        "copy_gbps": meta.get("copy_gbps"),
        "isolation": meta.get("isolation"),
        "results": entries,
        "strongest_baseline": strongest,
        "crosscheck": (meta.get("crosscheck") or {}).get(challenge),
        "baseline_crosscheck": [
            entry
            for job, entry in sorted((meta.get("baseline_crosscheck") or {}).items())
            if job.split("/")[0] == challenge
        ],
        "dispatch_floor": meta.get("dispatch_floor"),
        "profile": [
            entry
            for job, entry in sorted((meta.get("profile") or {}).items())
            if job.split("/")[0] == challenge
        ],
    }


def _num(value: Optional[float], spec: str) -> str:
    return "—" if value is None else format(value, spec)


def isolation_line(isolation: Dict[str, Any]) -> str:
    """The sandbox and the limits of the run, in one line."""
    parts = [str(isolation.get("sandbox") or "sandbox unknown")]
    if isolation.get("memory_limit_bytes"):
        parts.append(f"memory {isolation['memory_limit_bytes'] / 2**30:.0f} GiB")
    if isolation.get("process_limit"):
        parts.append(f"{isolation['process_limit']} processes")
    if isolation.get("file_size_limit_bytes"):
        parts.append(f"files up to {isolation['file_size_limit_bytes'] / 2**20:.0f} MiB")
    return "; ".join(parts)


def crosscheck_line(check: Dict[str, Any]) -> str:
    """One solution's judge time beside triton.testing.do_bench's, or why it was not measured."""
    name = check.get("name") or check.get("job") or "?"
    if check.get("judge_ms") is None or check.get("do_bench_ms") is None:
        return f"Harness cross-check ({name}): not measured ({check.get('error', 'no figures')})"
    text = (
        f"Harness cross-check ({name}): judge {check['judge_ms']:.4f} ms, "
        f"triton.testing.do_bench {check['do_bench_ms']:.4f} ms (ratio {check['ratio']:.3f})"
    )
    if "agree" in check:
        text += f", {'within' if check['agree'] else 'NOT within'} {AGREEMENT:.0%}"
    if check.get("flush"):
        own = _ms(check, "do_bench_own_flush_ms")
        text += f"; do_bench's L2 flush: {check['flush']} (with its own: {own})"
    if check.get("judge_run_ms") is not None:
        run_ratio = check["judge_run_ms"] / check["do_bench_ms"]
        text += f"; the judge run's median {check['judge_run_ms']:.4f} ms (ratio {run_ratio:.3f})"
    return text + _measured_in(check)


def baseline_crosscheck_line(check: Dict[str, Any]) -> str:
    """A baseline in its own calling form: its outputs against the reference, the judge's time
    of it beside do_bench's, or why it was not measured."""
    name = check.get("name") or check.get("job") or "?"
    if check.get("judge_ms") is None or check.get("do_bench_ms") is None:
        return f"Baseline cross-check ({name}): not measured ({check.get('error', 'no figures')})"
    outputs = (
        "outputs match the reference"
        if check.get("outputs_ok")
        else (f"outputs DIFFER from the reference ({check.get('outputs', '')})")
    )
    text = (
        f"Baseline cross-check ({name}, in its own calling form): {outputs}; judge "
        f"{check['judge_ms']:.4f} ms, triton.testing.do_bench {check['do_bench_ms']:.4f} ms "
        f"(ratio {check['ratio']:.3f}, {'within' if check.get('agree') else 'NOT within'} "
        f"{AGREEMENT:.0%})"
    )
    if check.get("judge_run_ms") is not None:
        text += f"; the judge run's median {check['judge_run_ms']:.4f} ms"
    return text + _measured_in(check)


def _measured_in(figures: Dict[str, Any]) -> str:
    """Figures carried over from another run of the same day say which run made them."""
    return f" (measured in {figures['measured_in']})" if figures.get("measured_in") else ""


#: How the JAX adapter bound a call's buffers (generator/toolchain/bindings.py), in words.
_EXCHANGES = {
    "bound": "imported once (on a GPU, JAX's stream made to wait at each call)",
    "per_call": "imported and exported at each call",
}


def dispatch_floor_line(floor: Dict[str, Any]) -> str:
    """What a trivial jitted JAX call costs: (a) JAX alone in a tight loop, (b) the same loop on
    DLPack-imported torch buffers, (c) timed as the judge times a JAX solution."""
    shape = "x".join(str(n) for n in floor.get("shape") or [])
    parts = []
    for key, label in (("add", "jitted x + 0"), ("pallas_identity", "pallas_call identity")):
        error = floor.get(f"{key}_error") or floor.get("error")
        if floor.get(f"{key}_ms") is None:
            parts.append(f"{label} not measured ({error})")
            continue
        order = floor.get(f"{key}_stream_ordered")
        how = {True: " (ordered with the stream)", False: " (isolated)"}.get(order, "")
        figures = [f"(c) as the judge times it{how} {_ms(floor, key + '_ms')}"]
        if floor.get(f"{key}_jax_loop_ms") is not None:
            figures.insert(0, f"(a) JAX alone {_ms(floor, key + '_jax_loop_ms')}")
        if floor.get(f"{key}_dlpack_loop_ms") is not None:
            figures.insert(1, f"(b) on DLPack-imported torch buffers "
                              f"{_ms(floor, key + '_dlpack_loop_ms')}")  # fmt: skip
        if floor.get(f"{key}_harness_ms") is not None:
            figures.append(f"the judge's part (c - a) {_ms(floor, key + '_harness_ms')}")
        if floor.get(f"{key}_isolated_ms") is not None:
            figures.append(f"isolated as before {_ms(floor, key + '_isolated_ms')}")
        if floor.get(f"{key}_host_call_ms") is not None:
            exchange = floor.get(f"{key}_exchange") or "?"
            figures.append(f"one call {_ms(floor, key + '_host_call_ms')} on the host "
                           f"(buffers {_EXCHANGES.get(exchange, exchange)})")  # fmt: skip
        if floor.get(f"{key}_per_call_ms") is not None:
            figures.append(
                f"with the per-call exchange (b) {_ms(floor, key + '_per_call_dlpack_loop_ms')}, "
                f"(c) {_ms(floor, key + '_per_call_ms')}, one call "
                f"{_ms(floor, key + '_per_call_host_call_ms')} on the host"
            )
        parts.append(f"{label}: " + ", ".join(figures))
    where = f" ({shape} float32)" if shape else ""
    return (
        f"JAX dispatch floor{where}: {'; '.join(parts)}; (a) is JAX's own cost of a call, its "
        "dispatch included (block_until_ready in a tight loop); (c) is what every JAX median "
        "carries besides its work" + _measured_in(floor)
    )


def profile_line(entry: Dict[str, Any]) -> str:
    """One profiled solution: stream order, judge median, kernel time, the rest."""
    name = entry.get("name") or entry.get("job", "?")
    if "error" in entry:
        return f"Profile of {name}: not measured ({entry['error']})"
    order = "ordered with the caller's stream" if entry["stream_ordered"] else "not seen ordered"
    isolated = "isolated" if entry["isolated_by_judge"] else "not isolated"
    line = (
        f"Profile of {name}: {order} ({isolated}); judge {_ms(entry, 'judge_ms')}, kernels "
        f"{_ms(entry, 'kernel_ms')} per solve, the rest {_ms(entry, 'overhead_ms')}; one call "
        f"takes {_ms(entry, 'host_call_ms')} on the host"
    )
    if entry.get("isolated_ms") is not None:
        line += f"; isolated as before it would time {_ms(entry, 'isolated_ms')}"
    if entry.get("exchange"):
        line += f"; buffers {_EXCHANGES.get(entry['exchange'], entry['exchange'])}"
    if entry.get("per_call_judge_ms") is not None:
        line += (
            f"; with the per-call exchange: judge {_ms(entry, 'per_call_judge_ms')}, one call "
            f"{_ms(entry, 'per_call_host_call_ms')} on the host"
        )
    return line


def _profile_table(entries: List[Dict[str, Any]]) -> List[str]:
    lines = ["", "## Where the time goes", ""]
    lines += ["Profiled in the same run (benchmarks/harness_check.py profile; kernels from "
              "torch.profiler's CUDA activity trace).", ""]  # fmt: skip
    header = ["Solution", "Judge isolates it", "Judge ms", "Kernels ms", "Rest ms", "Host call ms"]
    lines.append("| " + " | ".join(header + ["Kernels"]) + " |")
    lines.append("|---|---|---:|---:|---:|---:|---|")
    for entry in entries:
        if "error" in entry:
            lines.append(
                f"| {entry.get('name') or entry['job']} | not measured: {entry['error']} |"
            )
            continue
        kernels = "; ".join(
            f"{k['name'][:60]} {k['us_per_solve']:.1f} us" for k in entry.get("kernels", [])[:4]
        )
        lines.append(
            f"| {entry['name']} | {'yes' if entry['isolated_by_judge'] else 'no'} | "
            f"{_num(entry.get('judge_ms'), '.4f')} | {_num(entry.get('kernel_ms'), '.4f')} | "
            f"{_num(entry.get('overhead_ms'), '.4f')} | {_num(entry.get('host_call_ms'), '.4f')} | "
            f"{kernels} |"
        )
    return lines


def _ms(data: Dict[str, Any], key: str) -> str:
    return "—" if data.get(key) is None else f"{data[key]:.4f} ms"


def markdown_for(report: Dict[str, Any], challenge: str, data: Dict[str, Any]) -> str:
    lines = [f"# {challenge} on {data['gpu'] or 'no GPU'}", ""]
    lines += [
        f"- Date: {data['date']}",
        f"- Driver: {data['driver']}",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()),
    ]
    isolation = data.get("isolation") or {}
    if isolation:
        lines.append(f"- Solutions ran: {isolation_line(isolation)}")
    if report.get("meta", {}).get("timed_only"):
        lines.append(
            "- Timed only (`gpu_judge.py run --timed-only`): no functional cases ran; each "
            "timed job's performance case and a secret share of its timed calls were checked"
        )
    if data["copy_gbps"]:
        lines.append(f"- Device copy bandwidth: {data['copy_gbps']:.0f} GB/s (read + write)")
    rows = [r for r in report.get("rows", []) if r["challenge"] == challenge]
    solutions = [r for r in rows if r["kind"] == "solution"]
    seeds = report.get("meta", {}).get("seeds") or []
    if len(seeds) > 1 and solutions:
        clean = sum(
            1
            for r in solutions
            if [s["seed"] for s in r.get("seeds", [])] == seeds
            and all(s["verdict"] == V.PASS for s in r["seeds"])
        )
        lines.append(
            f"- Correctness: {clean} of {len(solutions)} solutions passed every case for each of "
            f"seeds {', '.join(str(s) for s in seeds)}"
        )
    strongest = data["strongest_baseline"]
    if strongest:
        label = (
            " (given a precomputed intermediate: an easier problem)" if strongest["easier"] else ""
        )
        lines.append(
            f"- Strongest baseline: {strongest['name']}, {strongest['median_ms']:.4f} ms{label}; "
            "speedups are against it"
        )
    if data["crosscheck"]:
        lines.append("- " + crosscheck_line(data["crosscheck"]))
    lines += ["- " + baseline_crosscheck_line(entry) for entry in data["baseline_crosscheck"]]
    if data["dispatch_floor"]:
        lines.append("- " + dispatch_floor_line(data["dispatch_floor"]))
    lines += ["", "| Name | Language | Variant | Median ms | GB/s | % of copy | Speedup |"]
    lines.append("|---|---|---|---:|---:|---:|---:|")
    for entry in data["results"]:
        lines.append(
            f"| {entry['name']} | {entry['language']} | {entry['variant']} | "
            f"{_num(entry['median_ms'], '.4f')} | {_num(entry['gbps'], '.0f')} | "
            f"{_num(entry['pct_copy_bw'], '.1f')} | {_num(entry['speedup'], '.2f')} |"
        )
    if data.get("profile"):
        lines += _profile_table(data["profile"])
    problems = [r for r in rows if not r["ok"]]
    if problems:
        lines += ["", "Not as expected:", ""]
        lines += [f"- `{r['id']}` ({r['verdict']}): {r['message']}" for r in problems]
    proofs = (report.get("proofs") or {}).get(challenge)
    if proofs:
        lines += ["", "## Spec-level proofs", ""] + markdown_proofs(challenge, proofs)
    return "\n".join(lines).rstrip("\n") + "\n"


def write_results(report: Dict[str, Any], out: Path, tag: Optional[str] = None) -> List[Path]:
    """One JSON and one Markdown file per challenge that has solutions or baselines."""
    tag = tag or tag_for((report.get("meta", {}).get("machine") or {}).get("gpu"))
    challenges = []
    for row in report.get("rows", []):
        if _variant(row) and row["challenge"] not in challenges:
            challenges.append(row["challenge"])
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for challenge in challenges:
        data = results_for(report, challenge)
        path = out / f"{challenge}-{tag}.json"
        path.write_text(json.dumps(data, indent=1) + "\n")
        markdown = path.with_suffix(".md")
        markdown.write_text(markdown_for(report, challenge, data))
        written += [path, markdown]
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="judge.json of a GPU run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--tag", help="file name suffix (default: from the GPU, e.g. h200)")
    args = parser.parse_args()
    report = json.loads(args.report.read_text())
    for path in write_results(report, args.out, args.tag):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
