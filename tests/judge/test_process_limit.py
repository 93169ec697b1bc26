"""RLIMIT_NPROC counts the tasks of a user, and every solution of a run runs as the same user:
each job's limit must leave room for all the jobs the run holds at once, or the first job fails
as soon as the others grow (seen with fourteen JAX jobs on one GPU: ptxas could not be launched).
Real processes, in the solutions' sandbox as `nobody`, under the limits the judge sets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.isolation.limits import NOBODY, PROCESS_LIMIT, process_limit
from generator.isolation.probe import probe
from generator.isolation.solution import drop_code, python_paths, solution_argv

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or probe(True, "cpu").uid != NOBODY,
    reason="solutions run as nobody only when the judge runs as root",
)

#: a job: take the limit, say so, wait for the others, then start threads and say how many
JOB = r"""
import sys, threading, time
from generator.isolation.limits import limit_this_process
limit_this_process(int(sys.argv[1]), None)
print("limited", flush=True)
sys.stdin.readline()  # go
started, stop = 0, threading.Event()
try:
    for _ in range(int(sys.argv[2])):
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
except RuntimeError:
    pass
print(started, flush=True)
time.sleep(1.0)  # the others start theirs while these still run
stop.set()
"""


def _run_jobs(side_by_side: int, jobs: int, threads: int) -> list:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    sandbox = solution_argv(python_paths(), {}, "cpu")
    started = []
    for _ in range(jobs):  # one after another, as a run starts them: each takes its limit
        limit = process_limit(NOBODY, side_by_side)
        code = drop_code(NOBODY) + "\n" + JOB
        proc = subprocess.Popen(
            [*sandbox, "--", sys.executable, "-c", code, str(limit), str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stdout.readline().strip() == "limited"
        started.append(proc)
    for proc in started:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    counts = [int(p.stdout.readline()) for p in started]
    for p in started:
        p.wait(timeout=30)
    return counts


def test_jobs_side_by_side_each_get_room_for_all():
    threads = PROCESS_LIMIT // 2 + 20  # two jobs together pass one share
    assert _run_jobs(side_by_side=3, jobs=3, threads=threads) == [threads] * 3


def test_one_share_for_several_jobs_starves_the_first():
    """What the shares prevent: with one share, the job started first hits the limit."""
    threads = PROCESS_LIMIT // 2 + 20
    counts = _run_jobs(side_by_side=1, jobs=3, threads=threads)
    assert min(counts) < threads
