"""The inputs of a case whose spec distributions do not draw the original's values, as code.

`chgen import` writes each input as a distribution (infer.py) where one draws the same values for
the same seed. Where the regenerated challenge.py then differs from the original (a draw chgen has
no distribution for, or draws made in another order), the case's inputs are written as the
original's own torch calls instead (replay.py): `{code: ...}` inputs, an input that is one plain
draw keeping its distribution where asked. Which cases that is, and whether the result is then the
same, the equivalence check says (exact.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from generator.importer import infer
from generator.importer.infer import ParamInfo
from generator.importer.replay import RANDOM, ReplayError, replay_case, window_end
from generator.importer.trace import Run, Traced
from generator.spec import shapes as shape_exprs
from generator.spec.code_inputs import RESERVED

EXAMPLE, PERFORMANCE = "example", "performance"
METHODS = {
    EXAMPLE: "generate_example_test",
    PERFORMANCE: "generate_performance_test",
}
FUNCTIONAL = "generate_functional_test"


@dataclass
class Coded:
    """A case's inputs as the spec writes them, with the seed before them."""

    inputs: Dict[str, Dict[str, Any]]  # name -> {code: ...} or a kept distribution
    seed: Optional[int]
    computed: List[str] = field(default_factory=list)  # scalars the code computes
    draws: bool = False  # the code draws random data


def code_inputs(
    run: Run,
    params: List[ParamInfo],
    names: List[str],
    label: str,
    keep_plain_draws: bool,
) -> Coded:
    """The inputs of case `label` (a functional case's name, "example" or "performance") as the
    original makes them. `keep_plain_draws`: an input made by one call on its own keeps the
    distribution chgen reads from it, where that distribution is exact."""
    method, traced, start, end = _window(run, params, names, label)
    inputs = _input_tensors(params, traced)
    scalars = _sizes(params, traced, label)
    shaped = {n for p in params if p.is_tensor for n in _names(p, label)}
    replayed = replay_case(
        run.calls[method],
        start,
        end,
        inputs,
        _shapes(params, scalars, label),
        run.devices[method],
        set(RESERVED) | {p.name for p in params},
        extract_seed=label != EXAMPLE,
        # an example's scalars are shown on its page: given, never computed
        scalars={} if label == EXAMPLE else {k: v for k, v in scalars.items() if k not in shaped},
    )
    plain = _plain_draws(params, traced) if keep_plain_draws else {}
    found: Dict[str, Dict[str, Any]] = {}
    for chunk in replayed.chunks:
        single = chunk.expression is not None and len(chunk.made) == 1
        if single and chunk.owner in plain:
            found[chunk.owner] = plain[chunk.owner]
        else:
            found[chunk.owner] = {"code": chunk.code}
    return Coded(found, replayed.seed, replayed.computed, replayed.draws)


def _names(p: ParamInfo, label: str) -> List[str]:
    """The sizes a tensor's shape names (in this case)."""
    found: List[str] = []
    for dim in p.case_shapes.get(label, p.shape) or []:
        found += shape_exprs.names(shape_exprs.dimension(dim))
    return found


def _window(
    run: Run, params: List[ParamInfo], names: List[str], label: str
) -> Tuple[str, Traced, int, int]:
    """The traced method of a case, the case, and the calls that make it (after the case before
    it: cases are made one after the other)."""
    if label in METHODS:
        traced = run.example if label == EXAMPLE else run.performance
        method = METHODS[label]
        return method, traced, 0, window_end(run.calls[method], _tensors(params, traced))
    calls = run.calls[FUNCTIONAL]
    index = names.index(label)
    previous = -1
    for case in run.functional[:index]:
        previous = max(previous, window_end(calls, _tensors(params, case)))
    traced = run.functional[index]
    return FUNCTIONAL, traced, previous + 1, window_end(calls, _tensors(params, traced))


def _tensors(params: List[ParamInfo], case: Traced) -> List[torch.Tensor]:
    """The case's input tensors: what its window ends with (a draw made for an output comes
    after it, in the next case's window: the regenerated case starts its outputs as the spec's
    prefill says, and the next case makes that draw itself)."""
    inputs = {p.name for p in params if p.is_tensor and p.direction != "out"}
    return [v for k, v in case.values.items() if k in inputs and isinstance(v, torch.Tensor)]


def _input_tensors(params: List[ParamInfo], case: Traced) -> Dict[str, torch.Tensor]:
    found = {}
    for p in params:
        if p.is_tensor and p.direction != "out":
            value = case.values.get(p.name)
            if not isinstance(value, torch.Tensor):
                raise ReplayError(f"{p.name} is not a tensor")
            found[p.name] = value
    return found


def _sizes(params: List[ParamInfo], case: Traced, label: str) -> Dict[str, Any]:
    return {p.name: infer.scalar_value(case, p, label) for p in params if not p.is_tensor}


def _shapes(
    params: List[ParamInfo], scalars: Dict[str, Any], label: str
) -> Dict[Tuple[int, ...], List[str]]:
    """Each input's shape in this case -> its dimensions as the signature writes them."""
    found: Dict[Tuple[int, ...], List[str]] = {}
    for p in params:
        if not p.is_tensor:
            continue
        spelled = p.case_shapes.get(label, p.shape) or []
        resolved = shape_exprs.resolve(spelled, scalars)
        if resolved is None or not any(isinstance(d, str) for d in spelled):
            continue
        dims = [str(d) if isinstance(d, int) else shape_exprs.spell(d) for d in spelled]
        found.setdefault(tuple(resolved), dims)
    return found


def _plain_draws(params: List[ParamInfo], case: Traced) -> Dict[str, Dict[str, Any]]:
    """The inputs whose distribution chgen reads exactly from how they were made."""
    earlier: Dict[str, torch.Tensor] = {}
    found: Dict[str, Dict[str, Any]] = {}
    for p in params:
        if not p.is_tensor or p.direction == "out":
            continue
        tensor = case.values[p.name]
        recipe = case.recipes[p.name]
        drawn = infer.distribution(p, tensor, recipe, earlier)
        earlier[p.name] = tensor
        kind = next(iter(drawn.dist), None)
        # what the input was made by must be that form itself: small drawn data written as its
        # values (or a single drawn number as a constant) is the same data, but no draw
        made = infer.unwrap(recipe)[0].kind
        if drawn.exact and not drawn.problem and MADE_BY.get(kind) == made:
            found[p.name] = drawn.dist
    return found


#: each spec distribution -> the recipe (trace.py) of an input it writes exactly
MADE_BY = {
    "uniform": "uniform",
    "normal": "normal",
    "randint": "randint",
    "constant": "constant",
    "values": "literal",
    "correlated": "sum",
}
#: the spec distributions that make one draw each
DRAWING = ("uniform", "normal", "randint", "correlated")


def draws_differ(
    run: Run, params: List[ParamInfo], names: List[str], label: str, forms: Dict[str, Any]
) -> bool:
    """Whether the case's spec forms (input -> its distribution) make another number of draws
    than the original made while building the case, where a later case draws on from the same
    stream: its values then differ, though this case's own may not (small drawn data written as
    values)."""
    if label in METHODS or any("code" in form for form in forms.values()):
        return False  # nothing after the example or the performance case draws from its stream
    method, traced, start, end = _window(run, params, names, label)
    calls = run.calls[method]
    seeds = [c.index for c in calls[max(start, 0) : end + 1] if c.func is None]
    made = sum(1 for c in calls[(seeds or [start - 1])[-1] + 1 : end + 1] if c.name in RANDOM)
    if made == sum(1 for form in forms.values() if next(iter(form), None) in DRAWING):
        return False
    # it matters where a later case draws from the stream before it is seeded again
    later = next((c for c in calls[end + 1 :] if c.func is None or c.name in RANDOM), None)
    return later is not None and later.func is not None


def labels_of(run: Run, names: Sequence[str]) -> List[str]:
    """Every case that can be written with code: the example, each functional case drawn by
    its own calls (not the example again), the performance case too, unless written with
    descriptors (the runner draws those)."""
    found = [EXAMPLE]
    found += [
        n for n, case in zip(names, run.functional) if not case.from_example and not case.described
    ]
    if not run.performance.described:
        found.append(PERFORMANCE)
    return found
