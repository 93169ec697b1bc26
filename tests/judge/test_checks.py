"""The judge's in-process checks: comparison, canary bands, input snapshots, signatures, cases."""

from __future__ import annotations

import ctypes
import math
import sys

import pytest
import torch

from generator.judge import verdicts as V
from generator.judge.cases import example_and_functional, materialise, performance
from generator.judge.challenge import ChallengeError, load_challenge, tree_root
from generator.judge.compare import compare_output, first_modified
from generator.judge.guard import GuardedArgs, GuardedTensor
from generator.judge.signature import SignatureError, params_from_signature
from tests.judge.common import CHALLENGE_142, SCALED_ADD

# ------------------------------------------------------------------------------------- compare


def test_compare_accepts_within_tolerance_and_reports_errors():
    expected = torch.tensor([1.0, -2.0, 0.0, 4.0])
    actual = expected + torch.tensor([1e-4, -1e-4, 5e-4, 0.0])
    result = compare_output("out", actual, expected, atol=1e-3, rtol=1e-3)
    assert result.ok
    assert result.max_abs == pytest.approx(5e-4, rel=1e-3)
    # relative error is taken only where |expected| > atol (not at the 0.0)
    assert result.max_rel == pytest.approx(1e-4, rel=1e-2)


def test_compare_names_first_bad_index_in_row_major_order():
    expected = torch.zeros(3, 4)
    actual = expected.clone()
    actual[1, 2] = 0.5
    actual[2, 0] = 7.0
    result = compare_output("dx", actual, expected, atol=1e-3, rtol=1e-3)
    assert not result.ok
    assert result.bad == 2
    assert result.first_index == (1, 2)
    assert result.actual == 0.5 and result.expected == 0.0
    assert "first at [1, 2]" in result.describe()


def test_compare_nan_and_infinity_rules():
    nan, inf = float("nan"), float("inf")
    expected = torch.tensor([nan, inf, -inf, 1.0])
    assert compare_output("o", expected.clone(), expected, 0.0, 0.0).ok
    wrong_sign = torch.tensor([nan, -inf, -inf, 1.0])
    assert compare_output("o", wrong_sign, expected, 1.0, 1.0).first_index == (1,)
    stray_nan = torch.tensor([nan, inf, -inf, nan])
    assert compare_output("o", stray_nan, expected, 1.0, 1.0).first_index == (3,)


def test_compare_integers_exactly_and_bf16_upcast():
    expected = torch.tensor([1, 2, 3], dtype=torch.int32)
    assert compare_output("i", expected.clone(), expected, 10.0, 10.0).ok
    off_by_one = torch.tensor([1, 2, 4], dtype=torch.int32)
    assert not compare_output("i", off_by_one, expected, 10.0, 10.0).ok
    bf = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    assert compare_output("b", bf, torch.tensor([1.0, 2.0], dtype=torch.bfloat16), 0, 0).ok


def test_compare_shape_mismatch_is_a_failure():
    result = compare_output("dweight", torch.zeros(1, 4), torch.zeros(4), 1.0, 1.0)
    assert not result.ok and "shape (1, 4), expected (4,)" in result.describe()


def test_first_modified_is_bitwise_and_names_the_element():
    before = torch.tensor([[0.0, 1.0], [2.0, float("nan")]])
    assert first_modified("x", before.clone(), before) is None  # NaN equals itself bitwise
    after = before.clone()
    after[1, 0] = -2.0
    message = first_modified("x", after, before)
    assert "input x was modified" in message and "[1, 0]" in message
    negative_zero = before.clone()
    negative_zero[0, 0] = -0.0
    assert first_modified("x", negative_zero, before) is not None


# -------------------------------------------------------------------------------------- guards


def test_guarded_tensor_is_aligned_contiguous_and_keeps_values():
    source = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    guard = GuardedTensor("x", source, 1024, torch.Generator().manual_seed(0))
    assert guard.tensor.is_contiguous()
    assert guard.tensor.data_ptr() % 256 == guard.buffer.data_ptr() % 256
    assert torch.equal(guard.tensor, source)
    assert guard.violations() == []


@pytest.mark.parametrize("offset, where, distance", [(-1, "before", 1), (0, "after", 0)])
def test_guard_sees_a_write_next_to_the_data(offset, where, distance):
    source = torch.zeros(10, dtype=torch.float32)
    guard = GuardedTensor("dx", source, 256, torch.Generator().manual_seed(1))
    start = 256 + (40 if where == "after" else 0)
    index = start + offset if where == "before" else start
    guard.buffer[index] ^= 0xFF  # flip one byte, whatever the random canary holds
    (violation,) = guard.violations()
    assert violation.where == where and violation.param == "dx"
    assert violation.offset == (-distance if where == "before" else distance)
    assert "dx" in violation.describe()


def test_guarded_args_leave_scalars_and_report_first_violation():
    values = {"x": torch.ones(4), "y": torch.zeros(4), "n": 4}
    params = params_from_signature(
        {
            "x": (ctypes.POINTER(ctypes.c_float), "in"),
            "y": (ctypes.POINTER(ctypes.c_float), "out"),
            "n": (ctypes.c_int, "in"),
        }
    )
    args = GuardedArgs(params, values, seed=3, band=256)
    assert args.values["n"] == 4 and args.first_violation() is None
    torch.as_strided(args.values["y"], (6,), (1,))[4:] = 1.0  # two floats past the end
    violation = args.first_violation()
    assert violation.param == "y" and violation.where == "after" and violation.offset == 0


def test_guard_band_must_keep_alignment():
    with pytest.raises(ValueError):
        GuardedTensor("x", torch.zeros(2), 100, torch.Generator())


# ---------------------------------------------------------------------------------- signatures


def test_signature_keeps_declared_ctypes():
    params = params_from_signature(
        {
            "A": (ctypes.POINTER(ctypes.c_uint16), "in"),
            "N": (ctypes.c_size_t, "in"),
            "s": (ctypes.c_float, "in"),
            "out": (ctypes.POINTER(ctypes.c_ubyte), "inout"),
        }
    )
    assert [p.is_tensor for p in params] == [True, False, False, True]
    assert params[1].ctype is ctypes.c_size_t and params[1].dtype.name == "size_t"
    assert params[2].dtype.name == "float32"
    assert params[3].dtype.name == "uint8" and params[3].direction == "inout"


def test_signature_of_a_pytorch_only_challenge():
    """Public challenges may declare torch.Tensor and an nn.Module instead of ctypes."""
    params = params_from_signature(
        {"input": (torch.Tensor, "in"), "model": (torch.nn.Module, "in")}
    )
    assert params[0].is_tensor and not params[1].is_tensor
    assert params[1].dtype.name == "object"


@pytest.mark.parametrize(
    "entry, message",
    [
        ((ctypes.c_double, "in"), "unsupported scalar type c_double"),
        ((ctypes.c_int, "sideways"), "is not in/out/inout"),
        ((ctypes.c_int,), "expected (ctypes type, direction)"),
    ],
)
def test_signature_errors_are_explained(entry, message):
    with pytest.raises(SignatureError, match=message.replace("(", r"\(").replace(")", r"\)")):
        params_from_signature({"p": entry})


# ------------------------------------------------------------------------- challenges and cases


def test_two_trees_in_one_process_each_get_their_own_core():
    ours = load_challenge(CHALLENGE_142, "cpu")
    fixture = load_challenge(SCALED_ADD, "cpu")
    again = load_challenge(CHALLENGE_142, "cpu")
    base_of = lambda obj: type(obj).__mro__[1].__init__.__code__.co_filename  # noqa: E731
    assert base_of(ours).startswith(str(tree_root(CHALLENGE_142)))
    assert base_of(fixture).startswith(str(tree_root(SCALED_ADD)))
    assert "core.challenge_base" not in sys.modules  # nothing left behind for the next tree
    assert type(ours).__mro__[1] is not type(fixture).__mro__[1]
    assert type(again).__mro__[1] is not type(fixture).__mro__[1]
    assert fixture.device == "cpu" and ours.name == "RMS Norm Backward"


def test_not_a_challenge_folder(tmp_path):
    with pytest.raises(ChallengeError, match="no challenge.py"):
        load_challenge(tmp_path, "cpu")
    (tmp_path / "challenge.py").write_text("class Challenge: pass\n")
    with pytest.raises(ChallengeError, match="no core/challenge_base.py"):
        load_challenge(tmp_path, "cpu")


def test_cases_are_seeded_named_and_complete():
    challenge = load_challenge(CHALLENGE_142, "cpu")
    params = params_from_signature(challenge.get_solve_signature())
    names = [f"case{i}" for i in range(15)]
    first = example_and_functional(challenge, params, seed=5, names=names)
    second = example_and_functional(challenge, params, seed=5, names=names)
    other = example_and_functional(challenge, params, seed=6)
    assert [c.name for c in first] == ["generate_example_test"] + names
    assert torch.equal(first[1].values["x"], second[1].values["x"])
    assert not torch.equal(first[1].values["dy"], other[1].values["dy"])
    assert other[3].name == "functional_2"
    assert first[0].values["dx"].eq(123.0).all()  # the challenge's own pre-fill is kept


def test_descriptors_become_tensors_and_outputs_start_unwritten():
    challenge = load_challenge(SCALED_ADD, "cpu")
    params = params_from_signature(challenge.get_solve_signature())
    case = performance(challenge, params, seed=0)
    assert case.values["A"].shape == (1 << 20,)
    assert case.values["A"].min() >= -1.0 and case.values["A"].max() <= 1.0
    assert case.values["C"].isnan().all()
    assert case.values["N"] == 1 << 20 and math.isclose(case.values["alpha"], 0.5)
    assert materialise(3, "cpu") == 3


def test_expectations():
    assert V.expectation_met("pass", V.PASS) and V.expectation_met("pass", V.BUILT)
    assert not V.expectation_met("pass", V.WRONG_ANSWER)
    assert V.expectation_met("not_pass", V.WRONG_ANSWER) and V.expectation_met("not_pass", V.BUILT)
    assert not V.expectation_met("not_pass", V.PASS)
    assert not V.expectation_met("not_pass", V.RUNTIME_ERROR)
    assert V.expectation_met("runtime_error|crash", V.CRASH)
    assert V.expectation_met(
        "baseline", V.RUNTIME_ERROR, "ModuleNotFoundError: No module named 'x'"
    )
    assert not V.expectation_met("baseline", V.WRONG_ANSWER)
    assert V.exit_code(V.PASS) == 0 and V.exit_code(V.BUILT) == 1
