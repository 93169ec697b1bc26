"""Plans, caches and bundles: build here, run there (without the spec model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from generator.judge.cache import Cache, key_of
from generator.judge.plan import (
    Plan,
    PlanError,
    PlanJob,
    jobs_from_catalogue,
    plan_from_specs,
    resolve_specs,
)
from generator.judge.runner import Job, build, build_key, judge
from generator.languages import LANGUAGES
from generator.toolchain.tools import MOJO_RUNTIME_LIBS
from tests.judge.common import CHALLENGE_142, FIXTURES, HOSTILE, KEY_142, ROOT

SOLUTIONS = FIXTURES / "solutions"


def test_plan_for_142_lists_starters_solutions_and_baselines(tmp_path):
    plan = plan_from_specs(
        resolve_specs(["142"], ROOT / "specs"), ROOT / "generated", SOLUTIONS, tmp_path
    )
    challenge = plan.challenges[KEY_142]
    assert challenge.min_bytes == 3 * 16384 * 4096 * 4
    assert challenge.case_names[:2] == ["single_element", "example"]
    kinds = [j.kind for j in plan.jobs]
    assert kinds.count("starter") == len(LANGUAGES) and kinds.count("solution") == 3
    builds = {j.target: j for j in plan.jobs if j.kind == "build"}
    assert sorted(builds) == ["sm_100", "sm_75", "sm_80", "sm_90"]  # the platform's GPUs
    assert {(j.language, j.expect) for j in builds.values()} == {("cuda", "built")}
    baselines = [j for j in plan.jobs if j.kind == "baseline"]
    assert len(baselines) == 4 and all(not j.functional and j.perf for j in baselines)
    assert Path(baselines[0].source).read_text().startswith("import torch")
    assert Plan.from_json(json.loads(json.dumps(plan.to_json()))).jobs == plan.jobs


def test_spec_arguments_are_checked(tmp_path):
    with pytest.raises(PlanError, match="matches '999'"):
        resolve_specs(["999"], ROOT / "specs")
    with pytest.raises(PlanError, match="no specs found"):
        resolve_specs([], tmp_path)


def test_catalogue_expectations_depend_on_the_device():
    catalogue = HOSTILE / "catalogue.yaml"
    on_cpu = {f"{j.name}.{j.language}": j.expect for j in jobs_from_catalogue(catalogue, "cpu")}
    on_gpu = {f"{j.name}.{j.language}": j.expect for j in jobs_from_catalogue(catalogue, "cuda")}
    assert on_cpu["oob_store.cuda"] == "built" and on_gpu["oob_store.cuda"] == "out_of_bounds"
    assert on_cpu["build_error.mojo"] == on_gpu["build_error.mojo"] == "build_error"
    assert on_cpu["segfault.pytorch"] == on_gpu["segfault.pytorch"] == "crash"
    # every hostile file is in the catalogue
    files = {p.name for p in HOSTILE.iterdir() if p.suffix in (".py", ".cu", ".mojo")}
    listed = {Path(j.source).name for j in jobs_from_catalogue(catalogue, "cuda")}
    assert listed == files


def test_run_cache_round_trip_and_key_sensitivity(tmp_path):
    cache = Cache(tmp_path)
    key = key_of({"a": 1})
    assert cache.read_run(key) is None
    cache.write_run(key, {"verdict": "pass"})
    assert cache.read_run(key) == {"verdict": "pass"}
    assert Cache(tmp_path, reuse=False).read_run(key) is None
    assert key_of({"a": 1}) != key_of({"a": 2})


def test_python_build_is_a_parse(tmp_path, judge_cache):
    good = SOLUTIONS / KEY_142 / "correct" / "solution.pytorch.py"
    assert build("pytorch", good, None, judge_cache).ok
    bad = tmp_path / "solution.pytorch.py"
    bad.write_text("def solve(x)\n    pass\n")
    outcome = build("pytorch", bad, None, judge_cache)
    assert not outcome.ok and outcome.message.startswith("solution.pytorch.py:1:")
    result = judge(Job(CHALLENGE_142, bad, "pytorch"), judge_cache)
    assert result["verdict"] == "build_error" and "solution.pytorch.py:1" in result["message"]


@pytest.mark.slow
def test_native_builds_are_cached_by_content_and_target(tmp_path, judge_cache):
    source = HOSTILE / "no_sync.cu"
    first = build("cuda", source, "sm_90", judge_cache)
    again = build("cuda", source, "sm_90", judge_cache)
    assert first.ok and again.cached and again.artifact == first.artifact
    assert build_key("cuda", source, "sm_90") != build_key("cuda", source, "sm_75")
    copy = tmp_path / "elsewhere.cu"
    copy.write_bytes(source.read_bytes())
    assert build("cuda", copy, "sm_90", judge_cache).cached  # same content, other path
    broken = build("cuda", HOSTILE / "build_error.cu", "sm_90", judge_cache)
    assert not broken.ok and "launch_the_kernel_that_does_not_exist" in broken.message
    assert str(HOSTILE) not in broken.message  # compiler output names the file, not its folder


@pytest.mark.slow
def test_build_only_bundle_runs_elsewhere_without_the_spec_model(tmp_path, judge_cache):
    bundle = tmp_path / "bundle"
    env = {**os.environ, "CHGEN_CACHE": str(judge_cache.root)}
    build_only = [sys.executable, "-m", "generator", "test", "142", "--build-only"]
    build_only += ["--out", str(bundle), "--solutions", str(SOLUTIONS)]
    done = subprocess.run(build_only, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

    plan = json.loads((bundle / "plan.json").read_text())
    folder = plan["challenges"][KEY_142]["dir"]
    assert folder == "tree-0/challenges/medium/142_rms_norm_backward"
    assert (bundle / "tree-0" / "challenges" / "core" / "challenge_base.py").is_file()
    by_id = {job["id"]: job for job in plan["jobs"]}
    cuda = by_id[f"{KEY_142}/starter/cuda"]
    assert cuda["artifact"].startswith("artifacts/") and cuda["artifact"].endswith(".so.gz")
    assert (bundle / cuda["artifact"]).is_file()
    assert cuda["target"] == "sm_90" and by_id[f"{KEY_142}/starter/cute"]["target"] == "sm_90a"
    assert all(not Path(job["source"]).is_absolute() for job in plan["jobs"])
    with tarfile.open(bundle / "mojo-runtime.tar.gz") as archive:
        assert sorted(archive.getnames()) == sorted(MOJO_RUNTIME_LIBS)
    size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
    assert size < 50e6

    # The running machine: a fresh cache, no spec model, the bundle moved to another folder.
    # (Blocking pydantic itself is not possible here: recent typer imports it.)
    moved = tmp_path / "elsewhere"
    bundle.rename(moved)
    report = tmp_path / "report.json"
    argv = ["chgen", "test", "--prebuilt", str(moved), "--device", "cpu", "--json", str(report)]
    script = (
        "import sys; sys.modules['generator.spec.model'] = None; "
        "sys.modules['generator.spec.read'] = None; "
        f"sys.argv = {argv!r}; from generator.cli import main; main()"
    )
    env["CHGEN_CACHE"] = str(tmp_path / "runner-cache")
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["id"]: row for row in json.loads(report.read_text())["rows"]}
    assert rows[f"{KEY_142}/solution/correct/pytorch"]["verdict"] == "pass"
    assert rows[f"{KEY_142}/solution/correct/triton"]["skipped"] == 3  # interpreter: small only
    assert rows[f"{KEY_142}/starter/mojo"]["verdict"] == "built"
    assert rows[f"{KEY_142}/starter/jax"]["verdict"] == "wrong_answer"
    assert not any(row["kind"] == "baseline" for row in rows.values())  # timed only
    assert (tmp_path / "runner-cache" / "mojo-runtime").is_dir()
    assert list((tmp_path / "runner-cache" / "prebuilt").glob("*.so"))  # unpacked libraries


@pytest.mark.slow
def test_native_libraries_load_with_a_moved_mojo_runtime(tmp_path, judge_cache):
    """What a GPU machine does before calling: load the runtime from elsewhere, then the .so."""
    import ctypes
    import shutil

    from generator.judge.challenge import load_challenge
    from generator.judge.signature import params_from_signature
    from generator.toolchain.bindings import NativeSolve, preload_mojo_runtime
    from generator.toolchain.tools import find_mojo_runtime

    moved = tmp_path / "runtime"
    moved.mkdir()
    for name in MOJO_RUNTIME_LIBS:
        shutil.copy2(find_mojo_runtime() / name, moved / name)
    params = params_from_signature(load_challenge(CHALLENGE_142, "cpu").get_solve_signature())
    mojo = build("mojo", HOSTILE / "no_sync.mojo", "sm_90", judge_cache)
    cuda = build("cuda", HOSTILE / "no_sync.cu", "sm_90", judge_cache)
    assert preload_mojo_runtime(moved) == moved
    for outcome in (mojo, cuda):
        solution = NativeSolve(outcome.artifact, params)
        kinds = [ctypes.c_void_p] * 5 + [ctypes.c_int, ctypes.c_int, ctypes.c_float]
        assert solution.fn.argtypes == kinds
    loaded = Path("/proc/self/maps").read_text()
    assert str(moved / "libKGENCompilerRTShared.so") in loaded


def test_only_keeps_the_jobs_whose_id_matches_a_pattern():
    from generator.judge.commands import CommandError, only_ids

    def plan():
        jobs = [PlanJob(f"142_x/{kind}/{name}/cuda", "142_x", kind, name, "cuda", "s", "pass")
                for kind, name in (("solution", "optimized"), ("solution", "naive"),
                                   ("baseline", "b"))]  # fmt: skip
        return Plan({}, jobs)

    kept = only_ids(plan(), ["142_*/solution/optimized/*", "*/baseline/*"]).jobs
    assert [j.id for j in kept] == ["142_x/solution/optimized/cuda", "142_x/baseline/b/cuda"]
    assert len(only_ids(plan(), []).jobs) == 3
    with pytest.raises(CommandError, match="no job matches 143_"):
        only_ids(plan(), ["143_*"])
