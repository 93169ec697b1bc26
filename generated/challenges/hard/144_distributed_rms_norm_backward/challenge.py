import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Distributed RMS Norm Backward"
    atol = 0.001
    rtol = 0.001
    num_gpus = 4
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

    def get_rank_layout(self) -> Dict[str, Any]:
        """Each rank holds a block of rows of "split" ("rows" is its row count); the first rows %
        world_size ranks one row more. Other tensors are whole on every rank; outputs among them
        must end identical on every rank. A case's "world_size" (default num_gpus) is its ranks."""
        return {"rows": "N", "split": ["x", "dy", "dx"]}

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

        # example_2_gpus: the worked example, one row per rank
        tests.append({**self.generate_example_test(), "world_size": 2})

        # even_2_gpus
        N, C = 16, 48
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append({**self._make(x, dy, weight, N, C, 1e-05), "world_size": 2})

        # ragged_2_gpus: N = 7, rank 0 holds 4 rows, rank 1 holds 3
        N, C = 7, 40
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append({**self._make(x, dy, weight, N, C, 1e-05), "world_size": 2})

        # single_column_2_gpus: C = 1
        N, C = 9, 1
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append({**self._make(x, dy, weight, N, C, 1e-05), "world_size": 2})

        # even_4_gpus
        N, C = 32, 64
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # ragged_4_gpus: N = 10, ranks hold 3, 3, 2, 2 rows
        N, C = 10, 96
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # three_columns_4_gpus: C = 3, N = 13 (4, 3, 3, 3 rows)
        N, C = 13, 3
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # fewer_rows_than_ranks: N = 3, rank 3 holds no rows but must end with the whole dweight
        N, C = 3, 16
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # negative_weights_4_gpus
        N, C = 12, 40
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(-2.0, -0.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))

        # rows_1021x64: a prime row count over 4 ranks
        N, C = 1021, 64
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        tests.append(self._make(x, dy, weight, N, C, 1e-05))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        N, C = 32768, 4096
        x = torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(0.0, 1.0)
        dy = 0.5 * x + torch.empty((N, C), device=self.device, dtype=torch.float32).normal_(
            0.0, 1.0
        )
        weight = torch.empty((C,), device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        return self._make(x, dy, weight, N, C, 1e-05)
