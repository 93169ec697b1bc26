"""Outputs against the reference, and inputs against their pristine copies.

Floating outputs pass where |actual - expected| <= atol + rtol * |expected| (in float64), or where
both are NaN, or both are the same infinity; integer and boolean outputs must be equal. The report
gives the max absolute error over finite pairs, the max relative error where |expected| > atol,
and the first failing index. A failing element that is NaN or infinite (on either side) has no
finite error: it is counted, and the errors become NaN (a NaN among them) or infinite, so that a
table or a JSON report never shows the finite pairs' small error for an output full of NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterable, List, Optional, Tuple

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
    #: failing elements that are NaN (on either side), and the other non-finite ones (infinities)
    nan: int = 0
    inf: int = 0
    #: the errors over the finite pairs alone (max_abs and max_rel when every pair is finite)
    finite_abs: float = 0.0
    finite_rel: float = 0.0

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
        text = f"max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}"
        special = [f"{n} {word}" for n, word in ((self.nan, "NaN"), (self.inf, "inf")) if n]
        if special:
            finite = f"max abs {self.finite_abs:.3g}, max rel {self.finite_rel:.3g}"
            text += f": {' and '.join(special)}; over the finite elements {finite}"
        return text


def worst(values: Iterable[float]) -> float:
    """The largest error, NaN when one is NaN (max() alone depends on where the NaN stands)."""
    found = list(values)
    if any(math.isnan(v) for v in found):
        return math.nan
    return max(found, default=0.0)


def encode_error(value: float) -> Any:
    """An error for JSON: a number, or "nan" / "inf" (which float() reads back)."""
    return value if math.isfinite(value) else str(value)


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
        wild = ~ok & ~finite
        nan = int((wild & (a.isnan() | e.isnan())).sum())
        inf = int(wild.sum()) - nan
        if nan or inf:
            error = math.nan if nan else math.inf
            failed = _failed(name, actual, expected, ~ok, error, error, exact, elements)
            return replace(failed, nan=nan, inf=inf, finite_abs=max_abs, finite_rel=max_rel)
    else:
        a, e = actual, expected.to(actual.dtype)
        ok = a == e
        diff = (a.to(torch.float64) - e.to(torch.float64)).abs()
        max_abs = float(diff.max())
        max_rel = 0.0
    bad = ~ok
    if not bool(bad.any()):
        return Comparison(name, True, max_abs, max_rel, exact=exact, elements=elements)
    return _failed(name, actual, expected, bad, max_abs, max_rel, exact, elements)


def _failed(
    name: str,
    actual: torch.Tensor,
    expected: torch.Tensor,
    bad: torch.Tensor,
    max_abs: float,
    max_rel: float,
    exact: bool,
    elements: int,
) -> "Comparison":
    flat = int(bad.flatten().nonzero()[0])
    return Comparison(
        name,
        False,
        max_abs,
        max_rel,
        int(bad.sum()),
        _unravel(flat, tuple(actual.shape)),
        _scalar(actual.flatten()[flat]),
        _scalar(expected.flatten()[flat]),
        exact=exact,
        elements=elements,
        finite_abs=max_abs,
        finite_rel=max_rel,
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
        return worst(c.max_abs for c in self.comparisons)

    @property
    def max_rel(self) -> float:
        return worst(c.max_rel for c in self.comparisons)

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
        errors = {"max_abs": encode_error(self.max_abs), "max_rel": encode_error(self.max_rel)}
        for kind in ("nan", "inf"):
            count = sum(getattr(c, kind) for c in self.comparisons)
            if count:
                errors[kind] = count
        return errors

    def first_failure(self) -> Optional[Comparison]:
        return next((c for c in self.comparisons if not c.ok), None)
