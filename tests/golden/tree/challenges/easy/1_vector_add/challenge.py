import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Vector Addition"
    atol = 1e-05
    rtol = 1e-05
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, N: int):
        assert A.shape == (N,)
        assert B.shape == (N,)
        assert C.shape == (N,)
        assert A.dtype == torch.float32
        assert B.dtype == torch.float32
        assert C.dtype == torch.float32

        torch.add(A, B, out=C)

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "A": (ctypes.POINTER(ctypes.c_float), "in"),
            "B": (ctypes.POINTER(ctypes.c_float), "in"),
            "C": (ctypes.POINTER(ctypes.c_float), "out"),
            "N": (ctypes.c_int, "in"),
        }

    def _make(self, A: torch.Tensor, B: torch.Tensor, N: int) -> Dict[str, Any]:
        """One test case in solve order."""
        return {
            "A": A,
            "B": B,
            "C": torch.empty((N,), device=self.device, dtype=torch.float32),
            "N": N,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        N = 4
        A = torch.tensor([1.0, 2.0, 3.0, 4.0], device=self.device, dtype=torch.float32)
        B = torch.tensor([5.0, 6.0, 7.0, 8.0], device=self.device, dtype=torch.float32)
        return self._make(A, B, N)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # second_example
        N = 3
        A = torch.tensor([0.5, -1.0, 2.0], device=self.device, dtype=torch.float32)
        B = torch.tensor([0.25, 1.0, -4.0], device=self.device, dtype=torch.float32)
        tests.append(self._make(A, B, N))

        # single_element
        N = 1
        A = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-10.0, 10.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-10.0, 10.0)
        tests.append(self._make(A, B, N))

        # non_power_of_two
        N = 1000
        A = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-10.0, 10.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-10.0, 10.0)
        tests.append(self._make(A, B, N))

        # zeros
        N = 16
        A = torch.zeros((N,), device=self.device, dtype=torch.float32)
        B = torch.zeros((N,), device=self.device, dtype=torch.float32)
        tests.append(self._make(A, B, N))

        # large_vector
        N = 10000
        A = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-10.0, 10.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-10.0, 10.0)
        tests.append(self._make(A, B, N))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        N = 25000000
        A = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-1000.0, 1000.0)
        B = torch.empty((N,), device=self.device, dtype=torch.float32).uniform_(-1000.0, 1000.0)
        return self._make(A, B, N)
