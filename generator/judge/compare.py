"""Outputs against the reference, and inputs against their pristine copies.

Floating outputs pass where |actual - expected| <= atol + rtol * |expected| (in float64), or where
both are NaN, or both are the same infinity; integer and boolean outputs must be equal. The report
gives the max absolute error over finite pairs, the max relative error where |expected| > atol,
and the first failing index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import torch


@dataclass
class Comparison:
    name: str
    ok: bool
    max_abs: float = 0.0
    max_rel: float = 0.0
    bad: int = 0
    first_index: Optional[Tuple[int, ...]] = None
    actual: Optional[float] = None
    expected: Optional[float] = None
    problem: str = ""
    #: an integer or boolean output: compared for equality, so a relative error means nothing
    exact: bool = False
    elements: int = 0

    def describe(self) -> str:
        if self.problem:
            return f"{self.name}: {self.problem}"
        if self.ok:
            return f"{self.name}: ok ({self.error_text()})"
        index = ", ".join(str(i) for i in self.first_index or ())
        return (
            f"{self.name}: {self.bad} of {self.elements} element(s) differ; first at [{index}]: "
            f"got {self.actual!r}, expected {self.expected!r} ({self.error_text()})"
        )

    def error_text(self) -> str:
        if self.exact:
            return f"max abs {self.max_abs:.3g}"
        return f"max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}"


def _unravel(flat: int, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return tuple(reversed(index))


def _scalar(t: torch.Tensor) -> float:
    value = t.item()
    return float(value) if isinstance(value, float) else value


def compare_output(
    name: str, actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float
) -> Comparison:
    if tuple(actual.shape) != tuple(expected.shape):
        return Comparison(
            name, False, problem=f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
        )
    exact = not (expected.dtype.is_floating_point or expected.dtype.is_complex)
    elements = actual.numel()
    if actual.numel() == 0:
        return Comparison(name, True, exact=exact)
    if not exact:
        a, e = actual.to(torch.float64), expected.to(torch.float64)
        diff = (a - e).abs()
        finite = a.isfinite() & e.isfinite()
        # inf - (-inf) is inf, which is <= an infinite tolerance: only finite pairs compare by value
        close = finite & (diff <= atol + rtol * e.abs())
        same_special = (a.isnan() & e.isnan()) | (a.isinf() & e.isinf() & (a.sign() == e.sign()))
        ok = close | same_special
        max_abs = float(diff[finite].max()) if bool(finite.any()) else 0.0
        # Relative error only where it means something: above the absolute tolerance.
        sizable = finite & (e.abs() > max(atol, 1e-30))
        max_rel = float((diff[sizable] / e[sizable].abs()).max()) if bool(sizable.any()) else 0.0
    else:
        a, e = actual, expected.to(actual.dtype)
        ok = a == e
        diff = (a.to(torch.float64) - e.to(torch.float64)).abs()
        max_abs = float(diff.max())
        max_rel = 0.0
    bad = ~ok
    count = int(bad.sum())
    if count == 0:
        return Comparison(name, True, max_abs, max_rel, exact=exact, elements=elements)
    flat = int(bad.flatten().nonzero()[0])
    index = _unravel(flat, tuple(actual.shape))
    return Comparison(
        name,
        False,
        max_abs,
        max_rel,
        count,
        index,
        _scalar(actual.flatten()[flat]),
        _scalar(expected.flatten()[flat]),
        exact=exact,
        elements=elements,
    )


def first_modified(name: str, after: torch.Tensor, before: torch.Tensor) -> Optional[str]:
    """Bitwise check of an input; a message naming the first changed element, or None."""
    if after.numel() == 0:
        return None
    a = after.contiguous().reshape(-1).view(torch.uint8).view(after.numel(), -1)
    b = before.contiguous().reshape(-1).view(torch.uint8).view(before.numel(), -1)
    changed = (a != b).any(dim=1)
    if not bool(changed.any()):
        return None
    flat = int(changed.nonzero()[0])
    index = ", ".join(str(i) for i in _unravel(flat, tuple(after.shape)))
    was, now = _scalar(before.flatten()[flat]), _scalar(after.flatten()[flat])
    return (
        f"input {name} was modified: {int(changed.sum())} element(s) changed; first at "
        f"[{index}]: was {was!r}, now {now!r}"
    )


@dataclass
class OutputReport:
    comparisons: List[Comparison] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.comparisons)

    @property
    def max_abs(self) -> float:
        return max((c.max_abs for c in self.comparisons), default=0.0)

    @property
    def max_rel(self) -> float:
        return max((c.max_rel for c in self.comparisons), default=0.0)

    @property
    def exact(self) -> bool:
        """Every output is integer (compared for equality)."""
        return bool(self.comparisons) and all(c.exact for c in self.comparisons)

    def errors(self) -> Dict[str, Any]:
        """What a case's row shows: for integer outputs the mismatching elements (of how many)
        and the max abs error, else the max abs and max relative errors."""
        if self.exact:
            return {
                "exact": True,
                "mismatches": sum(c.bad for c in self.comparisons),
                "compared": sum(c.elements for c in self.comparisons),
                "max_abs": self.max_abs,
            }
        return {"max_abs": self.max_abs, "max_rel": self.max_rel}

    def first_failure(self) -> Optional[Comparison]:
        return next((c for c in self.comparisons if not c.ok), None)
