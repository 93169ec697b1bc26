"""The judge's handle on the solution's process: start it (sandboxed where possible), ask it to
call the solution, and enforce the limits on the judge's own clock.

Every request waits for its reply with a deadline; meanwhile the resident memory of the whole
tree is watched (generator/isolation/watchdog.py). A request that overstays its limit, a tree
over its memory limit, a process that dies, or one that sends what is no reply (channel.py),
ends in a Stop with the verdict (timeout, memory_limit, crash, runtime_error), after `kill_tree`
removed every process the solution started.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.isolation.channel import Channel, ChannelClosed, Refused
from generator.isolation.limits import process_limit
from generator.isolation.probe import Mode
from generator.isolation.process import OutputTail, exit_signal, signal_name, stop_process
from generator.isolation.solution import (
    SCRATCH,
    solution_argv,
    solution_binds,
    solution_process_env,
)
from generator.isolation.watchdog import EXIT, MEMORY, TIME, Breach, Watchdog
from generator.judge import verdicts as V

#: The verdicts a failure the solution's process reports may carry (any other: runtime_error).
REPORTED = (V.WRONG_ANSWER, V.BUILD_ERROR, V.RUNTIME_ERROR, V.JUDGE_ERROR, V.MEMORY_LIMIT)


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


def refusal_message(where: str, refused: Refused, who: str = "the solution's process") -> str:
    return f"{where}: {who} sent what chgen refuses ({refused}); it was killed"


class SolutionProcess:
    def __init__(self, job: Dict[str, Any], params: List[Any], mode: Mode):
        self.job = job
        self.mode = mode
        self.memory_limit = int(job["memory_limit"])
        artifact = Path(job["artifact"])
        inside = f"{SCRATCH}/solution/{artifact.name}"
        self.scratch = Path(tempfile.mkdtemp(prefix="chgen-solution-"))
        mine, theirs = socket.socketpair()
        env = solution_process_env(SCRATCH if mode.sandboxed else str(self.scratch))
        binds = solution_binds([p for p in (job.get("mojo_runtime"),) if p])
        if mode.sandboxed:
            argv = solution_argv(binds, {inside: str(artifact.resolve())}, job["device"])
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
        self.dog = Watchdog(self.proc, 0.0, memory_bytes=self.memory_limit)
        hello = {
            "op": "hello",
            "device": job["device"],
            "language": job["language"],
            "params": param_rows(params),
            "artifact": artifact_path,
            "nproc": process_limit(
                mode.uid if mode.uid is not None else os.getuid(), job.get("side_by_side", 1)
            ),
            "memory_limit": self.memory_limit,
            "cpu_threads": job.get("cpu_threads"),
            "baseline": bool(job.get("baseline")),
        }
        self.request(hello, float(job.get("startup_timeout", 300)), "start-up")

    def request(
        self, message: Dict[str, Any], limit: float, where: str, fds: Optional[List[int]] = None
    ) -> Dict[str, Any]:
        """Send one request and wait for its reply; a failure it reports becomes a Stop."""
        replies: List[Dict[str, Any]] = []

        def step(timeout: float) -> bool:
            try:
                replies.append(self.channel.receive(timeout=timeout)[0])
            except socket.timeout:
                return False
            return True

        self.dog.restart(limit)
        try:
            self.channel.send(message, fds)
            breach = self.dog.watch(step)
        except Refused as refused:
            self.kill()
            raise Stop(V.RUNTIME_ERROR, refusal_message(where, refused), self.log()) from None
        except ChannelClosed:
            self._died(where)
        if breach is not None:
            self._breached(breach, where)
        reply = replies[0]
        if not reply.get("ok"):
            verdict = reply.get("verdict")
            if verdict not in REPORTED:
                verdict = V.RUNTIME_ERROR
            raise Stop(verdict, str(reply.get("message", ""))[:500], str(reply.get("detail", "")))
        return reply

    def _breached(self, breach: Breach, where: str) -> None:
        if breach.kind == TIME:
            self.kill()
            raise Stop(
                V.TIMEOUT, f"{where} ran past its {breach.limit:.0f} s limit; the worker was killed"
            )
        if breach.kind == MEMORY:
            self.kill()
            raise Stop(
                V.MEMORY_LIMIT,
                f"{where}: {breach.rss / 2**20:.0f} MiB resident, over the "
                f"{self.memory_limit / 2**20:.0f} MiB limit; the worker was killed",
            )
        assert breach.kind == EXIT
        self._died(where)

    def _died(self, where: str) -> None:
        code = self.dog.wait_exit()
        self.kill()
        if code is None:  # its end of the channel closed, yet it runs on: stopped at its limit
            raise Stop(
                V.TIMEOUT,
                f"{where} ran past its {self.dog.seconds:.0f} s limit; " "the worker was killed",
            )
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
