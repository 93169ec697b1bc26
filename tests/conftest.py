"""Shared fixtures: the repository root, a scratch copy of specs/, and the CLI runner."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
SPEC_142 = ROOT / "specs" / "142_rms_norm_backward.yaml"
GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with a copy of specs/ and generated/, as the current directory, with a
    cache of its own (CHGEN_CACHE: .chgen-cache in that folder)."""
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    shutil.copytree(ROOT / "generated", tmp_path / "generated")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHGEN_CACHE", str(tmp_path / ".chgen-cache"))
    return tmp_path


def pytest_collection_modifyitems(config, items):
    """GPU tests run only where torch sees a GPU; everything else always runs."""
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except Exception:
        has_gpu = False
    if has_gpu or os.environ.get("CHGEN_FORCE_GPU_TESTS"):
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
