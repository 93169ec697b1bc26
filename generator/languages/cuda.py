"""CUDA C++: `extern "C" void solve(...)` over device pointers, formatted by clang-format."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from generator.languages.base import Language, SigParam, StarterParam

NCCL_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"]nccl\.h[>\"]", re.M)


class Cuda(Language):
    key = "cuda"
    title = "CUDA"
    suffix = ".cu"
    template = "starter/cuda.cu.j2"
    comment_prefix = "//"
    noun = ("device pointer", "device pointers")
    easy_suffix = (" (i.e. pointer to memory on the GPU)", " (i.e. pointers to memory on the GPU)")
    formatter = "clang_format"
    c_declarations = True
    starter_syntax = "c"
    empty_body = "{}"
    scaffolded = True
    tab_order = 0
    lexer = "cuda"
    native = True
    default_target = "sm_90"
    #: T4, A100, H100/H200, B200
    platform_targets = ("sm_75", "sm_80", "sm_90", "sm_100")
    build_tool = "nvcc"
    distributed_refusal = None
    #: the judge makes an NCCL communicator per rank and passes it after the signature's parameters
    distributed_doc = (
        "After the signature's parameters solve gets ncclComm_t comm (this rank's NCCL",
        "communicator), int rank and int world_size. Launch kernels and collectives",
        "(ncclAllReduce(..., comm, 0)) on the default stream 0; the judge synchronises the",
        "device after solve returns.",
    )
    distributed_backends = {"cuda": "nccl"}
    distributed_communicator = "nccl"
    #: C/C++ keywords and the CUDA built-ins a parameter would shadow: written `int_`, `half_`
    keywords = frozenset(
        {
            "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
            "else", "enum", "extern", "float", "for", "goto", "if", "int", "long", "register",
            "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
            "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "class",
            "new", "delete", "template", "this", "namespace", "using", "operator", "private",
            "public", "protected", "virtual", "half", "dim3", "threadIdx", "blockIdx",
            "blockDim", "gridDim",
        }
    )  # fmt: skip

    def tensor_type(self, p: SigParam) -> str:
        const = "const " if p.direction == "in" else ""
        return f"{const}{p.dtype.cuda}* {p.name}"

    def scalar_type(self, p: SigParam) -> str:
        return f"{p.dtype.cuda} {p.name}"

    def rank_params(self) -> List[StarterParam]:
        return [
            StarterParam("comm", "ncclComm_t comm"),
            StarterParam("rank", "int rank"),
            StarterParam("world_size", "int world_size"),
        ]

    def extra_context(self, params: Sequence[SigParam], ranks: bool = False) -> Dict[str, Any]:
        includes = {p.dtype.cuda_include for p in params if p.is_tensor} - {None}
        return {"includes": sorted(includes | ({"nccl.h"} if ranks else set()))}

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """nvcc to a shared library for one architecture (SASS plus PTX for newer GPUs)."""
        from generator.toolchain.tools import executable, run_build

        nvcc = executable("nvcc")
        if nvcc is None:
            raise FileNotFoundError("nvcc not found on PATH")
        out = workdir / "solution.so"
        arch = target or self.default_target
        command = [nvcc, "-O3", f"-arch={arch}", "-std=c++17", "-shared", "-Xcompiler", "-fPIC"]
        command += self.nccl_flags(source)
        run_build(command + ["-o", str(out), str(source.resolve())], source, workdir)
        return out

    @staticmethod
    def nccl_flags(source: Path) -> List[str]:
        """NCCL's headers for a solution that includes nccl.h. It is not linked: its calls resolve
        to the libnccl the judge's rank loaded globally, the one its communicator comes from."""
        from generator.toolchain.tools import find_nccl, nccl_missing

        if not NCCL_INCLUDE.search(source.read_text(encoding="utf-8", errors="replace")):
            return []
        home = find_nccl()
        if home is None:
            raise FileNotFoundError(nccl_missing())
        return [f"-I{home / 'include'}"]

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import NativeSolve

        return NativeSolve(artifact, params)
