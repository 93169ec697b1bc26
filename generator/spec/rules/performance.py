"""`performance`: its sizes, the bullet, min_bytes and the size of its tensors."""

from __future__ import annotations

import math
import re
from typing import Iterable, List

from generator.dtypes import lookup
from generator.page.vocabulary import BULLET
from generator.spec import shapes
from generator.spec.derived import SpecView, resolve_shape, size_names
from generator.spec.limits import PERF_BYTES_LIMIT
from generator.spec.model import Param, Spec
from generator.spec.rules.common import (
    Issue,
    check_code,
    check_inputs,
    check_overrides,
    check_scalar_values,
    computed_scalars,
)


def validate_performance(view: SpecView) -> Iterable[Issue]:
    spec, perf = view.spec, view.spec.performance
    computed = computed_scalars(view, perf.inputs)
    yield from check_scalar_values(
        spec, view.scalars, perf.scalars, ("performance", "scalars"), None, computed
    )
    for j, name in enumerate(perf.shown or []):
        if name in computed:
            yield (
                ("performance", "shown", j),
                f"{name!r} is computed by the performance case's code: the bullet cannot name it",
                "drop it from shown",
            )
    yield from check_overrides(
        view, perf.shapes, perf.scalars, ("performance", "shapes"), "the performance case"
    )
    yield from check_inputs(
        spec,
        view.params,
        view.inputs,
        perf.inputs,
        perf.scalars,
        ("performance", "inputs"),
        perf.shapes,
    )
    yield from _check_perf_size(spec, view.tensors, perf.scalars, perf.shapes)
    for j, name in enumerate(perf.shown or []):
        if name not in view.params or view.params[name].is_tensor:
            yield (
                ("performance", "shown", j),
                f"{name!r} is not a scalar parameter",
                "use the name of a scalar in the signature",
            )
    last = " ".join(re.sub(r"<[^>]*>", " ", (spec.constraints or [""])[-1]).split())
    if not perf.bullet and not last.lower().startswith(BULLET.lower()):
        yield (
            ("performance", "bullet"),
            f"performance.bullet is false but the last constraint is no '{BULLET} ...' item",
            "end the constraints with the bullet as the page writes it, or drop bullet: false",
        )
    try:
        if shapes.evaluate_arithmetic(perf.min_bytes, perf.scalars) <= 0:
            yield (
                ("performance", "min_bytes"),
                "min_bytes must be positive",
                "the least bytes a kernel moves, e.g. '2 * N * 4'",
            )
    except ValueError as exc:
        yield ("performance", "min_bytes"), f"min_bytes: {exc}", "e.g. '3 * N * C * 4'"
    for i, base in enumerate(perf.baselines):
        yield from check_code(base.code, ("performance", "baselines", i, "code"))


def _check_perf_size(spec: Spec, tensors: List[Param], scalars, overrides) -> Iterable[Issue]:
    if any(not isinstance(scalars.get(n), int) for n in size_names(spec)):
        return
    total = 0
    for p in tensors:
        shape = resolve_shape(p, scalars, overrides)
        if shape is None:
            return
        total += math.prod(shape) * lookup(p.dtype).itemsize
    if total > PERF_BYTES_LIMIT:
        yield (
            ("performance", "scalars"),
            f"performance tensors take {total / 1e9:.2f} GB; they must fit five times in 16 GB "
            "(at most 3.2 GB)",
            "use smaller sizes",
        )
