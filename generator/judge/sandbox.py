"""Where the solution's process runs: a bubblewrap sandbox where the system allows one.

Inside the sandbox the process sees the system folders and the Python environment read-only,
chgen's own package, its scratch folder (a small tmpfs), the solution file and, on a GPU
machine, the /dev/nvidia* nodes; no challenge folder, no `solutions/`, no cache, no home and no
network. Run by root, the solution runs as `nobody`. Without bubblewrap (or where it cannot create
namespaces) the process runs unsandboxed; the limits of `process.py` apply either way.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from generator.judge.process import solution_uid

SCRATCH = "/job"
SCRATCH_BYTES = 512 << 20
#: Environment variables the solution's process inherits (everything else, tokens included, is
#: left out).
ENV_PREFIXES = (
    "CHGEN_",
    "CUDA_",
    "NVIDIA_",
    "TRITON_",
    "JAX_",
    "XLA_",
    "MODULAR_",
    "MOJO_",
    "TILELANG_",
    "TVM_",
    "OMP_",
    "MKL_",
    "TORCH",
    "PYTORCH_",
    "PYTHON",
    "LC_",
)
ENV_NAMES = ("PATH", "LANG", "LD_LIBRARY_PATH", "CUTE_DSL_ARCH", "TERM")
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt")


@dataclass(frozen=True)
class Mode:
    """How solutions run on this machine: `bwrap` or `none`, and the reason when none."""

    kind: str
    uid: Optional[int]
    reason: str = ""

    @property
    def sandboxed(self) -> bool:
        return self.kind == "bwrap"

    def describe(self) -> str:
        user = "as nobody" if self.uid is not None else "as this user"
        if self.sandboxed:
            return f"bubblewrap sandbox, {user}"
        return f"unsandboxed ({self.reason}), {user}"


def solution_env(env: Dict[str, str], scratch: str) -> Dict[str, str]:
    kept = {k: v for k, v in env.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}
    kept.update({"HOME": scratch, "TMPDIR": scratch, "XDG_CACHE_HOME": f"{scratch}/.cache"})
    kept.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return kept


def _forbidden() -> List[Path]:
    """Folders no bound path may contain: the checkout (challenges, solutions), the home."""
    from generator.judge.cache import PACKAGE_ROOT

    folders = [PACKAGE_ROOT.parent, Path.home(), Path.cwd()]
    return [f.resolve() for f in folders if f.resolve() != Path("/")]


def python_paths(extra: Sequence[str] = ()) -> List[str]:
    """The interpreter and its import path, minus anything that would expose a forbidden folder
    (an entry equal to or above the checkout or the home)."""
    from generator.judge.cache import PACKAGE_ROOT

    forbidden = _forbidden()
    wanted = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    wanted += [p for p in sys.path if p] + list(extra)
    kept: List[str] = [str(PACKAGE_ROOT)]
    for entry in wanted:
        path = Path(entry).resolve()
        if not path.exists() or any(f == path or f.is_relative_to(path) for f in forbidden):
            continue
        if any(path.is_relative_to(Path(k)) for k in kept) or str(path).startswith("/proc"):
            continue
        kept.append(str(path))
    return kept


def bwrap_argv(
    binds: Sequence[str], files: Dict[str, str], device: str, scratch_bytes: int = SCRATCH_BYTES
) -> List[str]:
    """`bwrap` up to `--`: system folders and `binds` read-only, `files` (sandbox path: host
    path) read-only, a tmpfs scratch folder and /tmp, the GPU nodes on a GPU."""
    argv = ["bwrap", "--die-with-parent", "--new-session"]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if not device.startswith("cuda"):
        argv += ["--unshare-ipc"]  # CUDA IPC handles need the IPC namespace they came from
    if os.geteuid() == 0:
        # Privileged bwrap, no user namespace: the solution's process starts as root without
        # capabilities but these two, and drops to nobody before anything else (solver.py).
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user"]
    for folder in SYSTEM_DIRS:
        argv += ["--ro-bind-try", folder, folder]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "01777", "--size", str(scratch_bytes), "--tmpfs", "/tmp"]
    argv += ["--perms", "01777", "--size", str(scratch_bytes), "--tmpfs", SCRATCH]
    # bwrap creates missing mount points as 0700 root folders: open them, or nobody is stuck
    parents = {str(a) for p in list(binds) + list(files) for a in Path(p).parents if str(a) != "/"}
    for folder in sorted(parents, key=lambda f: (f.count("/"), f)):
        argv += ["--perms", "0755", "--dir", folder]
    for path in binds:
        argv += ["--ro-bind", path, path]
    for inside, host in files.items():
        argv += ["--ro-bind", host, inside]
    if device.startswith("cuda"):
        for node in sorted(glob.glob("/dev/nvidia*")):
            argv += ["--dev-bind", node, node]
    argv += ["--chdir", SCRATCH]
    return argv


_MODE: Optional[Mode] = None


#: Why a GPU solution runs beside the worker: the driver opens an IPC handle only in a process
#: of the exporter's PID namespace and user that may inspect the exporter (seen on an H200:
#: cuIpcOpenMemHandle fails with CUDA_ERROR_INVALID_VALUE inside bubblewrap, as nobody).
CUDA_UNSANDBOXED = "CUDA IPC needs the solution in the worker's PID namespace, as the same user"


def probe(use_sandbox: bool = True, device: str = "cpu") -> Mode:
    """Can this machine sandbox (and drop to nobody)? Tried once per process with the real
    interpreter. GPU solutions are not sandboxed (CUDA_UNSANDBOXED)."""
    global _MODE
    if device.startswith("cuda"):
        return Mode("none", None, CUDA_UNSANDBOXED)
    if not use_sandbox:
        return Mode("none", _plain_uid(), "--no-sandbox")
    if _MODE is not None:
        return _MODE
    uid = solution_uid()
    if shutil.which("bwrap") is None:
        _MODE = Mode("none", _plain_uid(), "bubblewrap is not installed")
        return _MODE
    drop = f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid})" if uid else "pass"
    argv = bwrap_argv(python_paths(), {}, "cpu") + ["--", sys.executable, "-c", drop]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=60)
        ok, reason = done.returncode == 0, done.stderr.decode(errors="replace").strip()
    except (OSError, subprocess.SubprocessError) as exc:
        ok, reason = False, str(exc)
    if ok:
        _MODE = Mode("bwrap", uid)
    else:
        _MODE = Mode("none", _plain_uid(), f"bwrap failed: {reason.splitlines()[-1][:200]}")
    return _MODE


def _plain_uid() -> Optional[int]:
    """Unsandboxed, root still drops to nobody where nobody can run the interpreter."""
    uid = solution_uid()
    if uid is None:
        return None
    try:
        done = subprocess.run(
            [sys.executable, "-c", "pass"], user=uid, group=uid, extra_groups=[],
            capture_output=True, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return uid if done.returncode == 0 else None
