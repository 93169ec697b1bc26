import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase, OutTensor, RandnTensor


class Challenge(ChallengeBase):
    name = "Scaled Row Sums (2D)"
    atol = 0.0001
    rtol = 0.0001
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, X: torch.Tensor, y: torch.Tensor, scale: float, M: int, K: int):
        assert X.shape == (M, K)
        assert y.shape == (M,)
        assert X.dtype == torch.float32
        assert y.dtype == torch.float32

        y.copy_(X.sum(dim=1) * scale)

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "X": (ctypes.POINTER(ctypes.c_float), "in"),
            "y": (ctypes.POINTER(ctypes.c_float), "out"),
            "scale": (ctypes.c_float, "in"),
            "M": (ctypes.c_int, "in"),
            "K": (ctypes.c_int, "in"),
        }

    def _make(self, X: torch.Tensor, scale: float, M: int, K: int) -> Dict[str, Any]:
        """One test case in solve order."""
        return {
            "X": X,
            "y": torch.empty((M,), device=self.device, dtype=torch.float32),
            "scale": scale,
            "M": M,
            "K": K,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        M, K = 2, 3
        X = torch.tensor(
            [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=self.device, dtype=torch.float32
        )
        return self._make(X, 0.5, M, K)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # one_by_one
        M, K = 1, 1
        X = torch.empty((M, K), device=self.device, dtype=torch.float32).uniform_(-1.0, 1.0)
        tests.append(self._make(X, 2.0, M, K))

        # outputs_zeroed
        M, K = 7, 33
        torch.manual_seed(3)
        X = torch.empty((M, K), device=self.device, dtype=torch.float32).uniform_(-1.0, 1.0)
        tests.append(
            {
                **self._make(X, 2.0, M, K),
                "y": torch.zeros((M,), device=self.device, dtype=torch.float32),
            }
        )

        # outputs_filled
        M, K = 16, 100
        X = torch.empty((M, K), device=self.device, dtype=torch.float32).uniform_(-1.0, 1.0)
        tests.append(
            {
                **self._make(X, 2.0, M, K),
                "y": torch.full((M,), -1.0, device=self.device, dtype=torch.float32),
            }
        )

        # seeded
        M, K = 64, 257
        torch.manual_seed(11)
        X = torch.empty((M, K), device=self.device, dtype=torch.float32).uniform_(-1.0, 1.0)
        tests.append(self._make(X, 2.0, M, K))

        # described
        M, K = 128, 1000
        tests.append(
            {"X": RandnTensor((M, K)), "y": OutTensor((M,)), "scale": 0.25, "M": M, "K": K}
        )
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        M, K = 8192, 8192
        return {"X": RandnTensor((M, K)), "y": OutTensor((M,)), "scale": 0.5, "M": M, "K": K}
