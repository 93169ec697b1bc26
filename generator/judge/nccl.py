"""The NCCL communicator a native solution of a multi-GPU challenge gets, one per rank.

torch.distributed's own NCCL communicator cannot be reached from Python, so each rank makes one
with NCCL's C API through ctypes, inside its process group (already joined): rank 0 draws the
unique id (ncclGetUniqueId), the group broadcasts its 128 bytes, and every rank calls
ncclCommInitRank with its GPU current. libnccl is loaded globally first and its functions are
looked up in the global scope, where the solution's own (unlinked) NCCL calls resolve too: the
communicator and the solution's collectives come from the same library.

solve then gets (ncclComm_t comm, int rank, int world_size) after the signature's parameters.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, List, Sequence, Tuple

#: sizeof(ncclUniqueId)
UNIQUE_ID_BYTES = 128
#: the parameters solve gets after the signature's, as the rank passes them (name, ctype)
RANK_ARGUMENTS = (
    ("comm", ctypes.c_void_p),
    ("rank", ctypes.c_int32),
    ("world_size", ctypes.c_int32),
)


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * UNIQUE_ID_BYTES)]


def nccl_functions() -> ctypes.CDLL:
    """NCCL's functions as the solution sees them: libnccl.so.2 (the toolchain's, else the
    system's) loaded globally, then every symbol looked up in the global scope."""
    from generator.toolchain.tools import find_nccl

    home = find_nccl()
    wheel = home / "lib" / "libnccl.so.2" if home is not None else None
    try:
        ctypes.CDLL(str(wheel) if wheel and wheel.is_file() else "libnccl.so.2", ctypes.RTLD_GLOBAL)
    except OSError as exc:
        raise RuntimeError(f"libnccl.so.2 could not be loaded: {exc}") from None
    return ctypes.CDLL(None)


def _checked(nccl: ctypes.CDLL, name: str, code: int) -> None:
    if code != 0:
        nccl.ncclGetErrorString.restype = ctypes.c_char_p
        text = nccl.ncclGetErrorString(code).decode(errors="replace")
        raise RuntimeError(f"{name} failed: {text} (NCCL error {code})")


def communicator(rank: int, world: int, device: str) -> int:
    """This rank's communicator (a pointer), made together with every other rank of the group."""
    import torch
    import torch.distributed as dist

    nccl = nccl_functions()
    unique = UniqueId()
    if rank == 0:
        _checked(nccl, "ncclGetUniqueId", nccl.ncclGetUniqueId(ctypes.byref(unique)))
    raw = torch.frombuffer(bytearray(bytes(unique)), dtype=torch.uint8).to(device)
    dist.broadcast(raw, src=0)
    ctypes.memmove(ctypes.byref(unique), bytes(raw.cpu().tolist()), UNIQUE_ID_BYTES)
    comm = ctypes.c_void_p()
    init = nccl.ncclCommInitRank
    init.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UniqueId, ctypes.c_int]
    init.restype = ctypes.c_int
    with torch.cuda.device(device):
        code = init(ctypes.byref(comm), world, unique, rank)
    _checked(nccl, "ncclCommInitRank", code)
    return int(comm.value or 0)


def rank_arguments(
    language: Any, params: Sequence[Any], setup: Dict[str, Any], device: str
) -> Tuple[List[Any], Dict[str, Any]]:
    """(solve's parameters, the values of those after the signature's) on this rank: for a
    language that takes an NCCL communicator, the signature's plus comm, rank and world_size."""
    if language.distributed_communicator != "nccl" or not device.startswith("cuda"):
        return list(params), {}
    from generator.dtypes import lookup
    from generator.judge.signature import JudgeParam

    rank, world = int(setup["rank"]), int(setup["world_size"])
    values = {"comm": communicator(rank, world, device), "rank": rank, "world_size": world}
    extra = [
        JudgeParam(name, lookup("int32"), "in", False, ctype) for name, ctype in RANK_ARGUMENTS
    ]
    return list(params) + extra, values
