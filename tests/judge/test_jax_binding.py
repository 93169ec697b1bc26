"""The JAX adapter's bound call: the buffers imported once, and what a call returned let go of
before the next timed call, off the clock (generator/toolchain/bindings.py)."""

from __future__ import annotations

import pytest
import torch

from generator.languages import BY_KEY
from generator.languages.base import SigParam
from generator.toolchain.errors import ReturnMismatch

SOURCE = """\
import jax


@jax.jit
def solve(x):
    return x + 1
"""


def _bound(tmp_path):
    adapter = BY_KEY["jax"]
    path = tmp_path / f"add_one{adapter.suffix}"
    path.write_text(SOURCE)
    params = [SigParam.make("x", "float32", "in", True), SigParam.make("y", "float32", "out", True)]
    values = {"x": torch.arange(8, dtype=torch.float32), "y": torch.zeros(8)}
    adapter.prepare_worker()
    solve = adapter.load(adapter.build(path, tmp_path, None), params)
    return solve.bind(params, values), values


def test_a_call_maps_what_it_returned(tmp_path):
    bound, values = _bound(tmp_path)
    bound.run()
    bound.finish()
    assert torch.equal(values["y"], values["x"] + 1)


def test_prepare_lets_go_of_the_last_calls_arrays(tmp_path):
    bound, values = _bound(tmp_path)
    bound.run()
    bound.prepare()
    with pytest.raises(ReturnMismatch, match="solve returned None"):
        bound.finish()  # nothing held: the next timed call frees nothing on its clock
    bound.run()
    bound.finish()
    assert torch.equal(values["y"], values["x"] + 1)


def test_other_languages_prepare_nothing(tmp_path):
    from generator.toolchain.bindings import PythonSolve

    bound = PythonSolve(lambda x: None).bind([SigParam.make("x", "float32", "in", True)],
                                             {"x": torch.zeros(1)})  # fmt: skip
    assert bound.prepare() is None
