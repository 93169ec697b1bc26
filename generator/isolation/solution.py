"""What a solution's process sees, and the environment it inherits.

Inside the sandbox the process sees the system folders and the Python environment read-only,
chgen's own package, its scratch folder (a small tmpfs), the solution file and, on a GPU
machine, the /dev/nvidia* nodes, /sys and the persistence daemon's socket (read-only); no
challenge folder, no `solutions/`, no cache, no home and no network. Run by root, the solution
runs as `nobody`. The command line comes from bwrap.py (the one builder, shared with spec code);
whether it works here is probe.py's to say.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from generator.isolation.bwrap import View, bwrap_argv
from generator.resources import PACKAGE_DIR

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


def solution_env(env: Dict[str, str], scratch: str) -> Dict[str, str]:
    kept = {k: v for k, v in env.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES)}
    kept.update({"HOME": scratch, "TMPDIR": scratch, "XDG_CACHE_HOME": f"{scratch}/.cache"})
    kept.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return kept


def _forbidden() -> List[Path]:
    """Folders no bound path may contain: the checkout (challenges, solutions), the home."""
    folders = [PACKAGE_DIR.parent, Path.home(), Path.cwd()]
    return [f.resolve() for f in folders if f.resolve() != Path("/")]


def python_paths(extra: Sequence[str] = ()) -> List[str]:
    """The interpreter and its import path, minus anything that would expose a forbidden folder
    (an entry equal to or above the checkout or the home)."""
    forbidden = _forbidden()
    wanted = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    wanted += [p for p in sys.path if p] + list(extra)
    kept: List[str] = [str(PACKAGE_DIR)]
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
    env = solution_env(os.environ, scratch)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_DIR.parent)] + _entries("PYTHONPATH"))
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


def solution_argv(binds: Sequence[str], files: Dict[str, str], device: str) -> List[str]:
    """`bwrap` up to `--` for the solution's process."""
    return bwrap_argv(solution_view(binds, files, device))


def drop_code(uid: Optional[int]) -> str:
    """Python that first becomes `uid`, as solver.py does."""
    return f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid})" if uid else "pass"
