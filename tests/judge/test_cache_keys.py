"""The judge's cache keys: any job field, and any file of chgen itself, changes them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from generator import resources
from generator.judge import runner
from generator.judge.runner import Job, build_key, run_key
from tests.conftest import ROOT

CHALLENGE = ROOT / "generated" / "challenges" / "medium" / "142_rms_norm_backward"


@pytest.fixture
def files(tmp_path: Path) -> dict:
    made = {}
    for name, text in {
        "solution.pytorch.py": "def solve(): pass\n",
        "other.pytorch.py": "def solve():\n    return None\n",
        "artifact.so": "not really a library",
        "runtime/libA.so": "a",
    }.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        made[name] = path
    return made


def changed_values(files: dict) -> dict:
    """For every Job field, a value other than the base job's."""
    return {
        "challenge_dir": ROOT / "generated" / "challenges" / "medium" / "143_row_inverse_rms",
        "source": files["other.pytorch.py"],
        "language": "triton",
        "device": "cuda",
        "perf": True,
        "functional": False,
        "timeout": 61.0,
        "startup_timeout": 301.0,
        "seed": 1,
        "target": "sm_90",
        "artifact": files["artifact.so"],
        "prebuilt_build": {"ok": True},
        "case_names": ["basic"],
        "max_case_elements": 10,
        "cpu_max_elements": 1_000_000,
        "min_bytes": 4.0,
        "perf_options": {"repeats": 3},
        "mojo_runtime": files["runtime/libA.so"].parent,
        "band_bytes": 1024,
        "extra_seeds": [1, 2],
        "oracle": {"code": "return {}"},
        "accuracy_floor": {"factor": 2},
        "mutant": True,
        "reference": True,
        "derived": True,
        "baseline": True,
        "variants": [{"name": "all_zeros", "entry": "solve_all_zeros"}],
        "memory_limit": 1 << 30,
        "sandbox": False,
        "ranks": 1,
        "build_only": True,
    }


def base_job(files: dict) -> Job:
    return Job(CHALLENGE, files["solution.pytorch.py"], "pytorch")


def key(job: Job, files: dict) -> str:
    return run_key(job, files["solution.pytorch.py"], ["functional"])


#: Job fields that say how a run is spread, not what is judged: no part of the key
UNKEYED = {"side_by_side"}


def test_the_table_names_every_job_field(files):
    assert set(changed_values(files)) | UNKEYED == {f.name for f in dataclasses.fields(Job)}


def test_how_a_run_is_spread_is_not_in_the_run_key(files):
    job = base_job(files)
    assert key(dataclasses.replace(job, side_by_side=14), files) == key(job, files)


def test_every_job_field_changes_the_run_key(files, monkeypatch):
    monkeypatch.setattr(runner, "gpus", lambda: [])  # no nvidia-smi here for device="cuda"
    job = base_job(files)
    base = key(job, files)
    assert key(base_job(files), files) == base  # deterministic
    for name, value in changed_values(files).items():
        assert getattr(job, name) != value, name
        assert key(dataclasses.replace(job, **{name: value}), files) != base, name


def test_file_contents_change_the_run_key(files):
    job = dataclasses.replace(base_job(files), mojo_runtime=files["runtime/libA.so"].parent)
    before = key(job, files)
    files["runtime/libA.so"].write_text("another a")
    assert key(job, files) != before
    files["solution.pytorch.py"].write_text("def solve():\n    pass\n")
    after_source = key(job, files)
    assert after_source != before


def test_chgen_itself_is_in_both_keys(files, monkeypatch):
    source = files["solution.pytorch.py"]
    build_before = build_key("pytorch", source, None)
    run_before = key(base_job(files), files)
    monkeypatch.setattr(runner, "package_fingerprint", lambda: "any other package file")
    assert build_key("pytorch", source, None) != build_before
    assert key(base_job(files), files) != run_before


def test_the_key_sees_every_module_including_loading():
    names = {name for name, _ in resources.package_files(resources.package_roots())}
    modules = {
        f"generator/{p.relative_to(resources.PACKAGE_DIR).as_posix()}"
        for p in resources.PACKAGE_DIR.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert "generator/loading.py" in modules and modules <= names
