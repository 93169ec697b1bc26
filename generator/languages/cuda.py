"""CUDA C++: `extern "C" void solve(...)` over device pointers, formatted by clang-format."""

from __future__ import annotations

from typing import Any, Dict, Sequence

from generator.languages.base import Language, SigParam


class Cuda(Language):
    key = "cuda"
    title = "CUDA"
    suffix = ".cu"
    template = "starter/cuda.cu.j2"
    comment_prefix = "//"
    noun = ("device pointer", "device pointers")
    easy_suffix = " (i.e. pointers to memory on the GPU)"
    formatter = "clang_format"

    def tensor_type(self, p: SigParam) -> str:
        const = "const " if p.direction == "in" else ""
        return f"{const}{p.dtype.cuda}* {p.name}"

    def scalar_type(self, p: SigParam) -> str:
        return f"{p.dtype.cuda} {p.name}"

    def extra_context(self, params: Sequence[SigParam]) -> Dict[str, Any]:
        includes = sorted({p.dtype.cuda_include for p in params if p.is_tensor} - {None})
        return {"includes": includes}
