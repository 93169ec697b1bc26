"""`num_gpus` and `distributed`: how a multi-GPU case is split over its ranks."""

from __future__ import annotations

from typing import Iterable

from generator.spec.derived import SpecView, is_size
from generator.spec.rules.common import Issue


def validate_distributed(view: SpecView) -> Iterable[Issue]:
    """A multi-GPU challenge says how a case is split over its ranks, and only such a one does:
    `rows` is a size, each split tensor's first dimension is exactly that size."""
    spec, layout = view.spec, view.spec.distributed
    if spec.num_gpus > 1 and layout is None:
        yield (
            ("num_gpus",),
            f"num_gpus: {spec.num_gpus} needs a 'distributed' section",
            "add distributed: {rows: N, split: [x, ...]} (the tensors each rank holds rows of)",
        )
    if layout is not None and spec.num_gpus == 1:
        yield ("distributed",), "'distributed' needs num_gpus of 2 to 8", "set num_gpus: G"
    for i, case in enumerate(spec.functional):
        if case.gpus is not None and case.gpus > spec.num_gpus:
            yield (
                ("functional", i, "gpus"),
                f"case {case.name!r} asks for {case.gpus} GPUs, more than num_gpus "
                f"({spec.num_gpus})",
                "raise num_gpus to the most GPUs any case uses",
            )
    if layout is None:
        return
    size = view.params.get(layout.rows)
    if size is None or size.is_tensor or not is_size(size):
        yield (
            ("distributed", "rows"),
            f"rows: {layout.rows!r} is not a size scalar of the signature",
            "name the int32 (or size_t) size the split tensors' first dimension is",
        )
    for j, name in enumerate(layout.split):
        p = view.params.get(name)
        if p is None or not p.is_tensor:
            yield ("distributed", "split", j), (
                f"{name!r} is not a tensor parameter",
                "split names tensors of the signature",
            )
        elif not p.shape or str(p.shape[0]) != layout.rows:
            yield (
                ("distributed", "split", j),
                f"the first dimension of {name!r} is not {layout.rows!r}",
                f"split only tensors of shape [{layout.rows}, ...]",
            )
        elif any(name in form.shapes for form in [*spec.examples, *spec.functional]):
            yield ("distributed", "split", j), (
                f"a case passes {name!r} in another shape",
                "a split tensor keeps its signature shape in every case",
            )
