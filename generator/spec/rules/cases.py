"""`functional`, `expected_cases`, `defaults` and descriptors: the cases run as written."""

from __future__ import annotations

from typing import Dict, Iterable

from generator.spec.derived import SpecView
from generator.spec.rules.common import (
    Issue,
    check_inputs,
    check_overrides,
    check_scalar_values,
    computed_scalars,
)


def validate_functional(view: SpecView) -> Iterable[Issue]:
    spec = view.spec
    case_names: Dict[str, int] = {}
    for i, case in enumerate(spec.functional):
        base = ("functional", i)
        if case.name in case_names:
            yield base + ("name",), f"duplicate case name {case.name!r}", "rename one of them"
        case_names[case.name] = i
        if case.example_number > len(spec.examples):
            yield (
                base + ("from_example",),
                f"from_example: {case.from_example} but the spec has "
                f"{len(spec.examples)} example(s)",
                "use true (the first) or the number of one of 'examples'",
            )
        elif case.example_number and spec.examples[case.example_number - 1].text_only:
            yield (
                base + ("from_example",),
                f"example {case.example_number} is the page's text alone: it has no values "
                "to run",
                "give that example its scalars, inputs and outputs, or draw this case",
            )
        if case.from_example:
            continue
        merged = {**spec.defaults.scalars, **case.scalars}
        computed = computed_scalars(view, case.inputs)
        yield from check_scalar_values(
            spec, view.scalars, merged, base + ("scalars",), case.scalars, computed
        )
        yield from check_overrides(
            view, case.shapes, merged, base + ("shapes",), f"case {case.name!r}"
        )
        yield from check_inputs(
            spec, view.params, view.inputs, case.inputs, merged, base + ("inputs",), case.shapes
        )


def validate_expected_cases(view: SpecView) -> Iterable[Issue]:
    spec = view.spec
    if spec.expected_cases is None:
        return
    low, high = spec.expected_cases
    if not 1 <= low <= high:
        yield ("expected_cases",), f"expected_cases [{low}, {high}] is no range", "give [MIN, MAX]"
    elif not low <= len(spec.functional) <= high:
        yield (
            ("expected_cases",),
            f"the spec has {len(spec.functional)} functional cases, outside its expected_cases "
            f"[{low}, {high}]",
            "add or drop cases, or widen the range",
        )


def validate_defaults(view: SpecView) -> Iterable[Issue]:
    params = view.params
    for key in view.spec.defaults.scalars:
        if key not in params or params[key].is_tensor:
            yield (
                ("defaults", "scalars", key),
                f"{key!r} is not a scalar parameter",
                "use the name of a scalar in the signature",
            )
    for key in view.spec.defaults.inputs:
        if key not in params or params[key] not in view.inputs:
            yield (
                ("defaults", "inputs", key),
                f"{key!r} is not an input tensor",
                "use the name of an in or inout tensor",
            )


def validate_case_forms(view: SpecView) -> Iterable[Issue]:
    """Descriptors stand for drawn inputs and empty outputs only."""
    spec = view.spec
    forms = [(("functional", i), case) for i, case in enumerate(spec.functional)]
    forms.append((("performance",), spec.performance))
    for where, case in forms:
        if not case.descriptors:
            continue
        if case.seed is not None:
            yield (
                where + ("seed",),
                "descriptors are drawn by the runner, which seeds them itself: a seed here has "
                "no effect",
                "drop the seed or descriptors: true",
            )
        prefill = case.prefill if case.prefill is not None else spec.prefill
        if prefill not in (None, "empty"):
            at = where + ("prefill",) if case.prefill is not None else ("prefill",)
            yield (
                at,
                f"outputs written with descriptors start empty (OutTensor), not {prefill!r}",
                "drop descriptors: true or the prefill",
            )
        own = case.inputs
        merged = {**spec.defaults.inputs, **own}
        for name, dist in merged.items():
            if dist.kind in ("values", "correlated", "code"):
                loc = where + ("inputs", name) if name in own else ("defaults", "inputs", name)
                yield (
                    loc,
                    f"{dist.kind} has no descriptor (RandTensor, RandnTensor, RandIntTensor, "
                    "FullTensor)",
                    "drop descriptors: true for this case",
                )
