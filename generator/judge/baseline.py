"""A spec's baseline, called in its library's own best form.

A baseline is a PyTorch module defining `solve` with the signature's parameters, like a solution,
but timed as its library is best called: its `solve` may return its outputs (a tensor, or a tuple
in the signature's order of out/inout tensors) instead of copying them into the judge's buffers,
which would add a pass over every output that the library does not make; the judge maps them
onto its buffers after the clock and checks them there. A module may also define `prepare`
(same parameters), which the judge calls outside the clock whenever it has written new inputs:
the place for an intermediate the library is handed rather than computes (e.g. the forward's
rstd), so that the baseline stays correct on every timed call. Only baselines get either: a
solution writes its outputs within the clock, as the challenge's contract says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from generator.toolchain.bindings import Bound, import_file, solve_of
from generator.toolchain.errors import ReturnMismatch


class BaselineSolve:
    def __init__(self, fn: Callable[..., Any], prepare: Optional[Callable[..., Any]]):
        self.fn = fn
        self.prepare = prepare

    @classmethod
    def load(cls, artifact: Path) -> "BaselineSolve":
        module = import_file(artifact)
        prepare = getattr(module, "prepare", None)
        return cls(solve_of(module, artifact), prepare if callable(prepare) else None)

    def prepare_call(self, params: Sequence[Any], values: Dict[str, Any]) -> None:
        if self.prepare is not None:
            self.prepare(*[values[p.name] for p in params])

    def bind(self, params: Sequence[Any], values: Dict[str, Any]) -> Bound:
        args = [values[p.name] for p in params]
        outputs = [p for p in params if p.is_tensor and p.direction != "in"]
        state: Dict[str, Any] = {}

        def run() -> None:
            state["result"] = self.fn(*args)

        def finish() -> None:
            returned = state.pop("result", None)
            if returned is not None:
                map_returned(returned, outputs, values)

        return Bound(run, finish)


def map_returned(returned: Any, outputs: List[Any], values: Dict[str, Any]) -> None:
    """Copy returned tensors onto the output tensors, in the signature's order."""
    import torch

    tensors = list(returned) if isinstance(returned, (tuple, list)) else [returned]
    names = ", ".join(p.name for p in outputs)
    if len(tensors) != len(outputs):
        raise ReturnMismatch(
            f"solve returned {len(tensors)} tensor(s); expected {len(outputs)} ({names})"
        )
    for p, tensor in zip(outputs, tensors):
        target = values[p.name]
        if not isinstance(tensor, torch.Tensor):
            raise ReturnMismatch(f"{p.name}: returned {type(tensor).__name__}, not a tensor")
        if tuple(tensor.shape) != tuple(target.shape):
            raise ReturnMismatch(
                f"{p.name}: returned shape {tuple(tensor.shape)}, expected {tuple(target.shape)}"
            )
        target.copy_(tensor)
