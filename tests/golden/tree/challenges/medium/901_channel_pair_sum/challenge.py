import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Channel Pair Sum"
    atol = 1e-05
    rtol = 1e-05
    num_gpus = 1
    access_tier = "free"

    def reference_impl(
        self, x: torch.Tensor, y: torch.Tensor, total: torch.Tensor, B: int, C: int, L: int
    ):
        assert x.shape in ((B, 2 * C, L), (B * 2 * C * L,))
        assert y.shape == (B, C, (L + 1) // 2)
        assert total.shape == ()
        assert x.dtype == torch.float32
        assert y.dtype == torch.float32
        assert total.dtype == torch.float32

        x = x.view(B, 2 * C, L)
        y.copy_(x[:, 0::2, ::2] + x[:, 1::2, ::2])
        total.copy_(y.sum())

    def reference_impl_jax(
        self,
        x,
        B,
        C,
        L,
    ):
        x = x.reshape(B, 2 * C, L)
        y = x[:, 0::2, ::2] + x[:, 1::2, ::2]
        return y, y.sum()

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "x": (ctypes.POINTER(ctypes.c_float), "in"),
            "y": (ctypes.POINTER(ctypes.c_float), "out"),
            "total": (ctypes.POINTER(ctypes.c_float), "out"),
            "B": (ctypes.c_int, "in"),
            "C": (ctypes.c_int, "in"),
            "L": (ctypes.c_int, "in"),
        }

    def _make(self, x: torch.Tensor, B: int, C: int, L: int) -> Dict[str, Any]:
        """One test case in solve order."""
        return {
            "x": x,
            "y": torch.empty((B, C, (L + 1) // 2), device=self.device, dtype=torch.float32),
            "total": torch.empty((), device=self.device, dtype=torch.float32),
            "B": B,
            "C": C,
            "L": L,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        B, C, L = 1, 2, 3
        x = torch.tensor(
            [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]],
            device=self.device,
            dtype=torch.float32,
        )
        return self._make(x, B, C, L)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # odd_length
        B, C, L = 2, 3, 7
        x = torch.empty((B, 2 * C, L), device=self.device, dtype=torch.float32).uniform_(-1.0, 1.0)
        tests.append(self._make(x, B, C, L))

        # flat_input
        B, C, L = 3, 4, 16
        x = torch.empty((B * 2 * C * L,), device=self.device, dtype=torch.float32).uniform_(
            -1.0, 1.0
        )
        tests.append(self._make(x, B, C, L))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        B, C, L = 16, 256, 4096
        x = torch.empty((B, 2 * C, L), device=self.device, dtype=torch.float32).uniform_(-1.0, 1.0)
        return self._make(x, B, C, L)
