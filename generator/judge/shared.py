"""Buffers the judge owns and the solution's process maps: the only memory the two share.

On the CPU each guarded buffer is a memfd (anonymous shared memory) whose descriptor travels over
the judge's socket; both sides map it. On a GPU each is an allocation of its own (`cuMemAlloc`,
never a block of torch's caching allocator, which could hold the judge's expected outputs next
to it), exported with `cuIpcGetMemHandle` and opened in the solution's process with
`cuIpcOpenMemHandle`: the solution can reach exactly its arguments and their guard bands.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from typing import Any, Dict, List, Optional, Tuple

import torch

from generator.judge.cuda_driver import Driver


class _Driver(Driver):
    """The driver calls, in the primary context torch made current."""

    def ensure_context(self) -> None:
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the primary context, current on this thread
        current = ctypes.c_void_p()
        self.check(self.lib.cuCtxGetCurrent(ctypes.byref(current)), "cuCtxGetCurrent")
        if not current.value:
            raise RuntimeError("no current CUDA context")


_DRIVER: Optional[_Driver] = None


def driver() -> _Driver:
    global _DRIVER
    if _DRIVER is None:
        _DRIVER = _Driver()
        _DRIVER.ensure_context()
    return _DRIVER


class _DeviceBytes:
    """A raw device allocation as a uint8 tensor (zero-copy, through __cuda_array_interface__)."""

    def __init__(self, ptr: int, size: int):
        self.__cuda_array_interface__ = {
            "shape": (size,),
            "typestr": "|u1",
            "data": (ptr, False),
            "version": 3,
            "strides": None,
        }


def device_tensor(ptr: int, size: int) -> torch.Tensor:
    return torch.as_tensor(_DeviceBytes(ptr, size), device="cuda")


def memfd_tensor(fd: int, size: int) -> torch.Tensor:
    mapped = mmap.mmap(fd, size)
    return torch.frombuffer(mapped, dtype=torch.uint8)


class Arena:
    """The judge's side: allocates shared buffers for one case and describes them."""

    def __init__(self, device: str):
        self.device = device
        self.buffers: List[Dict[str, Any]] = []
        self.fds: List[int] = []
        self.device_ptrs: List[int] = []

    def allocate(self, size: int, device: Any = None) -> torch.Tensor:
        size = max(int(size), 1)
        if self.device.startswith("cuda"):
            ptr = driver().alloc(size)
            self.device_ptrs.append(ptr)
            self.buffers.append({"kind": "cuda_ipc", "size": size, "handle": ""})
            self.buffers[-1]["handle"] = driver().export(ptr).hex()
            return device_tensor(ptr, size)
        fd = os.memfd_create("chgen-buffer", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        self.fds.append(fd)
        self.buffers.append({"kind": "memfd", "size": size})
        return memfd_tensor(fd, size)

    def close(self) -> None:
        """After the solution's process has let go of the buffers (and nothing reads them)."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        if self.device_ptrs:
            torch.cuda.synchronize()
            for ptr in self.device_ptrs:
                driver().free(ptr)
        self.device_ptrs = []


class Mapped:
    """The solution's side: the buffers of one case, opened."""

    def __init__(self, buffers: List[Dict[str, Any]], fds: List[int]):
        self.tensors: List[torch.Tensor] = []
        self.device_ptrs: List[int] = []
        fds = list(fds)
        for buffer in buffers:
            size = int(buffer["size"])
            if buffer["kind"] == "memfd":
                fd = fds.pop(0)
                self.tensors.append(memfd_tensor(fd, size))
                os.close(fd)
            else:
                ptr = driver().open(bytes.fromhex(buffer["handle"]))
                self.device_ptrs.append(ptr)
                self.tensors.append(device_tensor(ptr, size))

    def view(self, spec: Dict[str, Any]) -> torch.Tensor:
        data = self.tensors[int(spec["buffer"])]
        start = int(spec["offset"])
        part = data[start : start + int(spec["nbytes"])]
        return part.view(getattr(torch, spec["dtype"])).view(tuple(spec["shape"]))

    def close(self) -> None:
        self.tensors = []
        if self.device_ptrs:
            torch.cuda.synchronize()
            for ptr in self.device_ptrs:
                driver().close(ptr)
        self.device_ptrs = []


def describe_tensor(buffer_index: int, offset: int, tensor: torch.Tensor) -> Dict[str, Any]:
    return {
        "buffer": buffer_index,
        "offset": offset,
        "nbytes": tensor.numel() * tensor.element_size(),
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "shape": list(tensor.shape),
    }


def split(values: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Tensors and the rest (scalars) of a case's values."""
    tensors = {k: v for k, v in values.items() if isinstance(v, torch.Tensor)}
    return tensors, {k: v for k, v in values.items() if k not in tensors}
