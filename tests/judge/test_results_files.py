"""Results files from a GPU run's report, the proofs' verdicts on synthetic rows, and --seeds."""

from __future__ import annotations

import json
import math

import pytest

from benchmarks.results_files import tag_for, write_results
from generator.judge import proofs
from generator.judge.commands import CommandError, parse_seeds
from generator.judge.plan import Plan, PlanChallenge
from generator.judge.report import markdown
from tests.conftest import ROOT

KEY = "143_row_inverse_rms"
CASES = ["zeros", "wide_rows"]


def _row(kind, name, language, perf=None, cases=None, verdict="pass", seeds=None):
    return {
        "id": f"{KEY}/{kind}/{name}/{language}",
        "challenge": KEY,
        "kind": kind,
        "name": name,
        "language": language,
        "verdict": verdict,
        "message": "",
        "ok": True,
        "perf": perf,
        "env": {"cuda_runtime": "13.0"},
        "case_results": cases or [],
        "seeds": seeds or [],
        "cases": 0,
        "cases_passed": 0,
    }


def _mutant_case(name, ratio, caught):
    return {"name": name, "caught": caught, "ratio": ratio, "reasons": []}


def _floor_case(name, elements, solution, baseline=1e-7):
    floor = {"elements": elements, "reference": baseline, "baseline": baseline}
    return {"name": name, "floor": {**floor, "solution": solution}, "oracle_dev": 0.01}


@pytest.fixture
def report():
    challenge = PlanChallenge(
        KEY,
        "unused",
        CASES,
        atol=0.0,
        rtol=1e-5,
        mutants=[
            {"name": "m1", "mistake": "one", "code": "", "caught_by": ["zeros"]},
            {"name": "m2", "mistake": "two", "code": "", "caught_by": None},
            {"name": "m3", "mistake": "three", "code": "", "caught_by": ["wide_rows"]},
        ],
        oracle={"code": "return {}"},
        accuracy_floor={"output": "inv_rms", "baseline": "b", "factor": 1.08, "min_elements": 64},
    )
    seeds = [{"seed": s, "verdict": "pass"} for s in range(5)]
    rows = [
        _row(
            "solution",
            "optimized",
            "cuda",
            {"median_ms": 0.08, "gbps": 3300.0, "pct_of_copy": 80.0},
            [_floor_case("zeros", 4, 0.0), _floor_case("wide_rows", 64, 1.05e-7)],
            seeds=seeds,
        ),
        _row(
            "solution",
            "naive",
            "triton",
            None,
            [_floor_case("zeros", 4, 9e-7), _floor_case("wide_rows", 64, 2e-7)],
            seeds=seeds,
        ),
        _row("baseline", "torch x.float().square().mean(-1)", "pytorch", {"median_ms": 0.8}),
        _row(
            "mutant",
            "m1",
            "pytorch",
            cases=[_mutant_case("zeros", "inf", True), _mutant_case("wide_rows", 0.2, False)],
            verdict="wrong_answer",
        ),
        _row(
            "mutant",
            "m2",
            "pytorch",
            cases=[_mutant_case("zeros", 0.0, False), _mutant_case("wide_rows", 0.5, False)],
        ),
        _row(
            "mutant",
            "m3",
            "pytorch",
            cases=[_mutant_case("zeros", 3.0, True), _mutant_case("wide_rows", None, True)],
            verdict="wrong_answer",
        ),
        _row("reference", "reference vs oracle", "pytorch", cases=[{"name": "zeros"}]),
    ]
    found = proofs.collect(Plan({KEY: challenge}, []), rows)
    meta = {
        "date": "2026-11-30 10:00:00 UTC",
        "seeds": [0, 1, 2, 3, 4],
        "copy_gbps": 4100.0,
        "machine": {
            "gpu": "NVIDIA H200",
            "driver": "580.1",
            "nvcc": "release 13.0",
            "packages": {"torch": "2.11", "liger-kernel": "0.6", "jax": None, "python": "3.12"},
        },
        "mojo_build": "Mojo 1.2.0",
        "isolation": {
            "sandbox": "bubblewrap sandbox, as nobody",
            "memory_limit_bytes": 32 << 30,
            "process_limit": 512,
            "file_size_limit_bytes": 256 << 20,
        },
    }
    summary = {"jobs": len(rows), "ok": len(rows), "failed": [], "seconds": 1.0}
    summary["proof_failures"] = proofs.all_failures(found)
    return {"meta": meta, "rows": rows, "proofs": found, "summary": summary}


def test_proofs_name_the_survivor_the_difference_and_the_broken_floor(report):
    entry = report["proofs"][KEY]
    mutants = {m["name"]: m for m in entry["mutants"]}
    assert mutants["m1"]["caught_by"] == ["zeros"] and not mutants["m1"]["differs"]
    assert mutants["m1"]["weakest"] == mutants["m1"]["strongest"] == math.inf
    assert mutants["m2"]["caught_by"] == [] and mutants["m2"]["weakest"] is None
    assert mutants["m3"]["extra"] == ["zeros"] and mutants["m3"]["strongest"] == math.inf
    assert entry["margin"]["min_pair"] == 3.0 and entry["margin"]["min_pair_case"] == "zeros"
    text = " ".join(entry["failures"])
    assert "mutant m2 survived all 2 functional cases (two)" in text
    assert "mutant m3 is caught by zeros, wide_rows; the spec expects wide_rows" in text
    assert "naive triton breaks the accuracy floor on case wide_rows" in text
    assert "optimized cuda" not in text  # 1.05x, and its 0-error small case is not enforced
    floor = {s["label"]: s for s in entry["floor"]["solutions"]}
    assert floor["optimized cuda"]["ok"] and floor["optimized cuda"]["worst_ratio"] == 1.05
    assert [c["enforced"] for c in entry["floor"]["cases"]] == [False, True]
    assert entry["oracle"]["max"] == 0.01


def test_results_files_have_exactly_the_schema(report, tmp_path):
    paths = write_results(report, tmp_path)
    assert [p.name for p in paths] == [f"{KEY}-h200.json", f"{KEY}-h200.md"]
    data = json.loads(paths[0].read_text())
    assert set(data) == {
        "gpu", "date", "driver", "versions", "copy_gbps", "isolation", "results",
        "strongest_baseline", "crosscheck", "baseline_crosscheck", "dispatch_floor", "profile",
    }  # fmt: skip
    assert data["isolation"]["sandbox"] == "bubblewrap sandbox, as nobody"
    markdown = paths[1].read_text()
    assert (
        "- Solutions ran: bubblewrap sandbox, as nobody; memory 32 GiB; 512 processes" in markdown
    )
    assert data["gpu"] == "NVIDIA H200" and data["driver"] == "580.1" and data["copy_gbps"] == 4100
    assert data["versions"]["liger-kernel"] == "0.6" and "jax" not in data["versions"]
    assert data["versions"]["cuda_runtime"] == "13.0"
    assert [r["variant"] for r in data["results"]] == ["optimized", "naive", "baseline"]
    for entry in data["results"]:
        assert set(entry) == {
            "name", "language", "variant", "median_ms", "gbps", "pct_copy_bw", "speedup",
        }  # fmt: skip
    assert data["results"][0] == {
        "name": "CUDA optimized",
        "language": "cuda",
        "variant": "optimized",
        "median_ms": 0.08,
        "gbps": 3300.0,
        "pct_copy_bw": 80.0,
        "speedup": 10.0,
    }
    assert data["results"][1]["median_ms"] is None and data["results"][1]["speedup"] is None
    assert data["crosscheck"] is None and data["dispatch_floor"] is None and data["profile"] == []
    assert "Where the time goes" not in paths[1].read_text()
    assert "Harness cross-check" not in paths[1].read_text()
    assert "dispatch floor" not in paths[1].read_text()
    text = paths[1].read_text()
    assert "| CUDA optimized | cuda | optimized | 0.0800 | 3300 | 80.0 | 10.00 |" in text
    assert "2 of 2 solutions passed every case for each of seeds 0, 1, 2, 3, 4" in text
    for section in ("mutants", "reference vs float64 oracle", "accuracy floor"):
        assert f"### {KEY}: {section}" in text
    assert "SURVIVED" in text and "DIFFERS: unexpected zeros" in text


def test_speedups_are_against_the_fastest_baseline_labelled_when_easier(report, tmp_path):
    report["rows"] += [
        _row("baseline", "torch.compile", "pytorch", {"median_ms": 0.4}),
        _row("baseline", "library kernel (rstd precomputed)", "pytorch", {"median_ms": 0.1}),
        _row("baseline", "library not installed", "pytorch", None),
    ]
    crosscheck = {"name": "CUDA optimized", "judge_ms": 0.08, "do_bench_ms": 0.079, "ratio": 1.01}
    report["meta"]["crosscheck"] = {KEY: crosscheck}
    paths = write_results(report, tmp_path)
    data = json.loads(paths[0].read_text())
    assert data["strongest_baseline"] == {
        "name": "library kernel (rstd precomputed)",
        "median_ms": 0.1,
        "easier": True,
    }
    assert data["results"][0]["speedup"] == pytest.approx(1.25)
    assert data["crosscheck"] == crosscheck
    text = paths[1].read_text()
    assert "Strongest baseline: library kernel (rstd precomputed), 0.1000 ms (given a" in text
    assert "an easier problem" in text and "do_bench 0.0790 ms (ratio 1.010)" in text
    # Without the easier one, the fastest remaining baseline is plain.
    report["rows"] = [r for r in report["rows"] if "precomputed" not in r["name"]]
    data = json.loads(write_results(report, tmp_path)[0].read_text())
    assert data["strongest_baseline"]["name"] == "torch.compile"
    assert not data["strongest_baseline"]["easier"]


def test_the_run_report_markdown_has_the_proofs(report):
    text = markdown(report)
    assert "## Spec-level proofs" in text and "- Seeds: 0, 1, 2, 3, 4" in text
    assert "Spec-level proofs: 3 failure(s)" in text


def test_gpu_names_become_file_tags():
    assert tag_for("NVIDIA H200") == "h200"
    assert tag_for("NVIDIA H100 80GB HBM3") == "h100"
    assert tag_for(None) == "cpu"


def test_seeds_are_a_list_or_a_count():
    assert parse_seeds("0,1,2,3,4", 0) == [0, 1, 2, 3, 4]
    assert parse_seeds("5", 0) == [0, 1, 2, 3, 4]
    assert parse_seeds("3", 7) == [7, 8, 9]
    assert parse_seeds(None, 0) is None
    for bad in ("0,0", "x", "0"):
        with pytest.raises(CommandError):
            parse_seeds(bad, 0)


RESULTS = ROOT / "benchmarks" / "results"
TABLE_KEYS = ["142_rms_norm_backward", "143_row_inverse_rms"]


def test_the_gpu_results_table_matches_the_results_files():
    """docs/gpu-results.md's hand-written H200 table quotes the results files' medians, never
    stale ones."""
    files = [json.loads((RESULTS / f"{key}-h200.json").read_text()) for key in TABLE_KEYS]
    section = (ROOT / "docs" / "gpu-results.md").read_text()
    rows = [line for line in section.splitlines() if line.startswith("| ") and " ms" in line]
    assert rows, "docs/gpu-results.md: no timing table"
    for line in rows:
        label, *cells = [c.strip() for c in line.strip("|").split("|")]
        for data, cell in zip(files, cells):
            if not cell:
                continue
            match = [
                e
                for e in data["results"]
                if e["median_ms"] is not None and f"{e['median_ms']:.4f} ms" in cell
            ]
            assert (
                match
            ), f"docs/gpu-results.md row {label!r}: {cell!r} is not a median in the results files"
