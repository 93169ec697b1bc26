"""Start a Python child that runs code chgen does not trust, with limits.

A spec's reference, its helpers and a challenge's own code are the author's (or a pull request's)
code; `chgen generate`, `chgen check` and the pre-commit hooks run them. They run here, in a child:

- its own process group, killed as a whole when a step overstays its time limit;
- rlimits: address space (memory), no core files, a cap on the size of files it writes, CPU time;
- inside bubblewrap (`bwrap`) where it is installed and works: the filesystem read-only, a private
  `/tmp`, no network, its own PID namespace, dying with its parent.

The one bubblewrap command line builder (`bwrap_argv`, from a `View`) and the one probe
(`bwrap_failure`) live here too; the judge's solution sandbox (generator/judge/sandbox.py) uses
both with a narrower view.

The protocol is JSON lines on the child's own stdout: the child calls `channel()` first, which moves
what the untrusted code prints to stderr, and then `send(...)` messages. A message holding
`"step": ...` restarts the step clock; the parent gives the child `startup_seconds` before its first
step and `step_seconds` for each step. The parent never raises for what the child did: the result
says whether it timed out, how it exited and what it sent.
"""

from __future__ import annotations

import glob
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

#: default limits (seconds of wall time, bytes of address space)
STARTUP_SECONDS = 180.0
STEP_SECONDS = 60.0
MEMORY_BYTES = 4 << 30
FILE_BYTES = 64 << 20
#: environment variable: "0" runs without bubblewrap even where it works (rlimits stay)
USE_BWRAP_ENV = "CHGEN_BWRAP"


@dataclass(frozen=True)
class Limits:
    startup_seconds: float = STARTUP_SECONDS  # before the first step (imports)
    step_seconds: float = STEP_SECONDS  # each step
    memory_bytes: int = MEMORY_BYTES  # RLIMIT_AS
    file_bytes: int = FILE_BYTES  # RLIMIT_FSIZE


@dataclass
class ChildRun:
    """What a sandboxed child did: its messages, how it ended, the tail of what it printed."""

    messages: List[Dict[str, Any]] = field(default_factory=list)
    returncode: Optional[int] = None
    timed_out: Optional[float] = None  # the limit it overstayed, in seconds
    stderr: str = ""
    sandboxed: bool = False  # ran inside bubblewrap

    @property
    def last_step(self) -> Any:
        steps = [m["step"] for m in self.messages if "step" in m]
        return steps[-1] if steps else None

    def ending(self) -> str:
        """How the child ended, in words, for an error message."""
        if self.timed_out is not None:
            return f"did not finish within {self.timed_out:g} s and was stopped"
        code = self.returncode
        signum = exit_signal(code, self.sandboxed)
        if signum is not None:
            return f"killed the checking process ({signal_name(signum)})"
        return f"ended the checking process (exit status {code})"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def exit_signal(returncode: Optional[int], sandboxed: bool) -> Optional[int]:
    """The signal that ended a child, if one did: a negative return code, or, from inside
    bubblewrap (which passes a signal on as 128 + its number), a code above 128."""
    if returncode is None:
        return None
    if returncode < 0:
        return -returncode
    if sandboxed and returncode > 128:
        return returncode - 128
    return None


def _set_limits(limits: Limits) -> None:
    """Runs in the child between fork and exec (so it is limited before any untrusted code)."""
    import resource

    for which, value in (
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_CPU, int(limits.startup_seconds + limits.step_seconds * 64)),
    ):
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass


#: Folders a sandbox that shows only the system (not the whole filesystem) binds read-only.
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt")
#: What CUDA reads besides its device nodes and libraries: the PCI topology, CPUs and NUMA nodes,
#: and the persistence daemon's socket where one runs.
GPU_READABLE = ("/sys", "/run/nvidia-persistenced")


@dataclass(frozen=True)
class View:
    """What a bubblewrap sandbox shows. Spec code sees the whole filesystem read-only; a solution
    sees only SYSTEM_DIRS and what it is given. Either way: a private /tmp, no network, its own
    PID, IPC, UTS and cgroup namespaces, the process dying with its parent."""

    whole_root: bool = True
    readable: Sequence[str] = ()  # host paths shown read-only at the same place
    files: Tuple[Tuple[str, str], ...] = ()  # (sandbox path, host path), read-only
    scratch: Optional[str] = None  # a writable tmpfs folder besides /tmp (also the workdir)
    tmpfs_bytes: Optional[int] = None  # size of /tmp and the scratch folder
    gpu: bool = False  # the /dev/nvidia* nodes and GPU_READABLE
    drops_to_user: bool = False  # started by root, drops to another user itself (no user ns)
    workdir: Optional[str] = None  # default: the scratch folder, else the current folder


def bwrap_argv(view: View) -> List[str]:
    """`bwrap` and its options up to (not including) `--`: the one builder of sandbox command
    lines, for spec code and for solutions."""
    argv = ["bwrap", "--die-with-parent", "--new-session"]
    argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    argv += ["--unshare-cgroup-try"]
    if view.drops_to_user:
        # Privileged bwrap, no user namespace: the process starts as root without capabilities
        # but these two, and drops to its user before anything else.
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user-try"]
    if view.whole_root:
        argv += ["--ro-bind", "/", "/"]
    else:
        for folder in SYSTEM_DIRS:
            argv += ["--ro-bind-try", folder, folder]
    argv += ["--dev", "/dev", "--proc", "/proc"]
    size = ["--perms", "01777", "--size", str(view.tmpfs_bytes)] if view.tmpfs_bytes else []
    argv += size + ["--tmpfs", "/tmp"]
    if view.scratch:
        argv += size + ["--tmpfs", view.scratch]
    readable = sorted({str(Path(p).resolve()) for p in view.readable})
    if not view.whole_root:
        # bwrap creates missing mount points as 0700 root folders: open them, or nobody is stuck
        targets = readable + [inside for inside, _ in view.files]
        parents = {str(a) for p in targets for a in Path(p).parents if str(a) != "/"}
        for folder in sorted(parents, key=lambda f: (f.count("/"), f)):
            argv += ["--perms", "0755", "--dir", folder]
    for path in readable:
        argv += ["--ro-bind-try", path, path]  # what the child reads under /tmp stays visible
    for inside, host in view.files:
        argv += ["--ro-bind", host, inside]
    if view.gpu:
        for node in sorted(glob.glob("/dev/nvidia*")):
            argv += ["--dev-bind", node, node]
        for path in GPU_READABLE:
            argv += ["--ro-bind-try", path, path]
    return argv + ["--chdir", view.workdir or view.scratch or os.getcwd()]


def bwrap_missing() -> Optional[str]:
    """Why bubblewrap cannot be used at all here, or None."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed"
    return None


@lru_cache(maxsize=None)
def bwrap_failure(argv: Tuple[str, ...], timeout: float = 60.0) -> Optional[str]:
    """The one probe: run `argv` (a bwrap command line with its command) once per process and
    return why it failed (its last line of stderr), or None where it worked. A container may
    forbid namespaces; a view may hide what the command needs."""
    missing = bwrap_missing()
    if missing:
        return missing
    try:
        done = subprocess.run(
            list(argv), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap failed: {exc}"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode(errors="replace").strip().splitlines() or [
        f"exit status {done.returncode}"
    ]
    return f"bwrap failed: {lines[-1][:200]}"


def _spec_view(readable: Sequence[Path], workdir: Optional[str] = None) -> View:
    return View(readable=tuple(str(p) for p in readable), workdir=workdir)


def bwrap_works() -> bool:
    """bubblewrap is on PATH and can start a process here for spec code (CHGEN_BWRAP=0: no)."""
    if os.environ.get(USE_BWRAP_ENV, "1") == "0":
        return False
    probe = bwrap_argv(_spec_view([], workdir="/")) + ["--", "true"]  # whatever the folder is
    return bwrap_failure(tuple(probe), 30.0) is None


def sandboxed_command(command: List[str], readable: Sequence[Path] = ()) -> Tuple[List[str], bool]:
    """`command` (a Python child running spec code) inside the spec-code sandbox where it works:
    the interpreter, its packages, chgen and the current folder stay visible (also under /tmp).
    Returns the command line and whether it is sandboxed."""
    if not bwrap_works():
        return command, False
    package_root = str(Path(__file__).resolve().parent.parent)
    interpreter = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    interpreter += [entry for entry in sys.path if entry and os.path.isdir(entry)]
    visible = list(readable) + [package_root, os.getcwd()] + interpreter
    return bwrap_argv(_spec_view(visible)) + ["--"] + command, True


def start_limited(limits: Limits) -> Callable[[], None]:
    """A preexec_fn: the child's rlimits (set between fork and exec, before any spec code)."""
    return lambda: _set_limits(limits)


def run_module(
    module: str,
    job: Any,
    limits: Limits = Limits(),
    readable: Sequence[Path] = (),
) -> ChildRun:
    """Run `python -m module` with `job` (JSON) on its stdin, within `limits`; see the module doc.

    `readable`: paths the child must read that the sandbox would hide (anything under /tmp)."""
    package_root = str(Path(__file__).resolve().parent.parent)
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
        _kill_group(proc)
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
    run.returncode = proc.returncode
    return run


def _exchange(proc: subprocess.Popen, job: bytes, limits: Limits, run: ChildRun) -> None:
    """Send the job, then read messages and stderr until the child ends or overstays a step."""
    try:
        proc.stdin.write(job)
        proc.stdin.close()
    except OSError:  # the child died before reading its job; its exit says why
        pass
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, "out")
    selector.register(proc.stderr, selectors.EVENT_READ, "err")
    pending, errors = b"", bytearray()
    limit = limits.startup_seconds
    deadline = time.monotonic() + limit
    open_streams = 2
    while open_streams:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            run.timed_out = limit
            break
        for key, _ in selector.select(timeout=min(remaining, 1.0)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            if key.data == "err":
                errors += chunk
                del errors[:-8192]
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                message = _parse(line)
                if message is None:
                    continue
                run.messages.append(message)
                if "step" in message:
                    limit = limits.step_seconds
                    deadline = time.monotonic() + limit
    selector.close()
    run.stderr = errors.decode("utf-8", "replace")


def _parse(line: bytes) -> Optional[Dict[str, Any]]:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


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
    assert _channel is not None, "call sandbox.channel() first"
    _channel.write(json.dumps(message) + "\n")
    _channel.flush()
