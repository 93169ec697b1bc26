"""The judge's handle on the solution's process: start it (sandboxed where possible), ask it to
call the solution, and enforce the limits on the judge's own clock.

Every request waits for its reply with a deadline; meanwhile the resident memory of the whole
tree is watched. A request that overstays its limit, a tree over its memory limit, or a process
that dies, ends in a Stop with the verdict (timeout, memory_limit, crash), after `kill_tree`
removed every process the solution started.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.judge import verdicts as V
from generator.judge.channel import Channel, ChannelClosed
from generator.judge.process import OutputTail, kill_tree, process_limit, tree_usage
from generator.judge.sandbox import SCRATCH, Mode, bwrap_argv, solution_binds, solution_process_env
from generator.sandbox import exit_signal, signal_name

POLL_S = 0.05
#: Seconds between two looks at the tree's resident memory (a scan of /proc).
MEMORY_POLL_S = 0.25


class Stop(Exception):
    """A verdict other than pass ends the job."""

    def __init__(self, verdict: str, message: str, detail: str = "", errors: Optional[Dict] = None):
        super().__init__(message)
        self.verdict, self.message, self.detail = verdict, message, detail
        #: a wrong answer's errors (as OutputReport.errors gives them), for its case's row
        self.errors: Dict[str, Any] = errors or {}


def param_rows(params: List[Any]) -> List[Dict[str, Any]]:
    """The signature as plain JSON: the solution's process never reads challenge.py."""
    import dataclasses

    from generator.challenge import ctypes_table

    return [
        {
            "name": p.name,
            "dtype": dataclasses.asdict(p.dtype),
            "direction": p.direction,
            "is_tensor": p.is_tensor,
            "ctype": ctypes_table.spelling_of(p.ctype) if p.ctype is not None else None,
        }
        for p in params
    ]


def death_message(code: int, sandboxed: bool, who: str, where: str) -> str:
    """How a watched process ended without a verdict: killed by a signal, or exited."""
    signum = exit_signal(code, sandboxed)
    if signum is not None:
        return f"{who} was killed by {signal_name(signum)} during {where}"
    return f"{who} exited with status {code} during {where} without a verdict"


def stop_process(proc: subprocess.Popen) -> None:
    """Kill `proc` and everything below it, and reap it."""
    kill_tree(proc.pid)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


class SolutionProcess:
    def __init__(self, job: Dict[str, Any], params: List[Any], mode: Mode):
        self.job = job
        self.mode = mode
        self.memory_limit = int(job["memory_limit"])
        self.peak_rss = 0
        self.memory_seen = 0.0
        artifact = Path(job["artifact"])
        inside = f"{SCRATCH}/solution/{artifact.name}"
        self.scratch = Path(tempfile.mkdtemp(prefix="chgen-solution-"))
        mine, theirs = socket.socketpair()
        env = solution_process_env(SCRATCH if mode.sandboxed else str(self.scratch))
        binds = solution_binds([p for p in (job.get("mojo_runtime"),) if p])
        if mode.sandboxed:
            argv = bwrap_argv(binds, {inside: str(artifact.resolve())}, job["device"])
            argv += ["--"]
            artifact_path = inside
        else:
            target = self.scratch / "solution" / artifact.name
            target.parent.mkdir()
            shutil.copy(artifact, target)
            artifact_path = str(target)
            argv = []
            if mode.uid is not None:
                for path in [self.scratch, target.parent, target]:
                    os.chown(path, mode.uid, mode.uid)
        argv += [sys.executable, "-m", "generator.judge.solver", str(theirs.fileno())]
        # Sandboxed, bwrap runs as this user and the solver drops to `mode.uid` itself.
        launch_uid = None if mode.sandboxed else mode.uid
        if mode.sandboxed and mode.uid is not None:
            argv.append(str(mode.uid))
        out_r, out_w = os.pipe()
        self.proc = subprocess.Popen(
            argv,
            cwd=str(self.scratch),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=[theirs.fileno()],
            user=launch_uid,
            group=launch_uid,
            extra_groups=[] if launch_uid is not None else None,
        )
        os.close(out_w)
        theirs.close()
        self.output = OutputTail(out_r)
        self.channel = Channel(mine)
        hello = {
            "op": "hello",
            "device": job["device"],
            "language": job["language"],
            "params": param_rows(params),
            "artifact": artifact_path,
            "nproc": process_limit(mode.uid if mode.uid is not None else os.getuid()),
            "memory_limit": self.memory_limit,
            "cpu_threads": job.get("cpu_threads"),
            "baseline": bool(job.get("baseline")),
        }
        self.request(hello, float(job.get("startup_timeout", 300)), "start-up")

    def request(
        self, message: Dict[str, Any], limit: float, where: str, fds: Optional[List[int]] = None
    ) -> Dict[str, Any]:
        """Send one request and wait for its reply; a failure it reports becomes a Stop."""
        started = time.monotonic()
        try:
            self.channel.send(message, fds)
            while True:
                try:
                    reply, _ = self.channel.receive(timeout=POLL_S)
                    break
                except socket.timeout:
                    pass
                self._watch(started, limit, where)
        except ChannelClosed:
            self._died(where)
        if not reply.get("ok"):
            verdict = reply.get("verdict")
            if verdict not in (
                V.WRONG_ANSWER,
                V.BUILD_ERROR,
                V.RUNTIME_ERROR,
                V.JUDGE_ERROR,
                V.MEMORY_LIMIT,
            ):
                verdict = V.RUNTIME_ERROR
            raise Stop(verdict, str(reply.get("message", ""))[:500], str(reply.get("detail", "")))
        return reply

    def _watch(self, started: float, limit: float, where: str) -> None:
        if time.monotonic() - started > limit:
            self.kill()
            raise Stop(
                V.TIMEOUT, f"{where} ran past its {limit:.0f} s limit; the worker was killed"
            )
        if time.monotonic() - self.memory_seen < MEMORY_POLL_S:
            rss = 0
        else:
            self.memory_seen = time.monotonic()
            rss, _ = tree_usage(self.proc.pid)
            self.peak_rss = max(self.peak_rss, rss)
        if rss > self.memory_limit:
            self.kill()
            raise Stop(
                V.MEMORY_LIMIT,
                f"{where}: {rss / 2**20:.0f} MiB resident, over the "
                f"{self.memory_limit / 2**20:.0f} MiB limit; the worker was killed",
            )
        if self.proc.poll() is not None:
            self._died(where)

    def _died(self, where: str) -> None:
        code = self.proc.wait()
        self.kill()
        raise Stop(V.CRASH, death_message(code, self.mode.sandboxed, "worker", where), self.log())

    def log(self) -> str:
        self.output.thread.join(timeout=2)
        return self.output.text()

    def kill(self) -> None:
        stop_process(self.proc)

    def close(self) -> None:
        try:
            self.channel.send({"op": "quit"})
        except ChannelClosed:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        shutil.rmtree(self.scratch, ignore_errors=True)
