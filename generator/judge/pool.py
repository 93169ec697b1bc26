"""Warm workers: each imports torch and the judge once, then runs jobs one after another.

Starting a worker (a Python process importing torch, and on a GPU creating its CUDA context)
costs more than most jobs of `chgen test` do. Inside `serving()`, `runner.run_worker` hands each
job to an idle worker of the same kind (language, device and environment), or starts one:

    python -m generator.judge.worker --pool FD     # jobs on stdin, one JSON line each

The protocol per job is the one-shot worker's: the job goes in, updates come back on FD, one
JSON line each, the last one `done`; the parent watches the phases on its own clock as before. A
worker whose job timed out, crashed it, or ended in a judge error or a GPU error is killed, never
given another job; so is every idle worker when `serving()` ends. Solutions still run each in a
solution process of their own, started for the job (and sandboxed): only the worker is reused.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from generator.isolation.process import kill_tree

_ACTIVE: Optional["WorkerPool"] = None


@dataclass
class PooledWorker:
    proc: subprocess.Popen
    read_fd: int
    log: Path
    key: str
    jobs: int = 0

    def send(self, payload: Dict[str, Any]) -> None:
        self.proc.stdin.write((json.dumps(payload) + "\n").encode())
        self.proc.stdin.flush()
        self.jobs += 1

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        try:
            os.close(self.read_fd)
        except OSError:
            pass
        kill_tree(self.proc.pid)
        self.proc.wait()


class WorkerPool:
    def __init__(self) -> None:
        self.idle: Dict[str, List[PooledWorker]] = {}
        self.lock = threading.Lock()
        self.folder = Path(tempfile.mkdtemp(prefix="chgen-pool-"))
        self.started = 0

    def take(self, env: Dict[str, str], language: str) -> PooledWorker:
        """An idle worker started with this environment for this language, or a new one."""
        key = json.dumps([language, sorted(env.items())])
        with self.lock:
            while self.idle.get(key):
                worker = self.idle[key].pop()
                if worker.alive():
                    return worker
                worker.kill()
            self.started += 1
            number = self.started
        log = self.folder / f"worker-{number}.log"
        read_fd, write_fd = os.pipe()
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "generator.judge.worker", "--pool", str(write_fd)],
                cwd=str(self.folder),
                env=env,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=out,
                pass_fds=[write_fd],
                start_new_session=True,
            )
        os.close(write_fd)
        return PooledWorker(proc, read_fd, log, key)

    def give_back(self, worker: PooledWorker) -> None:
        with self.lock:
            self.idle.setdefault(worker.key, []).append(worker)

    def close(self) -> None:
        with self.lock:
            workers = [w for group in self.idle.values() for w in group]
            self.idle = {}
        for worker in workers:
            try:
                worker.proc.stdin.close()  # the worker ends at the end of its input
            except OSError:
                pass
            worker.kill()


def active() -> Optional[WorkerPool]:
    return _ACTIVE


@contextlib.contextmanager
def serving(enabled: bool = True) -> Iterator[Optional[WorkerPool]]:
    """Within the block, jobs run on warm workers (when `enabled`)."""
    global _ACTIVE
    if not enabled:
        yield None
        return
    pool = WorkerPool()
    _ACTIVE = pool
    try:
        yield pool
    finally:
        _ACTIVE = None
        pool.close()


def reusable(state: Dict[str, Any]) -> bool:
    """A worker whose job ended with a verdict of the solution's, and no GPU error, may run the
    next one; after a judge error or a GPU error its own state is not trusted."""
    if not state.get("done"):
        return False
    message = f"{state.get('message', '')} {state.get('detail', '')}"
    return state.get("verdict") != "judge_error" and "GPU error" not in message
