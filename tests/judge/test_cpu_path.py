"""The CPU path CI runs: PyTorch and JAX on the CPU, Triton interpreted, native code built only."""

from __future__ import annotations

import json

import pytest

from generator.judge.runner import Job, judge
from generator.judge.suite import SuiteOptions, run_plan
from tests.judge.common import CHALLENGE_142, FIXTURES, KEY_142, SCALED_ADD, make_plan, run_files

SCALE_IN_PLACE = SCALED_ADD.parent / "9002_scale_in_place"

CORRECT = FIXTURES / "solutions" / KEY_142 / "correct"
STARTERS = CHALLENGE_142 / "starter"
WRONG = FIXTURES / "rms_norm_backward_no_projection.pytorch.py"


@pytest.fixture(scope="module")
def rows_142(judge_cache):
    """Correct, wrong and starter files for 142, judged together in parallel workers."""
    files = {
        CORRECT / "solution.pytorch.py": "pass",
        CORRECT / "solution.jax.py": "pass",
        CORRECT / "solution.triton.py": "pass",
        WRONG: "wrong_answer",
        STARTERS / "starter.pytorch.py": "not_pass",
        STARTERS / "starter.jax.py": "not_pass",
        STARTERS / "starter.triton.py": "not_pass",
    }
    return run_files(files, judge_cache)


@pytest.mark.parametrize("language", ["pytorch", "jax", "triton"])
def test_correct_solutions_pass_on_the_cpu(rows_142, language):
    row = rows_142[f"solution.{language}.py"]
    assert row["verdict"] == "pass", row["message"] + row["detail"]
    assert row["max_rel"] is not None and row["max_rel"] < 1e-3
    if language == "triton":  # the interpreter gets the smaller cases only
        assert row["skipped"] == 3 and row["cases"] == 13
    else:
        assert row["cases"] == 16 and row["skipped"] == 0


def test_a_wrong_solution_is_caught_with_the_case_and_the_element(rows_142):
    row = rows_142[WRONG.name]
    assert row["verdict"] == "wrong_answer" and row["ok"]
    assert row["message"].startswith("dx: ") and "first at [" in row["message"]
    assert row["cases"] >= 1 and row["cases_passed"] == row["cases"] - 1


@pytest.mark.parametrize("language", ["pytorch", "jax", "triton"])
def test_starters_run_but_do_not_pass(rows_142, language):
    row = rows_142[f"starter.{language}.py"]
    assert row["verdict"] == "wrong_answer" and row["ok"], row["message"]
    if language == "jax":
        assert "returned None" in row["message"]
    else:
        assert "got 123.0" in row["message"]  # the pre-fill was left in place


@pytest.mark.slow
def test_native_starters_build_and_cute_compiles(judge_cache):
    files = {STARTERS / f"starter{suffix}": "not_pass" for suffix in (".cu", ".mojo", ".cute.py")}
    rows = run_files(files, judge_cache)
    for name, row in rows.items():
        assert row["verdict"] == "built", (name, row["message"], row["detail"])


def test_a_public_style_tree_runs_on_the_cpu(judge_cache):
    """Own core/, device assertions, a size_t size, torch.empty outputs, descriptors."""
    solutions = SCALED_ADD / "solutions"
    rows = run_files(
        {solutions / "solution.pytorch.py": "pass", solutions / "solution.jax.py": "pass"},
        judge_cache,
        challenge=SCALED_ADD,
    )
    for row in rows.values():
        assert row["verdict"] == "pass" and row["cases"] == 5, row["message"] + row["detail"]


@pytest.mark.parametrize("language", ["pytorch", "jax"])
def test_inout_tensors_are_returned_by_jax_and_restored_between_timed_calls(judge_cache, language):
    """Scaling in place: without the restore, the check after the timed calls would see
    data * alpha**k and fail."""
    options = {"budget_s": 0.2, "flush_bytes": 1 << 16, "copy_bytes": 0, "warmup_s": 0.0}
    source = SCALE_IN_PLACE / "solutions" / f"solution.{language}.py"
    job = Job(SCALE_IN_PLACE, source, language, perf=True, perf_options=options)
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"] + result["detail"]
    assert result["perf"]["reps"] >= 10
    assert result["perf"]["min_bytes"] == 2 * 4 * (1 << 16)  # inout: read and written
    # the empty calls among the timed ones: JAX's least call, an empty function for PyTorch
    made = {"jax": "least call", "pytorch": "empty function"}[language]
    assert result["perf"]["rounds"]["empty_call"] == made


def test_perf_on_the_cpu_reports_traffic_from_tensor_sizes(judge_cache):
    options = {"budget_s": 0.5, "flush_bytes": 1 << 20, "copy_bytes": 1 << 22, "warmup_s": 0.0}
    job = Job(
        SCALED_ADD,
        SCALED_ADD / "solutions" / "solution.pytorch.py",
        "pytorch",
        perf=True,
        perf_options=options,
    )
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"]
    perf = result["perf"]
    assert perf["min_bytes"] == 3 * 4 * (1 << 20) and perf["min_bytes_from"] == "tensor sizes"
    assert perf["median_ms"] > 0  # a CPU run is timed, but is no measure of GPU bandwidth:
    assert perf["gbps"] is None and perf["copy_gbps"] is None and perf["pct_of_copy"] is None
    assert result["cases"][-1]["name"] == "performance"


def test_the_interpreter_limit_is_per_tensor_and_names_what_it_skips(judge_cache):
    """A limit of 64 elements per tensor leaves the cases whose every tensor is that small, and
    names each skipped case with its largest tensor."""
    job = Job(CHALLENGE_142, CORRECT / "solution.triton.py", "triton", cpu_max_elements=64)
    result = judge(job, judge_cache)
    assert result["verdict"] == "pass", result["message"]
    skipped = result["skipped"]
    assert skipped and all(s["why"].endswith("elements, over 64") for s in skipped)
    ran = {case["name"] for case in result["cases"]}
    assert ran and not ran & {s["name"] for s in skipped}


# ----------------------------------------------------------------------------------- the CLI


@pytest.fixture
def cli_cache(judge_cache, monkeypatch):
    monkeypatch.setenv("CHGEN_CACHE", str(judge_cache.root))


def _judge(runner, *args):
    from generator.cli import app

    return runner.invoke(app, ["judge", *map(str, args)])


def test_cli_judge_exit_codes_and_json(runner, cli_cache, tmp_path):
    report = tmp_path / "result.json"
    correct = CORRECT / "solution.pytorch.py"
    done = _judge(runner, CHALLENGE_142, correct, "--device", "cpu", "--json", report)
    assert done.exit_code == 0, done.output
    assert "pass: the example test and 15 functional case(s) passed" in done.output
    assert "single_element" in done.output
    assert json.loads(report.read_text())["verdict"] == "pass"
    done = _judge(runner, CHALLENGE_142, WRONG, "--device", "cpu")
    assert done.exit_code == 1 and "wrong_answer: dx:" in done.output


@pytest.mark.parametrize(
    "args, message",
    [
        ((CHALLENGE_142, FIXTURES / "missing.pytorch.py"), "no such file"),
        ((CHALLENGE_142, CHALLENGE_142 / "challenge.html"), "unknown language"),
        ((FIXTURES, WRONG), "no challenge.py here"),
        ((CHALLENGE_142, WRONG, "--device", "tpu"), "--device must be cuda or cpu"),
        ((CHALLENGE_142, WRONG, "--timeout", "0"), "--timeout must be positive"),
    ],
)
def test_cli_judge_errors_are_one_line(runner, cli_cache, args, message):
    done = _judge(runner, *args)
    assert done.exit_code == 1
    assert message in done.output and "Traceback" not in done.output
    assert len(done.output.strip().splitlines()) == 1


def test_cli_test_errors_are_one_line(runner, cli_cache, tmp_path):
    from generator.cli import app

    done = runner.invoke(app, ["test", "--build-only"])
    assert done.exit_code == 1 and "--build-only needs --out DIR" in done.output
    done = runner.invoke(app, ["test", "--prebuilt", str(tmp_path), "--device", "cpu"])
    assert done.exit_code == 1 and "no plan.json" in done.output
    done = runner.invoke(app, ["test", "7777", "--device", "cpu"])
    assert done.exit_code == 1 and "no spec in specs/ matches '7777'" in done.output


def test_no_job_is_timed_once_the_deadline_has_passed(judge_cache):
    plan = make_plan({CORRECT / "solution.pytorch.py": "pass", WRONG: "pass"})
    for job in plan.jobs:
        job.perf = True
    plan.jobs[1].functional = False  # timed only, like a baseline
    rows = run_plan(plan, SuiteOptions(perf=True, deadline=0.0), judge_cache)
    solution, timed_only = rows
    assert solution["verdict"] == "pass" and solution["perf"] is None and solution["ok"]
    assert solution["message"].endswith("not timed: the deadline had passed")
    assert timed_only["verdict"] == "not_run" and timed_only["ok"]
