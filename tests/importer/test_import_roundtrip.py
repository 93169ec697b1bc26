"""Round trips: challenge directory -> `chgen import` -> `chgen generate` -> the same challenge.

Our own trees (142 and the golden records) must come back byte for byte. The public-style fixtures
(challenges written in the public set's layout and habits: dict-literal cases, loops over named
tuples, extra methods, descriptors, old Mojo API) must give the CUDA, Triton, PyTorch, JAX and CuTe
starters byte-identical, the Mojo starter on the current API, and an equivalent challenge.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.cli import app
from generator.importer import import_challenge
from generator.importer.equivalence import compare_files
from tests.conftest import GOLDEN, ROOT

FILES = [
    "challenge.py",
    "challenge.html",
    "starter/starter.cu",
    "starter/starter.cute.py",
    "starter/starter.jax.py",
    "starter/starter.mojo",
    "starter/starter.pytorch.py",
    "starter/starter.triton.py",
]
OWN = [
    ROOT / "generated" / "challenges" / "medium" / "142_rms_norm_backward",
    GOLDEN / "tree" / "challenges" / "easy" / "1_vector_add",
    GOLDEN / "tree" / "challenges" / "easy" / "3_matrix_transpose",
    GOLDEN / "tree" / "challenges" / "medium" / "13_histogramming",
    GOLDEN / "tree" / "challenges" / "medium" / "58_fp16_dot_product",
    # helpers, a keyword-named parameter and a size_t size
    GOLDEN / "tree" / "challenges" / "easy" / "201_mix_rounds",
    # per-case seeds, per-case output starts, descriptor cases
    GOLDEN / "tree" / "challenges" / "medium" / "202_2d_row_sums",
]
PUBLIC_STYLE = Path(__file__).parent / "fixtures" / "public_style" / "challenges"
#: fixture -> the cases whose inputs the import must write as the original's code (no other)
PUBLIC_STYLE_CASES = {
    "easy/201_scale_vector": set(),
    "medium/202_row_rescale": {"mixed_magnitudes_folded_to_be_non_negative"},
    "medium/203_bf16_axpy": set(),
    "medium/206_scale_positives": set(),
}
CODED = re.compile(r"^case (\w+): its inputs are made by the original's own torch calls")
BYTE_IDENTICAL_STARTERS = [f for f in FILES if f.startswith("starter/") and not f.endswith("mojo")]


def base_of(challenge: Path) -> Path:
    return challenge.parent.parent / "core" / "challenge_base.py"


def generate(runner, spec: Path, tree: Path) -> None:
    result = runner.invoke(app, ["generate", "--out", str(tree), str(spec)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("challenge", OWN, ids=lambda p: p.name)
def test_own_trees_come_back_byte_identical(challenge: Path, runner, tmp_path: Path):
    specs = tmp_path / "specs"
    specs.mkdir()
    result = runner.invoke(app, ["import", str(challenge), "-o", str(specs)])
    assert result.exit_code == 0, result.output
    (spec,) = specs.glob("*.yaml")
    notes = [line for line in spec.read_text().splitlines() if line.startswith("# chgen import:")]
    losses = [line for line in notes if "carried over" not in line]
    # the only thing a generated tree lacks is min_bytes (it is used by the judge, not written out)
    assert len(losses) == 1 and "min_bytes" in losses[0], notes
    generate(runner, spec, tmp_path / "tree")
    regenerated = tmp_path / "tree" / "challenges" / challenge.parent.name / challenge.name
    for name in FILES:
        assert (regenerated / name).read_text() == (challenge / name).read_text(), name
    equivalence = compare_files(
        challenge / "challenge.py",
        base_of(challenge),
        regenerated / "challenge.py",
        tmp_path / "tree" / "challenges" / "core" / "challenge_base.py",
        names=[],
    )
    assert equivalence.problems() == []


@pytest.mark.parametrize("fixture", sorted(PUBLIC_STYLE_CASES))
def test_public_style_challenges_round_trip(fixture: str, runner, tmp_path: Path):
    challenge = PUBLIC_STYLE / fixture
    imported = import_challenge(challenge)
    assert imported.report.approximated == {}
    coded = {m.group(1) for m in map(CODED.match, imported.report.lines()) if m}
    assert coded == PUBLIC_STYLE_CASES[fixture]
    written = imported.write(tmp_path / "specs" / imported.spec_name)
    generate(runner, written[0], tmp_path / "tree")
    regenerated = tmp_path / "tree" / "challenges" / challenge.parent.name / challenge.name

    for name in BYTE_IDENTICAL_STARTERS:
        assert (regenerated / name).read_text() == (challenge / name).read_text(), name
    mojo = (regenerated / "starter" / "starter.mojo").read_text()
    assert "from max.gpu" in mojo and 'abi("C")' in mojo and "UntrackedOrigin]" in mojo
    assert "UnsafePointer" not in mojo and "MutExternalOrigin" not in mojo
    assert "older Mojo API" in " ".join(imported.report.lines())

    equivalence = compare_files(
        challenge / "challenge.py",
        base_of(challenge),
        regenerated / "challenge.py",
        tmp_path / "tree" / "challenges" / "core" / "challenge_base.py",
        names=imported.case_names,
    )
    assert equivalence.problems() == []


def test_a_public_style_spec_says_what_it_dropped(tmp_path: Path):
    imported = import_challenge(PUBLIC_STYLE / "easy" / "201_scale_vector")
    header = [line for line in imported.spec_text.splitlines() if line.startswith("#")]
    text = "\n".join(header)
    assert "examples" not in text  # both examples are kept: nothing to say
    assert imported.spec_text.count("  - scalars: {N: ") == 2
    assert imported.identical["challenge.html"]
    assert "device assertion(s) dropped" in text
    assert "`assert x.shape == y.shape == (N,)`" in text
    assert "scaffold" not in text  # the scaffold itself is representable: nothing to say
    assert "scaffold: {kernel: scale_kernel, grid: [N]}" in imported.spec_text


#: the fixture whose challenge.py follows chgen's conventions and uses the three case constructs
CONSTRUCTS = PUBLIC_STYLE / "medium" / "206_scale_positives"


def test_seeds_zeroed_outputs_and_descriptors_come_back_byte_identical(runner, tmp_path: Path):
    imported = import_challenge(CONSTRUCTS)
    lines = imported.spec_text.splitlines()
    assert "prefill: zeros" in lines  # the reference writes only the positive positions
    assert "  - {name: seeded, scalars: {scale: -1.5, N: 1000}, seed: 42}" in lines
    assert "  - {name: large, scalars: {N: 100000}, seed: 7}" in lines
    perf = lines[lines.index("performance:") :]
    at = perf.index("  prefill: empty")  # OutTensor starts empty
    assert perf[at + 1] == "  descriptors: true"
    spec = imported.write(tmp_path / "specs" / imported.spec_name)[0]
    generate(runner, spec, tmp_path / "tree")
    regenerated = tmp_path / "tree" / "challenges" / "medium" / CONSTRUCTS.name
    for name in ("challenge.py", "challenge.html"):
        assert (regenerated / name).read_text() == (CONSTRUCTS / name).read_text(), name


@pytest.mark.parametrize(
    "old, new, problem",
    [
        (", seed: 42}", "}", "seeded: x differs in value"),
        (
            "{name: all_negative, ",
            "{name: all_negative, prefill: empty, ",
            "out starts zeros vs empty",
        ),
        (
            "  prefill: empty\n  descriptors: true\n",
            "  prefill: empty\n",
            "with descriptors in one",
        ),
    ],
    ids=["seed", "output start", "descriptors"],
)
def test_equivalence_catches_a_lost_construct(old, new, problem, runner, tmp_path: Path):
    imported = import_challenge(CONSTRUCTS)
    assert old in imported.spec_text
    spec = tmp_path / "specs" / imported.spec_name
    spec.parent.mkdir()
    spec.write_text(imported.spec_text.replace(old, new))
    generate(runner, spec, tmp_path / "tree")
    equivalence = compare_files(
        CONSTRUCTS / "challenge.py",
        base_of(CONSTRUCTS),
        tmp_path / "tree" / "challenges" / "medium" / CONSTRUCTS.name / "challenge.py",
        tmp_path / "tree" / "challenges" / "core" / "challenge_base.py",
        names=imported.case_names,
    )
    assert any(problem in found for found in equivalence.problems()), equivalence.problems()


def test_the_example_is_verified_with_outputs_started_as_the_prefill_says(runner, tmp_path: Path):
    """Only the zeroed start makes the example's untouched positions 0 (public 72's case)."""
    imported = import_challenge(CONSTRUCTS)
    spec = tmp_path / "specs" / imported.spec_name
    spec.parent.mkdir()
    spec.write_text(imported.spec_text.replace("prefill: zeros\n", ""))
    result = runner.invoke(app, ["generate", "--out", str(tmp_path / "tree"), str(spec)])
    assert result.exit_code == 1
    said = "expected out[1] = 0, but the reference never writes it: it still holds NaN"
    assert said in result.output
    assert "Traceback" not in result.output
