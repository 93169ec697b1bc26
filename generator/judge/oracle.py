"""The numbers behind the spec-level proofs, computed in the worker (they need torch).

- error / tolerance of an output against an expected tensor e: max over elements of
  |a - e| / (atol + rtol * |e|), in float64. NaN or an infinity where e is finite counts as
  infinite; where e itself is NaN or infinite, a matches only the same special value. A value of
  1 is exactly the judge's pass/fail boundary.
- the float64 oracle: torch.autograd of the spec's forward expression, or the spec's own body;
  either has the spec's `reference_helpers` in reach as the reference has them (module functions
  and constants by name, methods on `self`).
- mean relative error against the oracle: mean(|a - o| / |o|) over the elements where o != 0.

The plan carries the spec's oracle and accuracy floor as plain JSON, so nothing here needs the
spec model: the GPU machine has no pydantic.
"""

from __future__ import annotations

import ast
import math
import textwrap
from typing import Any, Dict, List, Optional

import torch

from generator.judge.signature import JudgeParam


def tolerance_ratio(
    actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float
) -> float:
    """error / tolerance (see the module note); inf for a shape mismatch."""
    if tuple(actual.shape) != tuple(expected.shape):
        return math.inf
    if expected.numel() == 0:
        return 0.0
    if not (expected.dtype.is_floating_point or expected.dtype.is_complex):
        return 0.0 if bool(torch.equal(actual.to(expected.dtype), expected)) else math.inf
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    e_finite = e.isfinite()
    special_match = (a.isnan() & e.isnan()) | (a.isinf() & e.isinf() & (a.sign() == e.sign()))
    if bool((~e_finite & ~special_match).any()) or bool((e_finite & ~a.isfinite()).any()):
        return math.inf
    if not bool(e_finite.any()):
        return 0.0
    diff = (a - e).abs()[e_finite]
    tol = atol + rtol * e.abs()[e_finite]
    # diff == 0 is a match even where the tolerance is 0 (atol = 0 and e = 0)
    ratio = torch.where(diff == 0, torch.zeros_like(diff), diff / tol)
    return float(ratio.max())


def mean_relative_error(actual: torch.Tensor, oracle: torch.Tensor) -> float:
    """mean(|a - o| / |o|) where o != 0 (0.0 when there is no such element); inf for NaN/inf."""
    a, o = actual.to(torch.float64).flatten(), oracle.to(torch.float64).flatten()
    if a.shape != o.shape:
        return math.inf
    keep = (o != 0) & o.isfinite()
    if not bool(keep.any()):
        return 0.0
    value = float(((a[keep] - o[keep]).abs() / o[keep].abs()).mean())
    return value if math.isfinite(value) else math.inf


def _namespace() -> Dict[str, Any]:
    return {"torch": torch, "math": math, "F": torch.nn.functional}


def with_helpers(namespace: Dict[str, Any], helpers: Optional[str], device: str) -> Dict[str, Any]:
    """`namespace` with the spec's reference_helpers run in it: a def whose first parameter is
    `self` moves onto a stand-in `self` (with `self.device`), as in challenge.py's Challenge."""
    if not helpers:
        return namespace
    code = textwrap.dedent(helpers)
    exec(compile(code, "<spec reference_helpers>", "exec"), namespace)  # noqa: S102 - the spec's
    methods: Dict[str, Any] = {"device": device}
    for node in ast.parse(code).body:
        arguments = (
            node.args.posonlyargs + node.args.args if isinstance(node, ast.FunctionDef) else []
        )
        if arguments and arguments[0].arg == "self":
            methods[node.name] = namespace.pop(node.name)
    namespace["self"] = type("Challenge", (), methods)()
    return namespace


def _upcast(value: Any) -> Any:
    """Floating tensors become float64 copies; integer tensors and scalars stay as they are."""
    if isinstance(value, torch.Tensor):
        value = value.detach().clone()
        return value.to(torch.float64) if value.dtype.is_floating_point else value
    return value


class Oracle:
    """Ground truth in float64 for one challenge, from the plan's `oracle` entry.

    `forward` form: the inputs are upcast to float64, the `gradients` inputs require grad, the
    forward expression is evaluated with the scalars and float64 tensors in scope and
    back-propagated with `grad_output`; the gradients are the expected outputs. `code` form: a
    function body over the float64 inputs returning {output: tensor}. `helpers` (the spec's
    reference_helpers, which the plan carries beside the oracle) are in reach of both."""

    def __init__(self, spec: Dict[str, Any], params: List[JudgeParam], device: str = "cpu"):
        self.spec = spec
        self.params = params
        self.function = None
        self.namespace = with_helpers(_namespace(), spec.get("helpers"), device)
        if spec.get("code") is not None:
            names = [p.name for p in params]
            body = textwrap.indent(textwrap.dedent(spec["code"]).strip("\n") or "pass", "    ")
            source = f"def oracle({', '.join(names)}):\n{body}\n"
            exec(compile(source, "<spec oracle>", "exec"), self.namespace)  # noqa: S102
            self.function = self.namespace["oracle"]

    def outputs(self, values: Dict[str, Any]) -> Dict[str, torch.Tensor]:
        """The expected outputs of one case, in float64, by output parameter name."""
        upcast = {p.name: _upcast(values[p.name]) for p in self.params}
        if self.function is not None:
            with torch.no_grad():
                result = self.function(**upcast)
            if not isinstance(result, dict):
                raise TypeError("the oracle's code must return a dict {output name: tensor}")
            return {name: torch.as_tensor(t).to(torch.float64) for name, t in result.items()}
        gradients: Dict[str, str] = self.spec["gradients"]
        scope = {**self.namespace, **upcast}
        with torch.enable_grad():
            leaves = [scope[name].requires_grad_(True) for name in gradients]
            forward = eval(self.spec["forward"], scope)  # noqa: S307 - the spec's expression
            grad_output = eval(self.spec["grad_output"], scope)  # noqa: S307
            grads = torch.autograd.grad(forward, leaves, grad_output, allow_unused=True)
        found = {}
        for output, leaf, grad in zip(gradients.values(), leaves, grads):
            found[output] = (grad if grad is not None else torch.zeros_like(leaf)).detach()
        return found


def evaluate_expression(text: str, values: Dict[str, Any]) -> torch.Tensor:
    """A spec expression (the accuracy floor's baseline) over a case's own tensors and scalars."""
    scope = _namespace()
    for name, value in values.items():
        scope[name] = value.clone() if isinstance(value, torch.Tensor) else value
    with torch.no_grad():
        return eval(text, scope)  # noqa: S307 - the spec's expression


def left_prefill(after: torch.Tensor, before: torch.Tensor, expected: torch.Tensor) -> int:
    """Elements still bitwise equal to their pre-call value where the expected value differs."""
    if after.shape != before.shape or after.shape != expected.shape or after.numel() == 0:
        return 0
    if expected.dtype != before.dtype:
        return 0

    def rows(t: torch.Tensor) -> torch.Tensor:
        return t.contiguous().reshape(-1).view(torch.uint8).view(t.numel(), -1)

    unchanged = (rows(after) == rows(before)).all(dim=1)
    differs = (rows(expected) != rows(before)).any(dim=1)
    return int((unchanged & differs).sum())


def encode(value: Optional[float]) -> Any:
    """Floats for JSON: infinities and NaN as strings ("inf", "nan"), which float() reads back."""
    if value is None:
        return None
    return value if math.isfinite(value) else str(value)
