"""The names challenge.py's comments give its functional cases, read from its text.

A public challenge names a case in the comment above the statement that appends it
(`# realistic_512x4096`, `# edge: single element per row`), or in the string labels a loop runs
over (`for name, n in [("small", 8), ...]`); chgen's own challenge.py writes `# name: note`.
`functional_names` reads those statically (a case without a comment keeps the judge's
`functional_<index>`); it answers only for the forms whose cases it can count without running the
code (each top-level `.append` one case, a labelled loop one case per label, nothing else adding
to the list) and says None otherwise. The judge uses the names only where their count is the
number of cases the challenge returns. `finish_names` turns comments into names the same way for
`chgen import`, which finds the comments by tracing instead.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Tuple

from generator.challenge.pyfile import ChallengePy
from generator.naming import SLUG_RE

#: what adds to a list besides `.append` (a statement holding one makes the count unknown)
_ADDING = ("append", "extend", "insert")


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    slug = re.sub(r"_+", "_", slug)
    if not slug:
        return ""
    if not slug[0].isalpha():
        slug = "case_" + slug
    return slug[:60].rstrip("_")


def finish_names(
    comments: List[Optional[str]], loop_named: List[Optional[str]]
) -> Tuple[List[str], List[Optional[str]]]:
    split = [c.split(": ", 1) if c and ": " in c else None for c in comments]
    heads = [s[0] for s in split if s]
    # "name: note" comments (chgen's own form) when every head is a unique slug
    use_split = (
        bool(heads) and all(SLUG_RE.match(h) for h in heads) and len(set(heads)) == len(heads)
    )
    names: List[str] = []
    notes: List[Optional[str]] = []
    for i, comment in enumerate(comments):
        note = None
        if loop_named[i]:
            name = slugify(loop_named[i])
        elif comment and use_split and split[i]:
            name, note = split[i][0], split[i][1]
        elif comment:
            name = slugify(comment)
            if name != comment:
                note = comment
        else:
            name = ""
        base = name = name or f"case_{i + 1}"
        count = 1
        while name in names:
            count += 1
            name = f"{base}_{count}"
        names.append(name)
        notes.append(note)
    return names, notes


def functional_names(model: ChallengePy) -> Optional[List[str]]:
    """The functional cases' names in order, or None where the source does not say them all
    (see the module doc)."""
    function = model.methods.get("generate_functional_test")
    if function is None or not function.body:
        return None
    column = function.body[0].col_offset
    comments = {
        line: text
        for line, (col, text) in model.comments().items()
        if col == column and function.lineno < line <= (function.end_lineno or line)
    }
    found: List[Optional[str]] = []
    labels: List[Optional[str]] = []
    previous = function.lineno
    for statement in function.body:
        appends = _adding_calls(statement)
        if not appends:
            continue
        loop_labels = _loop_labels(statement)
        if isinstance(statement, ast.Expr) and appends == ["append"]:
            found.append(comment_above(comments, statement.lineno, previous))
            labels.append(None)
        elif loop_labels is not None and appends == ["append"]:
            found.extend([None] * len(loop_labels))
            labels.extend(loop_labels)
        else:
            return None
        previous = statement.end_lineno or statement.lineno
    if not any(found) and not any(labels):
        return None
    names = finish_names(found, labels)[0]
    return [n if found[i] or labels[i] else f"functional_{i}" for i, n in enumerate(names)]


def _adding_calls(node: ast.AST) -> List[str]:
    """The list-adding calls (`x.append(...)`, ...) and augmented assignments within `node`."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr in _ADDING:
                found.append(sub.func.attr)
        elif isinstance(sub, ast.AugAssign):
            found.append("+=")
    return found


def _loop_labels(node: ast.stmt) -> Optional[List[str]]:
    """The labels of `for label, ... in [("label", ...), ...]`, one case per label."""
    if not isinstance(node, ast.For) or not isinstance(node.iter, (ast.List, ast.Tuple)):
        return None
    labels = []
    for element in node.iter.elts:
        if not isinstance(element, (ast.Tuple, ast.List)) or not element.elts:
            return None
        first = element.elts[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return None
        labels.append(first.value)
    if any(isinstance(sub, (ast.For, ast.While)) for sub in ast.walk(node) if sub is not node):
        return None
    return labels or None


def comment_above(comments: Dict[int, str], line: int, after: int) -> Optional[str]:
    """The comment block nearest above `line` that starts below `after` (joined lines)."""
    candidates = [n for n in comments if after < n < line]
    if not candidates:
        return None
    last = max(candidates)
    block = [comments[last]]
    n = last - 1
    while n in comments and n > after:
        block.insert(0, comments[n])
        n -= 1
    return " ".join(part for part in block if part)
