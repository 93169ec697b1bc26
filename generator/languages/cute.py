"""CuTe DSL: `@cute.jit def solve(...)` over cute.Tensor, compiled with cute.compile."""

from __future__ import annotations

import os
import site
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Set

from generator.languages.base import Language, SigParam

#: where the CuTe DSL may live apart from the judge's own packages (a GPU machine's wheels)
SITE_ENV = "CHGEN_CUTE_SITE"


class Cute(Language):
    key = "cute"
    title = "CuTe DSL"
    suffix = ".cute.py"
    template = "starter/cute.py.j2"
    formatter = "python_format"
    kernel_decorators = ("cute.kernel", "cute.jit")
    tab_order = 4
    compiles_in_worker = True
    default_target = "sm_90a"
    packages = ("nvidia-cutlass-dsl",)
    distributed_refusal = "its solve gets CuTe tensors, which no collective takes"

    def tensor_type(self, p: SigParam) -> str:
        return "cute.Tensor"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.cute_scalar

    def accepted_scalar_types(self, p: SigParam) -> Set[str]:
        """The cutlass element type is accepted too, under either module name."""
        element = p.dtype.cute_element
        return {self.scalar_type(p), element, element.replace("cutlass.", "cute.")}

    # ------------------------------------------------------------------ judging
    def target_for_gpu(self, major: int, minor: int) -> str:
        """CuTe DSL wants the architecture-specific variant on Hopper and later (sm_90a)."""
        return f"sm_{major}{minor}" + ("a" if major >= 9 else "")

    def worker_env(self, device: str, target: Optional[str]) -> Dict[str, str]:
        """Without a GPU, cute.compile learns the architecture from CUTE_DSL_ARCH."""
        return {"CUTE_DSL_ARCH": target} if device == "cpu" and target else {}

    def prepare_worker(self) -> None:
        if os.environ.get(SITE_ENV):
            site.addsitedir(os.environ[SITE_ENV])

    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """The file must parse; cute.compile runs in the worker, where the case's tensors are
        (on a machine without a GPU, with CUTE_DSL_ARCH set to the target)."""
        from generator.toolchain.bindings import check_python_source

        return check_python_source(source)

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import CuteSolve, import_file, require_module, solve_of

        require_module("cutlass", f"install nvidia-cutlass-dsl or set {SITE_ENV}")
        return CuteSolve(solve_of(import_file(artifact), artifact))

    def compile_only(self, solve: Any, params: Sequence[SigParam], values: Dict[str, Any]) -> None:
        """Binding a CuTe solution is its cute.compile."""
        solve.bind(params, values)
