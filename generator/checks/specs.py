"""Spec rules: the spec loads (G001) and the generated tree is what it renders to (G002).

These call what `chgen generate --check` calls: the spec loader (every spec is validated, even one
whose generated files are current), and `pipeline.generate(..., check=True)`, which
renders and formats (reusing what the cache proves current) and compares with the files on disk.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from generator import extras
from generator.checks.report import Report

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)", re.M)


def check(paths: Sequence[Path], report: Report) -> None:
    from generator import pipeline, tree
    from generator.formatting import FormatError
    from generator.spec import SpecErrors

    try:
        loaded = pipeline.load_all(list(paths), Path.cwd())
    except SpecErrors as exc:
        report.add_diagnostics("G001", exc.errors)
        return
    if not loaded or not report.wants("G002"):
        return
    extras.require("generate", "comparing a spec with its generated tree (G002)")
    root = report.options.generated
    try:
        result = pipeline.generate(list(paths), root, check=True, root=Path.cwd())
    except SpecErrors as exc:
        report.add_diagnostics("G001", exc.errors)
        return
    except FormatError as exc:
        report.add("G001", loaded[0].display, 1, 1, f"rendering failed: {exc}", "")
        return
    except tree.UnsafeTree as exc:  # a symbolic link in the tree
        report.add("G002", str(root), 1, 1, str(exc), "")
        return
    shown = str(root).rstrip("/")
    for change in result.changes:
        line = 1
        hunk = _HUNK.search(change.diff or "")
        if hunk:
            line = max(int(hunk.group(1)), 1)
        if change.path in result.conflicts:
            message = f"out of date ({change.kind}) and edited by hand"
            hint = tree.HAND_EDIT_ADVICE
        else:
            message, hint = f"out of date ({change.kind})", "run 'chgen generate'"
        report.add("G002", f"{shown}/{change.path}", line, 1, message, hint)
