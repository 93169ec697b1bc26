"""Names chgen accepts: slugs, display names, identifiers, and the words no language may use.

Shared by the spec model and `chgen check`; free of pydantic so the static checks stay fast.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import List, Optional

#: lowercase letters and digits in words joined by single underscores: the directory is
#: <id>_<slug>; a slug may start with a digit (the public set has 9_1d_convolution, 48_2d_...)
SLUG_RE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")
#: a challenge directory another tree already spells its own way: the id, an underscore, then
#: letters, digits, underscores and hyphens (the public set has 39_Fast_Fourier_transform)
DIRECTORY_RE = re.compile(r"^\d+_[A-Za-z0-9][A-Za-z0-9_-]*$")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: the difficulty folders of a LeetGPU-layout tree, in display order
DIFFICULTIES = ("easy", "medium", "hard")
#: spec files are named <id>_<slug>.yaml
SPEC_NAME_RE = re.compile(r"^(\d+)_([a-z0-9_]+)\.ya?ml$")
#: the spec format's JSON Schema: packaged beside generator/, and written beside the specs that name
#: it (generator/spec_docs.py)
SCHEMA_NAME = "chgen-spec.schema.json"
#: the first line of every spec `chgen new` and `chgen import` write: an editor running the YAML
#: language server validates and completes the spec against the schema beside it; the path is
#: relative to the spec, so it holds in any clone, on any machine, offline
MODELINE = f"# yaml-language-server: $schema={SCHEMA_NAME}"
#: the display name becomes part of a URL: words of letters and digits separated by single spaces
#: or hyphens, where a run of words may stand in parentheses ("General Matrix Multiplication
#: (GEMM)", "Parallel Reverse Scan (GAE)": the only other characters the public set's names use)
_WORD = r"[A-Za-z0-9]+"
_GROUP = rf"(?:{_WORD}|\({_WORD}(?:[ -]{_WORD})*\))"
URL_NAME_RE = re.compile(rf"^{_GROUP}(?:[ -]{_GROUP})*$")
#: how docs/spec.md words URL_NAME_RE
URL_NAME_RULE = (
    "words of letters and digits separated by single spaces or hyphens; words may stand in "
    "parentheses, e.g. 'General Matrix Multiplication (GEMM)'"
)

#: Parameter names are Python identifiers everywhere (challenge.py and five starters are Python),
#: so Python's keywords are refused; a word that is a keyword of one other language only (Mojo's
#: `out`, C's `int`) is escaped by that language's adapter (generator/languages/, `keywords`).
#: Names the generated challenge.py already uses for its own locals.
RESERVED_NAMES = {"self", "dtype", "tests", "torch", "ctypes", "device", "solve", "cute", "jax",
                  "jnp", "tl", "triton", "cutlass", "math"}  # fmt: skip


def forbidden_name_reason(name: str) -> Optional[str]:
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "a Python keyword"
    if name in RESERVED_NAMES:
        return "a name the generated code uses itself"
    if name.startswith("_"):
        return "a private name (leading underscore)"
    return None


def find_specs(folder: Path) -> List[Path]:
    """Spec files (<id>_<slug>.yaml) in `folder`, sorted by id."""
    found = [p for p in folder.glob("*.y*ml") if SPEC_NAME_RE.match(p.name)]
    return sorted(found, key=lambda p: int(SPEC_NAME_RE.match(p.name).group(1)))
