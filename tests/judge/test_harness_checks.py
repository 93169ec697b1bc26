"""The GPU run's timing-harness checks: judge vs triton.testing.do_bench, the JAX dispatch floor.

The plumbing (child processes, judge.json's meta, the results files) is tested here on fakes and
on the CPU; the comparison itself runs where there is a GPU (marked `gpu`).
"""

from __future__ import annotations

import json
import sys

import pytest
import torch

from benchmarks.gpu_judge import add_checks, harness_checks, merge_checks, run_check
from benchmarks.harness_check import (
    CROSSCHECK_JOBS,
    DO_BENCH_FLUSH,
    JUDGE_FLUSH,
    FlushNotReplaced,
    crosscheck_one,
    dispatch_floor,
)
from benchmarks.results_files import write_results
from generator.judge.bundle import build_bundle
from generator.judge.plan import Plan, PlanChallenge, PlanJob
from tests.judge.common import ROOT, SCALED_ADD

KEY_142, KEY_143 = (job.split("/")[0] for job in CROSSCHECK_JOBS)


class Console:
    def __init__(self):
        self.lines = []

    def print(self, text, markup=False):
        self.lines.append(text)


def _fixture_job(language="pytorch", suffix=".pytorch.py"):
    return PlanJob(
        id=f"{SCALED_ADD.name}/solution/optimized/{language}",
        challenge=SCALED_ADD.name,
        kind="solution",
        name="optimized",
        language=language,
        source=str(SCALED_ADD / "solutions" / f"solution{suffix}"),
        expect="pass",
    )


def _report():
    def row(job_id, median):
        key, kind, name, language = job_id.split("/")
        perf = {"median_ms": median, "gbps": 1.0, "pct_of_copy": 1.0} if median else None
        return {"id": job_id, "challenge": key, "kind": kind, "name": name, "language": language,
                "verdict": "pass", "message": "", "ok": True, "perf": perf}  # fmt: skip

    rows = [row(CROSSCHECK_JOBS[0], 0.1950), row(CROSSCHECK_JOBS[1], None)]
    rows.append(row(f"{KEY_143}/solution/optimized/jax", 0.0700))
    return {"meta": {"machine": {"gpu": "NVIDIA H200"}}, "rows": rows}


CROSS_142 = {
    "name": "CUDA optimized",
    "judge_ms": 0.1947,
    "do_bench_ms": 0.1941,
    "ratio": 0.1947 / 0.1941,
    "agree": True,
    "flush": "the judge's",
    "do_bench_own_flush_ms": 0.2005,
    "job": CROSSCHECK_JOBS[0],
}
CROSS_143 = {
    "name": "CUDA optimized",
    "judge_ms": 0.0619,
    "do_bench_ms": 0.0700,
    "ratio": 0.0619 / 0.0700,
    "agree": False,
    "job": CROSSCHECK_JOBS[1],
}
DISPATCH = {
    "shape": [8, 128],
    "isolated": True,
    "add_ms": 0.0123,
    "add_jax_loop_ms": 0.0081,
    "add_dlpack_loop_ms": 0.0090,
    "add_harness_ms": 0.0042,
    "pallas_identity_ms": None,
    "pallas_identity_error": "RuntimeError: no",
}
PROFILED_MOJO = {
    "name": "Mojo optimized",
    "job": f"{KEY_143}/solution/optimized/mojo",
    "stream_ordered": True,
    "isolated_by_judge": False,
    "judge_ms": 0.0640,
    "isolated_ms": 0.0790,
    "host_call_ms": 0.0110,
    "kernels": [{"name": "row_inverse_rms_kernel", "launches": 1.0, "us_per_solve": 61.5}],
    "kernel_ms": 0.0615,
    "overhead_ms": 0.0025,
}
PROFILED_JAX = {"name": "JAX optimized", "job": f"{KEY_142}/solution/optimized/jax",
                "error": "RuntimeError: boom"}  # fmt: skip
PROFILE = {PROFILED_MOJO["job"]: PROFILED_MOJO, PROFILED_JAX["job"]: PROFILED_JAX}
CHECKS = {
    "crosscheck": {KEY_142: CROSS_142, KEY_143: CROSS_143},
    "dispatch": DISPATCH,
    "profile": PROFILE,
}


def test_checks_go_into_the_meta_with_the_judge_runs_own_median():
    report = _report()
    lines = merge_checks(report, json.loads(json.dumps(CHECKS)))
    cross = report["meta"]["crosscheck"]
    assert cross[KEY_142]["judge_run_ms"] == 0.1950 and cross[KEY_143]["judge_run_ms"] is None
    assert report["meta"]["dispatch_floor"]["add_ms"] == 0.0123
    assert lines[0].startswith(f"{KEY_142}: Harness cross-check (CUDA optimized): judge 0.1947 ms")
    assert "(ratio 1.003), within 5%" in lines[0] and "the judge run's median 0.1950 ms" in lines[0]
    assert "with its own: 0.2005 ms" in lines[0] and "(ratio 1.003)" in lines[0]
    assert "(ratio 0.884), NOT within 5%" in lines[1]
    assert lines[2].startswith(
        "JAX dispatch floor (8x128 float32): jitted x + 0: (a) JAX alone 0.0081 ms, (b) on "
        "DLPack-imported torch buffers 0.0090 ms, (c) as the judge times it 0.0123 ms, the "
        "judge's part (c - a) 0.0042 ms; pallas_call identity not measured (RuntimeError: no)"
    )


def test_profiles_go_into_the_meta_the_lines_and_their_challenges_results_file(tmp_path):
    report = _report()
    lines = merge_checks(report, json.loads(json.dumps(CHECKS)))
    assert report["meta"]["profile"][PROFILED_MOJO["job"]]["kernel_ms"] == 0.0615
    mojo = next(line for line in lines if line.startswith("Profile of Mojo optimized"))
    assert "ordered with the caller's stream (not isolated); judge 0.0640 ms" in mojo
    assert "kernels 0.0615 ms per solve, the rest 0.0025 ms" in mojo
    assert "isolated as before it would time 0.0790 ms" in mojo
    assert "Profile of JAX optimized: not measured (RuntimeError: boom)" in lines
    files = {p.name: p for p in write_results(report, tmp_path)}
    data_143 = json.loads(files[f"{KEY_143}-h200.json"].read_text())
    assert [e["job"] for e in data_143["profile"]] == [PROFILED_MOJO["job"]]
    text = files[f"{KEY_143}-h200.md"].read_text()
    assert "## Where the time goes" in text
    assert "| Mojo optimized | no | 0.0640 | 0.0615 | 0.0025 | 0.0110 | " in text
    assert "row_inverse_rms_kernel 61.5 us" in text
    text_142 = files[f"{KEY_142}-h200.md"].read_text()
    assert "| JAX optimized | not measured: RuntimeError: boom |" in text_142


def test_a_failed_profile_step_is_an_error_for_every_solution_it_was_to_profile():
    from benchmarks.harness_check import PROFILE_JOBS

    report = _report()
    lines = merge_checks(report, {"profile": {"error": "exit status 1: boom"}})
    assert set(report["meta"]["profile"]) == set(PROFILE_JOBS)
    assert f"Profile of {PROFILE_JOBS[0]}: not measured (exit status 1: boom)" in lines


def test_a_failed_step_is_an_error_for_every_solution_it_was_to_measure():
    report = _report()
    lines = merge_checks(report, {"crosscheck": {"error": "exit status 1: boom"}})
    cross = report["meta"]["crosscheck"]
    assert set(cross) == {KEY_142, KEY_143}
    assert cross[KEY_142]["error"] == "exit status 1: boom"
    assert lines[0] == (
        f"{KEY_142}: Harness cross-check ({CROSSCHECK_JOBS[0]}): not measured "
        "(exit status 1: boom)"
    )
    assert report["meta"]["dispatch_floor"] == {"error": "not run"}
    assert any("jitted x + 0 not measured (not run)" in line for line in lines)


def test_results_files_carry_the_checks(tmp_path):
    report = _report()
    merge_checks(report, json.loads(json.dumps(CHECKS)))
    files = {p.name: p for p in write_results(report, tmp_path)}
    data = json.loads(files[f"{KEY_142}-h200.json"].read_text())
    assert data["crosscheck"]["do_bench_ms"] == 0.1941 and data["crosscheck"]["agree"]
    assert data["dispatch_floor"]["add_ms"] == 0.0123
    text = files[f"{KEY_143}-h200.md"].read_text()
    assert (
        "- Harness cross-check (CUDA optimized): judge 0.0619 ms, triton.testing.do_bench" in text
    )
    assert "- JAX dispatch floor (8x128 float32): jitted x + 0: (a) JAX alone 0.0081 ms" in text


def test_add_checks_rewrites_the_report_and_appends_to_its_markdown(tmp_path):
    (tmp_path / "judge.json").write_text(json.dumps(_report()))
    (tmp_path / "judge.md").write_text("# run\n")
    console = Console()
    add_checks(tmp_path, json.loads(json.dumps(CHECKS)), console)
    report = json.loads((tmp_path / "judge.json").read_text())
    assert report["meta"]["crosscheck"][KEY_142]["ratio"] == pytest.approx(1.0031, abs=1e-4)
    text = (tmp_path / "judge.md").read_text()
    assert text.startswith("# run\n\n## Timing harness checks\n\n- 142_rms_norm_backward: ")
    assert len(console.lines) == 5 and "NOT within 5%" in console.lines[1]  # 2 profiles
    console = Console()
    add_checks(tmp_path / "missing", CHECKS, console)  # no report: one line, no traceback
    assert console.lines[0].startswith("harness checks: not recorded in judge.json (")


def test_a_check_that_fails_crashes_or_hangs_is_an_error_entry(tmp_path):
    result, log = tmp_path / "out.json", Console()
    log.write = log.lines.append
    write = (
        f"import json, pathlib; pathlib.Path({str(result)!r}).write_text(json.dumps({{'a': 1}}))"
    )
    assert run_check([sys.executable, "-c", write], result, 60, log) == {"a": 1}
    failing = [sys.executable, "-c", "raise SystemExit('it broke')"]
    assert run_check(failing, result, 60, log) == {"error": "exit status 1: it broke"}
    crash = [sys.executable, "-c", "import os; os.abort()"]
    assert run_check(crash, result, 60, log)["error"].startswith("exit status -6")
    hang = [sys.executable, "-c", "import time; time.sleep(60)"]
    assert run_check(hang, result, 1, log) == {"error": "did not finish within 1 s"}
    missing = [str(tmp_path / "no-such-program")]
    assert run_check(missing, result, 1, log)["error"].startswith("could not start: ")


def test_the_cross_check_times_through_the_judges_function_and_the_adapter(judge_cache):
    """On the CPU, with do_bench replaced: the judge's figure is measured, the ratio is its."""
    calls = []

    def bench(run, judge_flush):
        run()
        calls.append(judge_flush)
        return 0.5 if judge_flush else 0.6

    entry = crosscheck_one(_fixture_job(), SCALED_ADD, "cpu", judge_cache, 0.1, bench)
    assert calls == [False, True]
    assert entry["name"] == "PyTorch optimized" and entry["judge_ms"] > 0
    assert entry["ratio"] == pytest.approx(entry["judge_ms"] / 0.5)
    assert entry["agree"] == (abs(entry["ratio"] - 1) <= 0.05)
    assert entry["do_bench_own_flush_ms"] == 0.6 and entry["judge_reps"] >= 5
    assert entry["flush"] == JUDGE_FLUSH

    def old_triton(run, judge_flush):
        if judge_flush:
            raise FlushNotReplaced("no clear_cache")
        return 0.6

    entry = crosscheck_one(_fixture_job(), SCALED_ADD, "cpu", judge_cache, 0.1, old_triton)
    assert entry["flush"] == DO_BENCH_FLUSH and entry["do_bench_ms"] == 0.6


@pytest.mark.slow
def test_the_dispatch_floor_on_the_cpu(tmp_path):
    floor = dispatch_floor("cpu", 0.1, tmp_path)
    assert floor["add_ms"] > 0 and floor["pallas_identity_ms"] > 0, floor
    assert floor["isolated"] and floor["clock"] == "host"
    for key in ("add", "pallas_identity"):  # (a), (b) and (c), measured in this one process
        assert floor[f"{key}_jax_loop_ms"] > 0 and floor[f"{key}_dlpack_loop_ms"] > 0, floor
        assert floor[f"{key}_harness_ms"] == floor[f"{key}_ms"] - floor[f"{key}_jax_loop_ms"]
        assert floor[f"{key}_isolated_ms"] > 0 and floor[f"{key}_stream_ordered"] is False, floor
        # the buffers imported once, at bind; the per-call exchange is compared on a GPU only
        assert floor[f"{key}_exchange"] == "bound" and floor[f"{key}_host_call_ms"] > 0, floor
        assert f"{key}_per_call_ms" not in floor


@pytest.mark.slow
def test_the_checks_run_in_child_processes_from_a_bundle(tmp_path, judge_cache):
    """The GPU run's path on the CPU: the bundle lacks 142/143 (and do_bench needs CUDA), so the
    cross-check reports them; the dispatch floor is measured."""
    plan = Plan(
        {SCALED_ADD.name: PlanChallenge(SCALED_ADD.name, str(SCALED_ADD))}, [_fixture_job()]
    )
    bundle = tmp_path / "bundle"
    build_bundle(plan, bundle, judge_cache)
    log = Console()
    log.write = log.lines.append
    checks = harness_checks(bundle, tmp_path, "cpu", log)
    assert checks["crosscheck"][KEY_142] == {
        "job": CROSSCHECK_JOBS[0],
        "error": "not in the bundle",
    }
    assert checks["dispatch"]["add_ms"] > 0, checks["dispatch"]


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("job_id", CROSSCHECK_JOBS)
def test_the_judge_and_do_bench_agree_on_a_gpu(job_id, judge_cache):
    from generator.judge.runner import build

    key, _, variant, language = job_id.split("/")
    source = ROOT / "solutions" / key / variant / "solution.cu"
    major, minor = torch.cuda.get_device_capability()
    outcome = build(language, source, f"sm_{major}{minor}", judge_cache)
    assert outcome.ok, outcome.message
    pj = PlanJob(job_id, key, "solution", variant, language, str(source), "pass")
    pj.artifact = str(outcome.artifact)
    challenge = next((ROOT / "generated" / "challenges").glob(f"*/{key}"))
    entry = crosscheck_one(pj, challenge, "cuda", judge_cache, 2.0)
    assert entry["agree"], entry


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_dispatch_floor_on_a_gpu(tmp_path):
    floor = dispatch_floor("cuda", 1.0, tmp_path)
    assert floor["add_ms"] > 0 and floor["pallas_identity_ms"] > 0, floor
    assert floor["clock"] == "cuda_events"
    for key in ("add", "pallas_identity"):
        # imported once, ordered through JAX's compute stream, and seen ordered
        assert floor[f"{key}_exchange"] == "bound" and floor[f"{key}_stream_ordered"], floor
        assert floor[f"{key}_per_call_stream_ordered"], floor


def test_the_checks_come_before_the_judge_run_and_shorten_its_deadline(tmp_path, monkeypatch):
    """On a GPU with timing: checks first, their time off the deadline, their results merged."""
    import benchmarks.gpu_judge as gpu_judge
    import generator.judge.commands as commands

    order = []
    # 30 s pass during the checks (a fixed clock otherwise: nvidia-smi's subprocess reads it too)
    monkeypatch.setattr(gpu_judge.time, "monotonic", lambda: 130.0 if order else 100.0)

    def checks(prebuilt, out, device, log, steps=()):
        order.append("checks")
        return json.loads(json.dumps(CHECKS))

    def judge_run(args, console, errors):
        order.append(("judge", args.deadline_s))
        args.json_out.write_text(json.dumps(_report()))
        args.markdown_out.write_text("# run\n")
        return 0

    monkeypatch.setattr(gpu_judge, "harness_checks", checks)
    monkeypatch.setattr(commands, "test_command", judge_run)
    code = gpu_judge.run(tmp_path / "bundle", tmp_path, 1, 60.0, "cuda", True, "1")
    assert code == 0 and order == ["checks", ("judge", gpu_judge.DEADLINE_S - 30.0)]
    report = json.loads((tmp_path / "judge.json").read_text())
    assert report["meta"]["crosscheck"][KEY_142]["judge_run_ms"] == 0.1950
    assert "NOT within 5%" in (tmp_path / "run.log").read_text()
    order.clear()
    assert gpu_judge.run(tmp_path / "bundle", tmp_path, 1, 60.0, "cpu", True, "1") == 0
    assert order == [("judge", gpu_judge.DEADLINE_S)]  # no GPU: no checks, the full deadline


def test_a_baseline_is_checked_and_timed_in_its_own_calling_form(judge_cache):
    """On the CPU, with do_bench replaced: `prepare` first, the returned output checked against
    the reference, then the same call timed by the judge's rounds and by the fake do_bench."""
    from benchmarks.harness_check import baseline_one
    from tests.judge.common import FIXTURES

    source = FIXTURES / "timing" / "returning_baseline.pytorch.py"
    pj = PlanJob(f"{SCALED_ADD.name}/baseline/b/pytorch", SCALED_ADD.name, "baseline", "b",
                 "pytorch", str(source), "baseline")  # fmt: skip

    def bench(run, judge_flush):
        run()
        return 0.5

    entry = baseline_one(pj, SCALED_ADD, "cpu", judge_cache, 0.1, bench)
    assert entry["outputs_ok"], entry["outputs"]
    assert entry["judge_ms"] > 0 and entry["ratio"] == pytest.approx(entry["judge_ms"] / 0.5)
    wrong = FIXTURES / "timing" / "returns_too_many.pytorch.py"
    pj.source = str(wrong)
    with pytest.raises(Exception, match="returned 2 tensor"):
        baseline_one(pj, SCALED_ADD, "cpu", judge_cache, 0.1, bench)


def test_baseline_checks_go_into_the_meta_and_their_challenges_results_file(tmp_path):
    from benchmarks.harness_check import BASELINE_JOBS

    quack = {"name": "quack", "job": BASELINE_JOBS[0], "outputs_ok": True, "judge_ms": 0.2110,
             "do_bench_ms": 0.2104, "ratio": 0.2110 / 0.2104, "agree": True}  # fmt: skip
    checks = dict(CHECKS, baselines={BASELINE_JOBS[0]: quack, BASELINE_JOBS[2]: {"error": "x"}})
    report = _report()
    lines = merge_checks(report, checks)
    strongest = report["meta"]["baseline_crosscheck"]
    assert strongest[BASELINE_JOBS[2]] == {"error": "x", "judge_run_ms": None}
    assert any("Baseline cross-check (quack, in its own calling form): outputs match" in line
               for line in lines)  # fmt: skip
    data = json.loads(write_results(report, tmp_path)[0].read_text())
    assert [e["job"] for e in data["baseline_crosscheck"]] == [BASELINE_JOBS[0]]


def _hostile(name, verdict, median):
    perf = {"median_ms": median, "rounds": {"inputs": "fresh", "calls": 9, "checked": 3}}
    return {"id": f"{KEY_142}/hostile/{name}/pytorch", "challenge": KEY_142, "kind": "hostile",
            "name": name, "language": "pytorch", "verdict": verdict, "message": "", "ok": True,
            "perf": perf if median else None}  # fmt: skip


def test_the_timing_family_is_measured_against_the_honest_entry():
    from benchmarks.gpu_judge import defences_table, timing_family

    rows = [
        _hostile("timing_honest", "pass", 0.60),
        _hostile("timing_side_stream", "pass", 0.57),
        _hostile("timing_patch_event_record", "pass", 0.30),
        _hostile("timing_replay_outputs", "wrong_answer", None),
        _hostile("segfault", "crash", None),
    ]
    report = {"rows": rows}
    family = {entry["name"]: entry for entry in timing_family(report)}
    assert set(family) == {"timing_honest", "timing_side_stream", "timing_patch_event_record",
                           "timing_replay_outputs"}  # fmt: skip
    assert family["timing_side_stream"]["outcome"] == "gained nothing"  # 0.95x: within 10%
    assert family["timing_patch_event_record"]["outcome"] == "GAINED"
    assert family["timing_replay_outputs"]["outcome"] == "caught (wrong_answer)"
    table = defences_table(report)
    assert len(table) == 2 + 3 and "| fresh | 9 | 3 | 0.6000 |" in table[2]


def test_the_checks_to_make_are_named_or_none():
    from benchmarks.gpu_judge import CHECKS as STEPS
    from benchmarks.gpu_judge import checks_of

    assert checks_of("baselines,crosscheck") == ["crosscheck", "baselines"]
    assert checks_of("none") == [] and checks_of(",".join(STEPS)) == list(STEPS)
    with pytest.raises(SystemExit, match="unknown profiles"):
        checks_of("profiles")


def test_a_timed_only_run_says_so_in_its_results_files(tmp_path):
    report = _report()
    assert "Timed only" not in write_results(report, tmp_path / "a")[1].read_text()
    report["meta"]["timed_only"] = True
    text = write_results(report, tmp_path / "b")[1].read_text()
    assert "- Timed only (`gpu_judge.py run --timed-only`): no functional cases ran" in text
