import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "RMS Norm Backward"
    atol = 0.001
    rtol = 0.001
    num_gpus = 1
    access_tier = "free"

    def reference_impl(
        self,
        x: torch.Tensor,
        dy: torch.Tensor,
        weight: torch.Tensor,
        dx: torch.Tensor,
        dweight: torch.Tensor,
        N: int,
        C: int,
        eps: float,
    ):
        assert x.shape == (N, C)
        assert dy.shape == (N, C)
        assert weight.shape == (C,)
        assert dx.shape == (N, C)
        assert dweight.shape == (C,)
        assert x.dtype == torch.float32
        assert dy.dtype == torch.float32
        assert weight.dtype == torch.float32
        assert dx.dtype == torch.float32
        assert dweight.dtype == torch.float32

        rstd = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + eps)
        x_hat = x * rstd
        g = dy * weight
        dx.copy_(rstd * (g - x_hat * (g * x_hat).mean(dim=1, keepdim=True)))
        dweight.copy_((dy * x_hat).sum(dim=0))

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "x": (ctypes.POINTER(ctypes.c_float), "in"),
            "dy": (ctypes.POINTER(ctypes.c_float), "in"),
            "weight": (ctypes.POINTER(ctypes.c_float), "in"),
            "dx": (ctypes.POINTER(ctypes.c_float), "out"),
            "dweight": (ctypes.POINTER(ctypes.c_float), "out"),
            "N": (ctypes.c_int, "in"),
            "C": (ctypes.c_int, "in"),
            "eps": (ctypes.c_float, "in"),
        }

    def _make(
        self, x: torch.Tensor, dy: torch.Tensor, weight: torch.Tensor, N: int, C: int, eps: float
    ) -> Dict[str, Any]:
        """One test case in solve order, outputs pre-filled with 123.0."""
        return {
            "x": x,
            "dy": dy,
            "weight": weight,
            "dx": torch.full((N, C), 123.0, device=self.device, dtype=torch.float32),
            "dweight": torch.full((C,), 123.0, device=self.device, dtype=torch.float32),
            "N": N,
            "C": C,
            "eps": eps,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        N, C = 2, 4
        x = torch.tensor(
            [[1.0, -1.0, 1.0, -1.0], [2.0, 0.0, 0.0, 0.0]], device=self.device, dtype=torch.float32
        )
        dy = torch.tensor(
            [[1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]], device=self.device, dtype=torch.float32
        )
        weight = torch.tensor([1.0, 2.0, 0.5, 1.0], device=self.device, dtype=torch.float32)
        return self._make(x, dy, weight, N, C, 1e-05)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # single_element: N = C = 1, where the exact dx is (almost) 0
        N, C = 1, 1
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # example: the worked example
        tests.append(self.generate_example_test())

        # zero_x: all-zero x, where only eps keeps rstd finite
        N, C = 4, 16
        x = torch.zeros((N, C), device=self.device, dtype=torch.float32)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # zero_dy: all-zero dy must give exactly zero gradients
        N, C = 8, 32
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = torch.zeros((N, C), device=self.device, dtype=torch.float32)
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # large_eps: eps = 1.0 changes rstd visibly
        N, C = 16, 48
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1.0))

        # negative_weights
        N, C = 12, 40
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(-2.0, -0.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # large_magnitude: x with sigma = 50
        N, C = 64, 96
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 50.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # single_column: C = 1, a column tail only
        N, C = 37, 1
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # three_columns
        N, C = 5, 3
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # pow2_16x64
        N, C = 16, 64
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # pow2_32x128
        N, C = 32, 128
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # non_square_100x30
        N, C = 100, 30
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # rows_255x1000
        N, C = 255, 1000
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # ragged_4099x256: a row count that leaves a ragged last block
        N, C = 4099, 256
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # realistic_1024x2048
        N, C = 1024, 2048
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        N, C = 16384, 4096
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        return self._make(x, dy, weight, N, C, 1e-05)
