"""`scaffold` and `exploded_solve`: the kernel scaffolds easy challenges carry."""

from __future__ import annotations

from typing import Iterable

from generator.naming import IDENT_RE
from generator.spec import shapes
from generator.spec.derived import SpecView, is_size
from generator.spec.rules.common import Issue


def validate_scaffold(view: SpecView) -> Iterable[Issue]:
    spec, params = view.spec, view.params
    if spec.scaffold is None:
        if spec.difficulty == "easy":
            yield (
                ("difficulty",),
                "easy challenges carry kernel scaffolds: add 'scaffold: {kernel: NAME, grid: [N]}'",
                "or make the challenge medium",
            )
        return
    if not IDENT_RE.match(spec.scaffold.kernel):
        yield ("scaffold", "kernel"), "kernel name must be an identifier", "e.g. leaky_relu_kernel"
    for j, name in enumerate(spec.scaffold.grid):
        if name not in params or params[name].is_tensor or not is_size(params[name]):
            yield (
                ("scaffold", "grid", j),
                f"{name!r} is not a size parameter (int32 or size_t)",
                "use an int32 or size_t scalar of the signature",
            )
    if spec.difficulty != "easy":
        yield (
            ("scaffold",),
            "only easy challenges have a scaffold; medium/hard start empty",
            "drop 'scaffold', or make the challenge easy",
        )
    yield from validate_starter_scaffolds(view)


def validate_starter_scaffolds(view: SpecView) -> Iterable[Issue]:
    """`scaffold.starters`: a scaffolded language, identifiers, one name per solve parameter, a
    1-D grid expression of the sizes."""
    from generator.languages import BY_KEY

    spec = view.spec
    sizes = {p.name: 1 for p in spec.signature if not p.is_tensor and is_size(p)}
    for key, variant in spec.scaffold.starters.items():
        where = ("scaffold", "starters", key)
        lang = BY_KEY.get(key)
        if lang is None or not lang.scaffolded:
            scaffolded = ", ".join(k for k, v in BY_KEY.items() if v.scaffolded)
            yield where, f"{key!r} is not a scaffolded language", f"use one of {scaffolded}"
            continue
        if variant.kernel is not None and not IDENT_RE.match(variant.kernel):
            yield where + (
                "kernel",
            ), "kernel name must be an identifier", "use letters, digits and _"
        if variant.parameters is not None:
            if len(variant.parameters) != len(spec.signature):
                yield (
                    where + ("parameters",),
                    f"{len(variant.parameters)} name(s) for {len(spec.signature)} solve "
                    "parameters",
                    "name every parameter, in solve order",
                )
            for j, name in enumerate(variant.parameters):
                if not IDENT_RE.match(name):
                    problem = f"{name!r} is not an identifier"
                    yield where + ("parameters", j), problem, "use letters, digits and _"
        if variant.grid is not None:
            if len(spec.scaffold.grid) != 1:
                problem = "a grid expression is for 1-D scaffolds"
                yield where + ("grid",), problem, "drop it, or give scaffold.grid one size"
            try:
                expr = shapes.parse(variant.grid)
                missing = [n for n in shapes.names(expr) if n not in sizes]
                if missing:
                    problem = f"{missing[0]!r} is not a size parameter"
                    yield where + ("grid",), problem, "use the size scalars of the signature"
            except shapes.ShapeError as exc:
                yield where + ("grid",), str(exc), "write arithmetic of sizes, e.g. N // 2"


def validate_exploded_solve(view: SpecView) -> Iterable[Issue]:
    from generator.languages import BY_KEY

    for j, key in enumerate(view.spec.exploded_solve):
        lang = BY_KEY.get(key)
        if lang is None or lang.starter_syntax != "python":
            python = ", ".join(k for k, v in BY_KEY.items() if v.starter_syntax == "python")
            yield ("exploded_solve", j), f"{key!r} is not a Python starter", f"use {python}"
