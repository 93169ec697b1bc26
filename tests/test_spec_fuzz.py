"""Property test: any mutation of a real spec gives a valid model or clean positioned errors.

Never a traceback: every exception other than SpecErrors fails the test. Valid mutants are also
rendered, so the renderer is held to the same promise; the tests count those that got there, since
random mutations are mostly invalid and a test whose mutants never reach the renderer proves
nothing about it.
"""

from __future__ import annotations

import copy
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.languages import LANGUAGES
from generator.render import render_challenge
from generator.spec import SpecErrors, load_spec_text
from tests.conftest import SPEC_142

BASE_TEXT = SPEC_142.read_text()
BASE_DATA = yaml.safe_load(BASE_TEXT)
ERROR_RE = re.compile(r"^spec\.yaml:\d+:\d+: \S")

ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(-3, 3), max_size=3),
    st.lists(st.lists(st.floats(-2, 2), min_size=1, max_size=3), max_size=3),
    st.dictionaries(
        st.sampled_from(["uniform", "normal", "values", "x", "name"]), st.integers(0, 3), max_size=2
    ),
    st.sampled_from(["float16", "int64", "out", "N", "C", "in", "inout", "[N, C]", "../x.svg"]),
)  # fmt: skip


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths(value, prefix + (i,))


ALL_PATHS = [p for p in paths(BASE_DATA) if p]


def set_path(data, path, value, delete=False):
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value


@st.composite
def data_mutants(draw):
    data = copy.deepcopy(BASE_DATA)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(ALL_PATHS))
        try:
            if draw(st.booleans()) and isinstance(path[-1], str):
                set_path(data, path, None, delete=True)
            else:
                set_path(data, path, draw(ODD_VALUES))
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation removed the parent
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


@st.composite
def text_mutants(draw):
    lines = BASE_TEXT.splitlines()
    kind = draw(st.sampled_from(["drop", "dup", "swap", "insert", "truncate"]))
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(lines) - 1))
    if kind == "drop":
        del lines[i]
    elif kind == "dup":
        lines.insert(i, lines[i])
    elif kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "insert":
        junk = draw(st.text(alphabet=" :-[]{}'\"#&*!|>%@`\tab0129.", max_size=8))
        col = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:col] + junk + lines[i][col:]
    else:
        lines = lines[:i]
    return "\n".join(lines) + "\n"


@st.composite
def valid_mutants(draw):
    """Edits that keep the spec valid: other names, tolerances, sizes, distributions, cases and
    optional sections left out."""
    data = copy.deepcopy(BASE_DATA)
    data["name"] = draw(st.sampled_from(["RMS Norm Grad", "Norm Backward 2", "RMS-Norm Bwd"]))
    data["atol"] = data["rtol"] = draw(st.sampled_from([1e-5, 1e-4, 1e-3, 0.05, 2.5e-4]))
    data["prefill"] = draw(st.sampled_from([None, 0.0, -7.5, 123.0]))
    for case in data["functional"]:
        if "scalars" in case and not case.get("from_example"):
            case["scalars"].update(
                {key: draw(st.integers(1, 300)) for key in ("N", "C") if key in case["scalars"]}
            )
    low = draw(st.floats(-10, 10, allow_nan=False))
    data["defaults"]["inputs"]["weight"] = {"uniform": [low, low + draw(st.floats(0.5, 4))]}
    order = draw(st.permutations(range(len(data["functional"]))))
    data["functional"] = [data["functional"][i] for i in order]
    for section in ("mutants", "oracle", "accuracy_floor", "svg", "prefill"):
        if draw(st.booleans()) or data.get(section) is None:
            data.pop(section, None)
    if draw(st.booleans()):
        data["requirements"] = data["requirements"][: draw(st.integers(1, 3))]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def check(text: str, render: bool = False) -> bool:
    """True when the text was a valid spec (and, with `render`, was rendered)."""
    try:
        loaded = load_spec_text(text, "spec.yaml")
    except SpecErrors as exc:
        assert exc.errors
        for error in exc.errors:
            rendered = error.render()
            assert ERROR_RE.match(rendered), rendered
            assert "\n" not in rendered
            assert "Traceback" not in rendered
        return False
    if render:
        files = render_challenge(loaded)
        assert len(files) == 2 + len(LANGUAGES)
        assert all(text.endswith("\n") for text in files.values())
    return True


def fuzz_settings(examples: int):
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )


@fuzz_settings(700)
@given(data_mutants())
def test_mutated_spec_data(text):
    check(text)


@fuzz_settings(500)
@given(text_mutants())
def test_mutated_spec_text(text):
    check(text)


def test_random_mutants_that_load_also_render():
    """The renderer (templates + formatters) keeps the same promise for what the loader accepts."""
    outcomes = []

    @fuzz_settings(200)  # the strict loader (no bool as int) leaves fewer loadable mutants
    @given(data_mutants())
    def render_each(text):
        outcomes.append(check(text, render=True))

    render_each()
    # How many random mutants load depends on the spec model and Hypothesis's generator (a few of
    # 200 in practice), so no floor here: test_valid_mutants_load_and_render is the one that
    # guarantees the renderer is reached, with mutants that must all load.
    assert len(outcomes) >= 160


def test_valid_mutants_load_and_render():
    outcomes = []

    @fuzz_settings(30)
    @given(valid_mutants())
    def render_each(text):
        try:
            load_spec_text(text, "spec.yaml")
        except SpecErrors as exc:
            raise AssertionError(
                "a valid-by-construction mutant was refused: " + str(exc)
            ) from None
        outcomes.append(check(text, render=True))

    render_each()
    assert len(outcomes) >= 25 and all(outcomes)
