"""Mojo (1.2, MAX 26.7): `@export def solve(...) abi("C")` over untracked-origin pointers."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from generator.languages.base import Language, SigParam


class Mojo(Language):
    key = "mojo"
    title = "Mojo"
    suffix = ".mojo"
    template = "starter/mojo.mojo.j2"
    noun = ("device pointer", "device pointers")
    easy_suffix = (" (i.e. pointer to memory on the GPU)", " (i.e. pointers to memory on the GPU)")
    formatter = "mojo_format"
    starter_syntax = "mojo"
    scaffolded = True
    tab_order = 5
    lexer = "mojo"
    native = True
    own_streams = True
    default_target = "sm_90"
    build_tool = "mojo"
    packages = ("mojo", "max-core")
    distributed_refusal = "Mojo has no binding of NCCL or of a process group"
    #: a built library needs the Mojo runtime beside it where it runs (bundled by --build-only)
    bundles_runtime = True
    #: parse error "expected argument name" in Mojo 1.2, even in backticks (`` `out` `` parses as
    #: the `out` convention): a parameter so named is written `out_`
    keywords = frozenset(
        {
            "out", "ref", "mut", "var", "def", "fn", "struct", "trait", "deinit", "comptime",
            "imm", "read", "in", "is", "not", "and", "or", "with", "owned", "inout", "borrowed",
            "alias", "let", "raises", "capturing", "self", "Self",
        }
    )  # fmt: skip

    def tensor_type(self, p: SigParam) -> str:
        # Untracked origins are the ones documented for memory the caller owns; Imm for inputs
        # mirrors `const` in CUDA.
        origin = "ImmUntrackedOrigin" if p.direction == "in" else "MutUntrackedOrigin"
        return f"Pointer[{p.dtype.mojo}, {origin}]"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.mojo

    def current_helper(self, code: str) -> str:
        """Helper code of an older Mojo in 1.2's terms: `alias NAME = ...` is `comptime NAME =
        ...` (mblack no longer parses alias), and a shift takes its count in the shifted value's
        own type (`x >> (i * 8)` with `x: UInt32` is `x >> UInt32(i * 8)`: 1.2 converts no Int
        to UInt32 implicitly)."""
        code = re.sub(r"^(\s*)alias\s", r"\1comptime ", code, flags=re.M)
        typed = dict(re.findall(r"\b(\w+)\s*:\s*((?:U?Int|Float)\d+)\b", code))

        def typed_shift(match: "re.Match[str]") -> str:
            name, op, count = match.group(1), match.group(2), match.group(3)
            kind = typed.get(name)
            if kind is None or count.startswith(kind + "("):
                return match.group(0)
            return f"{name} {op} {kind}({count})"

        return re.sub(r"\b(\w+)\s*(>>|<<)\s*\(([^()]*)\)", typed_shift, code)

    def current_starter(self, text: str, directions: Dict[str, str]) -> Optional[str]:
        from generator.languages.mojo_upgrade import upgrade

        upgraded = upgrade(text, directions)
        return None if upgraded is None else self.current_helper(upgraded)

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """`mojo build --emit shared-lib --target-accelerator ARCH`: cross-builds without a GPU."""
        from generator.toolchain.tools import run_build

        out = workdir / "solution.so"
        command, env = self.build_command(source, out, target)
        run_build(command, source, workdir, env)
        return out

    def build_command(
        self, source: Path, out: Path, target: Optional[str]
    ) -> Tuple[List[str], Dict[str, str]]:
        """The command and environment of `build` (for callers that also read its warnings).

        The link step runs `cc`; crash reporting and telemetry are off (no network)."""
        from generator.toolchain.tools import MOJO_ENV, executable

        mojo = executable("mojo")
        if mojo is None:
            raise FileNotFoundError("mojo not found (install the mojo package)")
        if shutil.which("cc") is None:
            raise FileNotFoundError("mojo build links with 'cc': no C compiler on PATH")
        arch = target or self.default_target
        command = [mojo, "build", "--emit", "shared-lib", "--target-accelerator", arch]
        return command + [str(source.resolve()), "-o", str(out)], {**os.environ, **MOJO_ENV}

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        """The runtime libraries are loaded first (RTLD_GLOBAL), so the .so resolves them by
        soname wherever it was built."""
        from generator.toolchain.bindings import (
            NativeSolve,
            mojo_runtime_from_env,
            preload_mojo_runtime,
        )

        preload_mojo_runtime(mojo_runtime_from_env())
        return NativeSolve(artifact, params)
