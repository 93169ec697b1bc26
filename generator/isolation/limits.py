"""The limits a child running foreign code gets, set before any of its code runs.

Spec code (a spec's reference and helpers, a challenge.py being checked or imported) runs under
`Limits`, set between fork and exec (`start_limited`): address space, no core files, a cap on the
size of files it writes, CPU time; its wall time per step is the watchdog's. A solution's process
limits itself before loading the solution (`limit_this_process`: a lowered hard limit cannot be
raised again): processes, file size, no core dumps, and on the CPU the address space.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from generator.isolation.process import die_with_parent, user_processes

# --- spec code --------------------------------------------------------------------------------

#: default limits (seconds of wall time, bytes of address space)
STARTUP_SECONDS = 180.0
STEP_SECONDS = 60.0
MEMORY_BYTES = 4 << 30
FILE_BYTES = 64 << 20
#: seconds one spec's example verification may take (the child's imports have their own limit)
TIMEOUT_ENV = "CHGEN_REFERENCE_TIMEOUT"


@dataclass(frozen=True)
class Limits:
    startup_seconds: float = STARTUP_SECONDS  # before the first step (imports)
    step_seconds: float = STEP_SECONDS  # each step
    memory_bytes: int = MEMORY_BYTES  # RLIMIT_AS
    file_bytes: int = FILE_BYTES  # RLIMIT_FSIZE


def spec_limits() -> Limits:
    """The limits of spec code: the defaults, each step's time from CHGEN_REFERENCE_TIMEOUT."""
    seconds = os.environ.get(TIMEOUT_ENV, "")
    try:
        step = float(seconds) if seconds else STEP_SECONDS
    except ValueError:
        step = STEP_SECONDS
    return Limits(step_seconds=max(step, 0.1))


def _set_limits(limits: Limits) -> None:
    """Runs in the child between fork and exec (so it is limited before any untrusted code)."""
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


def start_limited(limits: Limits) -> Callable[[], None]:
    """A preexec_fn: the child's rlimits (set between fork and exec, before any spec code)."""
    return lambda: _set_limits(limits)


# --- solutions --------------------------------------------------------------------------------

GIB = 1 << 30
#: Processes and threads (Linux counts both) the solution may add to what its user runs.
PROCESS_LIMIT = 512
#: Largest file the solution may write (its scratch space is small anyway).
FILE_SIZE_LIMIT = 256 << 20
NOBODY = 65534


def default_memory_limit() -> int:
    """A quarter of the machine's memory (at least 2 GiB): several workers run side by side."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 16 * GIB
    return max(2 * GIB, total // 4)


def solution_uid() -> Optional[int]:
    """As root, the solution runs as `nobody`: root ignores RLIMIT_NPROC, and nobody can neither
    signal nor read the judge's processes and files."""
    return NOBODY if os.geteuid() == 0 else None


def process_limit(uid: int, side_by_side: int = 1) -> int:
    """RLIMIT_NPROC counts every task of the user, and the jobs a run holds at once all run as
    that user: what it runs now, plus a share for each of them. With one share only, a job
    started while the others were small fails once they grow (fourteen JAX jobs on one GPU, each
    with a thread pool per core, could not launch ptxas or start a thread)."""
    return user_processes(uid) + PROCESS_LIMIT * max(1, side_by_side)


def virtual_size() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def limit_this_process(nproc: int, address_space: Optional[int]) -> None:
    """The solution's process limits itself before loading the solution: a lowered hard limit
    cannot be raised again. `address_space` is added to what is mapped now (torch included)."""
    die_with_parent()
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if address_space is not None:
        total = virtual_size() + address_space
        resource.setrlimit(resource.RLIMIT_AS, (total, total))


def drop_to(uid: int) -> None:
    """In the sandbox (started by root): become `uid` before any other import."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
