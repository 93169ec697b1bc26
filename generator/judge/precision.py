"""A reference computed in another precision, for the two tolerance measures made of it.

The reference must be far more accurate than the tolerance it sets (within ORACLE_LIMIT of its
float64 result), and, for a float32 challenge, the same code in float16 must
fail some case (otherwise the tolerance accepts a half-precision solution). Both the tolerance
check at generate time (generator/tolerance_check.py: the spec's reference against its oracle) and
the judge's tolerance audit (generator/judge/derived_worker.py: any challenge.py, against itself in
float64) compute them with these helpers: inputs and outputs cast, the computation run on copies.
torch is imported by the functions that need it, so that the names here cost nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional

#: the reference's largest error/tolerance against its float64 truth (its oracle, or itself in
#: float64): the tolerance must measure a solution, not the reference
ORACLE_LIMIT = 0.1
#: the half precision a float32 challenge's tolerance must tell apart from float32
HALF = "float16"
#: the precision the reference is measured against where no oracle is given
WIDE = "float64"


def all_float32(dtype_names: Iterable[str]) -> bool:
    """Every floating tensor dtype named is float32 (and there is one)."""
    names = set(dtype_names)
    return bool(names) and names == {"float32"}


def cast(values: Dict[str, Any], dtype: str) -> Dict[str, Any]:
    """A case's values with every floating tensor in `dtype` (the others as they are)."""
    import torch

    wanted = getattr(torch, dtype)
    return {
        k: v.to(wanted) if isinstance(v, torch.Tensor) and v.dtype.is_floating_point else v
        for k, v in values.items()
    }


def run_on(
    function: Callable[..., Any],
    values: Dict[str, Any],
    outputs: List[str],
    default_dtype: Optional[str] = None,
) -> Dict[str, Any]:
    """`function` on copies of `values` (with torch's default dtype `default_dtype` meanwhile,
    so that tensors the code makes itself follow); returns the outputs it wrote."""
    import torch

    copies = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in values.items()}
    before = torch.get_default_dtype()
    if default_dtype is not None:
        torch.set_default_dtype(getattr(torch, default_dtype))
    try:
        function(**copies)
    finally:
        torch.set_default_dtype(before)
    return {name: copies[name] for name in outputs}
