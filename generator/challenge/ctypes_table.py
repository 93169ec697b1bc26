"""THE ctypes <-> dtype table, derived from the dtype table (generator/dtypes.py).

A challenge.py declares each solve parameter with a ctypes type; every reader of a challenge (the
checks, the importer, the judge) turns that spelling into dtype rows through here, so they agree.
The rows come from dtypes.py (`ctypes_tensor`, `ctypes_scalar`); this module adds only what that
table cannot say: which ctypes names are the same C type (c_int32 is c_int), the width and
signedness of C scalars on the LP64 platforms the set targets, and the types it has no row for.

c_size_t is the dtype table's `size_t` row: a 64-bit unsigned size, and the canonical name of
that C type (c_ulong and c_uint64 read as c_size_t; at run time ctypes.c_size_t is c_ulong).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from generator.dtypes import DTYPES, DType


@dataclass(frozen=True)
class CScalar:
    """A C scalar type as ctypes names it: kind ("int"/"float"), width and signedness (LP64)."""

    kind: str
    bits: int
    signed: bool


#: every ctypes scalar name a challenge may write; several names are one C type
C_SCALARS: Dict[str, CScalar] = {
    "c_bool": CScalar("bool", 8, False),
    "c_byte": CScalar("int", 8, True),
    "c_int8": CScalar("int", 8, True),
    "c_ubyte": CScalar("int", 8, False),
    "c_uint8": CScalar("int", 8, False),
    "c_short": CScalar("int", 16, True),
    "c_int16": CScalar("int", 16, True),
    "c_ushort": CScalar("int", 16, False),
    "c_uint16": CScalar("int", 16, False),
    "c_int": CScalar("int", 32, True),
    "c_int32": CScalar("int", 32, True),
    "c_uint": CScalar("int", 32, False),
    "c_uint32": CScalar("int", 32, False),
    "c_long": CScalar("int", 64, True),
    "c_longlong": CScalar("int", 64, True),
    "c_int64": CScalar("int", 64, True),
    "c_ssize_t": CScalar("int", 64, True),
    "c_ulong": CScalar("int", 64, False),
    "c_ulonglong": CScalar("int", 64, False),
    "c_uint64": CScalar("int", 64, False),
    "c_size_t": CScalar("int", 64, False),
    "c_float": CScalar("float", 32, True),
    "c_double": CScalar("float", 64, True),
}
SIZE_T = "ctypes.c_size_t"

_POINTER_RE = re.compile(r"^ctypes\.POINTER\((.+)\)$")
_BARE_CTYPES_RE = re.compile(r"(?<![\w.])(c_\w+|POINTER)\b")


def _pointee(spelling: str) -> Optional[str]:
    match = _POINTER_RE.match(spelling)
    return match.group(1) if match else None


def _table_names() -> Dict[CScalar, str]:
    """C type -> the ctypes name the dtype table spells it with (its canonical name)."""
    names: Dict[CScalar, str] = {}
    for row in DTYPES.values():
        for spelling in (_pointee(row.ctypes_tensor), row.ctypes_scalar):
            if spelling:
                short = spelling.removeprefix("ctypes.")
                names.setdefault(C_SCALARS[short], short)
    return names


_CANONICAL = _table_names()


def canonical_scalar(name: str) -> str:
    """'c_int32' -> 'c_int', 'c_longlong' -> 'c_int64': the dtype table's name for the C type."""
    if name not in C_SCALARS:
        return name
    return _CANONICAL.get(C_SCALARS[name], name)


def normalize(spelling: str) -> str:
    """Any way of writing a ctypes type -> one spelling.

    'POINTER(c_int32)', 'ctypes.POINTER(ctypes.c_int32)' -> 'ctypes.POINTER(ctypes.c_int)'.
    What is not a ctypes type keeps its own spelling (with the spaces removed)."""
    text = _BARE_CTYPES_RE.sub(r"ctypes.\1", spelling.replace(" ", ""))
    pointee = _pointee(text)
    if pointee is not None:
        return f"ctypes.POINTER({normalize(pointee)})"
    if text.startswith("ctypes.c_"):
        return "ctypes." + canonical_scalar(text.removeprefix("ctypes."))
    return text


@dataclass(frozen=True)
class CType:
    """What one ctypes spelling means to a reader of challenge.py."""

    spelling: str  # normalized
    is_pointer: bool
    rows: Tuple[DType, ...]  # the dtype rows it stands for (several share c_uint16), may be ()
    scalar: Optional[CScalar]  # the C scalar (the pointee of a pointer); None if not ctypes
    value_row: Optional[DType]  # the row that holds a value of it at its own width
    no_row: Optional[str]  # why there are no rows, in words, when there are none

    @property
    def is_ctypes(self) -> bool:
        return self.scalar is not None

    def describe(self) -> str:
        """'ctypes.c_double (a 64-bit signed float scalar, ...)' for messages."""
        return f"{self.spelling} ({self.no_row})" if self.no_row else self.spelling


def _element_row(scalar: CScalar) -> Optional[DType]:
    """The dtype row whose elements are this C scalar (float16/bfloat16 only borrow c_uint16)."""
    for row in DTYPES.values():
        pointee = _pointee(row.ctypes_tensor)
        if row.scalar_only:
            continue
        if row.kind == scalar.kind and pointee and C_SCALARS[pointee[7:]] == scalar:
            return row
    return None


def _no_row(spelling: str, scalar: Optional[CScalar], is_pointer: bool) -> str:
    if scalar is None:
        return "not a ctypes type"
    signed = "signed" if scalar.signed else "unsigned"
    noun = {"int": "integer", "float": "float", "bool": "bool"}[scalar.kind]
    article = "an" if scalar.bits == 8 else "a"
    what = f"{article} {scalar.bits}-bit {signed} {noun}"
    if is_pointer:
        return f"a pointer to {what}, which the dtype table has no row for"
    return f"{what} scalar, which the dtype table has no row for"


def lookup(spelling: str) -> CType:
    """The facts of one ctypes spelling, written any way `normalize` accepts."""
    text = normalize(spelling)
    pointee = _pointee(text)
    is_pointer = pointee is not None
    short = (pointee or text).removeprefix("ctypes.")
    scalar = C_SCALARS.get(short) if (pointee or text).startswith("ctypes.") else None
    if is_pointer:
        rows = tuple(
            row for row in DTYPES.values() if row.ctypes_tensor == text and not row.scalar_only
        )
    else:
        rows = tuple(row for row in DTYPES.values() if row.ctypes_scalar == text)
    value_row = None
    if scalar is not None:
        value_row = rows[0] if rows else _element_row(scalar)
    return CType(
        spelling=text,
        is_pointer=is_pointer,
        rows=rows,
        scalar=scalar,
        value_row=value_row,
        no_row=None if rows else _no_row(text, scalar, is_pointer),
    )


def spelling_of(ctype: object) -> Optional[str]:
    """The spelling of a ctypes class get_solve_signature() returned, or None if it is none.

    At run time c_size_t is the class c_ulong, so its name cannot tell them apart: both are the
    same 64-bit unsigned type, read as c_size_t."""
    import ctypes

    if isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer):
        inner = spelling_of(getattr(ctype, "_type_", None))
        return f"ctypes.POINTER({inner})" if inner else None
    if isinstance(ctype, type) and issubclass(ctype, ctypes._SimpleCData):
        return normalize(f"ctypes.{ctype.__name__}")
    return None
