"""PyTorch: `def solve(...)` over torch tensors, outputs written in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

from generator.languages.base import Language, SigParam


class PyTorch(Language):
    key = "pytorch"
    title = "PyTorch"
    suffix = ".pytorch.py"
    template = "starter/pytorch.py.j2"
    formatter = "python_format"
    tab_order = 1
    runs_on_cpu = True
    packages = ("torch",)
    distributed_refusal = None
    #: torch.distributed is set up by the judge before solve is called
    distributed_doc = (
        "torch.distributed is initialised before solve is called: dist.get_rank(),",
        "dist.get_world_size() and collectives on the default group reach the other ranks.",
    )
    distributed_backends = {"cpu": "gloo", "cuda": "nccl"}

    def tensor_type(self, p: SigParam) -> str:
        return "torch.Tensor"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.python_scalar

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """Nothing to compile: the file must parse, and is imported as it is."""
        from generator.toolchain.bindings import check_python_source

        return check_python_source(source)

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import PythonSolve, import_file, solve_of

        return PythonSolve(solve_of(import_file(artifact), artifact))

    def load_entry(self, artifact: Path, params: Sequence[SigParam], entry: str) -> Any:
        from generator.toolchain.bindings import PythonSolve, import_file, solve_of

        return PythonSolve(solve_of(import_file(artifact), artifact, entry))
