"""What `chgen test` proves of a challenge from its challenge.py alone: the reference as a
solution, the tolerance audit (float64 margin, float16, the performance case's size) and the
mistakes derived from the reference, on a tree of our own (tests/judge/fixtures/derived_tree):
301 has a tolerance loose enough for float16 and a nudge the cases cannot see, 302 a tolerance
tighter than its float32 reference and a performance case over rule D003's bound."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch

from generator.judge import derived_proofs
from generator.judge.derived import derive
from generator.judge.derived_runtime import low_precision
from generator.judge.mutate import choose, mutations, precision_variant
from generator.toolchain.bindings import import_file
from tests.judge.common import ROOT

TREE = ROOT / "tests" / "judge" / "fixtures" / "derived_tree"
NUDGED = TREE / "challenges" / "easy" / "301_nudged_double"
LONG_SUM = TREE / "challenges" / "medium" / "302_long_sum"
DERIVED_KINDS = ["--kind", "derived"]

METHOD = textwrap.dedent(
    """\
    def reference_impl(self, a, b, out, N):
        assert a.dtype == torch.float32
        s = torch.sum(a[:N] * b, dim=0)
        out.copy_(a + s if N > 1 else a.T)
        out[0, 1] = a.float().max()
    """
)


# --------------------------------------------------------------------------- the mutations
def test_each_operator_rewrites_its_sites_and_never_an_assertion():
    found = mutations(METHOD, first_line=10)
    by_operator = {}
    for m in found:
        by_operator.setdefault(m.operator, []).append(m.method)

    def made(operator, text):
        return any(text in method for method in by_operator[operator])

    assert made("swap_operator", "a[:N] / b") and made("swap_operator", "a - s")
    assert made("swap_operator", "N >= 1") and made("swap_operator", "a.float().min()")
    assert made("slice_end_off_by_one", "a[:N - 1]")
    assert made("reduce_wrong_dim", "dim=-1")
    assert made("transpose_index", "out[1, 0]") and made("transpose_index", "else a)")
    assert made("drop_term", "out.copy_(a if N > 1")
    assert made("accumulate_float16", "_chgen_low_precision(torch.sum, 'float16')(a[:N] * b")
    assert made("accumulate_bfloat16", "'bfloat16'")
    assert all("assert a.dtype == torch.float32" in m.method for m in found)
    assert all(m.line in (12, 13, 14) for m in found)
    names = [m.name for m in found]
    assert len(set(names)) == len(names) and "swap_operator_l13_2" in names


def test_the_choice_is_bounded_the_same_every_time_and_covers_the_operators():
    found = mutations(METHOD)
    picked = choose(found, 6, "301_nudged_double")
    assert len(picked) == 6 and picked == choose(found, 6, "301_nudged_double")
    assert len({m.operator for m in picked}) == 6  # one of each operator before a second
    assert choose(found, 100, "x") and len(choose(found, 100, "x")) == len(found)


def test_the_precision_variant_names_one_floating_dtype():
    wide = precision_variant(METHOD, "float64")
    assert "torch.float64" in wide and "float32" not in wide
    assert "a.to(torch.float64).max()" in wide


def test_low_precision_rounds_the_accumulation_and_writes_out():
    x = torch.full((4096,), 1.0 + 2**-12)
    out = torch.empty(())
    low_precision(torch.sum, "float16")(x, out=out)
    assert out.dtype == torch.float32 and float(out) == 4096.0  # 1 + 2^-12 is 1 in float16
    assert float(torch.sum(x)) > 4096.0


# ------------------------------------------------------------------------- the derived file
def test_the_derived_file_holds_the_reference_and_each_mistake(tmp_path):
    plan = derive(NUDGED, tmp_path, "301_nudged_double", 4)
    names = [v["name"] for v in plan.variants]
    assert names[:6] == ["all_zeros", "prefill_unwritten", "input_copied", "first_only",
                         "last_row_skipped", "last_column_skipped"]  # fmt: skip
    assert len(names) == 10
    module = import_file(plan.source)
    x = torch.linspace(-1, 1, 8)
    expected = x * 2.0 + 1e-06 * x.sum()

    def run(entry):
        y = torch.full((8,), 7.0)
        getattr(module, entry)(x, y, 8)
        return y

    assert torch.equal(run("solve"), expected)
    assert torch.equal(run("solve_all_zeros"), torch.zeros(8))
    assert torch.equal(run("solve_prefill_unwritten"), torch.full((8,), 7.0))
    assert torch.equal(run("solve_input_copied"), x)
    assert torch.equal(run("solve_first_only")[1:], torch.full((7,), 7.0))
    assert run("solve_last_row_skipped")[-1] == 7.0
    mutated = plan.variants[6]
    assert mutated["line"] and not torch.equal(run(mutated["entry"]), expected)


def test_a_multi_gpu_challenge_derives_nothing_and_says_why(tmp_path):
    folder = ROOT / "generated" / "challenges" / "hard" / "144_distributed_rms_norm_backward"
    plan = derive(folder, tmp_path, "144", 4)
    assert plan.source is None and "multi-GPU" in plan.notes[0]


# -------------------------------------------------------------------- through the judge
@pytest.fixture(scope="module")
def tree_report(tmp_path_factory, judge_cache):
    """`chgen test --tree` on the fixture tree: the derived jobs only."""
    from typer.testing import CliRunner

    from generator.cli import app

    report = tmp_path_factory.mktemp("derived") / "report.json"
    args = ["test", "--tree", str(TREE), "--device", "cpu", "--json", str(report)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHGEN_CACHE", str(judge_cache.root))
        result = CliRunner().invoke(app, args + DERIVED_KINDS + ["--mutants", "8"])
    return result, json.loads(report.read_text())


def test_the_reference_passes_as_a_solution(tree_report):
    result, report = tree_report
    for key in ("301_nudged_double", "302_long_sum"):
        row = next(r for r in report["rows"] if r["id"] == f"{key}/derived/reference/pytorch")
        assert row["verdict"] == "pass" and row["ok"], row
    assert result.exit_code == 1  # the audit's findings below fail the run


def test_the_audit_reports_margin_half_precision_and_size(tree_report):
    result, report = tree_report
    nudged = report["proofs"]["301_nudged_double"]["derived"]["audit"]
    assert nudged["margin_ok"] and nudged["float32"] and not nudged["half_fails"]
    assert nudged["perf_bytes"] == 2 * 4 * 1_000_000 and nudged["perf_fits"]
    long_sum = report["proofs"]["302_long_sum"]["derived"]["audit"]
    assert long_sum["margin"] > derived_proofs.MARGIN_LIMIT and not long_sum["margin_ok"]
    assert long_sum["half_fails"] and long_sum["perf_fits"] is False
    failures = " ".join(report["summary"]["proof_failures"])
    assert "301_nudged_double: the reference computed in float16 passes every" in failures
    assert "302_long_sum: on case functional_2 the reference deviates from itself" in failures
    assert "302_long_sum: the performance case's tensors take 3.20 GB" in failures
    assert "PASSES" in result.output and "(over D003)" in result.output


def test_mistakes_are_scored_equivalents_set_apart_survivors_listed(tree_report):
    result, report = tree_report
    mutants = report["proofs"]["301_nudged_double"]["derived"]["mutants"]
    status = {m["name"]: m["status"] for m in mutants["table"]}
    assert status["all_zeros"] == status["prefill_unwritten"] == "killed"
    assert status["last_column_skipped"] == "not applicable"  # a 1-D output
    assert status["reduce_wrong_dim_l22"] == "equivalent"  # dim 0 and -1 of a vector
    assert status["drop_term_l23"] == "survivor"  # the 1e-6 nudge is within the tolerance
    counts = mutants["counts"]
    assert mutants["score"] == counts["killed"] / (counts["killed"] + counts["survivor"])
    assert "drop_term_l23" in mutants["survivors"]
    warnings = " ".join(report["summary"]["proof_warnings"])
    assert "301_nudged_double: a mistake the tests miss: drop_term_l23" in warnings
    assert "Mistakes the tests miss" in result.output
    long_sum = report["proofs"]["302_long_sum"]["derived"]["mutants"]
    assert long_sum["survivors"] == [] and long_sum["score"] == 1.0


# ------------------------------------------------------------------------------ the plan
PUBLIC_STYLE = ROOT / "tests" / "importer" / "fixtures" / "public_style"


def test_a_tree_plan_judges_the_starters_it_ships_and_derives_the_rest(tmp_path):
    from generator.judge.plan import plan_from_tree

    plan = plan_from_tree(PUBLIC_STYLE, ["202"], tmp_path, 4)
    challenge = plan.challenges["202_row_rescale"]
    kinds = sorted(j.kind for j in plan.jobs)
    assert kinds == ["build"] * 4 + ["derived", "reference_solution"] + ["starter"] * 6
    builds = [j for j in plan.jobs if j.kind == "build"]
    assert [(j.language, j.target, j.expect) for j in builds] == [
        ("cuda", target, "built") for target in ("sm_75", "sm_80", "sm_90", "sm_100")
    ]  # the CUDA starter for each GPU the platform lists, built and never run
    assert challenge.atol == 1e-4 and len(challenge.derived) == 10
    assert any("starter.tilelang.py: not shipped" in note for note in challenge.notes)
    assert plan.meta["perf_bytes_limit"] == 3_200_000_000
    assert not [j for j in plan_from_tree(PUBLIC_STYLE, ["202"], tmp_path, None).jobs
                if j.kind not in ("starter", "build")]  # fmt: skip


def test_a_tree_selection_that_matches_nothing_is_one_line(runner):
    from generator.cli import app

    result = runner.invoke(app, ["test", "--tree", str(PUBLIC_STYLE), "999", "--device", "cpu"])
    assert result.exit_code == 1
    assert "no challenge matches 999" in result.output and "Traceback" not in result.output


def test_an_imported_spec_gets_the_derived_proofs(tmp_path, judge_cache, runner, monkeypatch):
    from generator.cli import app

    specs = tmp_path / "specs"
    folder = PUBLIC_STYLE / "challenges" / "medium" / "202_row_rescale"
    done = runner.invoke(app, ["import", str(folder), "-o", str(specs / "202_row_rescale.yaml")])
    assert done.exit_code == 0, done.output
    monkeypatch.setenv("CHGEN_CACHE", str(judge_cache.root))
    report = tmp_path / "report.json"
    args = ["test", "202", "--specs", str(specs), "--tree", str(PUBLIC_STYLE), "--device", "cpu"]
    done = runner.invoke(app, args + ["--kind", "derived", "--json", str(report)])
    assert done.exit_code == 0, done.output
    derived = json.loads(report.read_text())["proofs"]["202_row_rescale"]["derived"]
    assert derived["reference"]["verdict"] == "pass"
    assert derived["audit"]["margin_ok"] and derived["audit"]["half_fails"]
    assert derived["mutants"]["score"] == 1.0


def test_the_public_set_proof_writes_counts_and_names(tmp_path, judge_cache):
    """benchmarks/public_set_proof.py on the fixture tree (no starters): the summary counts what
    the derived proofs found, and the files hold no message, only verdicts and names."""
    import subprocess
    import sys

    script = ROOT / "benchmarks" / "public_set_proof.py"
    args = [sys.executable, str(script), str(TREE), "--starters", "", "--mutants", "4"]
    args += ["--cache", str(judge_cache.root), "--results", str(tmp_path)]
    args += ["--report", str(tmp_path / "report.json")]
    done = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next(tmp_path.glob("public-set-proof-*.json")).read_text())
    summary = results["summary"]
    assert summary["challenges"] == summary["derived"] == summary["reference_passes"] == 2
    assert summary["float16_passes"] == ["301_nudged_double"]
    assert summary["margin_over_tenth"] == ["302_long_sum"]
    assert summary["perf_over_d003"] == ["302_long_sum"]
    nudged = next(c for c in results["challenges"] if c["challenge"] == "301_nudged_double")
    assert "drop_term_l23" in nudged["survivors"] and nudged["float16"] == "passes"
    text = next(tmp_path.glob("public-set-proof-*.md")).read_text()
    assert "| 301_nudged_double |" in text and "Mistakes the tests miss" in text
    assert "1e-06 * total" not in json.dumps(results) + text  # no code of the challenge


def test_outputs_challenge_py_leaves_empty_are_handed_over_unwritten():
    """challenge.py allocates outputs with torch.empty; the judge draws the cases so that they
    come recognisably unwritten (NaN), and what a mistake that writes nothing leaves is the same
    on every run; torch's own setting is as it was after."""
    from generator.judge.cases import example_and_functional, performance
    from generator.judge.challenge import load_challenge
    from generator.judge.signature import params_from_signature

    folder = PUBLIC_STYLE / "challenges" / "medium" / "202_row_rescale"
    challenge = load_challenge(folder, "cpu")
    params = params_from_signature(challenge.get_solve_signature())
    cases = example_and_functional(challenge, params, 0) + [performance(challenge, params, 0)]
    for case in cases:
        assert torch.isnan(case.values["y"]).all(), case.name
        assert not torch.isnan(case.values["x"]).any(), case.name  # inputs as drawn
    assert not torch.are_deterministic_algorithms_enabled()
    assert not torch.isnan(torch.full((2,), 123.0)).any()


def test_the_public_set_proof_counts_each_starter_built_for_each_platform_gpu(
    tmp_path, judge_cache
):
    """The CUDA starter built for T4, A100, H100/H200 and B200: one count per architecture."""
    import subprocess
    import sys

    script = ROOT / "benchmarks" / "public_set_proof.py"
    args = [sys.executable, str(script), str(PUBLIC_STYLE), "--only", "201", "--starters", "cuda"]
    args += ["--mutants", "0", "--cache", str(judge_cache.root), "--results", str(tmp_path)]
    args += ["--report", str(tmp_path / "report.json")]
    done = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next(tmp_path.glob("public-set-proof-*.json")).read_text())
    builds = results["summary"]["builds"]
    assert list(builds) == ["cuda sm_75", "cuda sm_80", "cuda sm_90", "cuda sm_100"]
    assert all(tally == {"jobs": 1, "built": 1, "failed": []} for tally in builds.values())
    assert results["challenges"][0]["builds"]["cuda sm_100"] is True
    text = next(tmp_path.glob("public-set-proof-*.md")).read_text()
    assert "| CUDA | sm_75 | 1 | 1 | — |" in text


def test_reference_impl_jax_becomes_a_jax_solution_judged_on_every_seed(tmp_path):
    """A challenge with a reference_impl_jax gets a `reference_jax` job: that method as a JAX
    solution (in/inout arrays and scalars in, the outputs returned), held to pass."""
    import jax.numpy as jnp

    from generator.judge.plan import plan_from_tree
    from generator.judge.suite import SuiteOptions, to_job

    plan = plan_from_tree(PUBLIC_STYLE / "jax_references", ["210"], tmp_path, 2)
    job = next(j for j in plan.jobs if j.kind == "reference_jax")
    assert (job.id, job.language, job.expect) == ("210_row_max/reference_jax/reference/jax",
                                                  "jax", "pass")  # fmt: skip
    options = SuiteOptions(extra_seeds=[1, 2])
    assert to_job(job, plan, options, perf_phase=False).extra_seeds == [1, 2]
    solve = import_file(job.source).solve
    x = jnp.array([[1.0, 5.0, 2.0], [7.0, -1.0, 7.0]])
    values, indices = solve(x, 2, 3)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert not [j for j in plan_from_tree(PUBLIC_STYLE, ["202"], tmp_path, 2).jobs
                if j.kind == "reference_jax"]  # fmt: skip


def test_the_public_set_proof_orders_the_references_before_the_slow_starters():
    import importlib.util

    from generator.judge.plan import PlanJob

    spec = importlib.util.spec_from_file_location(
        "public_set_proof", ROOT / "benchmarks" / "public_set_proof.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    jobs = [PlanJob(f"x/{kind}/{language}", "x", kind, "n", language, "f", "pass")
            for kind, language in [("starter", "cute"), ("starter", "pytorch"),
                                   ("reference_jax", "jax"), ("starter", "mojo"),
                                   ("derived", "pytorch"), ("build", "cuda")]]  # fmt: skip
    ordered = [j.id for j in sorted(jobs, key=module.proof_order)]
    assert ordered == ["x/build/cuda", "x/derived/pytorch", "x/reference_jax/jax",
                       "x/starter/pytorch", "x/starter/mojo", "x/starter/cute"]  # fmt: skip
