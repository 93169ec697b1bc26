import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "FP16 Dot Product"
    atol = 0.05
    rtol = 0.05
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, A: torch.Tensor, B: torch.Tensor, result: torch.Tensor, N: int):
        assert A.shape == (N,)
        assert B.shape == (N,)
        assert result.shape == (1,)
        assert A.dtype == torch.float16
        assert B.dtype == torch.float16
        assert result.dtype == torch.float16

        result.copy_(torch.dot(A.float(), B.float()).reshape(1).to(result.dtype))

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "A": (ctypes.POINTER(ctypes.c_uint16), "in"),
            "B": (ctypes.POINTER(ctypes.c_uint16), "in"),
            "result": (ctypes.POINTER(ctypes.c_uint16), "out"),
            "N": (ctypes.c_int, "in"),
        }

    def _make(self, A: torch.Tensor, B: torch.Tensor, N: int) -> Dict[str, Any]:
        """One test case in solve order, outputs pre-filled with 0.0."""
        return {
            "A": A,
            "B": B,
            "result": torch.full((1,), 0.0, device=self.device, dtype=torch.float16),
            "N": N,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        N = 4
        A = torch.tensor([1.0, 2.0, 3.0, 4.0], device=self.device, dtype=torch.float16)
        B = torch.tensor([0.5, 0.5, 0.5, 0.5], device=self.device, dtype=torch.float16)
        return self._make(A, B, N)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # single_element
        N = 1
        A = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        tests.append(self._make(A, B, N))

        # non_power_of_two
        N = 1000
        A = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        tests.append(self._make(A, B, N))

        # large
        N = 100000
        A = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        tests.append(self._make(A, B, N))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        N = 100000000
        A = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float16).uniform_(-1.0, 1.0)
        return self._make(A, B, N)
