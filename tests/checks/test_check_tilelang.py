"""`chgen check` on TileLang starters: checked like every starter where present, not required
where a tree predates TileLang."""

from __future__ import annotations

from pathlib import Path

from check_fixtures import EASY, MEDIUM, make_fixture

STARTER = "starter/starter.tilelang.py"


def codes(findings) -> list:
    return sorted({(f.code, Path(f.path).name) for f in findings})


def test_a_tree_without_tilelang_starters_is_not_broken(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    fx.path(STARTER).unlink()
    assert [f for f in fx.run(select=["L"]) if f.code in ("L006", "L007")] == []


def test_a_tilelang_starter_with_other_names_is_reported(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    fx.edit(STARTER, "dweight: torch.Tensor", "dw: torch.Tensor")
    assert ("S002", "starter.tilelang.py") in codes(fx.run(select=["S"]))


def test_a_tilelang_starter_with_a_kernel_is_not_a_medium_starter(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, MEDIUM)
    text = fx.read(STARTER).replace(
        "\n\n# x, dy",
        "\n\n@tilelang.jit\ndef helper(N):\n    pass\n\n\n# x, dy",
    )
    fx.write(STARTER, text)
    assert ("S010", "starter.tilelang.py") in codes(fx.run(select=["S"]))


def test_the_easy_tilelang_starter_is_clean(tmp_path: Path) -> None:
    fx = make_fixture(tmp_path, EASY)
    assert [f for f in fx.run(select=["S"]) if f.path.endswith("tilelang.py")] == []
