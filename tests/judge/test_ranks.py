"""`--ranks N`: every case of a multi-GPU challenge on N ranks instead of its own, on the CPU
(gloo); the mutants that only a second rank can catch are reported as not provable at one rank.
The checks of the flag, the report's lines and the ranks' environment run without a judge."""

from __future__ import annotations

import pytest

from generator.isolation.solution import solution_env
from generator.judge import proofs
from generator.judge import verdicts as V
from generator.judge.commands import CommandError, _ranks, challenge_gpus
from generator.judge.plan import Plan, PlanChallenge, PlanJob, plan_from_specs, resolve_specs
from generator.judge.ranks import RANK_ENV
from generator.judge.report import forced_ranks, ranks_line
from generator.judge.suite import SuiteOptions, expectation, run_plan
from tests.judge.common import CHALLENGE_142, FIXTURES, ROOT

KEY_144 = "144_distributed_rms_norm_backward"
CHALLENGE_144 = ROOT / "generated" / "challenges" / "hard" / KEY_144
DISTRIBUTED = FIXTURES / "distributed"
MUTANTS = ("no_all_reduce", "reduced_twice", "averaged", "reduced_to_rank_0")


# ------------------------------------------------------------------------ without a judge
def test_ranks_are_refused_beyond_the_gpus_of_a_gpu_machine(monkeypatch):
    from generator.judge import commands

    monkeypatch.setattr(commands, "gpus", lambda: [{"name": "H200", "driver": "580"}])
    with pytest.raises(CommandError) as info:
        _ranks(2, "cuda")
    assert (
        str(info.value) == "--ranks 2: this machine has 1 GPU(s), one per rank; ask for at most 1"
    )
    assert _ranks(1, "cuda") == 1
    assert _ranks(4, "cpu") == 4  # gloo: every rank on the CPU
    assert _ranks(None, "cuda") is None


def test_the_challenge_says_how_many_gpus_it_needs():
    assert challenge_gpus(CHALLENGE_144) == 4
    assert challenge_gpus(CHALLENGE_142) == 1


def test_cli_refuses_ranks_where_they_mean_nothing(runner, judge_cache, monkeypatch, tmp_path):
    from generator.cli import app

    monkeypatch.setenv("CHGEN_CACHE", str(judge_cache.root))
    solution = ROOT / "solutions" / "142_rms_norm_backward" / "naive" / "solution.pytorch.py"
    done = runner.invoke(
        app, ["judge", str(CHALLENGE_142), str(solution), "--device", "cpu", "--ranks", "1"]
    )
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert "is a single-GPU challenge (num_gpus 1); --ranks applies to multi-GPU" in done.output
    done = runner.invoke(app, ["test", "142", "--device", "cpu", "--ranks", "1"])
    assert done.exit_code == 1
    assert "--ranks 1: no multi-GPU challenge (num_gpus > 1) among these jobs" in done.output
    done = runner.invoke(app, ["test", "--build-only", "--out", str(tmp_path), "--ranks", "1"])
    assert done.exit_code == 1 and "--build-only runs nothing" in done.output


def _plan(num_gpus: int) -> Plan:
    challenge = PlanChallenge("c", "c", num_gpus=num_gpus)
    mutant = PlanJob("c/mutant/m/pytorch", "c", "mutant", "m", "pytorch", "m.py", "caught")
    solution = PlanJob("c/solution/s/pytorch", "c", "solution", "s", "pytorch", "s.py", "pass")
    return Plan({"c": challenge}, [mutant, solution])


def test_only_a_multi_gpu_mutant_on_forced_ranks_may_be_not_provable():
    forced = SuiteOptions(ranks=1)
    mutant, solution = _plan(4).jobs
    assert expectation(mutant, _plan(4), forced) == "caught|not_provable"
    assert expectation(solution, _plan(4), forced) == "pass"
    assert expectation(mutant, _plan(4), SuiteOptions()) == "caught"
    assert expectation(_plan(1).jobs[0], _plan(1), forced) == "caught"
    assert V.expectation_met("caught|not_provable", V.NOT_PROVABLE)
    assert not V.expectation_met("caught", V.NOT_PROVABLE)


def test_the_report_says_on_how_many_ranks_instead_of_which():
    rows = [
        {"challenge": "c", "env": {"forced_ranks": {"ranks": 1, "instead_of": [2]}}},
        {"challenge": "c", "env": {"forced_ranks": {"ranks": 1, "instead_of": [4]}}},
        {"challenge": "d", "env": {}},
    ]
    found = forced_ranks(rows)
    assert found == {"c": {"ranks": 1, "instead_of": [2, 4]}}
    assert ranks_line(found["c"]) == (
        "ranks: every case ran on 1 rank (--ranks 1) instead of its own 2 or 4; a mistake that "
        "needs more ranks to show (a collective's) is not provable here"
    )
    assert ranks_line({"ranks": 4, "instead_of": [2, 4]}) == (
        "ranks: every case ran on 4 ranks (--ranks 4) instead of its own 2 or 4"
    )


def test_every_rank_runs_with_nvlink_multicast_off_and_keeps_the_machines_nccl_settings():
    assert RANK_ENV["NCCL_NVLS_ENABLE"] == "0"
    assert RANK_ENV["NCCL_SOCKET_IFNAME"] == "lo" and RANK_ENV["GLOO_SOCKET_IFNAME"] == "lo"
    kept = solution_env(
        {"NCCL_NVLS_ENABLE": "0", "NVSHMEM_DISABLE_NVLS": "1", "NCCL_DEBUG": "INFO", "TOKEN": "x"},
        "/job",
    )
    assert kept["NCCL_NVLS_ENABLE"] == "0" and kept["NVSHMEM_DISABLE_NVLS"] == "1"
    assert kept["NCCL_DEBUG"] == "INFO" and "TOKEN" not in kept


# ---------------------------------------------------------------------- judged, with gloo
@pytest.fixture(scope="module")
def plan_144(tmp_path_factory):
    """144's PyTorch and Triton solutions and its mutants, and a rank that disagrees."""
    work = tmp_path_factory.mktemp("plan")
    specs = resolve_specs(["144"], ROOT / "specs")
    plan = plan_from_specs(specs, ROOT / "generated", ROOT / "solutions", work)
    wanted = ("solution", "mutant")
    jobs = [j for j in plan.jobs if j.kind in wanted and j.language in ("pytorch", "triton")]
    jobs = [j for j in jobs if j.kind == "mutant" or j.name == "naive"]
    disagrees = DISTRIBUTED / "rank_one_disagrees.pytorch.py"
    jobs.append(
        PlanJob(f"{KEY_144}/fixture/disagrees", KEY_144, "fixture", disagrees.name, "pytorch",
                str(disagrees), "wrong_answer")  # fmt: skip
    )
    return Plan(plan.challenges, jobs)


def _judged(plan, cache, ranks):
    rows = run_plan(plan, SuiteOptions(jobs=2, timeout=30.0, ranks=ranks), cache)
    return {row["name"] + "/" + row["language"]: row for row in rows}, proofs.collect(plan, rows)


@pytest.fixture(scope="module")
def on_one_rank(plan_144, judge_cache):
    return _judged(plan_144, judge_cache, 1)


@pytest.fixture(scope="module")
def on_two_ranks(plan_144, judge_cache):
    return _judged(plan_144, judge_cache, 2)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["pytorch", "triton"])
def test_solutions_pass_on_one_rank_and_say_so(on_one_rank, language):
    row = on_one_rank[0][f"naive/{language}"]
    assert row["verdict"] == V.PASS, row["message"]
    assert row["env"]["forced_ranks"] == {"ranks": 1, "instead_of": [2, 4]}
    assert row["env"]["ranks"] == "gloo, every case on 1 rank (--ranks)"


@pytest.mark.slow
def test_collective_mutants_are_not_provable_on_one_rank(on_one_rank):
    rows, found = on_one_rank
    for name in MUTANTS:
        row = rows[f"{name}/pytorch"]
        assert row["verdict"] == V.NOT_PROVABLE and row["ok"], row["message"]
        assert row["message"].endswith("on 1 rank instead of 2 or 4: not provable at 1 rank")
    entry = found[KEY_144]
    assert entry["failures"] == []
    assert sum("not provable at 1 rank" in w for w in entry["warnings"]) == len(MUTANTS)
    cells = [proofs._caught_cell(m) for m in entry["mutants"]]
    assert cells == ["not provable at 1 rank"] * len(MUTANTS)


@pytest.mark.slow
def test_a_rank_of_one_cannot_disagree_with_itself(on_one_rank):
    assert on_one_rank[0]["rank_one_disagrees.pytorch.py/pytorch"]["verdict"] == V.PASS


@pytest.mark.slow
@pytest.mark.parametrize("language", ["pytorch", "triton"])
def test_solutions_pass_on_two_ranks(on_two_ranks, language):
    row = on_two_ranks[0][f"naive/{language}"]
    assert row["verdict"] == V.PASS, row["message"]
    assert row["env"]["forced_ranks"] == {"ranks": 2, "instead_of": [2, 4]}


@pytest.mark.slow
def test_two_ranks_catch_every_collective_mutant(on_two_ranks):
    rows, found = on_two_ranks
    for name in MUTANTS:
        assert rows[f"{name}/pytorch"]["verdict"] == V.WRONG_ANSWER, name
    assert found[KEY_144]["failures"] == []
    assert not any("mutant" in warning for warning in found[KEY_144]["warnings"])
    row = rows["rank_one_disagrees.pytorch.py/pytorch"]
    assert row["verdict"] == V.WRONG_ANSWER
    assert row["message"].startswith("rank 1 of 2: dweight"), row["message"]


@pytest.mark.slow
def test_the_markdown_report_says_the_cases_ran_on_one_rank(on_one_rank):
    from generator.judge.report import markdown

    rows, found = on_one_rank
    text = markdown({"meta": {"title": "t"}, "rows": list(rows.values()), "proofs": found})
    line = f"- {KEY_144}: ranks: every case ran on 1 rank (--ranks 1) instead of its own 2 or 4"
    assert line in text
    assert "- `not_provable`: a mutant that survived every case on fewer ranks" in text
    assert "| not provable at 1 rank | — |" in text
