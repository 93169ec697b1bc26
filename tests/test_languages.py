"""Every fact about a language lives in its adapter: the rest of chgen asks the registry.

Two AST scans keep that true: nothing under generator/languages/ (or the toolchain it builds
with) imports the judge, and no module outside generator/languages/ branches on a language's key.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterator, List

import pytest

from generator.languages import BY_KEY, IN_TAB_ORDER, LANGUAGES, for_file, packages

PACKAGE = Path(__file__).resolve().parents[1] / "generator"
KEYS = set(BY_KEY)
#: what the other side of a comparison looks like when it holds a language (not a device)
LANGUAGE_SUBJECT = re.compile(r"lang|\.key\b")


def modules(folder: Path) -> Iterator[Path]:
    yield from sorted(folder.rglob("*.py"))


def imported_modules(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def key_literals(node: ast.expr) -> List[str]:
    """Language keys written literally in `node`: a string, or the items of a tuple/list/set."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [
        item.value
        for item in items
        if isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value in KEYS
    ]


def language_branches(tree: ast.AST) -> Iterator[tuple]:
    """(line, text) of comparisons of a language with a literal key, and of module-level tables
    (tuples, sets, dicts) made only of language keys."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for side in sides:
                others = [ast.unparse(s) for s in sides if s is not side]
                if key_literals(side) and any(LANGUAGE_SUBJECT.search(o) for o in others):
                    yield node.lineno, ast.unparse(node)
                    break
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            items = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", None)
            keyed = len(items or []) >= 2  # a 1-tuple such as ("jax",) names a module
            if keyed and all(item is not None and key_literals(item) for item in items):
                yield node.lineno, ast.unparse(node)[:80]


def test_languages_and_toolchain_do_not_import_the_judge() -> None:
    offenders = []
    for folder in (PACKAGE / "languages", PACKAGE / "toolchain"):
        for path in modules(folder):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in imported_modules(tree):
                if name == "generator.judge" or name.startswith("generator.judge."):
                    offenders.append(f"{path.relative_to(PACKAGE.parent)} imports {name}")
    assert offenders == []


def test_no_module_outside_languages_branches_on_a_language_key() -> None:
    offenders = []
    for path in modules(PACKAGE):
        if (PACKAGE / "languages") in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in language_branches(tree):
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {text}")
    assert offenders == []


@pytest.mark.parametrize(
    "source, found",
    [
        ('if lang.key == "cuda":\n    pass\n', True),
        ('x = job.language in ("cuda", "mojo")\n', True),
        ('NATIVE = ("cuda", "mojo")\n', True),
        ('PARSERS = {"cuda": 1, "mojo": 2}\n', True),
        ('if device == "cuda":\n    pass\n', False),  # a device, not a language
        ('NAMES = {"cute", "jax", "math"}\n', False),  # not only language keys
        ("if lang.native:\n    pass\n", False),
    ],
)
def test_the_branch_scan_sees_what_it_must(source: str, found: bool) -> None:
    assert bool(list(language_branches(ast.parse(source)))) is found


def test_registry_answers_by_file_and_tab() -> None:
    assert for_file("solution.triton.py") is BY_KEY["triton"]
    assert for_file("starter.pytorch.py") is BY_KEY["pytorch"]
    assert for_file("notes.txt") is None
    assert sorted(lang.tab_order for lang in IN_TAB_ORDER) == list(range(len(LANGUAGES)))
    assert packages()[0] == "torch" and len(packages()) == len(set(packages()))


def test_every_adapter_is_complete() -> None:
    """The facts the rest of chgen reads exist for every language and agree with each other."""
    from generator.checks.starters import PARSERS

    for lang in LANGUAGES:
        assert lang.starter_syntax in PARSERS, lang.key
        assert not (lang.native and lang.runs_on_cpu), lang.key
        assert not (lang.compiles_in_worker and lang.native), lang.key
        if lang.native or lang.compiles_in_worker:
            assert lang.default_target, lang.key
        if lang.native:
            assert lang.build_tool, lang.key
        if lang.interpreted_on_cpu:
            assert lang.runs_on_cpu, lang.key


def test_every_adapter_module_is_registered_once() -> None:
    """Adding a language is adding its module: the registry finds one adapter in every module of
    generator/languages/ but base, and in no other place."""
    folder = PACKAGE / "languages"
    expected = sorted(p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "base"))
    registered = sorted(type(lang).__module__.rsplit(".", 1)[1] for lang in LANGUAGES)
    assert registered == expected
    assert [lang.key for lang in LANGUAGES] == sorted(BY_KEY)
