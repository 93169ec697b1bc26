"""PyTorch: `def solve(...)` over torch tensors, outputs written in place."""

from __future__ import annotations

from generator.languages.base import Language, SigParam


class PyTorch(Language):
    key = "pytorch"
    title = "PyTorch"
    suffix = ".pytorch.py"
    template = "starter/pytorch.py.j2"
    formatter = "python_format"

    def tensor_type(self, p: SigParam) -> str:
        return "torch.Tensor"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.python_scalar
