"""The spec loader scans through libyaml when it can (generator/spec/yamlpos.py); what it reads
must be exactly what the pure-Python loader reads: the same data, every value at the same
line:column, and the same error for a text that is not a spec."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.spec import yamlpos
from generator.spec.yamlpos import SpecError, load_positioned

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(ROOT.glob("specs/*.yaml")) + sorted(ROOT.glob("tests/**/*.yaml"))

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")


def _both(text: str, monkeypatch: pytest.MonkeyPatch):
    """(fast, pure-Python) readings of `text`: PositionedData, or the SpecError's text."""

    def read():
        try:
            found = load_positioned(text, "spec.yaml")
            return found.data, found.positions
        except SpecError as exc:
            return str(exc)

    fast = read()
    with monkeypatch.context() as patch:
        patch.setattr(yamlpos.yaml, "__with_libyaml__", False)
        slow = read()
    return fast, slow


def test_every_spec_reads_the_same_both_ways(monkeypatch: pytest.MonkeyPatch):
    assert len(SPECS) >= 10
    for path in SPECS:
        fast, slow = _both(path.read_text(encoding="utf-8", errors="replace"), monkeypatch)
        assert fast == slow, path.name


@pytest.mark.parametrize(
    "text",
    [
        "id: 1\nname: [a, b\n",  # unclosed flow sequence
        "id: 1\n  name: x\n",  # bad indentation
        "id: 1\nid: 2\n",  # duplicate key
        "a: " + "[" * (yamlpos.MAX_DEPTH + 5) + "]" * (yamlpos.MAX_DEPTH + 5) + "\n",
        "a: !!python/object:os.system x\n",
        "a: &x [1]\nb: *x\n",
        "a: 1.0e-5\nb: 1e3\nc: '1e3'\nd: 0x10\ne: yes\n",  # the resolvers, as the spec reads them
        "a: \x07\n",  # not printable: the pure-Python loader reads it alone
        "--- 1\n--- 2\n",
    ],
)
def test_edge_cases_read_the_same_both_ways(text: str, monkeypatch: pytest.MonkeyPatch):
    fast, slow = _both(text, monkeypatch)
    assert fast == slow
