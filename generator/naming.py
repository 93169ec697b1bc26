"""Names chgen accepts: slugs, display names, identifiers, and the words no language may use.

Shared by the spec model and `chgen check`; free of pydantic so the static checks stay fast.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import List, Optional

#: lowercase words joined by single underscores: the directory is <id>_<slug>
SLUG_RE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: the difficulty folders of a LeetGPU-layout tree, in display order
DIFFICULTIES = ("easy", "medium", "hard")
#: spec files are named <id>_<slug>.yaml
SPEC_NAME_RE = re.compile(r"^(\d+)_([a-z0-9_]+)\.ya?ml$")
#: letters, digits, single spaces and hyphens: the display name becomes part of a URL
URL_NAME_RE = re.compile(r"^[A-Za-z0-9]+(?:[ -][A-Za-z0-9]+)*$")

#: Names no generated language may use for a parameter: Python and Mojo keywords break the Python
#: starters and the Mojo parser ("expected argument name"); C/CUDA keywords break the CUDA starter.
MOJO_KEYWORDS = {
    "out", "ref", "mut", "var", "def", "fn", "struct", "trait", "deinit", "comptime", "imm",
    "read", "in", "is", "not", "and", "or", "with", "owned", "inout", "borrowed", "alias", "let",
    "raises", "capturing", "self", "Self",
}  # fmt: skip
C_KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "int", "long", "register", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "bool", "true", "false", "class", "new", "delete", "template", "this",
    "namespace", "using", "operator", "private", "public", "protected", "virtual", "half",
    "dim3", "threadIdx", "blockIdx", "blockDim", "gridDim",
}  # fmt: skip
#: Names the generated challenge.py already uses for its own locals.
RESERVED_NAMES = {"self", "dtype", "tests", "torch", "ctypes", "device", "solve", "cute", "jax",
                  "jnp", "tl", "triton", "cutlass", "math"}  # fmt: skip


def forbidden_name_reason(name: str) -> Optional[str]:
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "a Python keyword"
    if name in MOJO_KEYWORDS:
        return "a Mojo keyword (the Mojo starter would not parse)"
    if name in C_KEYWORDS:
        return "a C/CUDA keyword or built-in"
    if name in RESERVED_NAMES:
        return "a name the generated code uses itself"
    if name.startswith("_"):
        return "a private name (leading underscore)"
    return None


def find_specs(folder: Path) -> List[Path]:
    """Spec files (<id>_<slug>.yaml) in `folder`, sorted by id."""
    found = [p for p in folder.glob("*.y*ml") if SPEC_NAME_RE.match(p.name)]
    return sorted(found, key=lambda p: int(SPEC_NAME_RE.match(p.name).group(1)))
