"""The hooks in .pre-commit-hooks.yaml, as another repository uses them (`pre-commit try-repo`).

Each run installs the hook's environment from the package index, as a user's first run would;
benchmarks/hook_install.py measures how long that takes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import hook_repos

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory) -> tuple:
    """This working tree, committed into a scratch repository: (path, commit)."""
    path = tmp_path_factory.mktemp("hooks")
    return path, hook_repos.committed_copy(path)


@pytest.fixture
def challenge_repo(tmp_path: Path) -> Path:
    return hook_repos.challenge_set(tmp_path / "set")


def test_chgen_check_passes_on_a_clean_tree(hooks_repo, challenge_repo, tmp_path):
    path, rev = hooks_repo
    result = hook_repos.try_repo(challenge_repo, path, rev, "chgen-check", tmp_path / "home")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "chgen check....." in result.stdout and "Passed" in result.stdout


def test_chgen_check_fails_with_the_location(hooks_repo, challenge_repo, tmp_path):
    path, rev = hooks_repo
    where = hook_repos.plant_violation(challenge_repo)
    result = hook_repos.try_repo(challenge_repo, path, rev, "chgen-check", tmp_path / "home")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Failed" in result.stdout
    assert f"\n{where} import of 'os' is not allowed" in result.stdout
    assert "1 error(s)" in result.stdout


def test_chgen_check_formatters_installs_its_extra(hooks_repo, challenge_repo, tmp_path):
    """One run: the formatters are installed (black finds the planted change) and every other
    file of the challenge is clean."""
    path, rev = hooks_repo
    starter = challenge_repo / hook_repos.CHALLENGE / "starter" / "starter.pytorch.py"
    starter.write_text(starter.read_text().replace("def solve(", "def solve (", 1))
    hook_repos.git(challenge_repo, "commit", "-q", "-am", "a space before (")
    result = hook_repos.try_repo(
        challenge_repo, path, rev, "chgen-check-formatters", tmp_path / "home"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    shown = f"{hook_repos.CHALLENGE}/starter/starter.pytorch.py:5:"
    assert f"\n{shown}1: F001 black/isort would change this file" in result.stdout
    assert f"\n{shown}10: F002 E211 whitespace before '('" in result.stdout
    assert "2 error(s)" in result.stdout
