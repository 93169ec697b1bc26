"""Can solutions run in the sandbox here? Probed once per process and kind of device.

On the CPU by starting the interpreter in the solution's sandbox as the solution's user; on a GPU
by opening a judge-exported CUDA IPC handle in it (gpu_probe.py). Where the probe fails the
process runs unsandboxed, and says why; the limits (limits.py) apply either way.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from typing import Dict, Optional

from generator.isolation import bwrap
from generator.isolation.limits import solution_uid
from generator.isolation.solution import drop_code, python_paths, solution_argv


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
    argv = solution_argv(python_paths(), {}, "cpu") + ["--", sys.executable, "-c", drop_code(uid)]
    failure = bwrap.bwrap_failure(tuple(argv))
    if failure is None:
        return Mode("bwrap", uid)
    return Mode("none", _plain_uid(), failure)


def _probe_gpu(device: str) -> Mode:
    """Unsandboxed on a GPU, the solution runs as the worker's user, beside it."""
    from generator.isolation import gpu_probe

    uid = solution_uid()
    failure = bwrap.bwrap_missing() or gpu_probe.ipc_failure(device, uid)
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
