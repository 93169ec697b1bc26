"""The spec's code beside the reference: mutants, oracle, accuracy floor, reference_jax, helpers."""

from __future__ import annotations

import ast
from typing import Iterable

from generator.spec.derived import SpecView
from generator.spec.model import helper_names
from generator.spec.rules.common import Issue, check_code


def validate_mutants(view: SpecView) -> Iterable[Issue]:
    mutant_names = set()
    for i, mutant in enumerate(view.spec.mutants):
        if mutant.name in mutant_names:
            yield (
                ("mutants", i, "name"),
                f"duplicate mutant name {mutant.name!r}",
                "rename one of them",
            )
        mutant_names.add(mutant.name)
        yield from check_code(mutant.code, ("mutants", i, "code"))
        for j, name in enumerate(mutant.caught_by or []):
            if name not in view.case_names and name != "example":
                yield (
                    ("mutants", i, "caught_by", j),
                    f"no functional case is named {name!r}",
                    "use a case name from 'functional'",
                )


def validate_oracle(view: SpecView) -> Iterable[Issue]:
    if view.spec.oracle is not None:
        yield from _check_oracle(view.spec, view.params, view.inputs, view.outputs)


def _check_oracle(spec, params, inputs, outputs) -> Iterable[Issue]:
    oracle = spec.oracle
    if oracle.code is not None:
        yield from check_code(oracle.code, ("oracle", "code"))
        return
    yield from check_code(oracle.forward, ("oracle", "forward"), mode="eval")
    if oracle.grad_output not in params or params[oracle.grad_output] not in inputs:
        yield (
            ("oracle", "grad_output"),
            f"{oracle.grad_output!r} is not an input tensor",
            "name an in or inout tensor",
        )
    for key, out in oracle.gradients.items():
        if key not in params or params[key] not in inputs:
            yield (
                ("oracle", "gradients", key),
                f"{key!r} is not an input tensor",
                "name an in or inout tensor",
            )
        if out not in params or params[out] not in outputs:
            yield (
                ("oracle", "gradients", key),
                f"{out!r} is not an output tensor",
                "name an out or inout tensor",
            )


def validate_accuracy_floor(view: SpecView) -> Iterable[Issue]:
    floor = view.spec.accuracy_floor
    if floor is None:
        return
    if floor.output not in view.params or view.params[floor.output] not in view.outputs:
        yield (
            ("accuracy_floor", "output"),
            f"{floor.output!r} is not an output tensor",
            "use the name of an out or inout tensor",
        )
    yield from check_code(floor.baseline, ("accuracy_floor", "baseline"), mode="eval")


#: the modules reference_jax may import (challenge.py's own imports allow math beside JAX)
JAX_REFERENCE_MODULES = ("jax", "math")


def validate_reference_jax(view: SpecView) -> Iterable[Issue]:
    """reference_impl_jax returns the outputs and imports JAX (or math) only; generation then
    runs it against the reference on every case (generator/checks/jax_reference.py)."""
    spec = view.spec
    if spec.reference_jax is None:
        if spec.exploded_reference_jax:
            yield (
                ("exploded_reference_jax",),
                "exploded_reference_jax without a reference_jax",
                "drop it, or add the body of reference_impl_jax as reference_jax",
            )
        return
    where = ("reference_jax",)
    body = ast.parse(spec.reference_jax).body
    own = [node for statement in body for node in _outside_functions(statement)]
    for node in own:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for module in names:
                if (module or "").split(".")[0] not in JAX_REFERENCE_MODULES:
                    yield (
                        where,
                        f"reference_jax line {node.lineno} imports {module}; it may import jax "
                        "modules and math only",
                        "write it in jax and jax.numpy (import jax.numpy as jnp)",
                    )
    if not any(isinstance(node, ast.Return) and node.value is not None for node in own):
        outputs = ", ".join(p.name for p in view.outputs)
        yield (
            where,
            "reference_jax returns nothing: reference_impl_jax returns the outputs",
            f"return their values as arrays, in signature order: `return {outputs}`",
        )


def _outside_functions(node: ast.AST) -> Iterable[ast.AST]:
    """`node` and what it holds, except the bodies of the functions and classes it defines."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _outside_functions(child)


def validate_helpers(view: SpecView) -> Iterable[Issue]:
    """Starter helpers and kept starters name a language chgen writes; Python ones must parse
    (the others are proved by the compile checks of the starters)."""
    from generator.languages import BY_KEY  # the registry: which starters exist

    spec = view.spec
    for field in ("starter_helpers", "kept_starters"):
        for key, code in getattr(spec, field).items():
            where = (field, key)
            lang = BY_KEY.get(key)
            if lang is None:
                yield where, f"no language is called {key!r}", f"use one of {', '.join(BY_KEY)}"
            elif lang.starter_syntax == "python":
                yield from check_code(code, where)
    if spec.reference_helpers is not None:
        names = {p.name for p in spec.signature}
        for node in ast.parse(spec.reference_helpers).body:
            for name in helper_names(node):
                if name in names:
                    yield (
                        ("reference_helpers",),
                        f"helper {name!r} has the name of a solve parameter",
                        "rename it",
                    )
