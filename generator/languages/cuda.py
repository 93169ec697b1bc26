"""CUDA C++: `extern "C" void solve(...)` over device pointers, formatted by clang-format."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from generator.languages.base import BuildError, Language, SigParam


class Cuda(Language):
    key = "cuda"
    title = "CUDA"
    suffix = ".cu"
    template = "starter/cuda.cu.j2"
    comment_prefix = "//"
    noun = ("device pointer", "device pointers")
    easy_suffix = (" (i.e. pointer to memory on the GPU)", " (i.e. pointers to memory on the GPU)")
    formatter = "clang_format"

    def tensor_type(self, p: SigParam) -> str:
        const = "const " if p.direction == "in" else ""
        return f"{const}{p.dtype.cuda}* {p.name}"

    def scalar_type(self, p: SigParam) -> str:
        return f"{p.dtype.cuda} {p.name}"

    def extra_context(self, params: Sequence[SigParam]) -> Dict[str, Any]:
        includes = sorted({p.dtype.cuda_include for p in params if p.is_tensor} - {None})
        return {"includes": includes}

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """nvcc to a shared library for one architecture (SASS plus PTX for newer GPUs)."""
        from generator.judge.toolchains import DEFAULT_TARGETS, executable

        nvcc = executable("nvcc")
        if nvcc is None:
            raise FileNotFoundError("nvcc not found on PATH")
        out = workdir / "solution.so"
        arch = target or DEFAULT_TARGETS["cuda"]
        command = [nvcc, "-O3", f"-arch={arch}", "-std=c++17", "-shared", "-Xcompiler", "-fPIC"]
        run_build(command + ["-o", str(out), str(source.resolve())], source, workdir)
        return out

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.judge.bindings import NativeSolve

        return NativeSolve(artifact, params)


def run_build(command: list, source: Path, workdir: Path, env: Optional[dict] = None) -> None:
    """Run a compiler in `workdir`; its own output becomes the BuildError message, with the
    source's folder left out of paths (the message is cached by content, not by location)."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=900, env=env, cwd=str(workdir)
        )
    except subprocess.TimeoutExpired:
        raise BuildError(f"{Path(command[0]).name} ran for more than 900 s") from None
    if done.returncode != 0:
        output = strip_ansi(done.stderr + done.stdout)
        for folder in (workdir, source.resolve().parent, Path(command[0]).parent):
            output = output.replace(str(folder) + "/", "")
        raise BuildError(output.strip() or f"{Path(command[0]).name} exited {done.returncode}")


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
