"""The names challenge.py's comments give its functional cases, as the judge's rows show them."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.challenge.case_names import functional_names
from generator.challenge.pyfile import read_challenge_py
from generator.judge.plan import case_names_from_spec
from tests.conftest import ROOT

GENERATED = ROOT / "generated" / "challenges"


def names_of(body: str):
    """functional_names of a challenge.py whose generate_functional_test is `body`."""
    text = "class Challenge:\n" "    def generate_functional_test(self):\n" + "".join(
        f"        {line}\n" if line else "\n" for line in body.splitlines()
    )
    return functional_names(read_challenge_py(text))


@pytest.mark.parametrize("folder", sorted(p.parent for p in GENERATED.glob("*/*/challenge.py")))
def test_our_challenges_name_their_cases_as_their_specs_do(folder: Path):
    spec = ROOT / "specs" / f"{folder.name}.yaml"
    read = read_challenge_py((folder / "challenge.py").read_text())
    assert functional_names(read) == case_names_from_spec(spec)


def test_the_public_forms_comments_and_loop_labels_name_cases():
    body = """\
tests = []
# realistic_512x4096
N, C = 512, 4096
tests.append(make(N, C))

# edge: single element per row
tests.append(make(1, 1))
tests.append(make(2, 2))
# edge: 3x3, all zeros
tests.append(zeros(3, 3))
for label, n in [("small", 8), ("large", 4096)]:
    tests.append(make(n, n))
return tests"""
    assert names_of(body) == [
        "realistic_512x4096",
        "edge_single_element_per_row",
        "functional_2",  # no comment of its own: the judge's name for it stays
        "edge_3x3_all_zeros",  # heads repeat ("edge"): the whole comment is the name
        "small",
        "large",
    ]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("tests = []\nfor n in (1, 2):\n    tests.append(make(n))\nreturn tests", None),
        ("tests = []\n# one\nif flag:\n    tests.append(make(1))\nreturn tests", None),
        ("tests = []\n# two\ntests.extend([make(1), make(2)])\nreturn tests", None),
        ("return [make(1), make(2)]", None),
        ("tests = []\ntests.append(make(1))\nreturn tests", None),  # no comment names a case
        # the case in the list literal is not seen: the judge's count check refuses these names
        ("tests = [make(0)]\n# one\ntests.append(make(1))\nreturn tests", ["one"]),
    ],
)
def test_forms_whose_cases_cannot_be_counted_from_the_text_give_no_names(body, expected):
    assert names_of(body) == expected


def test_the_judge_takes_written_names_only_when_they_name_every_case():
    from generator.judge.cases import example_and_functional
    from generator.judge.challenge import load_challenge
    from generator.judge.signature import params_from_signature

    folder = GENERATED / "medium" / "142_rms_norm_backward"
    challenge = load_challenge(folder, "cpu")
    params = params_from_signature(challenge.get_solve_signature())
    written = functional_names(read_challenge_py((folder / "challenge.py").read_text()))
    named = example_and_functional(challenge, params, 0, written=written)
    assert [case.name for case in named[1:]] == written
    short = example_and_functional(challenge, params, 0, written=written[:-1])
    assert [case.name for case in short[1:]] == [f"functional_{i}" for i in range(len(written))]
    spec = example_and_functional(challenge, params, 0, names=["a"], written=written)
    assert spec[1].name == "a" and spec[2].name == "functional_1"  # the spec's names first
