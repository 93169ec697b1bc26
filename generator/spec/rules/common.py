"""What several section rules check the same way: shapes name sizes, a case's sizes give every
tensor a dimension, its scalars fit their dtypes, its inputs are drawn soundly, code parses."""

from __future__ import annotations

import ast
import math
from typing import Any, Dict, Iterable, List, Optional, Tuple

from generator.dtypes import DTYPES, lookup
from generator.spec import code_inputs, derived, shapes
from generator.spec.derived import (
    SpecView,
    is_size,
    literal_shape,
    resolve_shape,
    shape_of,
    size_names,
    whole_dimension_sizes,
)
from generator.spec.model import Correlated, Distribution, Param, Spec, Values
from generator.spec.yamlpos import PathKey

#: one problem: the model path it is at, what is wrong, what to do
Issue = Tuple[PathKey, str, str]


def check_shape_names(view: SpecView, name: str, shape: List[Any], where: PathKey):
    """Each dimension parses and names size scalars (int32 or size_t) only."""
    for j, dim in enumerate(shape):
        try:
            used = shapes.names(shapes.dimension(dim))
        except shapes.ShapeError as exc:
            yield where + (j,), f"shape of {name!r}: {exc}", "e.g. 2 * N or (K + 1) // 2"
            continue
        for size_name in used:
            size = view.params.get(size_name)
            if size is None or size.is_tensor:
                problem = "which is not a scalar parameter"
            elif not is_size(size):
                problem = f"a {size.dtype} scalar; dimensions use sizes (int32 or size_t) only"
            else:
                continue
            yield (
                where + (j,),
                f"shape of {name!r} names {size_name!r}, {problem}",
                "add it to the signature as an int32 (or size_t) scalar or use a number",
            )


def check_overrides(
    view: SpecView, overrides: Dict[str, Any], sizes: Dict[str, Any], where: PathKey, label
) -> Iterable[Issue]:
    """A case's `shapes:` entries name tensors and parse; then every tensor's dims (overridden or
    the signature's) evaluate to non-negative values for the case's sizes."""
    for key, shape in overrides.items():
        if key not in view.params or not view.params[key].is_tensor:
            yield (
                where + (key,),
                f"{key!r} is not a tensor parameter",
                "use the name of a tensor in the signature",
            )
            continue
        yield from check_shape_names(view, key, shape, where + (key,))
    if any(not isinstance(sizes.get(n), int) for n in size_names(view.spec)):
        return  # a missing or non-integer size is reported on its own
    for i, p in enumerate(view.spec.signature):
        if not p.is_tensor:
            continue
        shape = shape_of(p, overrides)
        try:
            used = {n for dim in shape for n in shapes.names(shapes.dimension(dim))}
        except shapes.ShapeError:
            continue  # reported by check_shape_names
        if not used <= set(size_names(view.spec)) or any(not is_size(view.params[n]) for n in used):
            continue  # an unknown or float name, reported by check_shape_names
        failed = shapes.check_dims(shape, sizes)
        if failed is not None:
            j, problem = failed
            at = where + (p.name, j) if p.name in overrides else ("signature", i, "shape", j)
            yield (
                at,
                f"dimension {shapes.spell(shape[j])} of {p.name!r} {problem} for the sizes of "
                f"{label} ({_sizes_text(view.spec, sizes)})",
                "fix the expression or the case's sizes",
            )
            continue
        dims = shapes.resolve(shape, sizes) or ()
        if 0 in dims:  # the sizes chose it (the expression holds for the others): at the sizes
            j = dims.index(0)
            yield (
                where + (p.name, j) if p.name in overrides else where[:-1] + ("scalars",),
                f"dimension {shapes.spell(shape[j])} of {p.name!r} is 0 for the sizes of {label} "
                f"({_sizes_text(view.spec, sizes)}): {p.name} would have no elements, and the "
                "reference and solutions nothing to compute",
                "choose sizes that make every dimension at least 1",
            )


def _sizes_text(spec: Spec, sizes: Dict[str, Any]) -> str:
    return ", ".join(f"{n}={sizes[n]}" for n in size_names(spec))


#: the values an integer scalar may take, by dtype
SCALAR_RANGES = {
    name: (row.limits[0], row.limits[1] + 1) for name, row in DTYPES.items() if not row.is_float
}


def check_scalar_values(
    spec: Spec,
    scalars: List[Param],
    values: Dict[str, Any],
    where: PathKey,
    own: Optional[Dict[str, Any]] = None,
    computed: Optional[Dict[str, str]] = None,
) -> Iterable[Issue]:
    """`computed`: the scalars the case's code computes (no value of their own)."""
    computed = computed or {}
    for key in own if own is not None else values:
        if key in computed:
            yield (
                where + (key,),
                f"{key!r} is computed by the code of {computed[key]!r}, and given here too",
                f"drop this value, or stop binding {key} in that code",
            )
    values = {k: v for k, v in values.items() if k not in computed}
    scalars = [p for p in scalars if p.name not in computed]
    if own is not None:
        own = {k: v for k, v in own.items() if k not in computed}
    names = {p.name: p for p in scalars}
    for key, value in (own if own is not None else values).items():
        if key not in names:
            yield (
                where + (key,),
                f"{key!r} is not a scalar parameter",
                "use the name of a scalar in the signature",
            )
            continue
        p = names[key]
        low, high = SCALAR_RANGES.get(p.dtype, (None, None))
        if is_size(p) and (not isinstance(value, int) or isinstance(value, bool)):
            yield where + (key,), f"{key!r} is {p.dtype}: give an integer", "e.g. 1024"
        elif isinstance(value, float) and not math.isfinite(value):
            yield where + (key,), f"{key!r} must be finite", "write a finite number"
        elif low is not None and not low <= value < high:
            yield (
                where + (key,),
                f"{key!r} does not fit in {p.dtype}",
                f"use a value from {low} to {high - 1}",
            )
    for p in scalars:
        if p.name not in values:
            yield where, f"no value for scalar {p.name!r}", "add it here or under defaults.scalars"
    whole = whole_dimension_sizes(spec)
    for p in scalars:
        if p.name in values and p.name in size_names(spec):
            value = values[p.name]
            least = 1 if p.name in whole else 0
            if isinstance(value, int) and not isinstance(value, bool) and value < least:
                yield where + (
                    p.name,
                ), f"size {p.name!r} must be at least {least}", f"use {least} or more"


def check_inputs(spec, params, inputs, own, scalars, where, overrides=None) -> Iterable[Issue]:
    merged: Dict[str, Any] = {**spec.defaults.inputs, **own}
    order = [p.name for p in inputs]
    for key in own:
        if key not in params or params[key] not in inputs:
            yield (
                where + (key,),
                f"{key!r} is not an input tensor",
                "use the name of an in or inout tensor",
            )
    made = code_inputs.made_together(order, merged)
    for p in inputs:
        if p.name in made:
            if p.name in own:
                yield (
                    where + (p.name,),
                    f"{p.name!r} is made by the code of {made[p.name]!r}, and given here too",
                    f"drop this entry, or stop binding {p.name} in that code",
                )
            continue
        if p.name not in merged:
            yield where, f"no distribution for input {p.name!r}", "add it or give a default"
            continue
        dist = merged[p.name]
        loc = where + (p.name,) if p.name in own else ("defaults", "inputs", p.name)
        yield from check_distribution(p, dist, params, order, scalars, loc, overrides or {})


def _check_code_input(p: Param, dist: Any, params, order, loc) -> Iterable[Issue]:
    sizes = {n for q in params.values() if q.is_tensor for n in _shape_names(q)}
    names = {
        n: (
            ("size" if n in sizes else "scalar")
            if not q.is_tensor
            else "output tensor" if q.direction == "out" else "input"
        )
        for n, q in params.items()
    }
    if loc[0] == "examples":  # an example's scalars are shown on the page: given, not computed
        names = {n: ("given scalar" if kind == "scalar" else kind) for n, kind in names.items()}
    for message, hint in code_inputs.code_problems(p.name, dist.code, order, names):
        yield loc + ("code",), message, hint


def _shape_names(p: Param) -> List[str]:
    found: List[str] = []
    for dim in p.shape or []:
        try:
            found += shapes.names(shapes.dimension(dim))
        except shapes.ShapeError:
            pass
    return found


def computed_scalars(view: SpecView, own: Dict[str, Any]) -> Dict[str, str]:
    """The scalars a case's code computes (code_inputs.made_scalars), each -> its input."""
    return derived.computed_scalars(view.spec, {**view.spec.defaults.inputs, **own})


def check_distribution(p: Param, dist: Distribution, params, order, scalars, loc, overrides):
    kind = dist.kind
    if kind == "code":
        yield from _check_code_input(p, dist, params, order, loc)
        return
    if kind in ("uniform", "randint"):
        low, high = getattr(dist, kind)
        if not low < high:
            yield (
                loc,
                f"{kind} needs low < high, got [{low}, {high}]",
                "give [low, high] with low < high",
            )
    if kind == "normal" and not dist.normal[1] >= 0:
        yield (
            loc,
            "normal needs a non-negative standard deviation",
            "give [mean, std] with std >= 0",
        )
    if kind in ("uniform", "normal") and not lookup(p.dtype).is_float:
        yield loc, f"{kind} draws floats but {p.name!r} is {p.dtype}", "use randint"
    if isinstance(dist, Values):
        want = resolve_shape(p, scalars, overrides)
        if want is not None and min(want, default=0) >= 0:
            got = literal_shape(dist.values)
            if got != want:
                yield (
                    loc,
                    f"values have shape {list(got)}, the case's sizes give {list(want)}",
                    "make the literal match that shape, or fix the case's sizes",
                )
    if isinstance(dist, Correlated):
        src = dist.correlated.source
        if src not in params or not params[src].is_tensor:
            yield (
                loc,
                f"correlated source {src!r} is not a tensor parameter",
                "name a tensor input of the signature",
            )
        elif src not in order or order.index(src) >= order.index(p.name):
            yield (
                loc,
                f"correlated source {src!r} must be an input listed before {p.name!r}",
                "list the source first in the signature, or correlate with an earlier input",
            )
        elif resolve_shape(params[src], scalars, overrides) != resolve_shape(p, scalars, overrides):
            yield (
                loc,
                f"correlated source {src!r} has another shape than {p.name!r}",
                "correlate tensors of the same shape",
            )
        if dist.correlated.noise[1] < 0:
            yield (
                loc,
                "noise needs a non-negative standard deviation",
                "give [mean, std] with std >= 0",
            )


def check_code(code: str, where: PathKey, mode: str = "exec") -> Iterable[Issue]:
    try:
        ast.parse(code, mode=mode)
    except SyntaxError as exc:
        yield (
            where,
            f"not valid Python: {exc.msg} (line {exc.lineno} of the block)",
            "fix the Python at that line of the block",
        )
