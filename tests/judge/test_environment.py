"""What a worker inherits: a library on a relative PYTHONPATH (how the Liger-Kernel baseline finds
liger_kernel on the GPU machine) still imports from the worker's own folder."""

from __future__ import annotations

import os

from generator.judge.runner import Job, judge
from tests.judge.common import ROOT

CHALLENGE_143 = ROOT / "generated" / "challenges" / "medium" / "143_row_inverse_rms"

LIBRARY = """import torch


def inverse_rms(x, eps):
    return torch.rsqrt(x.float().square().mean(-1) + eps)
"""

SOLUTION = """from chgen_test_library import inverse_rms


def solve(x, inv_rms, T, D, eps):
    inv_rms.copy_(inverse_rms(x, eps))
"""


def test_a_library_on_a_relative_pythonpath_imports_in_the_worker(
    tmp_path, monkeypatch, judge_cache
):
    site = tmp_path / "site"
    site.mkdir()
    (site / "chgen_test_library.py").write_text(LIBRARY)
    solution = tmp_path / "solution.pytorch.py"
    solution.write_text(SOLUTION)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["site", os.environ.get("PYTHONPATH", "")]))
    result = judge(Job(CHALLENGE_143, solution, "pytorch"), judge_cache)
    assert result["verdict"] == "pass", result["message"] + result["detail"]
