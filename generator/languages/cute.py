"""CuTe DSL: `@cute.jit def solve(...)` over cute.Tensor, compiled with cute.compile."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

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

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """The file must parse; cute.compile runs in the worker, where the case's tensors are
        (on a machine without a GPU, with CUTE_DSL_ARCH set to the target)."""
        from generator.judge.bindings import check_python_source

        return check_python_source(source)

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.judge.bindings import CuteSolve, import_file, require_module, solve_of

        require_module("cutlass", "install nvidia-cutlass-dsl or set CHGEN_CUTE_SITE")
        return CuteSolve(solve_of(import_file(artifact), artifact))
