"""What the judge's tables say: integer outputs by mismatching elements (not a relative error of
0), a failing case's errors in its row, skipped cases named with why, no bandwidth on the CPU,
and no table without content."""

from __future__ import annotations

import io

import torch
from rich.console import Console

from generator.judge.cases import Case
from generator.judge.commands import print_result
from generator.judge.compare import OutputReport, compare_output
from generator.judge.proofs import measured
from generator.judge.report import cells


def printed(result: dict) -> str:
    buffer = io.StringIO()
    print_result(result, Console(file=buffer, width=200))
    return buffer.getvalue()


def test_an_integer_mismatch_names_the_count_not_a_relative_error():
    got = torch.tensor([3, 1, 0], dtype=torch.int32)
    want = torch.tensor([1, 1, 2], dtype=torch.int32)
    report = OutputReport([compare_output("y", got, want, 0.0, 0.0)])
    text = report.first_failure().describe()
    assert text == "y: 2 of 3 element(s) differ; first at [0]: got 3, expected 1 (max abs 2)"
    assert report.errors() == {"exact": True, "mismatches": 2, "compared": 3, "max_abs": 2.0}


def test_a_float_output_keeps_abs_and_rel_errors():
    got, want = torch.tensor([1.0, 2.5]), torch.tensor([1.0, 2.0])
    report = OutputReport([compare_output("y", got, want, 1e-5, 1e-5)])
    assert set(report.errors()) == {"max_abs", "max_rel"}
    assert "max rel 0.25" in report.first_failure().describe()


def case_row(name: str, verdict: str, **errors) -> dict:
    return {"name": name, "verdict": verdict, "seconds": 0.01, **errors}


def result(cases: list, **more) -> dict:
    base = {"verdict": "pass", "message": "ok", "source": "s.pytorch.py", "cases": cases}
    return {**base, **more}


def test_an_integer_table_shows_mismatches_and_fills_the_failing_row():
    text = printed(
        result(
            [
                case_row("one", "pass", exact=True, mismatches=0, compared=4, max_abs=0.0),
                case_row("two", "wrong_answer", exact=True, mismatches=3, compared=8, max_abs=2),
            ],
            verdict="wrong_answer",
        )
    )
    assert "Mismatches" in text and "Max rel err" not in text
    assert "3 of 8" in text and "0 of 4" in text
    row = next(line for line in text.splitlines() if "wrong_answer" in line and "two" in line)
    assert "3 of 8" in row and "2" in row.split("3 of 8")[1]


def test_skipped_cases_are_named_with_why_and_the_flag():
    skipped = [{"name": "large", "why": "x has 4,194,304 elements, over 100,000"}]
    text = printed(result([case_row("one", "pass", max_abs=0.0, max_rel=0.0)], skipped=skipped))
    row = next(line for line in text.splitlines() if "large" in line)
    assert "skipped" in row and "x has 4,194,304 elements, over 100,000" in row
    assert "--cpu-max-elements" in text


def test_a_cpu_timing_prints_no_bandwidth():
    perf = {"median_ms": 2.0, "min_ms": 1.9, "spread": 0.01, "reps": 15, "clock": "host"}
    perf.update({"gbps": None, "pct_of_copy": None, "copy_gbps": None})
    text = printed(result([case_row("one", "pass", max_abs=0.0, max_rel=0.0)], perf=perf))
    assert "median 2.0000 ms" in text
    assert "GB/s" not in text and "of copy" not in text


def suite_row(**more) -> dict:
    row = {"challenge": "2_row_argmax", "kind": "solution", "name": "n", "language": "pytorch"}
    row.update({"verdict": "pass", "ok": True, "cases": 3, "cases_passed": 3, "seeds": []})
    return {**row, **more}


def test_the_suite_table_says_exact_for_integer_rows():
    assert cells(suite_row(exact=True, mismatches=0, max_rel=None))["Max err"] == "exact"
    wrong = suite_row(exact=True, mismatches=5, verdict="wrong_answer", cases_passed=2)
    assert cells(wrong)["Max err"] == "5 differ"
    assert cells(suite_row(max_rel=3e-7))["Max err"] == "3.0e-07 rel"


def test_an_oracle_table_without_a_deviation_is_not_printed():
    empty = {"limit": 0.1, "cases": [{"name": "a", "deviation": None, "outputs": {}}]}
    full = {"limit": 0.1, "cases": [{"name": "a", "deviation": 0.01, "outputs": {"y": 0.01}}]}
    assert not measured(empty) and measured(full) and not measured(None)


def test_the_largest_tensor_decides_a_skip():
    case = Case("c", {"x": torch.zeros(10, 20), "y": torch.zeros(10), "N": 10})
    assert case.largest_tensor() == ("x", 200)
