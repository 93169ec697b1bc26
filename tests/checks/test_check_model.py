"""What the static rules read out of a challenge.py without running it: the example's ranks
through a builder method and a small helper it defines (the public `tensor_or_random` form)."""

from __future__ import annotations

from generator.challenge.pyfile import read_challenge_py
from generator.checks.model import example_ranks

SOURCE = """
import ctypes
from typing import Any, Dict

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    def get_solve_signature(self) -> Dict[str, tuple]:
        return {
            "a": (ctypes.POINTER(ctypes.c_float), "in"),
            "b": (ctypes.POINTER(ctypes.c_float), "in"),
            "out": (ctypes.POINTER(ctypes.c_float), "out"),
            "N": (ctypes.c_int, "in"),
        }

    def _make_test_case(self, N, a=None, b=None):
        device = self.device

        def tensor_or_random(values):
            if values is None:
                return torch.randn(N, N, device=device)
            return torch.tensor(values, device=device)

        return {
            "a": tensor_or_random(a),
            "b": tensor_or_random(b),
            "out": torch.empty(1, device=device),
            "N": N,
        }

    def generate_example_test(self) -> Dict[str, Any]:
        return self._make_test_case(4, a=[0.0, 1.0, -1.0, 2.0])
"""


def test_the_ranks_follow_a_builder_into_its_local_helper_by_the_arguments_given():
    model = read_challenge_py(SOURCE)
    # `a` is given (the helper's second return: its literal), `b` is not (the random branch)
    assert example_ranks(model) == {"a": 1, "b": 2, "out": 1}


def test_an_undecidable_helper_leaves_the_rank_unknown():
    undecided = SOURCE.replace("if values is None:", "if len(str(values)) > 3:")
    assert example_ranks(read_challenge_py(undecided)) == {"out": 1}
