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


# ------------------------------------------------------------------ the 1.2 migration
# A starter written for an older Mojo, moved onto 1.2's API and nothing else. The public
# starters span three generations of the API (`from gpu.host`, `from std.gpu`,
# `UnsafePointer[T, MutExternalOrigin]`, `) raises:`, `ctx.compile_function[k, k]()`); each of
# those no longer builds or is deprecated in 1.2. `upgrade` rewrites exactly those constructs and
# keeps every other line as the author wrote it (names, launch arithmetic, blank lines,
# comments), so that an imported starter changes by the migration alone. A starter holding a form
# it does not know is not guessed at: it returns None and chgen writes its own form.

#: old module -> its 1.2 home (every other `gpu` submodule moved under max.gpu as it is)
_MODULES = {"gpu.host": "max.gpu.host", "gpu.id": "max.gpu", "gpu": "max.gpu"}
_GPU_IMPORT = re.compile(r"^(\s*from\s+)(?:std\.)?(gpu(?:\.\w+)*)(\s+import\b.*)$")
#: standard-library modules, which 1.2 finds only under `std.` (`from math import` fails to parse)
_STD_MODULES = ("math", "memory", "sys", "collections", "algorithm", "bit", "os", "time", "utils")
_STD_IMPORT = re.compile(rf"^(\s*from\s+)((?:{'|'.join(_STD_MODULES)})(?:\.\w+)*)(\s+import\b.*)$")
_MEMORY_IMPORT = re.compile(r"^\s*from\s+(?:std\.)?memory\s+import\s+(.+?)\s*$")
#: `UnsafePointer[T, <origin>]`, or `UnsafePointer[T]` (the origin inferred, an older form)
_POINTER = re.compile(r"\bUnsafePointer\[\s*([\w.]+)\s*(?:,\s*(\w+)\s*)?\]")
_OLD_ORIGINS = {
    "MutExternalOrigin",
    "MutableAnyOrigin",
    "ImmutExternalOrigin",
    "ImmutableAnyOrigin",
}
_PARAMETER = re.compile(r"(\b\w+)\s*:\s*UnsafePointer\[")
_SOLVE = re.compile(r"^def\s+solve\s*\(")
_RAISES = re.compile(r"\)\s*(?:raises\s*)?:\s*$")
_COMPILED = re.compile(
    r"^\s*var\s+(\w+)\s*=\s*ctx\.compile_function\[\s*(\w+)\s*(?:,\s*\2\s*)?\]\(\s*\)\s*$"
)
#: what must be gone afterwards; a starter still holding one has a form this does not know
_LEFT_OVER = re.compile(
    r"\bUnsafePointer\b|\bcompile_function\b|^\s*fn\s|"
    rf"\b(?:{'|'.join(sorted(_OLD_ORIGINS))})\b|"
    r"^\s*(?:from|import)\s+(?:std\.)?gpu\b",
    re.M,
)


def upgrade(text: str, directions: Dict[str, str]) -> Optional[str]:
    """`text` on Mojo 1.2's API, unformatted; None when it holds a form not known here.

    `directions`: solve's parameters -> "in", "out" or "inout"; an input pointer takes
    ImmUntrackedOrigin, every other MutUntrackedOrigin (a kernel stub's parameters by the solve
    parameter of the same name; a name solve lacks is mutable)."""
    lines: List[str] = []
    for line in text.split("\n"):
        upgraded = _import_line(line)
        if upgraded is None:
            continue  # an import of UnsafePointer alone: Pointer is a builtin
        lines.append(upgraded)
    lines = [_pointers(line, directions) for line in lines]
    lines = [re.sub(r"^(\s*)fn(\s+\w+\s*[\[(])", r"\1def\2", line) for line in lines]
    lines = [re.sub(r"^(\s*)alias(\s+\w+\s*=)", r"\1comptime\2", line) for line in lines]
    result = _exported_solve(lines)
    if result is None:
        return None
    upgraded_text = "\n".join(result)
    return None if _LEFT_OVER.search(_code_only(upgraded_text)) else upgraded_text


def _import_line(line: str) -> Optional[str]:
    match = _GPU_IMPORT.match(line)
    if match:
        module = match.group(2)
        new = _MODULES.get(module, "max." + module)
        return f"{match.group(1)}{new}{match.group(3)}"
    memory = _MEMORY_IMPORT.match(line)
    if memory:
        names = [n.strip() for n in memory.group(1).split(",") if n.strip()]
        kept = [n for n in names if n != "UnsafePointer"]
        if not kept:
            return None
        line = line.replace(memory.group(1), ", ".join(kept))
    std = _STD_IMPORT.match(line)
    if std:
        return f"{std.group(1)}std.{std.group(2)}{std.group(3)}"
    return line


def _pointers(line: str, directions: Dict[str, str]) -> str:
    """`name: UnsafePointer[T, <old origin>]` -> `name: Pointer[T, <Imm|Mut>UntrackedOrigin]`."""

    def new(match: "re.Match[str]") -> str:
        if match.group(2) is not None and match.group(2) not in _OLD_ORIGINS:
            return match.group(0)  # another origin: left for the leftover check to refuse
        before = line[: match.start()]
        owner = _PARAMETER.findall(before + "UnsafePointer[")
        name = owner[-1] if owner else None
        origin = "ImmUntrackedOrigin" if directions.get(name) == "in" else "MutUntrackedOrigin"
        return f"Pointer[{match.group(1)}, {origin}]"

    return _POINTER.sub(new, line)


def _exported_solve(lines: List[str]) -> Optional[List[str]]:
    """`) raises:` -> `) abi("C"):`; a body that launches goes inside `try: ... except e:
    print(e)` (an abi("C") function may not raise), launched as `enqueue_function[kernel](...)`."""
    start = next((i for i, line in enumerate(lines) if _SOLVE.match(line)), None)
    if start is None:
        return None
    ends = [i for i in range(start, len(lines)) if lines[i].rstrip().endswith(":")]
    header_end = ends[0] if ends else None
    if header_end is None:
        return None
    header = lines[header_end]
    if 'abi("C")' not in header.replace(" ", ""):
        if not _RAISES.search(header):
            return None
        header = _RAISES.sub(') abi("C"):', header)
    end = len(lines)
    for i in range(header_end + 1, len(lines)):
        if lines[i].strip() and not lines[i].startswith((" ", "\t")):
            end = i
            break
    body = lines[header_end + 1 : end]
    while body and not body[-1].strip():
        body.pop()
    trailing = lines[header_end + 1 + len(body) : end]
    statements = [line for line in body if line.strip() and not line.strip().startswith("#")]
    if [s.strip() for s in statements] in (["pass"], []) or any(
        s.strip().startswith("try:") for s in statements
    ):
        new_body = body
    else:
        new_body = _launch(body)
        if new_body is None:
            return None
        new_body = ["    try:"] + ["    " + line if line.strip() else line for line in new_body]
        new_body += ["    except e:", "        print(e)"]
    return lines[:header_end] + [header] + new_body + trailing + lines[end:]


def _launch(body: List[str]) -> Optional[List[str]]:
    """`var k = ctx.compile_function[K, K]()` then `ctx.enqueue_function(k, args...)` ->
    `ctx.enqueue_function[K](args...)`."""
    compiled: Dict[str, str] = {}
    kept: List[str] = []
    for line in body:
        match = _COMPILED.match(line)
        if match:
            compiled[match.group(1)] = match.group(2)
            continue
        kept.append(line)
    text = "\n".join(kept)
    for variable, kernel in compiled.items():
        pattern = re.compile(rf"enqueue_function\(\s*{re.escape(variable)}\s*,\s*")
        text, count = pattern.subn(f"enqueue_function[{kernel}](", text)
        if count == 0 or re.search(rf"\b{re.escape(variable)}\b", text):
            return None
    return text.split("\n")


def _code_only(text: str) -> str:
    """The text without comments (a comment may mention an old name)."""
    return "\n".join(line.split("#", 1)[0] for line in text.split("\n"))
