"""Process trees of children that run foreign code: find them, watch them, end them (no torch).

The judge worker makes itself a child subreaper, so every process its solution starts (also one
that calls `setsid` and whose parent exits) stays among its descendants; `kill_tree` stops the
root, then kills descendants until none is left, then the root itself. A spec-code child runs in
a session of its own and is ended with its process group (`kill_group`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Dict, List, Optional

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
#: Bytes of the solution's stdout/stderr that are kept (the tail); the rest is only counted.
OUTPUT_TAIL = 16 << 10


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


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the process group `proc` leads (a child started in a session of its own)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_process(proc: subprocess.Popen) -> None:
    """Kill `proc` and everything below it, and reap it."""
    kill_tree(proc.pid)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


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
