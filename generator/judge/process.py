"""Process trees and the limits an untrusted solution runs under (no torch here).

The judge worker makes itself a child subreaper, so every process its solution starts (also one
that calls `setsid` and whose parent exits) stays among its descendants; `kill_tree` stops the
root, then kills descendants until none is left, then the root itself. The solution's own
process gets hard resource limits before any of its code runs (a lowered hard limit cannot be
raised again): processes, file size, no core dumps, and on the CPU the address space.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import threading
import time
from collections import deque
from pathlib import Path
from typing import Dict, List, Optional

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
GIB = 1 << 30
#: Processes and threads (Linux counts both) the solution may add to what its user runs.
PROCESS_LIMIT = 512
#: Largest file the solution may write (its scratch space is small anyway).
FILE_SIZE_LIMIT = 256 << 20
#: Bytes of the solution's stdout/stderr that are kept (the tail); the rest is only counted.
OUTPUT_TAIL = 16 << 10
NOBODY = 65534


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphaned descendants are re-parented to this process instead of init."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def forbid_inspection() -> bool:
    """No ptrace, no /proc/PID/mem or fd access by other processes of the same user."""
    return _prctl(PR_SET_DUMPABLE, 0)


def harden_worker(device: str, sandboxed: bool) -> None:
    """How the judge's worker (and the GPU sandbox probe, which stands in for it) protects
    itself: orphans of the solution's processes come back to it (and are killed at the end), and
    no process of the same user may read its memory or descriptors. An unsandboxed GPU solution
    runs as the worker's user beside it, the one form of CUDA IPC the H200 runs before the GPU
    sandbox had proved: there the worker stays inspectable, as it was."""
    become_subreaper()
    if sandboxed or not device.startswith("cuda"):
        forbid_inspection()


def die_with_parent() -> bool:
    return _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def default_memory_limit() -> int:
    """A quarter of the machine's memory (at least 2 GiB): several workers run side by side."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 16 * GIB
    return max(2 * GIB, total // 4)


def _parents() -> Dict[int, int]:
    found: Dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # the command name may hold spaces and parentheses: the fields start after the last ')'
        fields = stat[stat.rfind(")") + 2 :].split()
        found[int(entry)] = int(fields[1])
    return found


def descendants(root: int) -> List[int]:
    parents = _parents()
    children: Dict[int, List[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(root: int, include_root: bool = True) -> None:
    """Kill `root` and everything below it, also descendants that left its session.

    The root is stopped first and killed last: while it lives (a subreaper), the orphans of
    killed processes are re-parented to it and found by the next sweep."""
    if include_root:
        _kill(root, signal.SIGSTOP)
    for _ in range(200):
        found = descendants(root)
        if not found:
            break
        for pid in found:
            _kill(pid, signal.SIGKILL)
        reap_children()
        time.sleep(0.01)
    if include_root:
        _kill(root, signal.SIGKILL)
        _kill(root, signal.SIGCONT)


def reap_children() -> None:
    """Collect exited (re-parented) children so that they do not stay zombies."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def tree_usage(root: int) -> tuple:
    """(resident bytes, processes) of `root` and its descendants."""
    pids = [root] + descendants(root)
    rss = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1]) * 1024
                    break
        except (OSError, ValueError, IndexError):
            continue
    return rss, len(pids)


def user_processes(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue
    return count


def solution_uid() -> Optional[int]:
    """As root, the solution runs as `nobody`: root ignores RLIMIT_NPROC, and nobody can neither
    signal nor read the judge's processes and files."""
    return NOBODY if os.geteuid() == 0 else None


def process_limit(uid: int) -> int:
    """RLIMIT_NPROC counts every task of the user: what it runs now plus the solution's share."""
    return user_processes(uid) + PROCESS_LIMIT


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


class OutputTail:
    """Reads a pipe to its end in a thread, keeping the last OUTPUT_TAIL bytes and the count."""

    def __init__(self, fd: int, keep: int = OUTPUT_TAIL):
        self.fd = fd
        self.keep = keep
        self.total = 0
        self.chunks: deque = deque()
        self.kept = 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                break
            if not data:
                break
            self.total += len(data)
            self.chunks.append(data)
            self.kept += len(data)
            while self.kept - len(self.chunks[0]) >= self.keep:
                self.kept -= len(self.chunks.popleft())
        os.close(self.fd)

    def text(self) -> str:
        data = b"".join(self.chunks)[-self.keep :]
        dropped = self.total - len(data)
        head = f"[{dropped} earlier byte(s) of output not kept]\n" if dropped > 0 else ""
        return head + data.decode("utf-8", errors="replace")
