"""`chgen test --ray`: the same jobs on a Ray cluster started here on the CPU (two workers), the
same report as a local run's but for the fields that say when and how fast; nothing left behind
(no Ray process, no file in the repository)."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from generator.judge import commands
from generator.judge.ray_pool import job_from_json, job_to_json
from generator.judge.report import report_differences, without_run_fields
from generator.judge.runner import Job
from tests.judge.common import ROOT

pytest.importorskip("ray")

TREE = ROOT / "tests" / "importer" / "fixtures" / "public_style"
#: a CUDA starter (a build task, then a job), its build for a T4 (a build task, then a job that
#: takes no GPU), a Python starter, and the derived job (the reference as a solution, the audit,
#: the derived mistakes), of two challenges
ONLY = ["*/starter/cuda", "*/build/sm_75/cuda", "*/starter/pytorch", "*/derived/*"]
TOKEN = Path.home() / ".ray" / "auth_token"


def run_args(report: Path, ray: str | None = None, temp: Path | None = None) -> commands.TestArgs:
    return commands.TestArgs(
        specs=["201", "202"],
        device="cpu",
        perf=False,
        build_only=False,
        out=None,
        prebuilt=None,
        json_out=report,
        markdown_out=None,
        jobs=2,
        timeout=60.0,
        seed=0,
        arch=None,
        rerun=True,  # runs afresh (builds are reused: they are deterministic)
        specs_dir=TREE,
        tree_dir=TREE,
        solutions_dir=TREE,
        tree_mode=True,
        mutants=4,
        only=ONLY,
        ray=ray,
        ray_temp_dir=temp,
    )


def Quiet():
    return Console(file=io.StringIO(), width=200)


def processes_naming(text: str) -> list:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text in cmdline.read_bytes().decode(errors="replace"):
                found.append(cmdline.parent.name)
        except OSError:
            pass
    return found


def git_status() -> str:
    done = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True)
    return done.stdout.decode()


@pytest.fixture(scope="module")
def reports(tmp_path_factory, judge_cache):
    folder = tmp_path_factory.mktemp("reports")
    temp = tmp_path_factory.mktemp("ray")
    before = git_status(), TOKEN.exists()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHGEN_CACHE", str(judge_cache.root))
        local_code = commands.test_command(run_args(folder / "local.json"), Quiet(), Quiet())
        ray_code = commands.test_command(
            run_args(folder / "ray.json", "local", temp), Quiet(), Quiet()
        )
    local = json.loads((folder / "local.json").read_text())
    ray = json.loads((folder / "ray.json").read_text())
    return local, ray, (local_code, ray_code), temp, before


def test_the_ray_report_is_the_local_report(reports):
    local, ray, codes, _, _ = reports
    assert codes[0] == codes[1]
    assert len(local["rows"]) == 2 * len(ONLY)  # every selected job of both challenges ran
    assert {r["verdict"] for r in local["rows"]} >= {"built", "pass"}
    assert ray["meta"]["ray"] == "local" and local["meta"]["ray"] is None
    assert without_run_fields(ray) == without_run_fields(local)
    assert report_differences(ray, local) == []


def test_report_differences_name_the_field_that_differs():
    one = {"meta": {"date": 1, "ray": None}, "rows": [{"verdict": "pass", "seconds": 1.0}]}
    other = {"meta": {"date": 2, "ray": "local"}, "rows": [{"verdict": "fail", "seconds": 9.0}]}
    assert report_differences(one, other) == [".rows[0].verdict: 'pass' != 'fail'"]
    assert report_differences(one, {"meta": {}, "rows": []}) == [".rows: 1 entries != 0"]


def test_ray_jobs_ran_in_the_sandbox_a_local_run_uses(reports):
    local, ray, _, _, _ = reports
    for here, there in zip(local["rows"], ray["rows"]):
        assert (there["env"] or {}).get("sandbox") == (here["env"] or {}).get("sandbox")
    assert ray["meta"]["isolation"] == local["meta"]["isolation"]


def test_ray_leaves_no_process_and_no_file_in_the_repository(reports):
    _, _, _, temp, before = reports
    assert any(temp.iterdir())  # the cluster did keep its files there
    assert processes_naming(str(temp)) == []
    assert git_status() == before[0]
    assert TOKEN.exists() == before[1]  # Ray's token for the cluster was held in memory only
    assert "RAY_AUTH_TOKEN" not in os.environ


def test_a_job_crosses_as_json_and_comes_back_the_same():
    job = Job(ROOT / "x", Path("a.pytorch.py"), "pytorch", artifact=None, seed=3)
    text = json.dumps(job_to_json(job))
    assert job_from_json(json.loads(text)) == job


def test_ray_and_warm_workers_exclude_each_other(tmp_path):
    args = run_args(tmp_path / "r.json", "local")
    args.warm = True
    with pytest.raises(commands.CommandError, match="--ray and --warm exclude each other"):
        commands.test_command(args, Quiet(), Quiet())


def test_an_address_that_takes_no_connection_is_one_line(tmp_path, judge_cache, monkeypatch):
    monkeypatch.setenv("CHGEN_CACHE", str(judge_cache.root))
    args = run_args(tmp_path / "r.json", "127.0.0.1:9")
    with pytest.raises(
        commands.CommandError, match=r"--ray 127\.0\.0\.1:9: could not start or reach"
    ):
        commands.test_command(args, Quiet(), Quiet())


def _job(device: str = "cuda", perf: bool = False, build_only: bool = False) -> Job:
    return Job(Path("c"), Path("s.py"), "pytorch", device=device, perf=perf, build_only=build_only)


def test_correctness_jobs_share_a_gpu_and_the_clock_takes_it_whole():
    from generator.judge.ray_pool import gpu_request

    assert gpu_request(_job(), 1, 4) == 0.25  # four correctness jobs on one GPU at once
    assert gpu_request(_job(perf=True), 1, 4) == 1  # nothing runs beside a timed job
    assert gpu_request(_job(), 2, 4) == 2  # a multi-GPU challenge takes whole GPUs
    assert gpu_request(_job(device="cpu"), 1, 4) == 0
    assert gpu_request(_job(build_only=True), 1, 4) == 0
    assert gpu_request(_job(), 1, 1) == 1
