"""Triton: a PyTorch-style `solve` that launches @triton.jit kernels."""

from __future__ import annotations

from generator.languages.pytorch import PyTorch


class Triton(PyTorch):
    key = "triton"
    title = "Triton"
    suffix = ".triton.py"
    template = "starter/triton.py.j2"
