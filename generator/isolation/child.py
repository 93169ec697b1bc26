"""Start a Python child that runs spec code, with limits, and read what it says.

A spec's reference, its helpers and a challenge's own code are the author's (or a pull request's)
code; `chgen generate`, `chgen check` and the pre-commit hooks run them. They run here, in a child:

- its own process group, killed as a whole when a step overstays its time limit (watchdog.py);
- rlimits: address space (memory), no core files, a cap on the size of files it writes, CPU time
  (limits.py);
- inside bubblewrap where it is installed and works (bwrap.py: the filesystem read-only, a
  private `/tmp`, no network, its own PID namespace, dying with its parent).

The protocol is JSON lines on the child's own stdout (channel.py: objects only, each at most
MAX_MESSAGE bytes): the child calls `channel()` first, which moves what the untrusted code prints
to stderr, and then `send(...)` messages. A message holding `"step": ...` restarts the step clock;
the parent gives the child `startup_seconds` before its first step and `step_seconds` for each
step. The parent never raises for what the child did: the result says whether it timed out, how
it exited, what it sent, and what it sent that was refused.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, TextIO

from generator.isolation.bwrap import sandboxed_command
from generator.isolation.channel import Lines, Refused, encode
from generator.isolation.limits import Limits, start_limited
from generator.isolation.process import exit_signal, kill_group, signal_name
from generator.isolation.watchdog import TIME, Watchdog
from generator.resources import PACKAGE_DIR

#: the largest message a spec-code child may send (findings or errors of one step)
MAX_MESSAGE = 8 << 20
#: bytes of the child's stderr that are kept (the tail)
STDERR_TAIL = 8192


@dataclass
class ChildRun:
    """What a sandboxed child did: its messages, how it ended, the tail of what it printed."""

    messages: List[Dict[str, Any]] = field(default_factory=list)
    returncode: Optional[int] = None
    timed_out: Optional[float] = None  # the limit it overstayed, in seconds
    stderr: str = ""
    sandboxed: bool = False  # ran inside bubblewrap
    refused: Optional[str] = None  # why what it sent last is no message (then it was stopped)

    @property
    def last_step(self) -> Any:
        steps = [m["step"] for m in self.messages if "step" in m]
        return steps[-1] if steps else None

    def ending(self) -> str:
        """How the child ended, in words, for an error message."""
        if self.timed_out is not None:
            return f"did not finish within {self.timed_out:g} s and was stopped"
        if self.refused is not None:
            return f"sent what chgen refuses ({self.refused}) and was stopped"
        code = self.returncode
        signum = exit_signal(code, self.sandboxed)
        if signum is not None:
            return f"killed the checking process ({signal_name(signum)})"
        return f"ended the checking process (exit status {code})"


def run_module(
    module: str,
    job: Any,
    limits: Limits = Limits(),
    readable: Sequence[Path] = (),
) -> ChildRun:
    """Run `python -m module` with `job` (JSON) on its stdin, within `limits`; see the module doc.

    `readable`: paths the child must read that the sandbox would hide (anything under /tmp)."""
    package_root = str(PACKAGE_DIR.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    command, sandboxed = sandboxed_command([sys.executable, "-m", module], readable)
    run = ChildRun(sandboxed=sandboxed)
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=start_limited(limits),
        )
    except OSError as exc:
        run.returncode, run.stderr = 127, f"cannot start {command[0]}: {exc.strerror}"
        return run
    try:
        _exchange(proc, json.dumps(job).encode(), limits, run)
    finally:
        kill_group(proc)
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
    run.returncode = proc.returncode
    return run


def _exchange(proc: subprocess.Popen, job: bytes, limits: Limits, run: ChildRun) -> None:
    """Send the job, then read messages and stderr until the child ends, overstays a step or
    sends what is no message."""
    try:
        proc.stdin.write(job)
        proc.stdin.close()
    except OSError:  # the child died before reading its job; its exit says why
        pass
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "out")
    selector.register(proc.stderr, selectors.EVENT_READ, "err")
    lines, errors = Lines(MAX_MESSAGE), bytearray()
    dog = Watchdog(proc, limits.startup_seconds, exits=False)

    def step(timeout: float) -> bool:
        """Read what is ready; True once both streams are closed."""
        nonlocal errors
        for key, _ in selector.select(timeout=timeout):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            if key.data == "err":
                errors += chunk
                del errors[:-STDERR_TAIL]
                continue
            for message in lines.feed(chunk):
                if "step" in message and not isinstance(message["step"], int):
                    raise Refused("a step that is not a number")
                run.messages.append(message)
                if "step" in message:
                    dog.restart(limits.step_seconds)
        return not selector.get_map()

    try:
        breach = dog.watch(step, poll=1.0)
        if breach is not None and breach.kind == TIME:
            run.timed_out = breach.limit
    except Refused as exc:
        run.refused = str(exc)
    selector.close()
    run.stderr = errors.decode("utf-8", "replace")


# --- the child's side -------------------------------------------------------------------------

_channel: Optional[TextIO] = None


def channel() -> Any:
    """In the child, before any untrusted code runs: keep stdout for messages, send what the code
    prints to stderr, and return the job read from stdin."""
    global _channel
    job = json.loads(sys.stdin.buffer.read() or b"null")
    _channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return job


def send(message: Dict[str, Any]) -> None:
    """In the child: one message to the parent (`{"step": ...}` restarts the step clock)."""
    assert _channel is not None, "call child.channel() first"
    _channel.write(encode(message).decode())
    _channel.flush()
