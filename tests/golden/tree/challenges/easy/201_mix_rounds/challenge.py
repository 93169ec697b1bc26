import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


def mix_round(v: torch.Tensor) -> torch.Tensor:
    return ((v ^ (v >> 7)) * 31) & 0xFFFF


class Challenge(ChallengeBase):
    name = "Mix Rounds"
    atol = 0
    rtol = 0
    num_gpus = 1
    access_tier = "free"

    def _mix_rounds(self, v: torch.Tensor, rounds: int) -> torch.Tensor:
        for _ in range(rounds):
            v = mix_round(v)
        return v

    def reference_impl(self, x: torch.Tensor, out: torch.Tensor, N: int, R: int):
        assert x.shape == (N,)
        assert out.shape == (N,)
        assert x.dtype == torch.int32
        assert out.dtype == torch.int32

        out.copy_(self._mix_rounds(x.to(torch.int64), R).to(torch.int32))

    def reference_impl_jax(self, x, N, R):
        import jax.numpy as jnp

        v = x
        for _ in range(R):
            v = mix_round(v)
        return v.astype(jnp.int32)

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "x": (ctypes.POINTER(ctypes.c_int), "in"),
            "out": (ctypes.POINTER(ctypes.c_int), "out"),
            "N": (ctypes.c_size_t, "in"),
            "R": (ctypes.c_int, "in"),
        }

    def _make(self, x: torch.Tensor, N: int, R: int) -> Dict[str, Any]:
        """One test case in solve order."""
        return {
            "x": x,
            "out": torch.empty((N,), device=self.device, dtype=torch.int32),
            "N": N,
            "R": R,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        N = 4
        x = torch.tensor([1, 2, 300, 65535], device=self.device, dtype=torch.int32)
        return self._make(x, N, 2)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # single_element
        N = 1
        x = torch.randint(0, 65536, (N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(x, N, 1))

        # zeros
        N = 64
        x = torch.zeros((N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(x, N, 3))

        # many_rounds
        N = 1000
        x = torch.randint(0, 65536, (N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(x, N, 64))

        # large
        N = 100000
        x = torch.randint(0, 65536, (N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(x, N, 3))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        N = 10000000
        x = torch.randint(0, 65536, (N,), device=self.device, dtype=torch.int32)
        return self._make(x, N, 16)
