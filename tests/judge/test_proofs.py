"""The spec-level proofs on the CPU: mutants caught as the specs expect, the reference against the
float64 oracle, the accuracy floor, and every CPU-runnable solution on five seeds."""

from __future__ import annotations

import json
import math
import shutil

import pytest
import torch

from generator.judge import proofs
from generator.judge.oracle import left_prefill, mean_relative_error, tolerance_ratio
from generator.judge.plan import Plan, PlanJob, plan_from_specs, resolve_specs
from generator.judge.suite import SuiteOptions, run_plan
from tests.judge.common import KEY_142, ROOT

KEY_143 = "143_row_inverse_rms"
CPU_LANGUAGES = ("pytorch", "jax", "triton")
SEEDS = [0, 1, 2, 3, 4]


@pytest.fixture(scope="module")
def spec_plan(tmp_path_factory):
    work = tmp_path_factory.mktemp("plan")
    specs = resolve_specs(["142", "143"], ROOT / "specs")
    return plan_from_specs(specs, ROOT / "generated", ROOT / "solutions", work)


@pytest.fixture(scope="module")
def proved(spec_plan, judge_cache):
    """Mutants, the reference jobs and the CPU-runnable solutions (five seeds) of 142 and 143."""
    plan = Plan(
        spec_plan.challenges,
        [
            j
            for j in spec_plan.jobs
            if j.kind in ("mutant", "reference", "solution") and j.language in CPU_LANGUAGES
        ],
    )
    options = SuiteOptions(jobs=2, seed=SEEDS[0], extra_seeds=SEEDS[1:])
    rows = run_plan(plan, options, judge_cache)
    return {row["id"]: row for row in rows}, proofs.collect(plan, rows)


# ------------------------------------------------------------------------------------ plan
def test_the_plan_carries_the_proofs_as_plain_json(spec_plan):
    data = json.loads(json.dumps(spec_plan.to_json()))
    challenge = data["challenges"][KEY_143]
    assert challenge["rtol"] == 1e-5 and challenge["atol"] == 0.0
    assert [m["name"] for m in challenge["mutants"]][:2] == ["eps_ignored", "eps_outside_sqrt"]
    assert challenge["mutants"][0]["caught_by"] == ["zeros", "tiny_values"]
    assert challenge["oracle"] == {"code": spec_plan.challenges[KEY_143].oracle["code"]}
    assert challenge["accuracy_floor"]["min_elements"] == 64
    oracle_142 = data["challenges"][KEY_142]["oracle"]
    assert oracle_142["gradients"] == {"x": "dx", "weight": "dweight"}
    kinds = [j["kind"] for j in data["jobs"] if j["challenge"] == KEY_142]
    assert kinds.count("mutant") == 10 and kinds.count("reference") == 1
    assert Plan.from_json(data).challenges == spec_plan.challenges


# --------------------------------------------------------------------------------- mutants
@pytest.mark.parametrize("key", [KEY_142, KEY_143])
def test_every_mutant_is_caught_by_the_cases_the_spec_expects(proved, spec_plan, key):
    rows, found = proved
    mutants = found[key]["mutants"]
    assert [m["name"] for m in mutants] == [m["name"] for m in spec_plan.challenges[key].mutants]
    for mutant in mutants:
        assert mutant["caught_by"], mutant["name"]
        assert mutant["expected"] is not None and not mutant["differs"], mutant
        assert rows[f"{key}/mutant/{mutant['name']}/pytorch"]["ok"]
    assert not [f for f in found[key]["failures"] if "mutant" in f]


@pytest.mark.parametrize("key", [KEY_142, KEY_143])
def test_the_margin_figures_are_reported(proved, key):
    _, found = proved
    margin = found[key]["margin"]
    assert margin["min_strongest"] >= proofs.MARGIN_GOAL and margin["met"]
    assert 1 < margin["min_pair"] <= margin["min_strongest"]
    assert margin["min_pair_case"] in found[key]["mutants"][0]["ratios"]
    for mutant in found[key]["mutants"]:
        assert 1 < mutant["weakest"] <= mutant["strongest"]
    lines = proofs.margin_lines(found[key])
    assert "min over mutants of the strongest" in lines[0]
    assert "min over all (mutant, catching case) pairs" in lines[1]


def test_a_prefill_left_in_place_is_a_catch(proved):
    _, found = proved
    tails = {m["name"]: m for m in found[KEY_142]["mutants"]}["column_tails"]
    assert any("left the pre-fill" in r for r in tails["reasons"]["single_element"])


# ---------------------------------------------------------------------------------- oracle
@pytest.mark.parametrize("key", [KEY_142, KEY_143])
def test_the_reference_stays_within_a_tenth_of_the_tolerance_of_the_oracle(proved, spec_plan, key):
    _, found = proved
    cases = found[key]["oracle"]["cases"]
    assert [c["name"] for c in cases] == spec_plan.challenges[key].case_names
    for case in cases:
        assert case["deviation"] is not None and case["deviation"] <= 0.1, case
    if key == KEY_142:
        assert set(cases[0]["outputs"]) == {"dx", "dweight"}


# -------------------------------------------------------------------------- accuracy floor
def _floor_solutions(found):
    return {s["label"]: s for s in found[KEY_143]["floor"]["solutions"]}


def test_the_floor_is_computed_for_the_pytorch_and_jax_solutions(proved):
    _, found = proved
    floor = found[KEY_143]["floor"]
    enforced = [c["name"] for c in floor["cases"] if c["enforced"]]
    assert enforced == ["ragged_rows", "wide_rows"]  # the others have fewer than 64 rows
    for case in floor["cases"]:
        assert case["baseline"] is not None and case["reference"] is not None
    solutions = _floor_solutions(found)
    for label in ("naive pytorch", "naive jax", "optimized pytorch", "optimized jax"):
        assert solutions[label]["enforced_cases"] == 2, label
        for result in solutions[label]["cases"].values():
            assert math.isfinite(result["error"]) and result["baseline"] > 0
    # the interpreter never gets the large cases, so Triton is shown but not enforced here
    assert solutions["naive triton"]["enforced_cases"] == 0
    header, rows = proofs.floor_rows(floor)
    assert header[:4] == ["Case", "Elements", "Reference", "Baseline"] and len(rows) == 12


@pytest.mark.parametrize(
    "label", ["naive pytorch", "naive jax", "optimized pytorch", "optimized jax"]
)
def test_cpu_solutions_stay_within_the_floor(proved, label):
    _, found = proved
    assert _floor_solutions(found)[label]["ok"]


SEQUENTIAL = """import torch


def solve(x, inv_rms, T, D, eps):
    # one running float32 sum per row, column after column: no pairwise summation
    squares = x.float().square()
    total = torch.zeros(T, dtype=torch.float32, device=x.device)
    for j in range(D):
        total += squares[:, j]
    inv_rms.copy_(torch.rsqrt(total / D + eps))
"""

BF16 = """import torch


def solve(x, inv_rms, T, D, eps):
    inv_rms.copy_(torch.rsqrt(x.square().mean(-1).float() + eps))
"""


def test_a_less_accurate_solution_fails_the_floor(spec_plan, judge_cache, tmp_path):
    """A plain running sum passes the 1e-5 tolerance but not the floor; accumulating in bf16 is
    already a wrong answer (the floor is for what the tolerance lets through)."""
    jobs = []
    for name, code in (("sequential", SEQUENTIAL), ("bf16", BF16)):
        path = tmp_path / name / "solution.pytorch.py"
        path.parent.mkdir()
        path.write_text(code)
        jobs.append(
            PlanJob(
                id=f"{KEY_143}/solution/{name}/pytorch",
                challenge=KEY_143,
                kind="solution",
                name=name,
                language="pytorch",
                source=str(path),
                expect="pass",
            )
        )
    plan = Plan({KEY_143: spec_plan.challenges[KEY_143]}, jobs)
    rows = run_plan(plan, SuiteOptions(jobs=2), judge_cache)
    by_name = {row["name"]: row for row in rows}
    assert by_name["sequential"]["verdict"] == "pass"
    assert by_name["bf16"]["verdict"] == "wrong_answer"
    found = proofs.collect(plan, rows)[KEY_143]
    sequential = _floor_solutions({KEY_143: found})["sequential pytorch"]
    assert not sequential["ok"] and sequential["worst_ratio"] > 10
    broken = "sequential pytorch breaks the accuracy floor on case wide_rows"
    assert any(broken in failure for failure in found["failures"])


# ------------------------------------------------------------------------------------ seeds
def test_every_cpu_runnable_solution_passes_five_seeds(proved):
    rows, _ = proved
    solutions = [row for row in rows.values() if row["kind"] == "solution"]
    assert len(solutions) == 12
    for row in solutions:
        assert row["verdict"] == "pass", (row["id"], row["message"])
        assert [s["seed"] for s in row["seeds"]] == SEEDS
        assert all(s["verdict"] == "pass" and s["passed"] > 0 for s in row["seeds"]), row["id"]


# ------------------------------------------------------------------------ planted mutant
def test_a_mutant_that_survives_makes_chgen_test_fail(tmp_path, judge_cache, monkeypatch, runner):
    """A correct solution declared as a mutant, and a wrong `caught_by`: both fail the run."""
    from generator.cli import app

    specs = tmp_path / "specs"
    specs.mkdir()
    text = (ROOT / "specs" / f"{KEY_143}.yaml").read_text()
    text = text.replace("caught_by: [zeros, tiny_values]", "caught_by: [zeros]", 1)
    correct = (ROOT / "solutions" / KEY_143 / "naive" / "solution.pytorch.py").read_text()
    body = "".join(f"      {line}\n" if line else "\n" for line in correct.splitlines())
    text += "  - name: correct_after_all\n    mistake: None (a correct solution)\n"
    text += "    code: |\n" + body
    (specs / f"{KEY_143}.yaml").write_text(text)
    shutil.copy(ROOT / "specs" / f"{KEY_143}.svg", specs / f"{KEY_143}.svg")
    monkeypatch.setenv("CHGEN_CACHE", str(judge_cache.root))
    report = tmp_path / "report.json"
    args = ["test", str(specs / f"{KEY_143}.yaml"), "--device", "cpu", "--kind", "mutant"]
    args += ["--tree", str(ROOT / "generated"), "--solutions", str(tmp_path / "none")]
    args += ["--specs", str(specs), "--json", str(report)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    data = json.loads(report.read_text())
    failures = " ".join(data["summary"]["proof_failures"])
    assert "mutant correct_after_all survived all 12 functional cases" in failures
    assert "mutant eps_ignored is caught by zeros, tiny_values; the spec expects zeros" in failures
    mutants = {m["name"]: m for m in data["proofs"][KEY_143]["mutants"]}
    assert mutants["correct_after_all"]["caught_by"] == []
    assert mutants["eps_ignored"]["extra"] == ["tiny_values"]
    assert "SURVIVED" in result.output


# ------------------------------------------------------------------------- the numbers
def test_error_over_tolerance_is_the_judges_boundary():
    expected = torch.tensor([1.0, 0.0, -2.0, float("nan"), float("inf")], dtype=torch.float64)
    same = expected.clone()
    assert tolerance_ratio(same, expected, 1e-3, 1e-3) == 0.0
    off = expected.clone()
    off[0] = 1.0 + 2e-3  # tolerance there: 1e-3 + 1e-3 * 1 = 2e-3
    assert tolerance_ratio(off, expected, 1e-3, 1e-3) == pytest.approx(1.0)
    for bad in (float("nan"), float("inf")):
        broken = expected.clone()
        broken[1] = bad
        assert tolerance_ratio(broken, expected, 1e-3, 1e-3) == math.inf
    flipped = expected.clone()
    flipped[4] = -math.inf
    assert tolerance_ratio(flipped, expected, 1e-3, 1e-3) == math.inf
    assert tolerance_ratio(torch.zeros(2), torch.zeros(3), 1.0, 1.0) == math.inf
    zero_tol = torch.tensor([0.0, 1.0])
    assert tolerance_ratio(zero_tol.clone(), zero_tol, 0.0, 1e-5) == 0.0
    assert tolerance_ratio(torch.tensor([1e-9, 1.0]), zero_tol, 0.0, 1e-5) == math.inf


def test_mean_relative_error_and_the_prefill():
    oracle = torch.tensor([2.0, 0.0, 4.0], dtype=torch.float64)
    assert mean_relative_error(torch.tensor([2.2, 5.0, 4.0]), oracle) == pytest.approx(0.05)
    assert mean_relative_error(torch.tensor([float("nan"), 0.0, 4.0]), oracle) == math.inf
    before = torch.full((3,), 123.0)
    after = torch.tensor([1.0, 123.0, 123.0])
    assert left_prefill(after, before, torch.tensor([1.0, 2.0, 123.0])) == 1
