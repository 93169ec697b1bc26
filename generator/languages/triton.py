"""Triton: a PyTorch-style `solve` that launches @triton.jit kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from generator.languages.base import SigParam
from generator.languages.pytorch import PyTorch


class Triton(PyTorch):
    key = "triton"
    title = "Triton"
    suffix = ".triton.py"
    template = "starter/triton.py.j2"
    scaffolded = True
    kernel_decorators = ("triton.jit",)
    tab_order = 2
    interpreted_on_cpu = True
    packages = ("triton",)

    # ------------------------------------------------------------------ judging
    def worker_env(self, device: str, target: Optional[str]) -> Dict[str, str]:
        """On the CPU, kernels run in Triton's interpreter (on CPU tensors)."""
        return {"TRITON_INTERPRET": "1"} if device == "cpu" else {}

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import require_module

        require_module("triton", "pip install triton")
        return super().load(artifact, params)
