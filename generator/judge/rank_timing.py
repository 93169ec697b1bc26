"""Timing the ranks of a multi-GPU solution, in each rank's process.

Every rank must run the same number of calls (a collective waits for all of them), so the count
is agreed on first (the slowest rank's warm-up sets it), and each call starts behind a barrier.
Each call is timed on the host clock around device synchronisations; the judge takes, call by
call, the slowest rank's time, and bounds the sum by its own wall clock.
"""

from __future__ import annotations

import time
from typing import Any, Callable, List, Tuple


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def ranked_samples(fn: Callable[[], Any], device: str, options: Any) -> Tuple[List[float], str]:
    """(milliseconds per call, the clock): the same repetitions on every rank of the group."""
    import torch
    import torch.distributed as dist

    started = time.perf_counter()
    for _ in range(max(1, options.warmup_calls)):
        dist.barrier()
        fn()
        _sync(device)
    per_call = (time.perf_counter() - started) / max(1, options.warmup_calls)
    agreed = torch.tensor([per_call], dtype=torch.float64, device=device)
    dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
    reps = int(min(options.max_reps, max(options.min_reps, options.budget_s / float(agreed))))
    samples = []
    for _ in range(reps):
        dist.barrier()
        _sync(device)
        begin = time.perf_counter()
        fn()
        _sync(device)
        samples.append((time.perf_counter() - begin) * 1e3)
    return samples, "host"
