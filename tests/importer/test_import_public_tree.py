"""The public challenge set itself, when a clone is at hand: CHGEN_PUBLIC_TREE=<clone>/challenges.

Its files are not copied into this repository (their licence, CC BY-NC-ND 4.0, allows no derived
copies), so these round trips run only where a clone is. The lists record what the import gives on
that set today: challenges that follow the conventions round-trip; the others are refused or
reported, each for the reason named.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.cli import app
from generator.importer import ImportFailure, import_challenge
from generator.importer.equivalence import compare_files

ENV = "CHGEN_PUBLIC_TREE"
pytestmark = pytest.mark.skipif(
    not os.environ.get(ENV), reason=f"set {ENV} to a clone's challenges/ folder"
)

#: five starters byte-identical, Mojo on the current API, challenge.py equivalent
ROUND_TRIP = [
    "hard/12_multi_head_attention",
    "medium/4_reduction",
    "medium/6_softmax_attention",
    "medium/13_histogramming",
    "medium/25_categorical_cross_entropy_loss",
    "medium/27_mean_squared_error",
    "medium/29_top_k_selection",
    "medium/34_logistic_regression",
    "medium/35_monte_carlo_integration",
    "medium/40_batch_normalization",
    "medium/43_count_array_element",
    "medium/44_count_2d_array_element",
    "medium/55_attn_w_linear_bias",
    "medium/58_fp16_dot_product",
    "medium/69_jacobi_stencil_2d",
    "medium/75_sparse_matrix_dense_matrix_multiplication",
    "medium/82_linear_recurrence",
    "medium/84_swiglu_mlp_block",
    "medium/85_lora_linear",
    "medium/108_dpo_sequence_loss",
    "medium/111_softmax_attention_backward",
    "medium/113_layer_normalization",
]
#: imported, but a starter breaks a convention chgen keeps (the report names it)
STARTER_BREAKS = {
    "easy/1_vector_add": "starter/starter.triton.py is written in chgen's form: the original "
    "breaks S002, S007 (comment reads `# a, b, c are tensors on the GPU`",
    "easy/3_matrix_transpose": "starter/starter.triton.py is kept as written (kept_starters); "
    "chgen's form: line 7 differs",
    "hard/15_sorting": "comment reads `// data is device pointer`; expected `// data is a device "
    "pointer`",
    "medium/16_prefix_sum": "comment reads `# data and output are tensors on the GPU`",
    "medium/22_gemm": "comment reads `// A, B, and C are device pointers`",
    "medium/72_stream_compaction": "starter/starter.cute.py is written in chgen's form: the "
    "original breaks S003 ('N' is cute.Uint32",
}
#: refused, with the reason
REFUSED = {
    "easy/41_simple_inference": "is a torch.nn.Module",
    # its prompts are digits computed in Python from drawn numbers: 31,000 of them in one case
    "medium/76_adder_transformer": "passes 31000 numbers made in Python to a torch call",
}
#: shapes that are expressions of the sizes (sliding windows, padded and strided, flattened),
#: examples of rank 3-4, a rank that differs between cases, inf in the data, module constants the
#: reference uses, a reference that only runs in float32: each imports, and its spec generates
SHAPES = {
    "medium/10_2d_convolution": "[(input_rows - kernel_rows + 1) * (input_cols - kernel_cols + 1)]",
    "medium/42_2d_max_pooling": "((H + 2 * padding - kernel_size) // stride + 1)",
    "hard/73_all_pairs_shortest_paths": ".inf",
    "hard/14_multi_agent_sim": "shape: [4 * N]",
    "easy/54_swiglu": "shape: [N // 2]",
    "easy/7_color_inversion": "shape: [height * width * 4]",
    "easy/9_1d_convolution": "[input_size - kernel_size + 1]",
    "medium/45_count_3d_array_element": "[N, M, K]",
    "medium/105_group_normalization": "[N, C, H, W]",
    "medium/18_sparse_matrix_vector_multiplication": "shapes: {A: [M, N]}",
    "medium/30_batched_matrix_multiplication": "shapes: {",
}
#: seeds, output starts, descriptors and code inputs the spec must carry (lines of the imported
#: spec); every regenerated challenge.py draws the very same values
CONSTRUCTS = {
    # its reference writes only the selected prefix of out: the example needs zeroed outputs
    "medium/72_stream_compaction": ["prefill: zeros"],
    # torch.manual_seed(42) at the top of generate_functional_test; descriptors in performance
    "medium/82_linear_recurrence": ["    seed: 42", "  descriptors: true"],
    # four seeds before four cases; a seed in the performance test
    "medium/67_moe_topk_gating": [
        "    seed: 42",
        "    seed: 123",
        "    seed: 456",
        "  seed: 789",
        "prefill: zeros",
    ],
    # zeroed outputs, but the performance test's OutTensor starts empty
    "medium/85_lora_linear": ["prefill: zeros", "  prefill: empty", "  descriptors: true"],
    # the sparse matrix of the performance test: values scattered into zeros through a view
    "medium/18_sparse_matrix_vector_multiplication": ["        A.view(-1)[t1] = torch.empty("],
    # RoPE tables whose second half is the first one's, set by item assignment
    "medium/61_rope_embedding": ["          cos[:, 32:] = cos[:, :32]"],
}
STARTERS = ["starter.cu", "starter.cute.py", "starter.jax.py", "starter.pytorch.py"]


def public(name: str) -> Path:
    root = Path(os.environ[ENV])
    root = root / "challenges" if (root / "challenges").is_dir() else root
    return root / name


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_conventional_public_challenges_round_trip(name: str, runner, tmp_path: Path):
    challenge = public(name)
    imported = import_challenge(challenge)
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output
    tree = tmp_path / "tree" / "challenges"
    regenerated = tree / challenge.parent.name / challenge.name
    for starter in STARTERS + ["starter.triton.py"]:
        got = (regenerated / "starter" / starter).read_text()
        assert got == (challenge / "starter" / starter).read_text(), starter
    mojo = (regenerated / "starter" / "starter.mojo").read_text()
    assert "from max.gpu" in mojo and 'abi("C")' in mojo and "UntrackedOrigin]" in mojo
    equivalence = compare_files(
        challenge / "challenge.py",
        challenge.parent.parent / "core" / "challenge_base.py",
        regenerated / "challenge.py",
        tree / "core" / "challenge_base.py",
        imported.case_names,
    )
    assert equivalence.problems() == []


@pytest.mark.parametrize("name", sorted(STARTER_BREAKS))
def test_convention_breaks_are_reported(name: str):
    imported = import_challenge(public(name))
    assert any(STARTER_BREAKS[name] in line for line in imported.report.lines())


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_cannot_be_represented_is_refused(name: str):
    with pytest.raises(ImportFailure) as caught:
        import_challenge(public(name))
    assert REFUSED[name] in str(caught.value)


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_seeds_output_starts_and_descriptors_are_carried_over(name: str):
    imported = import_challenge(public(name))
    spec_lines = imported.spec_text.splitlines()
    for line in CONSTRUCTS[name]:
        assert any(written.startswith(line) for written in spec_lines), line
    assert imported.equivalence.problems() == []
    assert imported.report.approximated == {}


def test_the_whole_tree_imports_in_one_command(runner, tmp_path: Path):
    """Every challenge once in the report, in the tree's order; what each list above expects; no
    refusal that is chgen's own failure; the folder written generates."""
    import json

    specs, report = tmp_path / "specs", tmp_path / "report.json"
    tree = Path(os.environ[ENV])
    result = runner.invoke(app, ["import", str(tree), "--out", str(specs), "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    data = json.loads(report.read_text())
    names = [r["challenge"] for r in data["results"]]
    on_disk = sorted(f"{d.parent.name}/{d.name}" for d in public(".").glob("*/*_*") if d.is_dir())
    assert sorted(names) == on_disk and len(names) == data["challenges"]
    status = {r["challenge"]: r for r in data["results"]}
    for name in ROUND_TRIP + sorted(STARTER_BREAKS):
        assert status[name]["status"] == "imported", status[name]
    for name, words in REFUSED.items():
        assert status[name]["status"] == "refused" and words in status[name]["message"]
    crashed = [r for r in data["results"] if r.get("reason", "").startswith("chgen import failed")]
    assert crashed == []
    assert sum(g["count"] for g in data["reasons"]) == data["refused"]
    generated = runner.invoke(
        app, ["generate", "--specs", str(specs), "--out", str(tmp_path / "tree")]
    )
    assert generated.exit_code == 0, generated.output


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_expressions_ranks_and_case_shapes_import_and_generate(
    name: str, runner, tmp_path: Path
):
    imported = import_challenge(public(name))
    assert SHAPES[name] in imported.spec_text
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 0, result.output


def test_adopting_chgen_loses_no_page_text(runner, tmp_path: Path, monkeypatch):
    """Adoption as a user does it, in a copy of the clone: `chgen import . --out specs`, then
    `chgen generate --out . --force`; no page shows less text than it did, and generate has no
    page loss to warn about."""
    import shutil

    from generator.challenge.page import describe_losses, text_losses

    original = public(".").parent
    copy = tmp_path / "adopted"
    shutil.copytree(original, copy, ignore=shutil.ignore_patterns(".git"))
    monkeypatch.chdir(copy)
    imported = runner.invoke(app, ["import", ".", "--out", "specs"])
    assert imported.exit_code == 0, imported.output
    generated = runner.invoke(app, ["generate", "--specs", "specs", "--out", ".", "--force"])
    assert generated.exit_code == 0, generated.output
    assert "on disk shows text" not in generated.output
    losing = []
    for page in sorted((original / "challenges").glob("*/*/challenge.html")):
        after = (copy / page.relative_to(original)).read_text(encoding="utf-8")
        losses = text_losses(page.read_text(encoding="utf-8"), after)
        if losses:
            losing.append(f"{page.parent.name}: {describe_losses(losses)}")
    assert losing == []
