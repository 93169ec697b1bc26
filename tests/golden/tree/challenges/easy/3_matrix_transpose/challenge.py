import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Matrix Transpose"
    atol = 1e-05
    rtol = 1e-05
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, input: torch.Tensor, output: torch.Tensor, rows: int, cols: int):
        assert input.shape == (rows, cols)
        assert output.shape == (cols, rows)
        assert input.dtype == torch.float32
        assert output.dtype == torch.float32

        output.copy_(input.transpose(0, 1))

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "input": (ctypes.POINTER(ctypes.c_float), "in"),
            "output": (ctypes.POINTER(ctypes.c_float), "out"),
            "rows": (ctypes.c_int, "in"),
            "cols": (ctypes.c_int, "in"),
        }

    def _make(self, input: torch.Tensor, rows: int, cols: int) -> Dict[str, Any]:
        """One test case in solve order, outputs pre-filled with 0.0."""
        return {
            "input": input,
            "output": torch.full((cols, rows), 0.0, device=self.device, dtype=torch.float32),
            "rows": rows,
            "cols": cols,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        rows, cols = 2, 3
        input = torch.tensor(
            [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=self.device, dtype=torch.float32
        )
        return self._make(input, rows, cols)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # single_row
        rows, cols = 1, 4
        input = torch.empty((rows, cols), device=self.device, dtype=torch.float32).uniform_(
            -10.0, 10.0
        )
        tests.append(self._make(input, rows, cols))

        # single_column
        rows, cols = 4, 1
        input = torch.empty((rows, cols), device=self.device, dtype=torch.float32).uniform_(
            -10.0, 10.0
        )
        tests.append(self._make(input, rows, cols))

        # square_32
        rows, cols = 32, 32
        input = torch.empty((rows, cols), device=self.device, dtype=torch.float32).uniform_(
            -10.0, 10.0
        )
        tests.append(self._make(input, rows, cols))

        # non_square_100x37
        rows, cols = 100, 37
        input = torch.empty((rows, cols), device=self.device, dtype=torch.float32).uniform_(
            -10.0, 10.0
        )
        tests.append(self._make(input, rows, cols))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        rows, cols = 7000, 6000
        input = torch.empty((rows, cols), device=self.device, dtype=torch.float32).uniform_(
            -10.0, 10.0
        )
        return self._make(input, rows, cols)
