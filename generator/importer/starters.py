"""The starters: an easy challenge's scaffold, and how the originals differ from chgen's.

Starters carry nothing a spec does not already say, except an easy challenge's kernel name and
launch grid, which are read from the CUDA starter. Every original starter is then compared with the
one chgen renders, so that a difference is reported rather than silently replaced.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

_KERNEL_RE = re.compile(r"__global__\s+void\s+(\w+)\s*\(")
_GRID_1D_RE = re.compile(
    r"blocksPerGrid\s*=\s*\(\s*(\w+)\s*\+\s*threadsPerBlock\s*-\s*1\s*\)\s*/\s*threadsPerBlock"
)
_GRID_2D_RE = re.compile(
    r"blocksPerGrid\s*\(\s*\(\s*(\w+)\s*\+\s*threadsPerBlock\.x\s*-\s*1\s*\)\s*/\s*"
    r"threadsPerBlock\.x\s*,\s*\(\s*(\w+)\s*\+\s*threadsPerBlock\.y\s*-\s*1\s*\)\s*/\s*"
    r"threadsPerBlock\.y\s*\)",
    re.S,
)
_OLD_MOJO = ("UnsafePointer", "MutExternalOrigin", "from std.gpu", "from gpu", " raises:", "fn ")


def read_starters(starter_dir: Path, names: Sequence[str]) -> Dict[str, Optional[str]]:
    found = {}
    for name in names:
        path = starter_dir / name
        found[name] = path.read_text(encoding="utf-8") if path.is_file() else None
    return found


_PREAMBLE_RE = re.compile(r"^(import |from \S+ import |#include\b)")
_SOLVE_RE = re.compile(r"^(def solve\(|extern \"C\"|@export\b)")


def helpers(text: Optional[str], kernel: Optional[str]) -> Optional[str]:
    """The code a starter ships between its imports and its kernel stub (or, without one, the
    comment above solve): helper functions such as a hash the solver should use."""
    if text is None:
        return None
    lines = text.splitlines()
    start = max((i + 1 for i, line in enumerate(lines) if _PREAMBLE_RE.match(line)), default=0)
    # the stub is named as in starter.cu, or with `_kernel` appended (the public Mojo and Triton
    # starters' habit when starter.cu names it without)
    kernel_re = (
        re.compile(rf"^(def|__global__\s+\w+)\s+{re.escape(kernel)}(_kernel)?\s*\(")
        if kernel
        else None
    )
    stop = len(lines)
    for i in range(start, len(lines)):
        if _SOLVE_RE.match(lines[i]) or (kernel_re and kernel_re.match(lines[i])):
            stop = i
            break
    while stop > start and (
        lines[stop - 1].startswith(("@", "#", "//")) or not lines[stop - 1].strip()
    ):
        stop -= 1  # the kernel's or solve's decorators and comment, blank lines
    code = "\n".join(lines[start:stop]).strip("\n")
    return code + "\n" if code.strip() else None


def scaffold(cuda: Optional[str], sizes: List[str]) -> Tuple[Optional[dict], List[str]]:
    """{kernel, grid} from the CUDA starter's __global__ function and its launch arithmetic."""
    notes: List[str] = []
    if not cuda:
        return None, ["starter.cu is missing: no kernel name or grid to read"]
    kernel = _KERNEL_RE.search(cuda)
    if not kernel:
        return None, ["starter.cu declares no __global__ kernel to scaffold"]
    two_d = _GRID_2D_RE.search(cuda)
    one_d = _GRID_1D_RE.search(cuda)
    if two_d:
        grid = [two_d.group(2), two_d.group(1)]  # (x: columns, y: rows) -> [rows, cols]
    elif one_d:
        grid = [one_d.group(1)]
    else:
        grid = []
    if not grid or any(g not in sizes for g in grid):
        fallback = sizes[:1]
        notes.append(
            f"starter.cu launches over {grid or 'an expression'} rather than size parameters; "
            f"the scaffold's grid is {fallback} (not representable)"
        )
        grid = fallback
    return {"kernel": kernel.group(1), "grid": grid}, notes


def _solve_params(text: str) -> List[str]:
    match = re.search(r"def solve\((.*?)\)\s*(?:->[^:]*)?:", text, re.S)
    if not match:
        return []
    return [p.split(":")[0].strip() for p in match.group(1).split(",") if p.strip()]


def difference(name: str, original: Optional[str], generated: str) -> str:
    """Why an original starter is not what chgen writes, in one line."""
    if original is None:
        return f"{name} is missing; chgen writes it"
    if name.endswith(".mojo") and any(marker in original for marker in _OLD_MOJO):
        return f"{name} is on an older Mojo API; chgen writes it on the current one"
    if name.endswith(".py"):
        params = _solve_params(original)
        if params and params != [p for p in _solve_params(generated)]:
            return (
                f"{name}: solve takes ({', '.join(params)}), not the signature's names; chgen "
                "writes the signature's"
            )
    old_lines, new_lines = original.splitlines(), generated.splitlines()
    for number, (old, new) in enumerate(zip(old_lines, new_lines), start=1):
        if old != new:
            return f"{name} line {number} differs: {old.strip()!r} -> chgen {new.strip()!r}"
    if len(old_lines) != len(new_lines):
        return f"{name} differs in length ({len(old_lines)} lines -> chgen {len(new_lines)})"
    return f"{name} differs in whitespace"
