import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Histogramming"
    atol = 0
    rtol = 0
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, input: torch.Tensor, histogram: torch.Tensor, N: int, num_bins: int):
        assert input.shape == (N,)
        assert histogram.shape == (num_bins,)
        assert input.dtype == torch.int32
        assert histogram.dtype == torch.int32

        counts = torch.bincount(input, minlength=num_bins)
        histogram.copy_(counts[:num_bins])

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "input": (ctypes.POINTER(ctypes.c_int), "in"),
            "histogram": (ctypes.POINTER(ctypes.c_int), "out"),
            "N": (ctypes.c_int, "in"),
            "num_bins": (ctypes.c_int, "in"),
        }

    def _make(self, input: torch.Tensor, N: int, num_bins: int) -> Dict[str, Any]:
        """One test case in solve order, outputs pre-filled with 123."""
        return {
            "input": input,
            "histogram": torch.full((num_bins,), 123, device=self.device, dtype=torch.int32),
            "N": N,
            "num_bins": num_bins,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        N, num_bins = 5, 3
        input = torch.tensor([0, 1, 2, 1, 0], device=self.device, dtype=torch.int32)
        return self._make(input, N, num_bins)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # single_element
        N, num_bins = 1, 1
        input = torch.randint(0, 16, (N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(input, N, num_bins))

        # many_bins
        N, num_bins = 1000, 1024
        input = torch.randint(0, 1024, (N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(input, N, num_bins))

        # all_one_bin
        N, num_bins = 4096, 8
        input = torch.full((N,), 3, device=self.device, dtype=torch.int32)
        tests.append(self._make(input, N, num_bins))

        # large
        N, num_bins = 100000, 16
        input = torch.randint(0, 16, (N,), device=self.device, dtype=torch.int32)
        tests.append(self._make(input, N, num_bins))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        N, num_bins = 50000000, 256
        input = torch.randint(0, 256, (N,), device=self.device, dtype=torch.int32)
        return self._make(input, N, num_bins)
