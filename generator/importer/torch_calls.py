"""Facts about one torch call of a trace (trace.Call): what it draws, changes, reads and is named.

Replaying a case (replay.py) asks these of every call it keeps: whether it draws from the default
generator, which tensor it changes in place, what data a tensor shares, how Python names it.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Iterator, List, Optional, Tuple

import torch

from generator.importer.trace import Call

#: calls that draw from torch's default generator (an in-place draw's tensor is its first argument)
RANDOM = frozenset(
    {
        "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
        "normal", "bernoulli", "multinomial", "poisson", "uniform_", "normal_", "random_",
        "bernoulli_", "exponential_", "cauchy_", "geometric_", "log_normal_", "dropout",
        "dropout_", "rrelu", "rrelu_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
        "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
    }
)  # fmt: skip


#: calls that give Python values that depend on a tensor's shape or type only, not its data
SHAPE_ONLY = frozenset(
    {
        "shape", "size", "dim", "ndim", "ndimension", "numel", "nelement", "dtype", "device",
        "__len__", "stride", "is_contiguous", "element_size", "is_floating_point", "layout",
        "requires_grad", "storage_offset", "is_cuda", "is_complex", "names", "__repr__",
        "__format__", "__str__", "__hash__", "data_ptr",
    }
)  # fmt: skip


@functools.lru_cache(maxsize=1)
def public_functions() -> Dict[int, str]:
    """id of every public torch function -> how Python names it (`torch.nn.functional.softmax`)."""
    import torch.nn.functional as F

    found: Dict[int, str] = {}
    spaces = (
        ("torch", torch),
        ("torch.nn.functional", F),
        ("torch.linalg", torch.linalg),
        ("torch.fft", torch.fft),
        ("torch.special", torch.special),
        ("torch.nn.init", torch.nn.init),
    )
    for prefix, module in spaces:
        for name in dir(module):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except Exception:  # noqa: BLE001 - a lazy attribute that fails is no function
                continue
            if callable(value) and not isinstance(value, type):
                found.setdefault(id(value), f"{prefix}.{name}")
    return found


def method_name(call: Call) -> Optional[str]:
    """The Tensor method or attribute a call is (`uniform_`, `shape`), else None."""
    func = call.func
    if call.name == "__get__":
        owner = getattr(func, "__self__", None)
        return getattr(owner, "__name__", None)
    qualified = getattr(func, "__qualname__", "") or ""
    if qualified.split(".")[0] in ("TensorBase", "Tensor", "_TensorBase") and call.args:
        if isinstance(call.args[0], torch.Tensor):
            return call.name
    return None


def is_attribute(call: Call) -> bool:
    return call.name == "__get__"


def mutated(call: Call) -> Optional[torch.Tensor]:
    """The tensor a call changes in place (its first argument, or `out=`), if any."""
    method = method_name(call)
    first = call.args[0] if call.args and isinstance(call.args[0], torch.Tensor) else None
    if method is not None and first is not None:
        if method == "__setitem__" or (
            method.endswith("_") and not method.endswith("__") and call.out is first
        ):
            return first
        if method.startswith("__i") and method.endswith("__") and call.out is first:
            return first  # __iadd__ and the like
    out = call.kwargs.get("out")
    if isinstance(out, torch.Tensor):
        return out
    name = public_functions().get(id(call.func), "")
    if name.startswith("torch.nn.init.") and first is not None:
        return first
    return None


def tensors_in(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)


def root(t: torch.Tensor) -> Tuple[str, int]:
    """What a tensor shares its data with: its base's storage (a view writes through to it)."""
    while t._base is not None:
        t = t._base
    if t.device.type != "meta":
        try:
            pointer = t.untyped_storage().data_ptr()
        except Exception:  # noqa: BLE001 - a tensor without storage shares nothing
            pointer = 0
        if pointer:
            return ("storage", pointer)
    return ("object", id(t))


def is_random(call: Call) -> bool:
    return call.name in RANDOM or call.name == "manual_seed"


def extracts_values(call: Call) -> bool:
    """A call that takes a tensor's data into Python (`.item()`, `int(t)`, `t.tolist()`)."""
    if is_attribute(call) or call.func is None:
        return False
    name = method_name(call) or call.name
    if name in SHAPE_ONLY or call.out is None or mutated(call) is not None:
        return False
    outs = call.out if isinstance(call.out, (list, tuple)) else [call.out]
    return not any(isinstance(o, torch.Tensor) for o in outs) and has_tensor(call.args)


def reads(call: Call) -> List[torch.Tensor]:
    return list(tensors_in(call.args)) + list(tensors_in(call.kwargs))


def has_tensor(value: Any) -> bool:
    return next(tensors_in(value), None) is not None
