"""The worker's entry point: judges one solution in a process of its own (judge.py).

    python -m generator.judge.worker FD < JOB.json
    python -m generator.judge.worker --pool FD     # a warm worker: jobs one JSON line each

The job (JSON, on stdin) names the challenge folder, the language, the built artifact, the
device and the modes to run (`functional`, `perf`, `mutant`, `oracle`, `derived`, or `compile`
for a CuTe compile-check).
`functional` runs the job's seed, then any `extra_seeds`; with the plan's `accuracy_floor` each
functional case of the job's seed also records the floor's errors against the float64 oracle.
`mutant` runs every functional case of a known mistake, none stopping the job, and records which
cases catch it and by how much. `oracle` loads no solution: it measures the challenge's reference
against the float64 oracle on every functional case. `derived` runs the proofs chgen derives from
the challenge alone (generator/judge/derived_worker.py).

This process never loads the solution (judge.py says how it judges). Its report goes to the
parent over the pipe FD (the solution's process does not hold it), one JSON line per update,
naming the running phase and case and their limit, so the parent can kill a hung worker (a
backstop: this process enforces each limit on its own clock) and a worker that dies still leaves
the cases it finished.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Dict, List, Optional

from generator.judge import verdicts as V
from generator.judge.judge import Judge, _describe, _traceback
from generator.judge.remote import Stop

MAX_DETAIL = 6000


class ResultFile:
    """The worker's report: the whole state, one JSON line per update, on the parent's pipe."""

    def __init__(self, fd: Optional[int] = None, stream: Any = None):
        #: a warm worker's jobs share one stream (generator/judge/pool.py)
        self.stream = stream if stream is not None else os.fdopen(fd, "w", buffering=1)
        self.data: Dict[str, Any] = {
            "done": False,
            "cases": [],
            "skipped": [],
            "seeds": [],
            "perf": None,
        }

    def progress(self, phase: str, limit: float, case: Optional[str] = None) -> None:
        self.data.update({"phase": phase, "case": case, "since": time.time(), "limit": limit})
        self.write()

    def write(self) -> None:
        try:
            self.stream.write(json.dumps(self.data, default=str) + "\n")
            self.stream.flush()
        except OSError:
            pass  # the parent is gone

    def finish(self, verdict: str, message: str = "", detail: str = "") -> None:
        self.data.update(
            {"done": True, "verdict": verdict, "message": message, "detail": detail[-MAX_DETAIL:]}
        )
        self.write()


def prepare_environment(job: Dict[str, Any]) -> None:
    """Site folders and variables that must exist before the toolchains are imported."""
    from generator.languages import BY_KEY

    sys.dont_write_bytecode = True
    BY_KEY[job["language"]].prepare_worker()
    if job.get("mojo_runtime"):
        os.environ["CHGEN_MOJO_RUNTIME"] = job["mojo_runtime"]


def run(job: Dict[str, Any], result: ResultFile, judge_box: List[Any]) -> None:
    result.progress("start-up", float(job.get("startup_timeout", 300)))
    prepare_environment(job)
    try:
        judge = Judge(job, result)
        judge_box.append(judge)
        if "oracle" in job["modes"]:
            if judge.oracle is None:
                raise Stop(V.JUDGE_ERROR, "no oracle was given")
            result.finish(V.PASS, judge.reference_vs_oracle())
            return
        if "derived" in job["modes"]:
            from generator.judge.derived_worker import derived

            verdict, message, detail = derived(judge)
            result.finish(verdict, message, detail)
            return
        result.progress("load", float(job.get("startup_timeout", 300)))
        solution = judge.load()
        modes: List[str] = job["modes"]
        if "compile" in modes:
            judge.compile_only(solution)
            result.finish(V.BUILT, "compiled (not run)")
            return
        if "mutant" in modes:
            verdict, message = judge.mutant(solution)
            result.finish(verdict, message)
            return
        if "functional" in modes:
            judge.functional(solution)
        if "perf" in modes:
            judge.perf(solution)
    except Stop as stop:
        result.finish(stop.verdict, stop.message, stop.detail)
        return
    from generator.judge.cases import passed_text

    skipped = len(result.data["skipped"])
    message = passed_text([case["name"] for case in result.data["cases"]])
    message += f", {skipped} skipped" if skipped else ""
    seeds = len(result.data["seeds"])
    if seeds > 1:
        message += f"; {seeds} seeds passed"
    result.finish(V.PASS, message)


def judge_one(job: Dict[str, Any], result: ResultFile) -> None:
    """One job to its verdict; afterwards nothing of it runs (its processes are killed)."""
    from generator.isolation.process import kill_tree

    judge_box: List[Any] = []
    try:
        run(job, result, judge_box)
    except BaseException as exc:  # noqa: B036 - the judge's own failure, not a verdict
        result.finish(V.JUDGE_ERROR, f"worker: {_describe(exc)}", _traceback(exc))
    for judge in judge_box:
        if judge.solution is not None:
            judge.solution.close()
    kill_tree(os.getpid(), include_root=False)


def serve_pool(fd: int) -> None:
    """A warm worker (generator/judge/pool.py): jobs on stdin, one JSON line each, until its end."""
    from generator.isolation.process import harden_worker

    stream = os.fdopen(fd, "w", buffering=1)
    hardened = False
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        job = json.loads(line)
        if not hardened:
            sandboxed = (job.get("sandbox") or {}).get("kind") == "bwrap"
            harden_worker(str(job.get("device", "cpu")), sandboxed)
            hardened = True
        judge_one(job, ResultFile(stream=stream))


def main(argv: Optional[List[str]] = None) -> int:
    from generator.isolation.process import harden_worker

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "--pool":
        serve_pool(int(argv[1]))
    elif len(argv) != 1:
        print("usage: python -m generator.judge.worker [--pool] FD < JOB.json", file=sys.stderr)
        return 2
    else:
        job = json.loads(sys.stdin.read())
        sandboxed = (job.get("sandbox") or {}).get("kind") == "bwrap"
        harden_worker(str(job.get("device", "cpu")), sandboxed)
        judge_one(job, ResultFile(int(argv[0])))
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: a broken CUDA context must not turn a finished verdict into a
    # crash.
    os._exit(0)


if __name__ == "__main__":
    main()
