"""The machine a benchmark ran on, in the one line its results file records."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def describe() -> str:
    """`x86_64, 2 cores (AMD EPYC ...), Python 3.11.7`."""
    return (
        f"{platform.machine()}, {os.cpu_count()} cores ({cpu_model()}), "
        f"Python {platform.python_version()}"
    )
