"""Every kind of derived mistake, caught and (where it can be) surviving, on challenges of our own
(tests/judge/fixtures/derived_tree and mutant_kinds): each challenge is weak or strong on purpose,
so that a kind the judge stops catching, or a survivor it starts to miss, fails here. Equivalent
mistakes (the reference's own outputs on every case) are set apart, never counted as survivors."""

from __future__ import annotations

import json

import pytest

from generator.judge.derived_proofs import EQUIVALENT, KILLED, SURVIVOR
from tests.judge.common import ROOT

FIXTURES = ROOT / "tests" / "judge" / "fixtures"
TREES = (FIXTURES / "derived_tree", FIXTURES / "mutant_kinds")

#: (kind, status) -> a challenge where the kind ends so; why, in the challenge's own comments
EXPECTED = {
    ("swap_operator", KILLED): "312_tiny_scale",  # 1e-06 * x read as 1e-06 / x
    ("swap_operator", SURVIVOR): "311_faint_rows",  # the nudge subtracted
    ("drop_term", KILLED): "313_transposed_pair",  # only the millionth is left
    ("drop_term", SURVIVOR): "301_nudged_double",  # the nudge dropped
    ("reduce_wrong_dim", KILLED): "302_long_sum",
    ("reduce_wrong_dim", SURVIVOR): "311_faint_rows",  # column sums for row sums, a millionth
    ("reduce_wrong_dim", EQUIVALENT): "301_nudged_double",  # dim 0 and -1 of a vector
    ("slice_end_off_by_one", KILLED): "302_long_sum",
    ("slice_end_off_by_one", SURVIVOR): "311_faint_rows",
    ("transpose_index", KILLED): "313_transposed_pair",  # the doubled term not transposed
    ("transpose_index", SURVIVOR): "313_transposed_pair",  # the millionth not transposed
    ("transpose_index", EQUIVALENT): "302_long_sum",
    ("accumulate_float16", KILLED): "302_long_sum",  # a long sum in float16
    ("accumulate_float16", SURVIVOR): "311_faint_rows",
    ("accumulate_bfloat16", KILLED): "302_long_sum",
    ("accumulate_bfloat16", SURVIVOR): "311_faint_rows",
    ("all_zeros", KILLED): "311_faint_rows",
    ("all_zeros", SURVIVOR): "312_tiny_scale",  # every output within atol of zero
    ("input_copied", KILLED): "312_tiny_scale",
    ("input_copied", SURVIVOR): "311_faint_rows",  # x plus a millionth of its row sums
    ("prefill_unwritten", KILLED): "301_nudged_double",
    ("first_only", KILLED): "311_faint_rows",
    ("last_row_skipped", KILLED): "311_faint_rows",
    ("last_column_skipped", KILLED): "313_transposed_pair",
    ("last_column_skipped", "not applicable"): "312_tiny_scale",  # a 1-D output
}
#: outputs allocated with torch.empty come filled with NaN (generator/judge/cases.py): a mistake
#: that leaves any element unwritten is caught wherever the reference writes it, so these kinds
#: cannot survive there (nor on 301's zeros, which its reference never writes)
NEVER_SURVIVE = ("prefill_unwritten", "first_only", "last_row_skipped", "last_column_skipped")


@pytest.fixture(scope="module")
def statuses(tmp_path_factory, judge_cache):
    """Every derived mistake of both trees (no cap), by challenge: [(kind, status, name)]."""
    from typer.testing import CliRunner

    from generator.cli import app

    found = {}
    for tree in TREES:
        report = tmp_path_factory.mktemp("kinds") / "report.json"
        args = ["test", "--tree", str(tree), "--device", "cpu", "--json", str(report)]
        args += ["--kind", "derived", "--mutants", "100"]
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CHGEN_CACHE", str(judge_cache.root))
            result = CliRunner().invoke(app, args)
        assert "Traceback" not in result.output, result.output
        for key, proof in json.loads(report.read_text())["proofs"].items():
            mutants = proof["derived"]["mutants"]
            found[key] = (
                mutants,
                [(m["operator"], m["status"], m["name"]) for m in mutants["table"]],
            )
    return found


@pytest.mark.parametrize("kind, status", sorted(EXPECTED))
def test_each_kind_of_mistake_ends_as_its_fixture_says(statuses, kind, status):
    challenge = EXPECTED[(kind, status)]
    table = statuses[challenge][1]
    ends = sorted({s for k, s, _ in table if k == kind})
    assert status in ends, f"{challenge}: {kind} ended {ends}, expected one {status}"


def test_no_kind_that_leaves_an_element_unwritten_survives(statuses):
    for challenge, (_, table) in statuses.items():
        survivors = [
            name for kind, status, name in table if kind in NEVER_SURVIVE and status == SURVIVOR
        ]
        assert survivors == [], challenge


def test_equivalents_are_set_apart_and_survivors_listed(statuses):
    for challenge, (mutants, table) in statuses.items():
        survivors = [name for _, status, name in table if status == SURVIVOR]
        equivalent = [name for _, status, name in table if status == EQUIVALENT]
        assert mutants["survivors"] == survivors, challenge
        assert not set(equivalent) & set(mutants["survivors"])
        counts = mutants["counts"]
        assert counts[EQUIVALENT] == len(equivalent)
        if counts[KILLED] + counts[SURVIVOR]:
            assert mutants["score"] == counts[KILLED] / (counts[KILLED] + counts[SURVIVOR])
