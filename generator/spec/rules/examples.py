"""`examples`: their sizes, data of the declared shapes, drawn examples, the page fields."""

from __future__ import annotations

from typing import Iterable

from generator.spec import code_inputs, example_page
from generator.spec.derived import SpecView, example_label, literal_shape, resolve_shape, size_names
from generator.spec.model import EXAMPLE_DRAW_KINDS, REFERENCE_OUTPUTS
from generator.spec.rules.common import (
    Issue,
    check_distribution,
    check_overrides,
    check_scalar_values,
)


def validate_examples(view: SpecView) -> Iterable[Issue]:
    spec = view.spec
    for i, ex in enumerate(spec.examples):
        base = ("examples", i)
        if ex.text_only:
            if i == 0:
                yield (
                    base + ("display",),
                    "the first example is what generate_example_test returns: it cannot be the "
                    "page's text alone",
                    "give its scalars, inputs and outputs (display may still show them)",
                )
            continue
        yield from check_scalar_values(spec, view.scalars, ex.scalars, base + ("scalars",))
        yield from check_overrides(
            view, ex.shapes, ex.scalars, base + ("shapes",), example_label(spec, i)
        )
        yield from _check_example(spec, i, view.params, view.inputs, view.outputs)
        yield from example_page.field_issues(
            spec, i, base, size_names(spec), example_label(spec, i)
        )


def _check_example(spec, index, params, inputs, outputs) -> Iterable[Issue]:
    ex = spec.examples[index]
    base = ("examples", index)
    label = example_label(spec, index)
    for key in ex.inputs:
        if key not in params or params[key] not in inputs:
            yield (
                base + ("inputs", key),
                f"{key!r} is not an input tensor",
                "use the name of an in or inout tensor",
            )
    yield from _check_drawn_example(ex, base, label, params, inputs)
    for key in ex.hand_outputs:
        if key not in params or params[key] not in outputs:
            yield (
                base + ("outputs", key),
                f"{key!r} is not an output tensor",
                "use the name of an out or inout tensor",
            )
    scalar_names = [p.name for p in spec.signature if not p.is_tensor]
    for i, name in enumerate(ex.hide):
        if name not in scalar_names:
            yield (
                base + ("hide", i),
                f"{name!r} is not a scalar of the signature",
                f"name one of {', '.join(scalar_names) or '(none)'}",
            )
    made = code_inputs.made_together([p.name for p in inputs], ex.drawn)
    for p in inputs:
        if p.name in made and p.name in ex.inputs:
            yield (
                base + ("inputs", p.name),
                f"{p.name!r} is made by the code of {made[p.name]!r}, and given here too",
                f"drop this entry, or stop binding {p.name} in that code",
            )
        elif p.name not in ex.inputs and p.name not in made:
            yield (
                base + ("inputs",),
                f"{label} gives no value for input {p.name!r}",
                "add it under inputs",
            )
    for p in outputs:
        if ex.outputs != REFERENCE_OUTPUTS and p.name not in ex.outputs:
            yield (
                base + ("outputs",),
                f"{label} gives no expected {p.name!r}",
                "add its hand-computed value under outputs",
            )
    if any(p.name not in ex.scalars for p in spec.signature if not p.is_tensor):
        return
    if any(not isinstance(ex.scalars[n], int) for n in size_names(spec)):
        return
    literals = {k: v for k, v in ex.inputs.items() if k not in ex.drawn}
    for group, values in (("inputs", literals), ("outputs", ex.hand_outputs)):
        for key, value in values.items():
            if key in params and params[key].is_tensor:
                want = resolve_shape(params[key], ex.scalars, ex.shapes)
                got = literal_shape(value)
                if want is not None and min(want, default=0) >= 0 and got != want:
                    yield (
                        base + (group, key),
                        f"{key!r} has shape {list(got)} but the signature and {label}'s "
                        f"sizes give {list(want)}",
                        "make the literal match that shape, or fix the example's sizes",
                    )


def _check_drawn_example(ex, base, label, params, inputs) -> Iterable[Issue]:
    """A drawn example: draws chgen renders on the CPU generator, its seed, and its outputs
    given by the reference (none can be written by hand for data nobody sees)."""
    for key, dist in ex.drawn.items():
        if dist.kind not in EXAMPLE_DRAW_KINDS:
            yield (
                base + ("inputs", key),
                f"an example input is literal data or one of "
                f"{', '.join(EXAMPLE_DRAW_KINDS)}, not {dist.kind}",
                "write the values themselves as a nested list, or draw them with "
                "{normal: [mean, std]}, {uniform: [lo, hi]} or {randint: [lo, hi]}",
            )
        elif key in params and params[key] in inputs:
            order = [p.name for p in inputs]
            yield from check_distribution(
                params[key], dist, params, order, ex.scalars, base + ("inputs", key), ex.shapes
            )
    # a code input draws as its code says (from `generator` when the example has a seed)
    random = [k for k, d in ex.drawn.items() if d.kind not in ("constant", "code")]
    coded = [k for k, d in ex.drawn.items() if d.kind == "code"]
    if random and ex.seed is None:
        yield (
            base + ("inputs", random[0]),
            f"{label} draws {random[0]!r} but gives no seed",
            "add seed: 0 (or any seed) to the example: its inputs are drawn on the CPU "
            "generator with it",
        )
    if ex.seed is not None and not random and not coded:
        yield (
            base + ("seed",),
            f"{label} gives a seed but draws no input",
            "drop seed, or draw an input ({normal: [0, 1]}, {uniform: [lo, hi]}, ...)",
        )
    if ex.drawn and ex.outputs != REFERENCE_OUTPUTS:
        yield (
            base + ("outputs",),
            f"{label} draws its inputs, so its outputs cannot be written by hand",
            "write outputs: reference (they are verified against the reference at generate "
            "time)",
        )
    if not ex.drawn and ex.outputs == REFERENCE_OUTPUTS:
        yield (
            base + ("outputs",),
            f"{label} gives literal inputs, so its outputs are written by hand",
            "give each output's hand-computed value, or draw the inputs "
            "({normal: [0, 1]} with a seed)",
        )
    if ex.drawn and ex.display is None and ex.numbers is not None:
        yield (
            base + ("numbers",),
            f"{label} is drawn: its page lists shapes, not numbers",
            "drop numbers",
        )
