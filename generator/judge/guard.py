"""Tensors handed to a solution, each inside a larger buffer with random canary bands around it.

Layout of one guarded tensor (bytes):

    [ front band (band) | data (numel * itemsize) | back band (band) ]

The data starts `band` bytes into a fresh allocation (band is a multiple of 256, so alignment is
what a plain cudaMalloc gives) and the back band starts at the very next byte, so even a one-element
overrun is seen. The bands hold random bytes from the case's seed; after the call any changed byte
is an out-of-bounds write, reported with its offset from the tensor's start or end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import torch

from generator.judge.signature import JudgeParam

DEFAULT_BAND = 64 * 1024


@dataclass
class Violation:
    param: str
    where: str  # "before" or "after"
    offset: int  # bytes from the tensor's first byte (negative) or past its last byte
    count: int  # changed bytes in the band

    def describe(self) -> str:
        if self.where == "before":
            place = f"{-self.offset} byte(s) before its start"
        elif self.offset == 0:
            place = "right after its last byte"
        else:
            place = f"{self.offset} byte(s) after its last byte"
        return f"write outside {self.param}: {place} ({self.count} canary byte(s) changed)"


class GuardedTensor:
    def __init__(
        self,
        name: str,
        source: torch.Tensor,
        band: int,
        generator: torch.Generator,
        arena: Optional[Any] = None,
    ):
        if band % 256:
            raise ValueError("the band must be a multiple of 256 bytes")
        self.name = name
        self.band = band
        self.nbytes = source.numel() * source.element_size()
        device = source.device
        self.front = torch.randint(0, 256, (band,), dtype=torch.uint8, generator=generator)
        self.back = torch.randint(0, 256, (band,), dtype=torch.uint8, generator=generator)
        self.front, self.back = self.front.to(device), self.back.to(device)
        size = 2 * band + self.nbytes
        if arena is None:
            self.buffer = torch.empty(size, dtype=torch.uint8, device=device)
        else:  # shared with the solution's process
            self.buffer = arena.allocate(size)[:size]
            self.buffer_index = len(arena.buffers) - 1
        self.buffer[:band].copy_(self.front)
        self.buffer[band + self.nbytes :].copy_(self.back)
        data = self.buffer[band : band + self.nbytes]
        self.tensor = data.view(source.dtype).view(source.shape)
        self.tensor.copy_(source.contiguous())

    def violations(self) -> List[Violation]:
        found = []
        front = self.buffer[: self.band]
        if not torch.equal(front, self.front):
            changed = (front != self.front).nonzero().flatten()
            last = int(changed[-1])  # the changed byte nearest to the data
            found.append(Violation(self.name, "before", last - self.band, int(changed.numel())))
        back = self.buffer[self.band + self.nbytes :]
        if not torch.equal(back, self.back):
            changed = (back != self.back).nonzero().flatten()
            found.append(Violation(self.name, "after", int(changed[0]), int(changed.numel())))
        return found


class GuardedArgs:
    """A case's values with every tensor replaced by a guarded copy."""

    def __init__(
        self,
        params: List[JudgeParam],
        values: Dict[str, object],
        seed: int,
        band: int = DEFAULT_BAND,
        arena: Optional[Any] = None,
    ):
        generator = torch.Generator().manual_seed(seed)
        self.arena = arena
        self.guards: Dict[str, GuardedTensor] = {}
        self.values: Dict[str, object] = {}
        for p in params:
            value = values[p.name]
            if isinstance(value, torch.Tensor):
                guard = GuardedTensor(p.name, value, band, generator, arena)
                self.guards[p.name] = guard
                self.values[p.name] = guard.tensor
            else:
                self.values[p.name] = value

    def describe(self) -> Dict[str, Any]:
        """What the solution's process needs to map the arguments: buffers, views, scalars."""
        from generator.judge.shared import describe_tensor

        views = {
            name: describe_tensor(guard.buffer_index, guard.band, guard.tensor)
            for name, guard in self.guards.items()
        }
        scalars = {k: v for k, v in self.values.items() if k not in self.guards}
        for name, value in scalars.items():
            if not isinstance(value, (int, float, bool)):
                raise TypeError(
                    f"{name}: a {type(value).__name__} cannot be passed to the solution"
                )
        return {"buffers": self.arena.buffers, "tensors": views, "scalars": scalars}

    def violations(self) -> List[Violation]:
        return [v for guard in self.guards.values() for v in guard.violations()]

    def first_violation(self) -> Optional[Violation]:
        found = self.violations()
        return found[0] if found else None
