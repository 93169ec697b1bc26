"""Triton: a PyTorch-style `solve` that launches @triton.jit kernels."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from generator.languages.base import SigParam
from generator.languages.pytorch import PyTorch


class Triton(PyTorch):
    key = "triton"
    title = "Triton"
    suffix = ".triton.py"
    template = "starter/triton.py.j2"

    # ------------------------------------------------------------------ judging
    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.judge.bindings import require_module

        require_module("triton", "pip install triton")
        return super().load(artifact, params)
