"""The one bubblewrap command line builder (`bwrap_argv`, from a `View`) and the one probe
(`bwrap_failure`), and the view spec code gets.

Inside bubblewrap (`bwrap`), where it is installed and works, a child sees the filesystem
read-only (spec code) or only the system folders and what it is given (a solution,
solution.py), a private `/tmp`, no network, its own PID namespace, and dies with its parent.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from generator.resources import PACKAGE_DIR

#: environment variable: "0" runs without bubblewrap even where it works (rlimits stay)
USE_BWRAP_ENV = "CHGEN_BWRAP"


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
    package_root = str(PACKAGE_DIR.parent)
    interpreter = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    interpreter += [entry for entry in sys.path if entry and os.path.isdir(entry)]
    visible = list(readable) + [package_root, os.getcwd()] + interpreter
    return bwrap_argv(_spec_view(visible)) + ["--"] + command, True
