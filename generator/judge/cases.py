"""Test cases from a challenge: seeded, descriptors materialised, named where names are known.

Newer public challenges return declarative descriptors (RandTensor, OutTensor, ...) instead of
tensors; they are recognised by class name so that any tree's own core/ works.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import torch

from generator.challenge.pyfile import WORLD_SIZE
from generator.judge.signature import JudgeParam

#: the judge's first case, challenge.py's generate_example_test, named apart from a functional
#: case named "example" (a spec's `from_example` case usually is)
EXAMPLE_CASE = "generate_example_test"


@dataclass
class Case:
    name: str
    values: Dict[str, Any]  # tensors and Python scalars, by parameter name
    #: a multi-GPU challenge's ranks for this case (the case's "world_size"); 0: num_gpus
    world_size: int = 0

    def elements(self) -> int:
        return sum(v.numel() for v in self.values.values() if isinstance(v, torch.Tensor))

    def largest_tensor(self) -> Tuple[str, int]:
        """The name and element count of the case's largest tensor ("", 0 without tensors)."""
        sizes = [(v.numel(), k) for k, v in self.values.items() if isinstance(v, torch.Tensor)]
        count, name = max(sizes, default=(0, ""))
        return name, count


def _dtype(name: Any) -> torch.dtype:
    return name if isinstance(name, torch.dtype) else getattr(torch, str(name))


def unwritten(shape: Sequence[int], dtype: torch.dtype, device: str) -> torch.Tensor:
    """An output buffer whose every element is recognisably unwritten (NaN, or 0xA5 bytes)."""
    if dtype.is_floating_point:
        return torch.full(tuple(shape), float("nan"), dtype=dtype, device=device)
    out = torch.empty(tuple(shape), dtype=dtype, device=device)
    out.view(torch.uint8).fill_(0xA5)
    return out


def materialise(value: Any, device: str) -> Any:
    """A descriptor becomes a tensor; tensors and scalars pass through."""
    kind = type(value).__name__
    if kind not in {"RandTensor", "RandnTensor", "RandIntTensor", "FullTensor", "OutTensor"}:
        return value
    shape = tuple(int(d) for d in value.shape)
    dtype = _dtype(getattr(value, "dtype", "float32"))
    if kind == "RandTensor":
        return torch.empty(shape, dtype=dtype, device=device).uniform_(value.low, value.high)
    if kind == "RandnTensor":
        return torch.empty(shape, dtype=dtype, device=device).normal_(value.mean, value.std)
    if kind == "RandIntTensor":
        return torch.randint(value.low, value.high, shape, dtype=dtype, device=device)
    if kind == "FullTensor":
        return torch.full(shape, value.value, dtype=dtype, device=device)
    return unwritten(shape, dtype, device)


@contextlib.contextmanager
def filled_empties() -> Iterator[None]:
    """Within the block torch.empty fills what it allocates (floats NaN, integers their largest
    value), as torch does with deterministic algorithms on; the previous setting is restored.

    challenge.py allocates outputs with torch.empty: what they would hold is whatever memory the
    allocator hands out (on a GPU, perhaps the reference's own answer of a moment ago), so what a
    solution that leaves an output unwritten gets, and the report says of it, would vary from run
    to run. An output filled on purpose (torch.full) keeps its value. warn_only: an operation
    without a deterministic kernel still runs."""
    enabled = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    filling = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = filling
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)


def _case(raw: Dict[str, Any], params: List[JudgeParam], name: str, device: str) -> Case:
    missing = [p.name for p in params if p.name not in raw]
    if missing:
        raise ValueError(f"case {name} lacks {', '.join(missing)}")
    values = {p.name: materialise(raw[p.name], device) for p in params}
    return Case(name, values, int(raw.get(WORLD_SIZE, 0)))


def example_and_functional(
    challenge: Any,
    params: List[JudgeParam],
    seed: int,
    names: Optional[List[str]] = None,
    written: Optional[List[str]] = None,
) -> List[Case]:
    """The example test, then every functional case; `names` labels the functional ones, else
    `written` (the names challenge.py's comments give) where it names every one of them, else
    each is `functional_<index>`."""
    device = challenge.device
    torch.manual_seed(seed)
    with filled_empties():
        example = challenge.generate_example_test()
    if isinstance(example, list):  # a few public challenges wrap the example in a list
        example = example[0]
    cases = [_case(example, params, EXAMPLE_CASE, device)]
    torch.manual_seed(seed + 1)
    with filled_empties():
        functional = challenge.generate_functional_test()
    if not names and written and len(written) == len(functional):
        names = written
    for index, raw in enumerate(functional):
        label = names[index] if names and index < len(names) else f"functional_{index}"
        cases.append(_case(raw, params, label, device))
    return cases


def performance(challenge: Any, params: List[JudgeParam], seed: int) -> Case:
    torch.manual_seed(seed + 2)
    with filled_empties():
        raw = challenge.generate_performance_test()
    if isinstance(raw, list):
        raw = raw[0]
    return _case(raw, params, "performance", challenge.device)


def passed_text(names: Sequence[str]) -> str:
    """What a run's cases were, counted as the spec counts them: the example test apart from
    the functional cases (a mutant is run on the functional cases only)."""
    if names and names[0] == EXAMPLE_CASE:
        return f"the example test and {len(names) - 1} functional case(s) passed"
    return f"{len(names)} case(s) passed"
