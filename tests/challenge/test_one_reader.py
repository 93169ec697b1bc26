"""Only generator/challenge/ parses challenge.py and challenge.html (with generator/page/, whose
modules read each `page:` layout flag beside the code that writes it): the sources are scanned."""

from __future__ import annotations

import ast
from pathlib import Path

import generator

PACKAGE = Path(generator.__file__).parent
READER = PACKAGE / "challenge"
#: the page's layout flags, each family read where it is written
PAGE_FAMILIES = PACKAGE / "page"

#: modules that parse Python which is not challenge.py, and what they parse
PARSES_OTHER_PYTHON = {
    "spec/model.py": "the spec's reference and mutant code",
    "spec/rules/common.py": "the spec's code blocks (they must parse)",
    "spec/rules/signature.py": "the spec's reference (the names it rebinds)",
    "spec/rules/code.py": "the spec's reference_jax and reference_helpers",
    "spec/shapes.py": "a shape's dimension expressions (2 * N, (K + 1) // 2) and min_bytes",
    "checks/source.py": "starter files (SourceFile.python)",
    "importer/reference.py": "a reference import line; the body (its self uses)",
    "judge/oracle.py": "the spec's reference_helpers, whose `self` methods move onto a stand-in",
    "spec/code_inputs.py": "the spec's `{code: ...}` inputs (the names they bind)",
    "render.py": "the spec's reference (the assertions it already holds)",
    "judge/mutate.py": "reference_impl's text as the reader gives it, parsed afresh per mistake",
    "importer/pychanges.py": "one statement of the account's diff (is it a size assignment)",
}
#: modules that call SourceFile.python(), which is for starter files only
READS_STARTERS = {"checks/starters.py"}
#: what reading a page looks for; a module that searches text for these parses challenge.html
PAGE_LANDMARKS = ("<h2", "<li", "<pre", "<svg", "<code", "</ul", "bmatrix", "Output:")
SEARCHES = {
    "compile", "search", "match", "fullmatch", "finditer", "findall", "split", "sub",
    "find", "rfind", "index", "rindex", "partition", "startswith",
}  # fmt: skip
HTML_PARSERS = ("html.parser", "bs4", "lxml", "html5lib")
#: modules that search HTML which is not challenge.html, and what they search
SEARCHES_OTHER_HTML = {"spec/read.py": "the spec's own svg field (inline or a sidecar file)"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        if READER not in path.parents and PAGE_FAMILIES not in path.parents:
            yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text("utf-8"))


def _strings(node: ast.AST):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def test_only_the_reader_parses_python_that_may_be_challenge_py():
    parsing = set()
    reading_starters = set()
    for name, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            func = node.func
            if func.attr == "parse" and isinstance(func.value, ast.Name) and func.value.id == "ast":
                parsing.add(name)
            if func.attr == "python" and not node.args:
                reading_starters.add(name)
    assert parsing <= set(PARSES_OTHER_PYTHON), sorted(parsing - set(PARSES_OTHER_PYTHON))
    assert reading_starters <= READS_STARTERS, sorted(reading_starters - READS_STARTERS)


def test_only_the_reader_parses_challenge_html():
    offenders = []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(m.startswith(HTML_PARSERS) for m in modules):
                    offenders.append(f"{name}:{node.lineno}: imports an HTML parser")
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr not in SEARCHES:
                continue
            for text in (s for arg in node.args for s in _strings(arg)):
                found = [mark for mark in PAGE_LANDMARKS if mark in text]
                if found and name not in SEARCHES_OTHER_HTML:
                    offenders.append(f"{name}:{node.lineno}: searches text for {found[0]}")
    assert not offenders, offenders


def test_the_scan_sees_a_parser_where_there_is_one():
    # the reader itself does both, so the scan would flag it
    tree = ast.parse((READER / "page.py").read_text("utf-8"))
    searched = [
        text
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SEARCHES
        for arg in node.args
        for text in _strings(arg)
    ]
    assert any(mark in text for text in searched for mark in PAGE_LANDMARKS)
    tree = ast.parse((READER / "pyfile.py").read_text("utf-8"))
    assert any(
        isinstance(n, ast.Attribute) and n.attr == "parse" and getattr(n.value, "id", "") == "ast"
        for n in ast.walk(tree)
    )
