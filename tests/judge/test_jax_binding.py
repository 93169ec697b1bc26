"""The JAX adapter's bound call: the buffers imported once, at bind, as views that see what the
judge writes into its buffers between calls (imported again where JAX copied or a call donated
them), and what a call returned let go of before the next timed call, off the clock
(generator/toolchain/bindings.py)."""

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


DONATING = """\
import functools

import jax


@functools.partial(jax.jit, donate_argnums=0)
def solve(x):
    return x * 2
"""


def _bound(tmp_path, source=SOURCE, dtype="float32", name="add_one"):
    adapter = BY_KEY["jax"]
    path = tmp_path / f"{name}{adapter.suffix}"
    path.write_text(source)
    params = [SigParam.make("x", dtype, "in", True), SigParam.make("y", dtype, "out", True)]
    kind = getattr(torch, dtype)
    values = {"x": torch.arange(8, dtype=kind), "y": torch.zeros(8, dtype=kind)}
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


def test_the_buffers_are_imported_once_and_see_what_the_judge_writes(tmp_path):
    from generator.toolchain.bindings import BOUND

    bound, values = _bound(tmp_path)
    assert bound.exchange == BOUND
    for start in (100.0, -7.0):  # the judge rewrites its input buffer in place between calls
        values["x"].copy_(torch.arange(8, dtype=torch.float32) + start)
        bound.prepare()
        bound.run()
        bound.finish()
        assert torch.equal(values["y"], values["x"] + 1)


def test_a_buffer_jax_copied_on_import_is_imported_at_each_call(tmp_path):
    """int64 without x64: JAX's import is a copy, which would keep the first call's inputs."""
    from generator.toolchain.bindings import PER_CALL

    bound, values = _bound(tmp_path, dtype="int64")
    assert bound.exchange == PER_CALL
    values["x"].copy_(torch.arange(8, dtype=torch.int64) * 3)
    bound.run()
    bound.finish()
    assert torch.equal(values["y"], values["x"] + 1)


def test_a_donated_buffer_is_imported_again(tmp_path):
    bound, values = _bound(tmp_path, DONATING, name="donating")
    for start in (1.0, 5.0):
        values["x"].copy_(torch.arange(8, dtype=torch.float32) + start)
        bound.run()  # the last call deleted its (donated) view of x
        bound.finish()
        assert torch.equal(values["y"], (torch.arange(8, dtype=torch.float32) + start) * 2)


def test_the_per_call_exchange_is_kept_for_comparison(tmp_path):
    from generator.toolchain.bindings import PER_CALL, JaxSolve, import_file, solve_of

    _, values = _bound(tmp_path)
    path = tmp_path / f"add_one{BY_KEY['jax'].suffix}"
    params = [SigParam.make("x", "float32", "in", True), SigParam.make("y", "float32", "out", True)]
    per_call = JaxSolve(solve_of(import_file(path), path), exchange=PER_CALL).bind(params, values)
    assert per_call.exchange == PER_CALL
    values["x"].fill_(4.0)
    per_call.run()
    per_call.finish()
    assert torch.equal(values["y"], torch.full((8,), 5.0))


def test_no_compute_stream_on_the_cpu():
    """Where JAX has no CUDA stream the binding keeps the per-call exchange (on a GPU; the GPU
    case is tests/judge/test_gpu.py)."""
    import jax

    from generator.toolchain.bindings import compute_stream

    assert compute_stream(jax.devices("cpu")[0]) is None
