"""A challenge's `get_solve_signature()` as judge parameters.

Any LeetGPU tree works, so the signature is read from challenge.py (ctypes types), not from a spec.
The ctypes type is kept: native solutions are called with exactly the declared argument types
(public challenges declare `c_size_t` sizes, for instance).
"""

from __future__ import annotations

import ctypes
import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, List

from generator.challenge import ctypes_table
from generator.dtypes import DTYPES, DType
from generator.languages.base import SigParam

DIRECTIONS = ("in", "out", "inout")


@dataclass(frozen=True)
class JudgeParam(SigParam):
    """A SigParam that also remembers the declared ctypes type."""

    ctype: Any = None


#: The row of a parameter that is a Python object, not data (only its name is ever read).
OBJECT_ROW = dataclasses.replace(DTYPES["uint8"], name="object", itemsize=0)


def _is_torch_tensor(ctype: Any) -> bool:
    return getattr(ctype, "__module__", "").startswith("torch") and ctype.__name__ == "Tensor"


class SignatureError(ValueError):
    """get_solve_signature() returned something the judge cannot call."""


def params_from_signature(signature: Dict[str, Any]) -> List[JudgeParam]:
    params: List[JudgeParam] = []
    for name, entry in signature.items():
        try:
            ctype, direction = entry
        except (TypeError, ValueError):
            raise SignatureError(f"{name}: expected (ctypes type, direction), got {entry!r}")
        if direction not in DIRECTIONS:
            raise SignatureError(f"{name}: direction {direction!r} is not in/out/inout")
        spelling = ctypes_table.spelling_of(ctype)
        facts = ctypes_table.lookup(spelling) if spelling else None
        if isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer):
            # the first row wins where dtypes share a pointer (float16/bfloat16)
            row = facts.rows[0] if facts and facts.rows else _unknown_pointer_row(ctype)
            params.append(JudgeParam(name, row, direction, True, ctype))
        elif facts is not None and facts.value_row is not None:
            params.append(JudgeParam(name, facts.value_row, direction, False, ctype))
        elif _is_torch_tensor(ctype):  # PyTorch-only challenges declare torch.Tensor itself
            params.append(JudgeParam(name, DTYPES["float32"], direction, True, ctype))
        elif isinstance(ctype, type) and not issubclass(ctype, ctypes._SimpleCData):
            # an nn.Module and the like: handed to Python solutions as it is
            params.append(JudgeParam(name, OBJECT_ROW, direction, False, ctype))
        else:
            raise SignatureError(
                f"{name}: unsupported scalar type {getattr(ctype, '__name__', ctype)}"
            )
    return params


def _unknown_pointer_row(ctype: Any) -> DType:
    """Pointers to types outside the dtype table (c_bool, c_double): a row that names the type.

    Only the display name matters; the tensors themselves carry their torch dtype."""
    target = getattr(ctype, "_type_", None)
    name = getattr(target, "__name__", "unknown").removeprefix("c_")
    size = ctypes.sizeof(target) if target is not None else 1
    return dataclasses.replace(DTYPES["uint8"], name=name, itemsize=size)
