"""Compilers and their runtimes: where a tool is, which version it is, how it is run.

Found without importing torch or touching the GPU, so the parent process of the judge can use
them too.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

from generator.toolchain.errors import BuildError

#: Mojo and MAX must not phone home (crash reports, telemetry): no network is assumed.
MOJO_ENV = {"MODULAR_CRASH_REPORTING_ENABLED": "false", "MODULAR_TELEMETRY_ENABLED": "0"}
#: The Mojo runtime a built .so needs, in an order where each library's dependencies come first.
MOJO_RUNTIME_LIBS = (
    "libMSupportGlobals.so",
    "libAsyncRTRuntimeGlobals.so",
    "libKGENCompilerRTShared.so",
    "libAsyncRTMojoBindings.so",
    "libNVPTX.so",
)
#: The word that marks the version line in each tool's `--version` output.
_VERSION_MARKERS = {"nvcc": "release"}


def executable(tool: str) -> Optional[str]:
    """A tool on PATH, or installed beside this Python (an unactivated virtual environment)."""
    beside = Path(sys.executable).parent / tool
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(tool)


def _first_line_with(output: str, needle: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    picked = [line for line in lines if needle in line.lower()]
    return (picked or lines or ["unknown"])[-1]


@functools.lru_cache(maxsize=None)
def tool_version(tool: str) -> Optional[str]:
    """`nvcc` and `mojo` versions as they print them; None when the tool is missing."""
    exe = executable(tool)
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **MOJO_ENV},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return _first_line_with(done.stdout + done.stderr, _VERSION_MARKERS.get(tool, tool))


def run_build(command: list, source: Path, workdir: Path, env: Optional[dict] = None) -> None:
    """Run a compiler in `workdir`; its own output becomes the BuildError message, with the
    source's folder left out of paths (the message is cached by content, not by location)."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=900, env=env, cwd=str(workdir)
        )
    except subprocess.TimeoutExpired:
        raise BuildError(f"{Path(command[0]).name} ran for more than 900 s") from None
    if done.returncode != 0:
        output = strip_ansi(done.stderr + done.stdout)
        for folder in (workdir, source.resolve().parent, Path(command[0]).parent):
            output = output.replace(str(folder) + "/", "")
        raise BuildError(output.strip() or f"{Path(command[0]).name} exited {done.returncode}")


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def find_mojo_runtime() -> Optional[Path]:
    """The folder holding the Mojo runtime (modular/lib in site-packages), or CHGEN_MOJO_RUNTIME."""
    candidates = []
    if os.environ.get("CHGEN_MOJO_RUNTIME"):
        candidates.append(Path(os.environ["CHGEN_MOJO_RUNTIME"]))
    for entry in sys.path:
        if entry:
            candidates.append(Path(entry) / "modular" / "lib")
    for folder in candidates:
        if all((folder / name).is_file() for name in MOJO_RUNTIME_LIBS):
            return folder
    return None


#: the distribution that ships NCCL's header and library (the toolchains extra installs it)
NCCL_DISTRIBUTION = "nvidia-nccl-cu13"


def find_nccl() -> Optional[Path]:
    """NCCL's folder (include/nccl.h, lib/libnccl.so.2): CHGEN_NCCL_HOME, else the `nvidia.nccl`
    package of the nvidia-nccl-cu13 wheel; None when neither holds the header."""
    candidates = []
    if os.environ.get("CHGEN_NCCL_HOME"):
        candidates.append(Path(os.environ["CHGEN_NCCL_HOME"]))
    for entry in sys.path:
        if entry:
            candidates.append(Path(entry) / "nvidia" / "nccl")
    return next(
        (folder for folder in candidates if (folder / "include" / "nccl.h").is_file()), None
    )


def nccl_missing() -> str:
    """The one line a build that includes nccl.h without NCCL installed ends with."""
    return (
        f"nccl.h not found: install chgen's toolchains extra ({NCCL_DISTRIBUTION}) or set "
        "CHGEN_NCCL_HOME to a folder holding include/nccl.h"
    )
