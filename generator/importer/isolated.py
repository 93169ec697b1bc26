"""Imports run in worker processes, never in chgen's own: challenge.py is code from elsewhere.

A pool of long-lived workers (fresh interpreters that take pickled jobs on stdin and answer on
stdout) imports torch and chgen's importer once and then takes one challenge directory at a time;
the parent holds no torch and runs none of the challenge's code. Each challenge has a time limit:
a worker past it is killed and replaced, and the challenge is refused with that reason, as it is
when its worker dies (a challenge that calls os._exit or crashes the interpreter). Whatever a
challenge raises comes back as its refusal, never as a traceback. Results come back in the order
the directories were given. The workers run in the spec-code sandbox (generator/sandbox.py: the
limits of spec code on memory, file size and core files, bubblewrap where it works: the filesystem
read-only, a private /tmp, no network); what challenge.py prints goes nowhere.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import generator
from generator import sandbox
from generator.importer.report import reason_of

#: default seconds one challenge may take in its worker (import, trace, render, compare)
DEFAULT_TIMEOUT = 120.0
#: seconds a fresh worker may take to import torch and chgen before the pool gives up
STARTUP_TIMEOUT = 300.0


@dataclass
class Outcome:
    """One challenge directory's import: a result, or the refusal with its grouped reason."""

    directory: Path
    seconds: float
    result: Any = None  # ImportResult when imported
    message: Optional[str] = None  # the refusal, when not
    reason: Optional[str] = None
    detail: Optional[str] = None

    @property
    def imported(self) -> bool:
        return self.result is not None


class PoolError(Exception):
    """The workers themselves could not start (a broken install, not a challenge's fault)."""


def refused(directory: Path, seconds: float, message: str) -> Outcome:
    reason, detail = reason_of(message)
    return Outcome(directory, seconds, None, message, reason, detail)


# ------------------------------------------------------------------------------- the worker


def _protocol_and_quiet() -> Tuple[Connection, Connection]:
    """The pipes to the pool, moved off fds 0 and 1; then the challenge's prints and torch's
    warnings go nowhere instead of into the middle of chgen's output."""
    reader = Connection(os.dup(0), writable=False)
    writer = Connection(os.dup(1), readable=False)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    return reader, writer


def _import_one(directory: str, seed: int, inline_svg: bool) -> tuple:
    from generator.formatting import FormatError
    from generator.importer.build import import_challenge
    from generator.importer.report import ImportFailure

    try:
        return ("imported", import_challenge(Path(directory), seed=seed, inline_svg=inline_svg))
    except ImportFailure as exc:
        return ("refused", str(exc))
    except FormatError as exc:
        return ("refused", f"chgen import failed: FormatError: {exc}")
    except Exception as exc:  # chgen's own gap on this challenge: its refusal, with the place
        where = traceback.extract_tb(exc.__traceback__)[-1]
        place = f"{Path(where.filename).name}:{where.lineno}"
        return ("refused", f"chgen import failed: {type(exc).__name__} at {place}: {exc}")


def _fresh_torch_state(torch: Any) -> None:
    """What one challenge may have changed in the worker's torch, put back for the next."""
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def serve() -> None:
    """A worker's main loop (`python -c "...; serve()"`): one job after another until told to
    stop or its pipe closes."""
    conn_in, conn = _protocol_and_quiet()
    try:
        import torch

        torch.set_num_threads(1)  # the pool is the parallelism; threads would oversubscribe
        import generator.importer.build  # noqa: F401  (what every import needs, once)
    except Exception as exc:
        conn.send(("broken", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    while True:
        try:
            job = conn_in.recv()
        except EOFError:
            return
        if job is None:
            return
        index, directory, seed, inline_svg = job
        try:
            answer = _import_one(directory, seed, inline_svg)
        except BaseException as exc:  # noqa: B036  SystemExit raised by the challenge's code
            answer = ("refused", f"the import process stopped: {type(exc).__name__}: {exc}")
        _fresh_torch_state(torch)
        try:
            conn.send((index, *answer))
        except Exception as exc:  # a result that does not pickle is chgen's gap, not a crash
            conn.send((index, "refused", f"chgen import failed: {type(exc).__name__}: {exc}"))


# --------------------------------------------------------------------------------- the pool


@dataclass
class _Slot:
    process: subprocess.Popen
    conn: Connection  # answers from the worker
    jobs: Connection  # jobs to it
    ready: bool = False
    job: Optional[int] = None  # index of the directory it works on
    started: float = 0.0  # when it took the job, or when it was spawned
    sandboxed: bool = False  # inside bubblewrap (which reports a signal as 128 + its number)


class ImportPool:
    """`jobs` workers, each challenge limited to `timeout` seconds (see the module docstring)."""

    def __init__(self, jobs: int = 2, timeout: float = DEFAULT_TIMEOUT):
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self._slots: List[_Slot] = []
        self._readable: List[Path] = []  # the folders the workers must see (the sandbox hides /tmp)

    def _spawn(self) -> _Slot:
        """A fresh interpreter that finds this copy of chgen, whatever the current folder."""
        env = dict(os.environ)
        package_parent = str(Path(generator.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
        command, sandboxed = sandbox.sandboxed_command(
            [sys.executable, "-c", "from generator.importer.isolated import serve; serve()"],
            self._readable,
        )
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=sandbox.start_limited(
                sandbox.Limits(startup_seconds=STARTUP_TIMEOUT, step_seconds=self.timeout)
            ),
        )
        answers = Connection(os.dup(process.stdout.fileno()), writable=False)
        jobs = Connection(os.dup(process.stdin.fileno()), readable=False)
        process.stdout.close()
        process.stdin.close()
        return _Slot(process, answers, jobs, started=time.monotonic(), sandboxed=sandboxed)

    @staticmethod
    def _stop(slot: _Slot) -> None:
        try:
            os.killpg(slot.process.pid, signal.SIGKILL)  # the worker and whatever it started
        except (ProcessLookupError, PermissionError):
            pass
        slot.process.wait(5)
        slot.conn.close()
        slot.jobs.close()

    def run(
        self,
        directories: Sequence[Path],
        seed: int = 0,
        inline_svg: bool = False,
        progress: Optional[Callable[[Outcome], None]] = None,
    ) -> Iterator[Outcome]:
        """Import every directory; yield the outcomes in the order of `directories`."""
        pending = list(range(len(directories)))
        self._readable = sorted({Path(d).resolve().parent for d in directories})
        done: Dict[int, Outcome] = {}
        next_out = 0
        try:
            self._slots = [self._spawn() for _ in range(min(self.jobs, len(pending)))]
            while next_out < len(directories):
                self._dispatch(pending, directories, seed, inline_svg)
                for index, outcome in self._collect(directories):
                    done[index] = outcome
                    if progress is not None:
                        progress(outcome)
                while next_out in done:
                    yield done.pop(next_out)
                    next_out += 1
                self._replace_stopped(pending)
        finally:
            for slot in self._slots:
                if slot.process.poll() is None and slot.job is None and slot.ready:
                    try:
                        slot.jobs.send(None)
                        slot.process.wait(5)
                    except (OSError, subprocess.TimeoutExpired):
                        pass
                self._stop(slot)
            self._slots = []

    def _dispatch(self, pending: List[int], directories, seed: int, inline_svg: bool) -> None:
        for slot in self._slots:
            if slot.ready and slot.job is None and pending:
                index = pending.pop(0)
                slot.jobs.send((index, str(directories[index]), seed, inline_svg))
                slot.job, slot.started = index, time.monotonic()

    def _collect(self, directories) -> List[tuple]:
        """Wait for the next answer, death or time limit; return the outcomes it settled."""
        now = time.monotonic()
        limits = [
            slot.started + (self.timeout if slot.job is not None else STARTUP_TIMEOUT) - now
            for slot in self._slots
        ]
        ready = wait([s.conn for s in self._slots], timeout=max(0.0, min(limits, default=1.0)))
        settled = []
        for slot in self._slots:
            if slot.conn in ready:
                try:
                    message = slot.conn.recv()
                except (EOFError, OSError):
                    settled.extend(self._died(slot, directories))
                    continue
                settled.extend(self._answer(slot, message, directories))
            elif slot.job is not None and time.monotonic() - slot.started > self.timeout:
                index, slot.job = slot.job, None
                self._stop(slot)
                settled.append(
                    (
                        index,
                        refused(
                            directories[index],
                            time.monotonic() - slot.started,
                            f"challenge.py ran past the time limit of {self.timeout:g} s "
                            "(raise it with --timeout)",
                        ),
                    )
                )
            elif not slot.ready and time.monotonic() - slot.started > STARTUP_TIMEOUT:
                raise PoolError(f"an import worker did not start in {STARTUP_TIMEOUT:g} s")
        return settled

    def _answer(self, slot: _Slot, message: tuple, directories) -> List[tuple]:
        if message[0] == "broken":
            raise PoolError(f"an import worker cannot load chgen's importer: {message[1]}")
        if message[0] == "ready":
            slot.ready = True
            return []
        index, status, payload = message
        seconds = time.monotonic() - slot.started
        slot.job = None
        if status == "imported":
            return [(index, Outcome(directories[index], seconds, payload))]
        return [(index, refused(directories[index], seconds, payload))]

    def _died(self, slot: _Slot, directories) -> List[tuple]:
        code = slot.process.wait(5)
        slot.conn.close()
        slot.jobs.close()
        if slot.job is None:
            if not slot.ready:
                raise PoolError(f"an import worker exited while starting (exit code {code})")
            return []
        index, slot.job = slot.job, None
        signum = sandbox.exit_signal(code, slot.sandboxed)
        how = (
            f"was killed by {sandbox.signal_name(signum)}" if signum else f"died (exit code {code})"
        )
        message = f"the import process {how} while running challenge.py"
        return [(index, refused(directories[index], time.monotonic() - slot.started, message))]

    def _replace_stopped(self, pending: List[int]) -> None:
        """A worker killed for its time limit, or dead, is replaced while work is left."""
        for i, slot in enumerate(self._slots):
            if slot.conn.closed:
                if pending:
                    self._slots[i] = self._spawn()
        self._slots = [s for s in self._slots if not s.conn.closed]
