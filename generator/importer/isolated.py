"""Imports run in worker processes, never in chgen's own: challenge.py is code from elsewhere.

A pool of long-lived workers (fresh interpreters that take jobs on stdin and answer on stdout,
JSON lines both ways) imports torch and chgen's importer once and then takes one challenge
directory at a time; the parent holds no torch and runs none of the challenge's code. Each
challenge has a time limit: a worker past it is killed and replaced, and the challenge is refused
with that reason, as it is when its worker dies (a challenge that calls os._exit or crashes the
interpreter) or sends what is not an answer (generator/isolation/channel.py: a JSON object of at
most MAX_ANSWER bytes; result.py: an ImportResult's fields, of their types, plain file names).
Nothing a worker sends is unpickled or evaluated. Whatever a challenge raises comes back as its
refusal, never as a traceback. Results come back in the order the directories were given. The
workers run in the spec-code sandbox (generator/isolation/: the limits of spec code on memory,
file size and core files, bubblewrap where it works: the filesystem read-only, a private /tmp,
no network); what challenge.py prints goes nowhere.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from generator.importer.report import reason_of
from generator.importer.result import from_json, to_json
from generator.isolation.bwrap import sandboxed_command
from generator.isolation.channel import Lines, Refused, encode
from generator.isolation.limits import Limits, start_limited
from generator.isolation.process import exit_signal, kill_group, signal_name
from generator.isolation.watchdog import TIME, Watchdog
from generator.resources import PACKAGE_DIR

#: default seconds one challenge may take in its worker (import, trace, render, compare)
DEFAULT_TIMEOUT = 120.0
#: seconds a fresh worker may take to import torch and chgen before the pool gives up
STARTUP_TIMEOUT = 300.0
#: the largest answer a worker may send (one challenge's spec, report and comparisons)
MAX_ANSWER = 16 << 20


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


def _protocol_and_quiet() -> Tuple[BinaryIO, BinaryIO]:
    """The pipes to the pool, moved off fds 0 and 1; then the challenge's prints and torch's
    warnings go nowhere instead of into the middle of chgen's output."""
    jobs = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    return jobs, answers


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


def _answer_line(index: int, status: str, payload: Any) -> bytes:
    """One answer as a JSON line: the result's plain data, or the refusal's message."""
    if status == "imported":
        try:
            return encode({"index": index, "imported": to_json(payload)})
        except (TypeError, ValueError) as exc:  # a result that is not plain data: chgen's gap
            payload = f"chgen import failed: {type(exc).__name__}: {exc}"
    return encode({"index": index, "refused": str(payload)})


def serve() -> None:
    """A worker's main loop (`python -c "...; serve()"`): one job after another until told to
    stop or its pipe closes."""
    jobs, answers = _protocol_and_quiet()

    def say(line: bytes) -> None:
        answers.write(line)
        answers.flush()

    try:
        import torch

        torch.set_num_threads(1)  # the pool is the parallelism; threads would oversubscribe
        import generator.importer.build  # noqa: F401  (what every import needs, once)

        gc.freeze()  # what was imported lives as long as the worker: no collection need walk it
    except Exception as exc:
        say(encode({"broken": f"{type(exc).__name__}: {exc}"}))
        return
    say(encode({"ready": True}))
    while True:
        line = jobs.readline()
        if not line:
            return
        job = json.loads(line)  # written by the pool, the trusted side
        if job is None:
            return
        index = job["index"]
        try:
            status, payload = _import_one(job["directory"], job["seed"], job["inline_svg"])
        except BaseException as exc:  # noqa: B036  SystemExit raised by the challenge's code
            status, payload = "refused", f"the import process stopped: {type(exc).__name__}: {exc}"
        _fresh_torch_state(torch)
        say(_answer_line(index, status, payload))


# --------------------------------------------------------------------------------- the pool


@dataclass
class _Slot:
    process: subprocess.Popen
    answers: int  # the worker's stdout (a file descriptor)
    jobs: BinaryIO  # its stdin
    dog: Watchdog  # the time of its start-up, then of its job
    lines: Lines  # its answers, framed and bounded
    ready: bool = False
    job: Optional[int] = None  # index of the directory it works on
    sandboxed: bool = False  # inside bubblewrap (which reports a signal as 128 + its number)
    closed: bool = False


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
        package_parent = str(PACKAGE_DIR.parent)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
        command, sandboxed = sandboxed_command(
            [sys.executable, "-c", "from generator.importer.isolated import serve; serve()"],
            self._readable,
        )
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=start_limited(
                Limits(startup_seconds=STARTUP_TIMEOUT, step_seconds=self.timeout)
            ),
        )
        answers = os.dup(process.stdout.fileno())
        process.stdout.close()
        dog = Watchdog(process, STARTUP_TIMEOUT, exits=False)
        return _Slot(process, answers, process.stdin, dog, Lines(MAX_ANSWER), sandboxed=sandboxed)

    @staticmethod
    def _stop(slot: _Slot) -> None:
        kill_group(slot.process)  # the worker and whatever it started
        slot.process.wait(5)
        if not slot.closed:
            os.close(slot.answers)
            try:
                slot.jobs.close()
            except OSError:
                pass
            slot.closed = True

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
                        slot.jobs.write(b"null\n")
                        slot.jobs.flush()
                        slot.process.wait(5)
                    except (OSError, subprocess.TimeoutExpired):
                        pass
                self._stop(slot)
            self._slots = []

    def _dispatch(self, pending: List[int], directories, seed: int, inline_svg: bool) -> None:
        for slot in self._slots:
            if slot.ready and slot.job is None and pending:
                index = pending.pop(0)
                job = {"index": index, "directory": str(directories[index]), "seed": seed}
                job["inline_svg"] = inline_svg
                slot.job = index
                slot.dog.restart(self.timeout)
                try:
                    slot.jobs.write(encode(job))
                    slot.jobs.flush()
                except OSError:  # it died meanwhile; its end of the pipe says so next
                    pass

    def _collect(self, directories) -> List[tuple]:
        """Wait for the next answer, death or time limit; return the outcomes it settled."""
        settled: List[tuple] = []
        watched = [slot.dog.remaining() for slot in self._slots if self._watched(slot)]
        timeout = min(watched, default=1.0)
        selector = selectors.DefaultSelector()
        for slot in self._slots:
            selector.register(slot.answers, selectors.EVENT_READ, slot)
        ready = [key.data for key, _ in selector.select(timeout=timeout)]
        selector.close()
        for slot in self._slots:
            if slot in ready:
                settled.extend(self._read(slot, directories))
            if slot.closed or not self._watched(slot):
                continue
            breach = slot.dog.look()
            if breach is None or breach.kind != TIME:
                continue
            if slot.job is None:
                raise PoolError(f"an import worker did not start in {STARTUP_TIMEOUT:g} s")
            index, slot.job = slot.job, None
            self._stop(slot)
            message = (
                f"challenge.py ran past the time limit of {self.timeout:g} s "
                "(raise it with --timeout)"
            )
            settled.append((index, refused(directories[index], slot.dog.elapsed(), message)))
        return settled

    @staticmethod
    def _watched(slot: _Slot) -> bool:
        """A worker on a job, or starting, is on the clock; an idle one is not."""
        return slot.job is not None or not slot.ready

    def _read(self, slot: _Slot, directories) -> List[tuple]:
        """What the worker sent: its answers, or its end; what is no answer is the job's refusal."""
        try:
            chunk = os.read(slot.answers, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            return self._died(slot, directories)
        settled = []
        try:
            for message in slot.lines.feed(chunk):
                settled.extend(self._answer(slot, message, directories))
        except Refused as exc:
            if slot.job is None:
                self._stop(slot)
                raise PoolError(f"an import worker sent what chgen refuses: {exc}") from None
            index, slot.job = slot.job, None
            seconds = slot.dog.elapsed()
            self._stop(slot)
            message = (
                f"the import process sent what chgen refuses ({exc}) while running challenge.py"
            )
            settled.append((index, refused(directories[index], seconds, message)))
        return settled

    def _answer(self, slot: _Slot, message: Dict[str, Any], directories) -> List[tuple]:
        if "broken" in message and not slot.ready:
            raise PoolError(f"an import worker cannot load chgen's importer: {message['broken']}")
        if message.get("ready") is True and not slot.ready:
            slot.ready = True
            return []
        if slot.job is None or message.get("index") != slot.job:
            raise Refused("an answer to no job it was given")
        index, seconds = slot.job, slot.dog.elapsed()
        if "imported" in message:
            outcome = Outcome(directories[index], seconds, from_json(message["imported"]))
        elif isinstance(message.get("refused"), str):
            outcome = refused(directories[index], seconds, message["refused"])
        else:
            raise Refused("an answer that is neither a result nor a refusal")
        slot.job = None
        return [(index, outcome)]

    def _died(self, slot: _Slot, directories) -> List[tuple]:
        code = slot.process.wait(5)
        self._stop(slot)
        if slot.job is None:
            if not slot.ready:
                raise PoolError(f"an import worker exited while starting (exit code {code})")
            return []
        index, slot.job = slot.job, None
        signum = exit_signal(code, slot.sandboxed)
        how = f"was killed by {signal_name(signum)}" if signum else f"died (exit code {code})"
        message = f"the import process {how} while running challenge.py"
        return [(index, refused(directories[index], slot.dog.elapsed(), message))]

    def _replace_stopped(self, pending: List[int]) -> None:
        """A worker killed for its time limit, or dead, is replaced while work is left."""
        for i, slot in enumerate(self._slots):
            if slot.closed:
                if pending:
                    self._slots[i] = self._spawn()
        self._slots = [s for s in self._slots if not s.closed]
