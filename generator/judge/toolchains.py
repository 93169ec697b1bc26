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
from typing import Dict, List, Optional

from generator.languages import BY_KEY, packages
from generator.toolchain.tools import tool_version

#: every language's distributions, then what the judge and the baselines use besides
PACKAGES = tuple(
    packages() + ["numpy", "liger-kernel"]  # liger: a baseline's library, maybe on PYTHONPATH
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
    language's default (the H200's). Languages built for no architecture have none."""
    adapter = BY_KEY[language]
    if adapter.default_target is None:
        return None
    if override:
        return override
    visible = gpus()
    if visible:
        major, _, minor = visible[0]["compute_cap"].partition(".")
        return adapter.target_for_gpu(int(major), int(minor or "0"))
    return adapter.default_target


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
