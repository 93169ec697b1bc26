"""Multi-GPU challenges: the row split, the spec's distributed section, what is rendered, and
(slow) the judge running each case on G ranks as one gloo process group on the CPU."""

from __future__ import annotations

import pytest

from generator.judge.distributed import row_blocks
from generator.languages import LANGUAGES, for_gpus
from generator.render import render_challenge
from generator.spec import SpecErrors, load_spec, load_spec_text
from tests.judge.common import FIXTURES, ROOT, run_files

SPEC_144 = ROOT / "specs" / "144_distributed_rms_norm_backward.yaml"
CHALLENGE_144 = ROOT / "generated" / "challenges" / "hard" / "144_distributed_rms_norm_backward"
SOLUTIONS_144 = ROOT / "solutions" / "144_distributed_rms_norm_backward"
DISTRIBUTED = FIXTURES / "distributed"


@pytest.mark.parametrize(
    "rows, world, blocks",
    [
        (8, 2, [(0, 4), (4, 8)]),
        (7, 2, [(0, 4), (4, 7)]),
        (10, 4, [(0, 3), (3, 6), (6, 8), (8, 10)]),
        (3, 4, [(0, 1), (1, 2), (2, 3), (3, 3)]),
    ],
)
def test_rows_split_in_rank_order_the_first_ranks_one_more(rows, world, blocks):
    assert row_blocks(rows, world) == blocks


def spec_errors(text: str) -> list:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "spec.yaml")
    return [e.render() for e in info.value.errors]


def test_num_gpus_above_one_needs_a_distributed_section():
    text = SPEC_144.read_text()
    start = text.index("distributed:\n")
    end = text.index("\n\n", start)
    errors = spec_errors(text[:start] + text[end + 2 :])
    assert any("num_gpus: 4 needs a 'distributed' section" in e for e in errors), errors


def test_a_split_tensor_must_start_with_the_split_size():
    text = SPEC_144.read_text().replace("split: [x, dy, dx]", "split: [x, weight]")
    errors = spec_errors(text)
    assert any("the first dimension of 'weight' is not 'N'" in e for e in errors), errors


def test_a_case_may_not_ask_for_more_gpus_than_num_gpus():
    text = SPEC_144.read_text().replace("    gpus: 2\n", "    gpus: 8\n", 1)
    errors = spec_errors(text)
    assert any("asks for 8 GPUs, more than num_gpus (4)" in e for e in errors), errors


def test_a_single_gpu_spec_takes_no_distributed_section():
    text = (ROOT / "specs" / "142_rms_norm_backward.yaml").read_text()
    text = text.replace("\nreference: |", "\ndistributed: {rows: N, split: [x]}\nreference: |", 1)
    errors = spec_errors(text)
    assert any("'distributed' needs num_gpus of 2 to 8" in e for e in errors), errors


def test_only_languages_that_reach_their_peers_ship_starters_and_the_page_says_why():
    files = render_challenge(load_spec(SPEC_144))
    starters = sorted(name.rsplit("/", 1)[1] for name in files if "/starter/" in name)
    assert starters == sorted(lang.starter_name for lang in for_gpus(4))
    page = next(text for name, text in files.items() if name.endswith("challenge.html"))
    for lang in LANGUAGES:
        if lang.distributed:
            assert lang.starter_name in starters
        else:
            assert f"{lang.title}: {lang.distributed_refusal}" in page
    py = next(text for name, text in files.items() if name.endswith("challenge.py"))
    assert 'return {"rows": "N", "split": ["x", "dy", "dx"]}' in py
    assert '"world_size": 2}' in py


@pytest.fixture(scope="module")
def rows_144(judge_cache):
    files = {
        str(SOLUTIONS_144 / "naive" / "solution.pytorch.py"): "pass",
        str(SOLUTIONS_144 / "naive" / "solution.triton.py"): "pass",
        str(DISTRIBUTED / "rank_one_disagrees.pytorch.py"): "wrong_answer",
        str(DISTRIBUTED / "rank_one_crashes.pytorch.py"): "crash",
        str(DISTRIBUTED / "rank_one_hangs.pytorch.py"): "timeout",
    }
    return run_files(files, judge_cache, CHALLENGE_144, timeout=20.0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["solution.pytorch.py", "solution.triton.py"])
def test_correct_solutions_pass_on_every_world_size(rows_144, name):
    row = rows_144[name]
    assert row["verdict"] == "pass", row["message"]


@pytest.mark.slow
def test_a_replicated_output_must_match_on_every_rank(rows_144):
    row = rows_144["rank_one_disagrees.pytorch.py"]
    assert row["verdict"] == "wrong_answer"
    assert row["message"].startswith("rank 1 of 4: dweight"), row["message"]


@pytest.mark.slow
def test_a_rank_that_dies_ends_the_whole_group(rows_144):
    row = rows_144["rank_one_crashes.pytorch.py"]
    assert row["verdict"] == "crash"
    assert "every rank was killed" in row["message"]


@pytest.mark.slow
def test_a_rank_that_hangs_times_the_whole_group_out(rows_144):
    row = rows_144["rank_one_hangs.pytorch.py"]
    assert row["verdict"] == "timeout"
    assert "every rank was killed" in row["message"]
