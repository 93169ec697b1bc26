"""CuTe DSL: `@cute.jit def solve(...)` over cute.Tensor, compiled with cute.compile."""

from __future__ import annotations

from generator.languages.base import Language, SigParam


class Cute(Language):
    key = "cute"
    title = "CuTe DSL"
    suffix = ".cute.py"
    template = "starter/cute.py.j2"
    formatter = "python_format"

    def tensor_type(self, p: SigParam) -> str:
        return "cute.Tensor"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.cute_scalar
