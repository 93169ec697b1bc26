"""Every number a tensor is filled or drawn with fits its dtype (generator/dtypes.py)."""

from __future__ import annotations

import math
from typing import Any, Iterable, List, Tuple

from generator.dtypes import lookup
from generator.spec.derived import SpecView
from generator.spec.model import Distribution, Param
from generator.spec.rules.common import Issue
from generator.spec.yamlpos import PathKey


def validate_values(view: SpecView) -> Iterable[Issue]:
    """Every number a tensor is filled or drawn with fits the tensor's dtype (generator/dtypes.py):
    NaN and infinity for floats only, integers for integer dtypes, within the dtype's range."""
    spec = view.spec
    outs = [p for p in view.tensors if p.direction == "out"]
    prefills = [
        (("prefill",), spec.prefill),
        (("performance", "prefill"), spec.performance.prefill),
    ]
    prefills += [(("functional", i, "prefill"), c.prefill) for i, c in enumerate(spec.functional)]
    for where, prefill in prefills:
        if prefill is None or isinstance(prefill, str):
            continue
        for p in outs:
            problem = lookup(p.dtype).value_problem(prefill)
            if problem:
                yield (
                    where,
                    f"prefill {_spelled(prefill)} does not fit {_typed(p)}: {problem}",
                    _fitting(p),
                )
                break
    inputs = {p.name: p for p in view.inputs}
    drawn = [(("defaults", "inputs"), spec.defaults.inputs)]
    drawn += [(("functional", i, "inputs"), c.inputs) for i, c in enumerate(spec.functional)]
    drawn.append((("performance", "inputs"), spec.performance.inputs))
    for where, dists in drawn:
        for name, dist in dists.items():
            if name in inputs:
                yield from _check_drawn_values(inputs[name], dist, where + (name,))
    for i, ex in enumerate(spec.examples):
        for name, dist in ex.drawn.items():
            if name in inputs:
                yield from _check_drawn_values(inputs[name], dist, ("examples", i, "inputs", name))
        literals = {k: v for k, v in ex.inputs.items() if k not in ex.drawn}
        for group, values in (("inputs", literals), ("outputs", ex.hand_outputs)):
            for name, value in values.items():
                if name in view.params and view.params[name].is_tensor:
                    where = ("examples", i, group, name)
                    yield from _check_literal(view.params[name], value, where)


def _typed(p: Param) -> str:
    return f"{p.name!r} ({p.dtype})"


def _fitting(p: Param) -> str:
    row = lookup(p.dtype)
    low, high = row.limits
    if row.is_float:
        return f"give a number within {p.dtype}'s range, ±{high:.5g}"
    return f"give an integer from {low} to {high}"


def _spelled(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}[repr(value)]
    return repr(value)


def _check_drawn_values(p: Param, dist: Distribution, loc: PathKey) -> Iterable[Issue]:
    """The bounds of a draw, a constant and literal values, against `p`'s dtype."""
    row = lookup(p.dtype)
    kind = dist.kind
    if kind == "constant":
        problem = row.value_problem(dist.constant)
        if problem:
            yield (
                loc + ("constant",),
                f"constant {_spelled(dist.constant)} does not fit {_typed(p)}: {problem}",
                _fitting(p),
            )
    elif kind in ("uniform", "normal"):
        for j, bound in enumerate(getattr(dist, kind)):
            problem = row.value_problem(bound) if row.is_float else None
            if problem:
                yield (
                    loc + (kind, j),
                    f"{kind} bound {_spelled(bound)} does not fit {_typed(p)}: {problem}",
                    _fitting(p),
                )
                return
        low, high = getattr(dist, kind)
        width = high - low if kind == "uniform" else high
        if row.is_float and width > row.limits[1]:
            what = "uniform's width (high - low)" if kind == "uniform" else "normal's deviation"
            yield (
                loc + (kind,),
                f"{what} {width:g} exceeds {p.dtype}'s largest value {row.limits[1]:g}",
                f"draw a narrower range for {p.name!r}",
            )
    elif kind == "randint":
        low, high = dist.randint
        if row.is_float:
            top = row.exact_integers
            for j, bound in ((0, low), (1, high - 1)):
                if abs(bound) > top:
                    yield (
                        loc + ("randint", j),
                        f"randint into {_typed(p)} draws integers exactly only within "
                        f"[-{top}, {top}], not {bound}",
                        "draw a narrower range",
                    )
                    return
        else:
            for j, bound in ((0, low), (1, high - 1)):
                problem = row.value_problem(bound)
                if problem:
                    what = "low" if j == 0 else "high - 1"
                    yield (
                        loc + ("randint", j),
                        f"randint {what} ({bound}) does not fit {_typed(p)}: {problem}",
                        _fitting(p),
                    )
                    return
    elif kind == "values":
        yield from _check_literal(p, dist.values, loc + ("values",))


def _check_literal(p: Param, value: Any, loc: PathKey) -> Iterable[Issue]:
    """The first element of literal data that does not fit `p`'s dtype, at its own position."""
    row = lookup(p.dtype)
    stack: List[Tuple[PathKey, Any]] = [(loc, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed([(where + (k,), v) for k, v in enumerate(item)]))
            continue
        problem = row.value_problem(item)
        if problem:
            yield where, f"{_spelled(item)} does not fit {_typed(p)}: {problem}", _fitting(p)
            return
