"""Property test: any mutation of a real spec gives a valid model or clean positioned errors.

Never a traceback: every exception other than SpecErrors fails the test. Valid mutants are also
rendered, so the renderer is held to the same promise.
"""

from __future__ import annotations

import copy
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def check(text: str, render: bool = False) -> None:
    try:
        loaded = load_spec_text(text, "spec.yaml")
    except SpecErrors as exc:
        assert exc.errors
        for error in exc.errors:
            rendered = error.render()
            assert ERROR_RE.match(rendered), rendered
            assert "\n" not in rendered
            assert "Traceback" not in rendered
        return
    if render:
        render_challenge(loaded)


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


@fuzz_settings(40)
@given(data_mutants())
def test_valid_mutants_also_render(text):
    """The renderer (templates + formatters) keeps the same promise for what the loader accepts."""
    check(text, render=True)
