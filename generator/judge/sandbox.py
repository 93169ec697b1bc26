"""Where the solution's process runs: a bubblewrap sandbox where the system allows one.

Inside the sandbox the process sees the system folders and the Python environment read-only,
chgen's own package, its scratch folder (a small tmpfs), the solution file and, on a GPU
machine, the /dev/nvidia* nodes, /sys and the persistence daemon's socket (read-only); no
challenge folder, no `solutions/`, no cache, no home and no network. Run by root, the solution
runs as `nobody`. The command line comes from generator/sandbox.py (the one builder, shared with
spec code); whether it works is probed once per process and device kind: on the CPU by starting
the interpreter in it, on a GPU by opening a judge-exported CUDA IPC handle in it (gpu_probe.py).
Where the probe fails the process runs unsandboxed, and says why; the limits of `process.py`
apply either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from generator import sandbox
from generator.judge.process import solution_uid
from generator.sandbox import View

SCRATCH = "/job"
SCRATCH_BYTES = 512 << 20
#: Environment variables the solution's process inherits (everything else, tokens included, is
#: left out). NCCL_ and NVSHMEM_ keep a machine's settings of the ranks' collectives (NVLink
#: multicast off: NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1; TORCH covers PyTorch's own).
ENV_PREFIXES = (
    "CHGEN_",
    "CUDA_",
    "NCCL_",
    "NVSHMEM_",
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


def _entries(variable: str) -> List[str]:
    return [p for p in os.environ.get(variable, "").split(os.pathsep) if p]


def solution_binds(extra: Sequence[str] = ()) -> List[str]:
    """What the sandbox shows read-only besides the system folders: chgen, the interpreter, its
    import path (PYTHONPATH too), the library path (a GPU toolkit may live outside /usr), `extra`.
    """
    return python_paths(_entries("PYTHONPATH") + _entries("LD_LIBRARY_PATH") + list(extra))


def solution_process_env(scratch: str) -> Dict[str, str]:
    """The solution's environment (solution_env), able to import this copy of chgen."""
    from generator.judge.cache import PACKAGE_ROOT

    env = solution_env(os.environ, scratch)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT.parent)] + _entries("PYTHONPATH"))
    return env


def solution_view(binds: Sequence[str], files: Dict[str, str], device: str) -> View:
    """What the solution's process sees: the system folders and `binds` read-only, `files`
    (sandbox path: host path) read-only, a small tmpfs scratch folder and /tmp; on a GPU its
    device nodes and what CUDA reads."""
    return View(
        whole_root=False,
        readable=tuple(binds),
        files=tuple(files.items()),
        scratch=SCRATCH,
        tmpfs_bytes=SCRATCH_BYTES,
        gpu=device.startswith("cuda"),
        drops_to_user=os.geteuid() == 0,
    )


def bwrap_argv(binds: Sequence[str], files: Dict[str, str], device: str) -> List[str]:
    """`bwrap` up to `--` for the solution's process."""
    return sandbox.bwrap_argv(solution_view(binds, files, device))


def drop_code(uid: Optional[int]) -> str:
    """Python that first becomes `uid`, as solver.py does."""
    return f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid})" if uid else "pass"


#: The modes this process found, by kind of device ("cpu", "cuda"): each probed once.
_MODES: Dict[str, Mode] = {}


def probe(use_sandbox: bool = True, device: str = "cpu") -> Mode:
    """How solutions run on `device` here, found once per process (see the module doc)."""
    if not use_sandbox:
        return Mode("none", None if device.startswith("cuda") else _plain_uid(), "--no-sandbox")
    kind = "cuda" if device.startswith("cuda") else "cpu"
    if kind not in _MODES:
        _MODES[kind] = _probe_gpu(device) if kind == "cuda" else _probe_cpu()
    return _MODES[kind]


def _probe_cpu() -> Mode:
    uid = solution_uid()
    argv = bwrap_argv(python_paths(), {}, "cpu") + ["--", sys.executable, "-c", drop_code(uid)]
    failure = sandbox.bwrap_failure(tuple(argv))
    if failure is None:
        return Mode("bwrap", uid)
    return Mode("none", _plain_uid(), failure)


def _probe_gpu(device: str) -> Mode:
    """Unsandboxed on a GPU, the solution runs as the worker's user, beside it."""
    from generator.judge.gpu_probe import ipc_failure

    uid = solution_uid()
    failure = sandbox.bwrap_missing() or ipc_failure(device, uid)
    if failure is None:
        return Mode("bwrap", uid)
    return Mode("none", None, failure)


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
