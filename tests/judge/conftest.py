"""One build/run cache for all of the judge's tests."""

from __future__ import annotations

import pytest

from generator.judge.cache import Cache


@pytest.fixture(scope="session")
def judge_cache(tmp_path_factory: pytest.TempPathFactory) -> Cache:
    """Each file is compiled once, however many tests use it."""
    return Cache(tmp_path_factory.mktemp("chgen-cache"))
