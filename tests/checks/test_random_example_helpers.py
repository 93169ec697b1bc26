"""P018 through the class's own methods: an example built by a helper that draws whatever it is
passed draws random data as surely as one that calls torch.randn itself (an imported challenge
writes those draws out in generate_example_test, where the rule has always seen them); a helper
that draws only behind an `if` the example's literal arguments may skip is not counted."""

from __future__ import annotations

from pathlib import Path

from check_fixtures import MEDIUM, make_fixture

PY = "challenge.py"
CALL = "return self._make(x, dy, weight, N, C, 1e-05)"
ALWAYS = """
    def _weights(self, C):
        scale = torch.empty(C, device=self.device, dtype=torch.float32).uniform_(0.5, 1.5)
        return scale

    def _with_weights(self, x, dy, N, C):
        weight = self._weights(C)
        return self._make(x, dy, weight, N, C, 1e-05)
"""
SOMETIMES = """
    def _with_weights(self, x, dy, N, C, weight=None):
        if weight is None:
            weight = torch.rand(C, device=self.device, dtype=torch.float32)
        return self._make(x, dy, weight, N, C, 1e-05)
"""


def _p018(tmp_path: Path, helpers: str, call: str):
    fx = make_fixture(tmp_path, MEDIUM)
    text = fx.read(PY)
    assert CALL in text
    text = text.replace(CALL, call, 1)
    anchor = "    def generate_functional_test(self)"
    fx.write(PY, text.replace(anchor, helpers.lstrip("\n") + "\n" + anchor, 1))
    return [f for f in fx.run(["P018"]) if f.code == "P018"]


def test_a_helper_that_always_draws_is_random_data(tmp_path: Path) -> None:
    found = _p018(tmp_path, ALWAYS, "return self._with_weights(x, dy, N, C)")
    assert len(found) == 1, [f.render() for f in found]
    assert "self._with_weights(...)" in found[0].message
    assert "uniform_(...)` in _weights" in found[0].message


def test_a_draw_behind_an_if_is_not_counted(tmp_path: Path) -> None:
    found = _p018(tmp_path, SOMETIMES, "return self._with_weights(x, dy, N, C, weight)")
    assert found == [], [f.render() for f in found]
