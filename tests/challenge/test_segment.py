"""ChallengePy.segment gives what ast.get_source_segment gives, from lines split once: on every
node of every challenge.py and starter chgen has (CRLF and tab-indented text included)."""

from __future__ import annotations

import ast

from generator.challenge.pyfile import read_challenge_py
from tests.conftest import ROOT

TEXTS = [p.read_text() for p in sorted(ROOT.glob("generated/**/*.py"))] + [
    "class Challenge:\r\n\tdef f(self, x):\r\n\t\treturn (x +\r\n\t\t  1)\r\n",
    "x = 'é' + \"ü\"; y = [1,\n  2]\n",
]


def test_segments_match_the_ast_function():
    nodes = 0
    for text in TEXTS:
        model = read_challenge_py(text)
        assert model.module is not None
        for node in ast.walk(model.module):
            if hasattr(node, "end_lineno"):
                for padded in (False, True):
                    assert model.segment(node, padded) == ast.get_source_segment(
                        text, node, padded=padded
                    )
                    nodes += 1
    assert nodes > 1000
