"""TileLang: a PyTorch-style `solve` over torch tensors that launches TileLang kernels
(`@tilelang.jit` factories returning `@T.prim_func` kernels, or `tilelang.compile`).

What runs where: TileLang's own CPU dialect (target "c") lowers only a subset — fragment
reductions such as `T.reduce_sum` on `T.alloc_fragment` buffers are rejected ("CPU reduce only
supports local src") — so a kernel written for the GPU does not run on the CPU. Without a GPU
the judge therefore compile-checks: the worker sets TileLang's default target to CUDA for the
build target (sm_90) and calls solve on the example's tensors with kernel launches intercepted,
so every kernel solve compiles (nvcc, ~2 s) is built for the real shapes, and nothing runs.
On a GPU, solve runs as it is, on TileLang's automatically chosen target.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from generator.languages.base import SigParam
from generator.languages.pytorch import PyTorch

#: how TileLang code names `tilelang.language`, and the name used when a parameter takes it
LANGUAGE_ALIAS = "T"
FALLBACK_ALIAS = "TL"


class TileLang(PyTorch):
    """Easy starters carry no kernel scaffold: a TileLang kernel declares every tensor with
    its shape (`T.Tensor((N, C), "float32")`), and the starter context holds the launch grid
    only, not each tensor's shape; an empty solve is what the other tensor-typed starters of
    easy challenges (PyTorch, JAX, CuTe DSL) hold too.

    `required_in_tree` is False: the public challenge set predates TileLang, so a tree without
    `starter.tilelang.py` is a tree of the six original languages, not a broken one. A
    TileLang starter that is there is checked like every other; our own trees always hold one
    (`chgen generate --check` catches a missing file there)."""

    key = "tilelang"
    title = "TileLang"
    suffix = ".tilelang.py"
    template = "starter/tilelang.py.j2"
    kernel_decorators = (
        "tilelang.jit",
        *(f"{alias}.prim_func" for alias in (LANGUAGE_ALIAS, FALLBACK_ALIAS)),
    )
    required_in_tree = False
    tab_order = 6
    runs_on_cpu = False
    compiles_in_worker = True
    default_target = "sm_90"
    packages = ("tilelang",)
    distributed_refusal = "the judge starts no process group for TileLang solutions yet"

    def extra_context(self, params: Sequence[SigParam], ranks: bool = False) -> Dict[str, Any]:
        """`import tilelang.language as T`, unless a parameter is called T (challenge 143's
        row count): then the module is TL, so that solve's parameter does not redefine it."""
        taken = {p.name for p in params}
        return {"language_alias": FALLBACK_ALIAS if LANGUAGE_ALIAS in taken else LANGUAGE_ALIAS}

    # ------------------------------------------------------------------ judging
    def worker_env(self, device: str, target: Optional[str]) -> Dict[str, str]:
        """Without a GPU, kernels are compiled for CUDA at the target architecture (TileLang
        takes a JSON target here; a string such as "cuda -arch=sm_90" is rejected)."""
        if device == "cpu" and target:
            return {"TILELANG_DEFAULT_TARGET": json.dumps({"kind": "cuda", "arch": target})}
        return {}

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import PythonSolve, import_file, require_module, solve_of

        require_module("tilelang", "pip install tilelang")
        return PythonSolve(solve_of(import_file(artifact), artifact))

    def compile_only(self, solve: Any, params: Sequence[SigParam], values: Dict[str, Any]) -> None:
        """Call solve with every kernel launch skipped: each kernel solve builds is compiled for
        TileLang's default target and none runs. What solve does after a skipped launch may fail
        on what the kernel did not write; once a kernel was compiled, that is no build error.
        A solve that launches nothing (a starter) compiles nothing and passes."""
        from tilelang.jit.kernel import JITKernel

        from generator.toolchain.errors import BuildError

        skipped = []

        def skip(kernel: Any, *args: Any, **kwargs: Any) -> None:
            skipped.append(kernel)

        args = [values[p.name] for p in params]
        launch = JITKernel.__call__
        JITKernel.__call__ = skip  # type: ignore[method-assign]
        try:
            solve.fn(*args)
        except Exception as exc:
            if not skipped:
                raise BuildError(f"TileLang: {type(exc).__name__}: {exc}") from exc
        finally:
            JITKernel.__call__ = launch  # type: ignore[method-assign]
