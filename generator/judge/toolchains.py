"""Toolchain and machine facts, found without importing torch or touching the GPU.

The parent process (`chgen judge`/`chgen test`) must not create a CUDA context, so the GPU is
queried with nvidia-smi; package versions come from installed metadata. These facts key the caches
and head the reports.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

#: Build targets used when no GPU is visible (what the H200 needs).
DEFAULT_TARGETS = {"cuda": "sm_90", "mojo": "sm_90", "cute": "sm_90a"}
PACKAGES = (
    "torch",
    "triton",
    "jax",
    "jaxlib",
    "nvidia-cutlass-dsl",
    "mojo",
    "max-core",
    "numpy",
    "liger-kernel",  # a baseline's library; on PYTHONPATH where it is not installed
)
MOJO_ENV = {"MODULAR_CRASH_REPORTING_ENABLED": "false", "MODULAR_TELEMETRY_ENABLED": "0"}
#: The Mojo runtime a built .so needs, in an order where each library's dependencies come first.
MOJO_RUNTIME_LIBS = (
    "libMSupportGlobals.so",
    "libAsyncRTRuntimeGlobals.so",
    "libKGENCompilerRTShared.so",
    "libAsyncRTMojoBindings.so",
    "libNVPTX.so",
)


def package_version(name: str) -> Optional[str]:
    """Installed version; also looks in CHGEN_CUTE_SITE, where the CuTe DSL may live apart."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
    extra = os.environ.get("CHGEN_CUTE_SITE")
    if extra:
        for dist in importlib.metadata.distributions(path=[extra]):
            if (dist.metadata["Name"] or "").lower() == name.lower():
                return dist.version
    return None


@functools.lru_cache(maxsize=None)
def package_versions() -> Dict[str, Optional[str]]:
    versions = {name: package_version(name) for name in PACKAGES}
    versions["python"] = platform.python_version()
    return versions


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
    return _first_line_with(done.stdout + done.stderr, "release" if tool == "nvcc" else "mojo")


def executable(tool: str) -> Optional[str]:
    """A tool on PATH, or installed beside this Python (an unactivated virtual environment)."""
    beside = Path(sys.executable).parent / tool
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(tool)


@functools.lru_cache(maxsize=None)
def gpus() -> List[Dict[str, str]]:
    """Visible NVIDIA GPUs (name, driver, compute capability, memory); empty without one."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    query = "name,driver_version,compute_cap,memory.total"
    try:
        done = subprocess.run(
            [exe, f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    found = []
    for line in done.stdout.splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) == 4:
            found.append(dict(zip(("name", "driver", "compute_cap", "memory"), parts)))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return []
    return found


def default_device() -> str:
    return "cuda" if gpus() else "cpu"


def target_for(language: str, override: Optional[str] = None) -> Optional[str]:
    """The architecture a language is built for: the option, else the visible GPU's, else the
    H200's. Python languages other than CuTe have none."""
    if language not in DEFAULT_TARGETS:
        return None
    if override:
        return override
    visible = gpus()
    if visible:
        major, _, minor = visible[0]["compute_cap"].partition(".")
        arch = f"sm_{major}{minor or '0'}"
        # CuTe DSL wants the architecture-specific variant on Hopper and later (sm_90a, sm_100a).
        if language == "cute" and int(major) >= 9:
            arch += "a"
        return arch
    return DEFAULT_TARGETS[language]


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


def machine_facts() -> Dict[str, object]:
    """What a report needs to say where it ran."""
    visible = gpus()
    return {
        "host": platform.node(),
        "platform": platform.platform(),
        "gpu": visible[0]["name"] if visible else None,
        "gpu_count": len(visible),
        "driver": visible[0]["driver"] if visible else None,
        "compute_cap": visible[0]["compute_cap"] if visible else None,
        "nvcc": tool_version("nvcc"),
        "mojo": tool_version("mojo"),
        "packages": package_versions(),
    }
