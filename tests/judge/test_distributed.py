"""Multi-GPU challenges: the row split, the spec's distributed section, what is rendered, the
NCCL convention of CUDA solutions (slow: they compile), and (slow) the judge running each case on
G ranks as one gloo process group on the CPU."""

from __future__ import annotations

import pytest

from generator.judge import verdicts as V
from generator.judge.distributed import row_blocks, visible_gpus
from generator.judge.nccl import rank_arguments
from generator.judge.remote import Stop
from generator.languages import BY_KEY, LANGUAGES, for_gpus
from generator.render import render_challenge
from generator.spec import SpecErrors, load_spec, load_spec_text
from generator.toolchain.tools import find_nccl, nccl_missing
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
    page = " ".join(page.split())  # the setup paragraphs are wrapped
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


def test_the_cuda_starter_takes_the_communicator_rank_and_world_size():
    files = render_challenge(load_spec(SPEC_144))
    starter = next(text for name, text in files.items() if name.endswith("/starter.cu"))
    assert "#include <nccl.h>" in starter
    assert "float eps, ncclComm_t comm, int rank,\n" in starter
    assert "ncclAllReduce(..., comm, 0)" in starter


def test_setup_paragraphs_are_wrapped_as_the_description_is():
    page = (CHALLENGE_144 / "challenge.html").read_text()
    start = page.index("<p>\n  The work is spread")
    setup = page[start : page.index("<h2>", start)]
    lines = setup.splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    assert all(line.startswith("  ") for line in lines if line and not line.endswith("p>"))
    assert "\\(\\lfloor N/G \\rfloor\\)" in setup  # inline math is never split over lines


def test_a_gpu_run_needs_one_gpu_per_rank():
    with pytest.raises(Stop) as info:
        visible_gpus(2, 1)
    assert info.value.verdict == V.JUDGE_ERROR
    assert info.value.message == (
        "needs 2 GPUs (one per rank), this machine has 1; --ranks 1 judges every case on 1 rank"
    )
    visible_gpus(4, 4)


def test_a_cuda_solution_that_includes_nccl_needs_its_headers(tmp_path, monkeypatch):
    import generator.toolchain.tools as tools

    source = tmp_path / "solution.cu"
    source.write_text('#include <nccl.h>\nextern "C" void solve() {}\n')
    monkeypatch.setattr(tools, "find_nccl", lambda: None)
    with pytest.raises(FileNotFoundError, match=r"toolchains extra \(nvidia-nccl-cu13\)"):
        BY_KEY["cuda"].nccl_flags(source)
    monkeypatch.setattr(tools, "find_nccl", lambda: tmp_path)
    assert BY_KEY["cuda"].nccl_flags(source) == [f"-I{tmp_path / 'include'}"]
    source.write_text('extern "C" void solve() {}\n')  # a single-GPU solution needs none
    assert BY_KEY["cuda"].nccl_flags(source) == []


def test_only_a_native_solve_on_a_gpu_gets_a_communicator():
    params = [object()]
    setup = {"rank": 0, "world_size": 2}
    assert rank_arguments(BY_KEY["pytorch"], params, setup, "cuda:0") == (params, {})
    assert rank_arguments(BY_KEY["cuda"], params, setup, "cpu") == (params, {})


@pytest.mark.slow
def test_the_cuda_starter_and_naive_solution_of_144_compile(tmp_path):
    if find_nccl() is None:
        pytest.skip(nccl_missing())
    cuda = BY_KEY["cuda"]
    for source in [
        CHALLENGE_144 / "starter" / "starter.cu",
        SOLUTIONS_144 / "naive" / "solution.cu",
    ]:
        workdir = tmp_path / source.stem
        workdir.mkdir()
        built = cuda.build(source, workdir, "sm_90")
        assert built.stat().st_size > 0
