"""Triton: a PyTorch-style `solve` that launches @triton.jit kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

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
    #: what the public easy Triton kernels call the element count of a 1-D launch (public 1, 8,
    #: 21, 23, 24, 52, 68), whatever the signature calls it; 2-D kernels keep the names
    element_count = "n_elements"

    def kernel_parameter_names(self, params: Sequence[SigParam], grid: Sequence[str]) -> List[str]:
        names = super().kernel_parameter_names(params, grid)
        if len(grid) != 1 or self.element_count in names:
            return names
        return [self.element_count if name == grid[0] else name for name in names]

    # ------------------------------------------------------------------ judging
    def worker_env(self, device: str, target: Optional[str]) -> Dict[str, str]:
        """On the CPU, kernels run in Triton's interpreter (on CPU tensors)."""
        return {"TRITON_INTERPRET": "1"} if device == "cpu" else {}

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import require_module

        require_module("triton", "pip install triton")
        return super().load(artifact, params)
