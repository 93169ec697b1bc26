"""Traced cases -> the spec's signature, shapes, distributions, defaults and case names.

Each tensor's recipe (see trace.py) becomes the spec distribution that draws the same values for the
same seed: `uniform`, `normal`, `randint`, `constant`, `correlated`, or `values` for literal data.
What has no such form is approximated and reported; the import then writes that case's inputs as
the original's own calls (coded.py).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import torch

from generator.challenge import ctypes_table
from generator.challenge.case_names import comment_above, finish_names, slugify  # noqa: F401
from generator.challenge.pyfile import SigEntry
from generator.dtypes import DTYPES, lookup
from generator.importer.pyast import ChallengeSource, FunctionalLayout, statement_of
from generator.importer.report import ImportFailure, Report
from generator.importer.trace import Recipe, Run, Traced
from generator.naming import forbidden_name_reason
from generator.spec import shapes as shape_exprs
from generator.spec.derived import is_size

#: `values:` literals are written out only up to this many elements where the values are drawn
#: (data the spec then fixes); literal data of the original's own is written out up to
#: LITERAL_VALUES_MAX elements (as the trace keeps it, trace._LITERAL_MAX)
VALUES_MAX = 64
LITERAL_VALUES_MAX = 4096


@dataclass
class ParamInfo:
    name: str
    dtype: str
    direction: str
    is_tensor: bool
    shape: Optional[List[Any]] = None
    #: case label -> the shape that case passes the tensor with, where its rank differs
    case_shapes: Dict[str, List[Any]] = field(default_factory=dict)


def spec_dtype(dtype: torch.dtype) -> Optional[str]:
    spelled = str(dtype).rsplit(".", 1)[-1]
    return spelled if spelled in DTYPES else None


def read_signature(source: ChallengeSource, instance: Any, run: Run, report: Report):
    """Names, directions and dtypes; c_uint16 (fp16 or bf16) is settled by the example's data."""
    entries = source.signature
    if entries is None:
        entries = _runtime_signature(instance)
        report.note("get_solve_signature is not a dict literal; read by calling it")
    params: List[ParamInfo] = []
    for entry in entries:
        if entry.ctype.split(".")[-1] == "Module":
            # only Python solutions could take it; a spec's solve is one C-ABI signature that
            # every language (CUDA, Mojo, ...) implements
            raise ImportFailure(
                f"parameter {entry.name!r} is a torch.nn.Module (a Python object): a spec's "
                "solve takes tensors and scalars every language can be called with (not "
                "representable)"
            )
    for entry in entries:
        reason = forbidden_name_reason(entry.name)
        if reason:
            raise ImportFailure(
                f"parameter {entry.name!r} is {reason}: the spec cannot name it (not representable)"
            )
        if entry.direction not in ("in", "out", "inout"):
            raise ImportFailure(f"parameter {entry.name!r} has direction {entry.direction!r}")
        facts = ctypes_table.lookup(entry.ctype)
        if facts.is_pointer:
            params.append(_tensor_param(entry.name, facts, entry.direction, run, report))
        else:
            params.append(_scalar_param(entry.name, facts, entry.direction, report))
    return params


def _runtime_signature(instance: Any) -> List[SigEntry]:
    """The signature as calling get_solve_signature() gives it (its spellings from the classes)."""
    entries = []
    for name, (kind, direction) in instance.get_solve_signature().items():
        spelling = ctypes_table.spelling_of(kind) or getattr(kind, "__name__", repr(kind))
        facts = ctypes_table.lookup(spelling)
        rows = list(facts.rows)
        entries.append(
            SigEntry(name, facts.spelling, spelling, direction, facts.is_pointer, rows, 0, 0)
        )
    return entries


def _tensor_param(
    name: str, facts: ctypes_table.CType, direction: str, run: Run, report: Report
) -> ParamInfo:
    spelling = facts.spelling
    candidates = [row.name for row in facts.rows]
    value = run.example.values.get(name)
    seen = spec_dtype(value.dtype) if isinstance(value, torch.Tensor) else None
    if isinstance(value, torch.Tensor) and seen is None:
        raise ImportFailure(
            f"{name} holds {value.dtype}, which chgen's dtype table lacks (not representable)"
        )
    if seen is not None and seen in candidates:
        dtype = seen
    elif seen is not None:
        dtype = seen
        report.note(
            f"signature: {name} is declared {spelling} but holds {seen}; chgen writes "
            f"{lookup(seen).ctypes_tensor}"
        )
    elif len(candidates) == 1:
        dtype = candidates[0]
    else:
        raise ImportFailure(f"cannot tell the dtype of {name} ({spelling})")
    return ParamInfo(name, dtype, direction, True)


def _scalar_param(
    name: str, facts: ctypes_table.CType, direction: str, report: Report
) -> ParamInfo:
    """A scalar of the spec: int32 sizes and float32 factors; other C scalars are narrowed."""
    if direction != "in":
        raise ImportFailure(f"scalar {name} has direction {direction!r}; scalars are inputs")
    kind = facts.scalar.kind if facts.scalar is not None else None
    if facts.rows and facts.rows[0].is_size:  # int32 or size_t, as declared
        return ParamInfo(name, facts.rows[0].name, "in", False)
    if kind == "int" and facts.scalar.bits >= 32:  # narrower integers are not sizes
        if facts.spelling != DTYPES["int32"].ctypes_scalar:
            report.note(
                f"signature: {name} is declared {facts.describe()}; chgen writes ctypes.c_int "
                "(sizes are int in every starter)"
            )
        return ParamInfo(name, "int32", "in", False)
    if kind == "float":
        if facts.spelling != DTYPES["float32"].ctypes_scalar:
            report.note(
                f"signature: {name} is declared {facts.spelling}; chgen has float32 scalars only "
                "and writes ctypes.c_float (not representable as double)"
            )
        return ParamInfo(name, "float32", "in", False)
    raise ImportFailure(
        f"parameter {name} is declared {facts.spelling}, not a ctypes pointer or scalar the spec "
        "can express (not representable)"
    )


# ---------------------------------------------------------------------------------- values


def scalar_value(case: Traced, param: ParamInfo, label: str) -> Any:
    if param.name not in case.values:
        raise ImportFailure(f"case {label} gives no {param.name}")
    value = case.values[param.name]
    if isinstance(value, torch.Tensor):
        value = value.item()
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()
    if isinstance(value, bool):
        raise ImportFailure(f"case {label}: {param.name} is a bool")
    if is_size(param):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise ImportFailure(f"case {label}: {param.name} = {value!r} is not an integer")
        return value
    return float(value)


def tensor_value(case: Traced, param: ParamInfo, label: str) -> torch.Tensor:
    value = case.values.get(param.name)
    if not isinstance(value, torch.Tensor):
        raise ImportFailure(f"case {label}: {param.name} is not a tensor")
    if spec_dtype(value.dtype) != param.dtype:
        raise ImportFailure(
            f"case {label}: {param.name} is {value.dtype} here but {param.dtype} in the example "
            "(a dtype per case is not representable)"
        )
    return value


def infer_shapes(
    params: List[ParamInfo],
    cases: List[Tuple[str, Traced]],
    hints: Dict[str, List[str]],
) -> None:
    """Each dim becomes the size scalar that equals it in every case, the expression the reference
    asserts (`2 * N`), a fixed number, or a small expression of the sizes that fits every case.

    Cases that pass a tensor with another rank than the example keep their own shape
    (`ParamInfo.case_shapes`, written as the case's `shapes:`)."""
    sizes = [p for p in params if is_size(p)]
    for p in params:
        if not p.is_tensor:
            continue
        shapes = [tuple(tensor_value(case, p, label).shape) for label, case in cases]
        main = len(shapes[0])  # the example's rank
        groups: Dict[int, List[int]] = {}
        for i, shape in enumerate(shapes):
            groups.setdefault(len(shape), []).append(i)
        # the example's rank first: a flattened case's likely shape is the product of its dims
        for rank, members in sorted(groups.items(), key=lambda item: item[0] != main):
            chosen = [cases[i] for i in members]
            values = [_case_sizes(sizes, label, case) for label, case in chosen]
            hint = hints.get(p.name, []) if rank == main else _flattened(p.shape, rank)
            shape = [
                _dimension(p.name, j, [shapes[i][j] for i in members], values, sizes, hint)
                for j in range(rank)
            ]
            if rank == main:
                p.shape = shape
            else:
                for i in members:
                    p.case_shapes[cases[i][0]] = shape


def _flattened(shape: List[Any], rank: int) -> List[str]:
    """`[M * N]` for a main shape `[M, N]` passed flat (rank 1), else no guess."""
    if rank != 1 or not shape:
        return []
    factors = [shape_exprs.spelled(shape_exprs.dimension(d), parent=2) for d in shape]
    return [" * ".join(factors)]


def _case_sizes(sizes: List[ParamInfo], label: str, case: Traced) -> Dict[str, int]:
    return {s.name: scalar_value(case, s, label) for s in sizes}


def _dimension(
    name: str,
    j: int,
    dims: List[int],
    values: List[Dict[str, int]],
    sizes: List[ParamInfo],
    hint: List[str],
) -> Any:
    """The spec's spelling of dimension `j` of `name`, which is `dims` in the cases `values`."""

    def fits(text: str) -> bool:
        try:
            expr = shape_exprs.parse(text)
            return all(shape_exprs.evaluate(expr, v) == d for v, d in zip(values, dims))
        except shape_exprs.ShapeError:
            return False

    written = hint[j] if j < len(hint) else None
    matching = [s.name for s in sizes if all(v[s.name] == d for v, d in zip(values, dims))]
    if written in matching:
        return written
    if written is not None and not written.isdigit() and fits(written):
        return shape_exprs.spell(written)
    if matching:
        return matching[0]
    if len(set(dims)) == 1:
        return dims[0]
    for text in _candidates([s.name for s in sizes]):
        if fits(text):
            return text
    found = _product_of_factors([s.name for s in sizes], values, dims)
    if found is not None:
        return found
    shown = f" (written {written})" if written else ""
    raise ImportFailure(
        f"dimension {j} of {name}{shown} is {sorted(set(dims))} across cases and equals no "
        "expression of the sizes chgen tries, such as 2 * N, (H - K) // S + 1 or "
        "(N + T - 1) // T (not representable)"
    )


def _candidates(names: List[str]) -> List[str]:
    """Small expressions of one or two sizes, simplest first."""
    out: List[str] = []
    for a in names:
        out += [f"{k} * {a}" for k in range(2, 9)] + [f"{a} // {k}" for k in range(2, 9)]
        out += [f"{a} + {k}" for k in range(1, 5)] + [f"{a} - {k}" for k in range(1, 5)]
        out += [f"{a} * {a}", f"({a} + 1) // 2"]
    for a in names:
        for b in names:
            if a != b:
                out += [f"{a} * {b}", f"{a} + {b}", f"{a} - {b}", f"{a} - {b} + 1", f"{a} // {b}"]
                out += [f"{a} * {b} * {k}" for k in range(2, 5)]
    for count in (3, 4):  # products of several sizes in signature order (N * C * H * W)
        out += [" * ".join(group) for group in itertools.combinations(names, count)]
    return out


def _factors(names: List[str]) -> List[str]:
    """What one factor of a flattened output's size may be: a size, a sliding window's length
    (`H - K + 1`, `(H - K) // S + 1`, `(H + 2 * P - K) // S + 1`) or a ceiling division
    (`(N + T - 1) // T`), simplest first."""
    out = list(names)
    pairs = list(itertools.permutations(names, 2))
    out += [f"{a} - {b} + 1" for a, b in pairs]
    out += [f"({a} + {b} - 1) // {b}" for a, b in pairs]
    out += [f"({a} - {b}) // {c} + 1" for a, b, c in itertools.permutations(names, 3)]
    out += [
        f"({a} + 2 * {pad} - {b}) // {c} + 1" for a, b, c, pad in itertools.permutations(names, 4)
    ]
    return out


#: the most factors a dimension's product may have (N * C * H_out * W_out)
MAX_FACTORS = 4


def _product_of_factors(
    names: List[str], values: List[Dict[str, int]], dims: List[int]
) -> Optional[str]:
    """The product of the fewest factors (see `_factors`, times a constant) equal to `dims` in
    every case; each factor's values divide the dims, which keeps the search small."""
    table: List[Tuple[str, Tuple[int, ...]]] = []
    for text in _factors(names):
        try:
            expr = shape_exprs.parse(text)
            got = tuple(shape_exprs.evaluate(expr, v) for v in values)
        except shape_exprs.ShapeError:
            continue
        if all(g > 0 and d % g == 0 for g, d in zip(got, dims)):
            table.append((text, got))
    if not dims or min(dims) <= 0:
        return None

    def search(start: int, left: Tuple[int, ...], depth: int) -> Optional[List[str]]:
        if len(set(left)) == 1 and depth < MAX_FACTORS + 1:
            return [] if left[0] == 1 else [str(left[0])]
        if depth == 0:
            return None
        for index in range(start, len(table)):
            text, got = table[index]
            if all(r % g == 0 for r, g in zip(left, got)) and any(g > 1 for g in got):
                rest = search(index, tuple(r // g for r, g in zip(left, got)), depth - 1)
                if rest is not None:
                    return [text] + rest
        return None

    for limit in range(1, MAX_FACTORS + 1):
        chosen = search(0, tuple(dims), limit)
        if chosen:
            factors = [shape_exprs.spelled(shape_exprs.parse(t), parent=2) for t in chosen]
            return shape_exprs.spell(" * ".join(factors))
    return None


# --------------------------------------------------------------------------- distributions


def _number(value: Any, kind: str) -> Any:
    return int(value) if kind == "int" else float(value)


def nested(value: Any, kind: str) -> Any:
    if isinstance(value, (list, tuple)):
        return [nested(v, kind) for v in value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("not a number")
    return _number(value, kind)


def literal(recipe_data: Any, tensor: torch.Tensor, kind: str) -> Optional[Any]:
    """The literal as written (0.1, not 0.10000000149), if it has the tensor's shape; a float
    literal may hold inf and nan."""
    candidates = []
    if recipe_data is not None:
        candidates.append(recipe_data)
    if tensor.device.type != "meta":
        candidates.append(tensor.tolist())
    for data in candidates:
        try:
            value = nested(data, kind)
        except TypeError:
            continue
        if not isinstance(value, list):
            value = [value]
        if _shape_of(value) != tuple(tensor.shape):
            continue
        if kind == "float" or all(math.isfinite(v) for v in flat(value)):
            return value  # inf and nan are float data (`.inf`, `.nan` in the spec)
    return None


def _shape_of(value: Any) -> tuple:
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


def flat(value: Any) -> List[Any]:
    if isinstance(value, list):
        return [x for v in value for x in flat(v)]
    return [value]


@dataclass
class Drawn:
    dist: Dict[str, Any]
    exact: bool  # the spec form reproduces the recipe (values then checked by equivalence)
    problem: str = ""


def unwrap(recipe: Recipe) -> Tuple[Recipe, bool]:
    cast = False
    while recipe.kind in ("view", "cast"):
        cast = cast or recipe.kind == "cast"
        recipe = recipe.parts[0]
    return recipe, cast


def distribution(
    param: ParamInfo, tensor: torch.Tensor, recipe: Recipe, earlier: Dict[str, torch.Tensor]
) -> Drawn:
    """The spec distribution for one input tensor (see module docstring)."""
    kind = lookup(param.dtype).kind
    base, cast = unwrap(recipe)
    if base.kind == "literal":
        data = literal(base.args[0], tensor, kind)
        if data is not None:
            items = flat(data)
            if len(items) > 1 and all(v == items[0] for v in items):
                return Drawn({"constant": items[0]}, True)
            if len(items) <= LITERAL_VALUES_MAX:
                return Drawn({"values": data}, True)
        return _approximate(param, tensor, f"a literal of more than {LITERAL_VALUES_MAX} elements")
    if base.kind == "constant" and base.args[0] is not None:
        value = base.args[0]
        if isinstance(value, float) and not math.isfinite(value) and kind != "float":
            return _approximate(param, tensor, "a non-finite constant")
        return Drawn({"constant": _number(value, kind)}, True)
    if base.kind in ("uniform", "normal") and kind == "float":
        # as the author wrote them: `RandTensor((M, d), -100, 100)` keeps its integers
        bounds = [
            b if isinstance(b, int) and not isinstance(b, bool) else float(b) for b in base.args
        ]
        return Drawn({base.kind: bounds}, not cast)
    if base.kind == "randint" and None not in base.args and _exact_integers(param, base.args):
        return Drawn({"randint": [int(base.args[0]), int(base.args[1])]}, not cast)
    if base.kind == "sum" and kind == "float":
        found = _correlated(base, earlier)
        if found is not None:
            return Drawn({"correlated": found}, not cast)
    what = {
        "empty": "uninitialised memory (torch.empty without a fill)",
        "sum": "a sum chgen cannot express",
        "scaled": "a scaled tensor",
        "out": "an output descriptor",
    }.get(base.kind, f"code chgen cannot express ({base.why or base.kind})")
    if base.kind in ("uniform", "normal", "randint"):
        what = f"{base.kind} draws into a {param.dtype} tensor"
    return _approximate(param, tensor, what)


def _exact_integers(param: ParamInfo, bounds: Tuple[Any, ...]) -> bool:
    """randint into an integer tensor, or into a float one within the integers it holds exactly
    (integer pixel values drawn into float32)."""
    row = lookup(param.dtype)
    if row.kind == "int":
        return True
    low, high = (int(b) for b in bounds)
    return max(abs(low), abs(high - 1)) <= row.exact_integers


def _correlated(recipe: Recipe, earlier: Dict[str, torch.Tensor]) -> Optional[Dict[str, Any]]:
    parts = [unwrap(p)[0] for p in recipe.parts]
    scaled = [p for p in parts if p.kind == "scaled"]
    noise = [p for p in parts if p.kind == "normal"]
    if len(scaled) != 1 or len(noise) != 1:
        return None
    for name, tensor in earlier.items():
        if scaled[0].source is tensor:
            mean, std = noise[0].args
            return {
                "source": name,
                "scale": float(scaled[0].args[0]),
                "noise": [float(mean), float(std)],
            }
    return None


def _approximate(param: ParamInfo, tensor: torch.Tensor, what: str) -> Drawn:
    """Small data verbatim; otherwise uniform (or randint) over the range actually drawn."""
    kind = lookup(param.dtype).kind
    if tensor.device.type == "meta":
        return Drawn({}, False, what)
    every = tensor.flatten()
    finite = every[torch.isfinite(every)] if kind == "float" else every
    if finite.numel() == 0:
        return Drawn({"constant": 0.0 if kind == "float" else 0}, False, what)
    low, high = finite.min().item(), finite.max().item()
    if finite.numel() == every.numel():
        if low == high:
            return Drawn({"constant": _number(low, kind)}, True)
        if every.numel() <= VALUES_MAX:
            return Drawn({"values": nested(tensor.tolist(), kind)}, True)
    if kind == "int":
        return Drawn({"randint": [int(low), int(high) + 1]}, False, what)
    return Drawn({"uniform": [float(low), float(high)]}, False, what)


def describe(dist: Dict[str, Any]) -> str:
    ((kind, args),) = dist.items()
    if kind == "uniform":
        return f"uniform[{args[0]:g},{args[1]:g}]"
    if kind == "randint":
        return f"randint[{args[0]},{args[1]})"
    return kind


def key(dist: Dict[str, Any]) -> str:
    return json.dumps(dist, sort_keys=True)


# ------------------------------------------------------------------------------ case names


def _case_line(case: Traced) -> Optional[int]:
    lines = [r.line for r in case.recipes.values() if r.line is not None]
    return max(lines) if lines else None


def name_cases(
    layout: Optional[FunctionalLayout], cases: List[Traced]
) -> Tuple[List[str], List[Optional[str]]]:
    """Names from the comment above each case, or from the string labels a loop runs over."""
    count = len(cases)
    raw: List[Optional[str]] = [None] * count
    loop_named: List[Optional[str]] = [None] * count
    if layout is not None:
        lines = [_case_line(c) for c in cases]
        statements = [statement_of(layout, line) for line in lines]
        groups: Dict[int, List[int]] = {}
        for i, s in enumerate(statements):
            if s is not None:
                groups.setdefault(s, []).append(i)
        previous = layout.def_line
        for i, line in enumerate(lines):
            group = groups.get(statements[i], [i])
            names = layout.loop_names.get(statements[i]) if statements[i] is not None else None
            if len(group) > 1 and names and len(names) == len(group):
                loop_named[i] = names[group.index(i)]
            elif len(group) == 1 and line is not None:
                raw[i] = comment_above(layout.comments, line, previous)
            if line is not None:
                previous = max(previous, line)
    return finish_names(raw, loop_named)
