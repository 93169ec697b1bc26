import ctypes
from typing import Any, Dict, List

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Row Inverse RMS"
    atol = 0
    rtol = 1e-05
    num_gpus = 1
    access_tier = "free"

    def reference_impl(self, x: torch.Tensor, inv_rms: torch.Tensor, T: int, D: int, eps: float):
        assert x.shape == (T, D)
        assert inv_rms.shape == (T,)
        assert x.dtype == torch.bfloat16
        assert inv_rms.dtype == torch.float32

        xf = x.to(inv_rms.dtype)
        inv_rms.copy_(torch.rsqrt(xf.square().mean(dim=1) + eps))

    def reference_impl_jax(self, x, T, D, eps):
        import jax
        import jax.numpy as jnp

        xf = x.astype(jnp.float32)
        return jax.lax.rsqrt(jnp.mean(jnp.square(xf), axis=1) + eps)

    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "x": (ctypes.POINTER(ctypes.c_uint16), "in"),
            "inv_rms": (ctypes.POINTER(ctypes.c_float), "out"),
            "T": (ctypes.c_int, "in"),
            "D": (ctypes.c_int, "in"),
            "eps": (ctypes.c_float, "in"),
        }

    def _make(self, x: torch.Tensor, T: int, D: int, eps: float) -> Dict[str, Any]:
        """One test case in solve order, outputs pre-filled with 123.0."""
        return {
            "x": x,
            "inv_rms": torch.full((T,), 123.0, device=self.device, dtype=torch.float32),
            "T": T,
            "D": D,
            "eps": eps,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        T, D = 3, 4
        x = torch.tensor(
            [[1.0, 1.0, 1.0, 1.0], [2.0, -2.0, 2.0, -2.0], [0.5, 0.5, -0.5, 0.5]],
            device=self.device,
            dtype=torch.bfloat16,
        )
        return self._make(x, T, D, 1e-06)

    def generate_functional_test(self) -> List[Dict[str, Any]]:
        tests = []

        # example
        tests.append(self.generate_example_test())

        # single_element: T = D = 1
        T, D = 1, 1
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # single_row
        T, D = 1, 4096
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # three_columns: D smaller than any vector width
        T, D = 7, 3
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # non_power_of_two
        T, D = 33, 1000
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # zeros: all-zero rows give exactly 1/sqrt(eps)
        T, D = 4, 256
        x = torch.zeros((T, D), device=self.device, dtype=torch.bfloat16)
        tests.append(self._make(x, T, D, 1e-06))

        # tiny_values: mean of squares near eps
        T, D = 16, 512
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 0.001)
        tests.append(self._make(x, T, D, 1e-06))

        # huge_values: squares near 1e30, still finite in float32
        T, D = 16, 1000
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(
            0.0, 1000000000000000.0
        )
        tests.append(self._make(x, T, D, 1e-06))

        # offset_values: a large mean, where cancellation-free summation matters
        T, D = 8, 2048
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(100.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # ragged_rows
        T, D = 4099, 128
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # wide_rows
        T, D = 64, 16384
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))

        # very_wide_rows
        T, D = 3, 32768
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        tests.append(self._make(x, T, D, 1e-06))
        return tests

    def generate_performance_test(self) -> Dict[str, Any]:
        T, D = 8192, 16384
        x = torch.empty((T, D), device=self.device, dtype=torch.bfloat16).normal_(0.0, 1.0)
        return self._make(x, T, D, 1e-06)
