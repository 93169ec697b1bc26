"""The starters: an easy challenge's scaffold, and how the originals differ from chgen's.

Starters carry nothing a spec does not already say, except an easy challenge's kernel name and
launch grid, which are read from the CUDA starter. Every original starter is then compared with the
one chgen renders: one that differs and that no rule of `chgen check` flags is kept as its author
wrote it (the spec's `kept_starters`; a Mojo starter moved onto Mojo 1.2's API, by that migration
alone), one that a rule flags is written in chgen's form; either way the report says which and why.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from generator.checks.source import starter_tree
from generator.formatting import FormatError, format_text
from generator.importer.draft import ScaffoldEntry, StarterScaffoldEntry
from generator.spec import shapes as shape_exprs

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


def helpers(
    text: Optional[str],
    kernel: Optional[str],
    stubs: Tuple[Sequence[int], Sequence[Tuple[int, str]]] = ((), ()),
) -> Optional[str]:
    """The code a starter ships between its imports and its kernel stub (or, without one, the
    comment above solve): helper functions such as a hash the solver should use. `stubs`: the
    first lines of the starter's top-level definitions, and (line, name) of those rule S010
    flags (a kernel stub in a medium/hard starter), which are left out with their decorators."""
    if text is None:
        return None
    lines = text.splitlines()
    starts, flagged = stubs
    dropped: Set[int] = set()
    for line, _ in flagged:
        first = line - 1
        while first > 0 and lines[first - 1].startswith(("@", "#", "//")):
            first -= 1
        end = min((s - 1 for s in starts if s > line), default=len(lines))
        while end > first + 1 and lines[end - 1].startswith(("@", "#", "//")):
            end -= 1  # the next definition's decorators and comment are its own
        while end < len(lines) and not lines[end].strip():
            end += 1  # and the blank lines after it: the code around keeps its own spacing
        dropped.update(range(first, end))
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
    kept = [line for i, line in enumerate(lines[start:stop], start) if i not in dropped]
    code = "\n".join(kept).strip("\n")
    return code + "\n" if code.strip() else None


def scaffold(cuda: Optional[str], sizes: List[str]) -> Tuple[Optional[ScaffoldEntry], List[str]]:
    """The kernel's name and grid from the CUDA starter's __global__ function and its launch
    arithmetic."""
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
    return ScaffoldEntry(kernel.group(1), grid), notes


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


def exploded_solve(text: Optional[str]) -> bool:
    """A Python starter whose solve lists one parameter per line although black's wrapped form
    (the parameters on one indented line) would fit: the magic trailing comma keeps it so."""
    if text is None:
        return False
    tree = starter_tree(text)
    if tree is None:
        return False
    solve = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"), None
    )
    if solve is None or not solve.args.args:
        return False
    lines = text.splitlines()
    header = lines[solve.lineno - 1 : solve.body[0].lineno - 1]
    one_per_line = len(header) >= len(solve.args.args) + 2 and all(
        line.rstrip().endswith(",") for line in header[1 : 1 + len(solve.args.args)]
    )
    return one_per_line and 4 + len(ast.unparse(solve.args)) <= 100


_LAUNCH_RE = re.compile(r"^    (\w+)\[grid\]\((.*)\)\s*$", re.M)
_GRID_COUNT_RE = re.compile(r"^    grid = \(triton\.cdiv\((.+), BLOCK_SIZE\),\)\s*$", re.M)


def python_scaffold(
    text: Optional[str],
    kernel: str,
    default_parameters: List[str],
    grid: List[str],
    sizes: Sequence[str],
) -> Optional[StarterScaffoldEntry]:
    """Where a Python (`@...jit` kernel stub) easy starter departs from chgen's scaffold: the
    stub's name, its parameter names, a 1-D launch over an expression of the sizes, BLOCK_SIZE
    passed by keyword. None when it matches, or has another form altogether."""
    if text is None:
        return None
    tree = starter_tree(text)
    if tree is None:
        return None
    launch = _LAUNCH_RE.search(text)
    if launch is None:
        return None
    stub = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == launch.group(1)),
        None,
    )
    if stub is None:
        return None
    names = [a.arg for a in stub.args.args]
    if not names or names[-1] != "BLOCK_SIZE" or len(names) - 1 != len(default_parameters):
        return None
    found = StarterScaffoldEntry()
    if stub.name != kernel:
        found.kernel = stub.name
    if names[:-1] != default_parameters:
        found.parameters = names[:-1]
    count = _GRID_COUNT_RE.search(text)
    if len(grid) == 1 and count is not None and count.group(1) != grid[0]:
        try:
            expr = shape_exprs.parse(count.group(1))
        except shape_exprs.ShapeError:
            return None
        if not set(shape_exprs.names(expr)) <= set(sizes):
            return None  # a launch over locals of its own: not a form the spec can write
        found.grid = shape_exprs.spelled(expr)
    if launch.group(2).rstrip().endswith("BLOCK_SIZE=BLOCK_SIZE"):
        found.block_keyword = True
    return found if found.data() else None


#: the rules of the Mojo 1.2 API migration: a starter they alone flag is kept, migrated
MIGRATION_RULES = {"mojo": frozenset({"S012", "S013", "S014"})}


@dataclass
class Kept:
    """What became of one original starter that differs from chgen's rendering."""

    name: str  # starter/starter.cu
    text: Optional[str]  # the starter as kept (migrated where its language moved on), or None
    why: str  # the report's note
    #: in a word, for counting: kept, migrated (changed by the API migration alone), or
    #: "chgen's form: <rules or reason>"
    status: str


def keep_or_rewrite(
    lang,
    original: str,
    rendered: str,
    flagged: Sequence[Tuple[str, str]],
    directions: Dict[str, str],
) -> Kept:
    """Keep `original` (on its language's current API) unless a rule of `chgen check` other than
    that API migration's flags it, the migration does not know one of its forms, or it is not
    what its formatter leaves (the repository's hooks would change it). `flagged`: (code,
    message) of each error `chgen check` finds in the original."""
    name = f"starter/{lang.starter_name}"
    chgens = f"{name} is written in chgen's form"
    migration = MIGRATION_RULES.get(lang.key, frozenset())
    breaks = [(code, message) for code, message in flagged if code not in migration]
    if breaks:
        codes = ", ".join(sorted({code for code, _ in breaks}))
        why = f"{chgens}: the original breaks {codes} ({breaks[0][1]})"
        return Kept(name, None, why, f"chgen's form: {codes}")
    current = lang.current_starter(original, directions)
    if current is None:
        why = f"it holds a form the {lang.title} API migration does not know"
        return Kept(name, None, f"{chgens}: {why}", "chgen's form: a form the migration lacks")
    try:
        formatted = format_text(lang.formatter, current, name)
    except FormatError as exc:
        return Kept(name, None, f"{chgens}: {exc}", "chgen's form: its formatter fails")
    if current == original and formatted != original:
        why = f"the original is not what the repository's formatter ({lang.formatter}) leaves"
        return Kept(name, None, f"{chgens}: {why}", "chgen's form: not formatted")
    if formatted == rendered:
        why = f"{name} is moved onto the current {lang.title} API, where it is chgen's form"
        return Kept(name, None, why, "migrated")
    moved = "" if current == original else f", moved onto the current {lang.title} API"
    shown = difference(name, formatted, rendered).removeprefix(f"{name} ")
    why = f"{name} is kept as written{moved} (kept_starters); chgen's form: {shown}"
    return Kept(name, formatted, why, "migrated" if moved else "kept")
