"""THE dtype table: one row per dtype, one column per language.

Every language adapter, the challenge.py template and the judge read their type names from here,
so a dtype is added (or a language gains a column) in exactly one place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional, Tuple, Union

Number = Union[int, float]


@dataclass(frozen=True)
class DType:
    """How one element type is spelled in every language chgen emits."""

    name: str  # the spec's spelling
    itemsize: int  # bytes per element
    kind: str  # "float" or "int"
    torch: str  # attribute of the torch module
    ctypes_tensor: str  # ctypes spelling of a pointer to it (challenge.py get_solve_signature)
    cuda: str  # CUDA element type
    cuda_include: Optional[str]  # header that defines the CUDA type, if not built in
    mojo: str  # Mojo element type (pointer parameter) / scalar type
    cute_scalar: Optional[str]  # CuTe DSL scalar annotation (scalars only)
    cute_element: str  # cutlass element type, for solutions and the judge
    jax: str  # jnp dtype attribute
    python_scalar: Optional[str]  # Python annotation for a scalar of this type
    ctypes_scalar: Optional[str]  # ctypes spelling of a scalar of this type
    triton: str  # tl dtype attribute
    tilelang: str  # TileLang dtype string (T.Tensor(shape, dtype), T.alloc_fragment)
    #: a size type only (size_t): scalars of it are sizes, no tensor holds it
    scalar_only: bool = False
    #: the smallest and largest finite value an element holds
    limits: Tuple[Number, Number] = (0, 0)
    #: floats: significand bits (with the implicit one): every integer up to 2**bits is exact
    significand_bits: int = 0

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def exact_integers(self) -> int:
        """The largest magnitude up to which every integer is an exact element of this type."""
        return 2 ** self.significand_bits if self.is_float else max(abs(v) for v in self.limits)

    def value_problem(self, value: Number) -> Optional[str]:
        """Why `value` cannot be an element of this type, in a few words (None when it can)."""
        if isinstance(value, float) and not math.isfinite(value):
            return None if self.is_float else "NaN and infinity are float values only"
        low, high = self.limits
        if not self.is_float and value != int(value):
            return "not an integer"
        if not low <= value <= high:
            return "out of range"
        return None

    @property
    def is_size(self) -> bool:
        """Scalars of this type may name a tensor dimension (int32, size_t)."""
        return self.kind == "int" and self.python_scalar == "int"


_F32 = 3.4028234663852886e38  # torch.finfo(torch.float32).max
_BF16 = 3.3895313892515355e38  # torch.finfo(torch.bfloat16).max

_ROWS = [
    # name, size, kind, torch, ctypes pointer, CUDA, include, Mojo, CuTe scalar, CuTe element,
    # JAX, Python scalar, ctypes scalar, Triton, TileLang
    DType("float32", 4, "float", "float32", "ctypes.POINTER(ctypes.c_float)", "float", None,
          "Float32", "cute.Float32", "cutlass.Float32", "float32", "float", "ctypes.c_float",
          "float32", "float32", limits=(-_F32, _F32), significand_bits=24),
    DType("float16", 2, "float", "float16", "ctypes.POINTER(ctypes.c_uint16)", "half",
          "cuda_fp16.h", "Float16", None, "cutlass.Float16", "float16", None, None, "float16",
          "float16", limits=(-65504.0, 65504.0), significand_bits=11),
    DType("bfloat16", 2, "float", "bfloat16", "ctypes.POINTER(ctypes.c_uint16)", "__nv_bfloat16",
          "cuda_bf16.h", "BFloat16", None, "cutlass.BFloat16", "bfloat16", None, None,
          "bfloat16", "bfloat16", limits=(-_BF16, _BF16), significand_bits=8),
    DType("int8", 1, "int", "int8", "ctypes.POINTER(ctypes.c_int8)", "int8_t", None, "Int8", None,
          "cutlass.Int8", "int8", None, None, "int8", "int8", limits=(-(2**7), 2**7 - 1)),
    # CUDA 13's cuda_runtime.h declares int8_t but not uint8_t: stdint.h, as the public set has it
    DType("uint8", 1, "int", "uint8", "ctypes.POINTER(ctypes.c_uint8)", "uint8_t", "stdint.h",
          "UInt8", None, "cutlass.Uint8", "uint8", None, None, "uint8", "uint8",
          limits=(0, 2**8 - 1)),
    DType("int32", 4, "int", "int32", "ctypes.POINTER(ctypes.c_int)", "int", None, "Int32",
          "cute.Int32", "cutlass.Int32", "int32", "int", "ctypes.c_int", "int32", "int32",
          limits=(-(2**31), 2**31 - 1)),
    DType("uint32", 4, "int", "uint32", "ctypes.POINTER(ctypes.c_uint32)", "unsigned int", None,
          "UInt32", None, "cutlass.Uint32", "uint32", None, None, "uint32", "uint32",
          limits=(0, 2**32 - 1)),
    DType("int64", 8, "int", "int64", "ctypes.POINTER(ctypes.c_int64)", "long long", None,
          "Int64", None, "cutlass.Int64", "int64", None, None, "int64", "int64",
          limits=(-(2**63), 2**63 - 1)),
    # a C size (public 1 and 68 declare ctypes.c_size_t): the native languages take it at its own
    # width (CUDA size_t, Mojo UInt64: Mojo's UInt cannot be passed to a kernel); the Python ones
    # as the public starters write it (CuTe cute.Uint32, int elsewhere)
    DType("size_t", 8, "int", "int64", "ctypes.POINTER(ctypes.c_size_t)", "size_t", None,
          "UInt64", "cute.Uint32", "cutlass.Uint32", "uint64", "int", "ctypes.c_size_t",
          "uint64", "uint64", scalar_only=True, limits=(0, 2**64 - 1)),
]  # fmt: skip

DTYPES: Dict[str, DType] = {row.name: row for row in _ROWS}

#: dtypes a tensor parameter may have
TENSOR_DTYPES = tuple(name for name, row in DTYPES.items() if not row.scalar_only)
#: dtypes a scalar parameter may have (sizes and counts are int32 or size_t, factors float32)
SCALAR_DTYPES = tuple(name for name, row in DTYPES.items() if row.python_scalar is not None)


def lookup(name: str) -> DType:
    """The row for `name`; the spec model has already rejected unknown names."""
    return DTYPES[name]


def by_ctypes_tensor(spelling: str) -> list[DType]:
    """Rows whose pointer type is spelled `spelling` (several dtypes share c_uint16)."""
    return [row for row in _ROWS if row.ctypes_tensor == spelling]
