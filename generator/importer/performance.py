"""The performance section's parts: min_bytes, and the page's performance bullet as the spec
writes it."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from generator.challenge.page import BULLET, blank_before_bullet
from generator.dtypes import lookup
from generator.html import performance_bullet
from generator.importer import html as page_reader
from generator.importer.cases import Case, case_shapes, same_form, set_case_form
from generator.importer.draft import DefaultsEntry, PerformanceEntry
from generator.importer.infer import ParamInfo
from generator.importer.original import Read
from generator.importer.report import Report
from generator.importer.trace import Start
from generator.spec import shapes as shape_exprs
from generator.spec.derived import is_size


def _factor(dim: Any) -> str:
    """A dimension as a factor of a product: `(N - K + 1)`, `2 * N`, `N`."""
    return shape_exprs.spelled(shape_exprs.dimension(dim), parent=2)


def min_bytes_of(params: List[ParamInfo]) -> str:
    """Every tensor read or written once: `3 * N * C * 4 + 2 * C * 4`."""
    terms: Dict[tuple, List[Any]] = {}
    for p in params:
        if p.is_tensor:
            dims = [_factor(d) for d in p.shape if d != 1] + [str(lookup(p.dtype).itemsize)]
            entry = terms.setdefault(tuple(sorted(dims)), [" * ".join(dims), 0])
            entry[1] += 1
    return " + ".join(f"{n} * {text}" if n > 1 else text for text, n in terms.values())


def check_performance_bullet(
    params: List[ParamInfo], perf_case: Case, page: page_reader.Page, report: Report
) -> None:
    shown = {p.name: perf_case.scalars[p.name] for p in params if is_size(p)}
    if page.performance and page.performance != shown:
        report.note(
            f"challenge.html measures performance at {page.performance}, the test at "
            f"{shown}; the page is regenerated from the test"
        )


def written_bullet(
    params: List[ParamInfo],
    perf_case: Case,
    page: page_reader.Page,
    performance: PerformanceEntry,
    report: Report,
) -> Tuple[List[str], Optional[str]]:
    """The constraints, with the page's performance bullet kept as its last item (`bullet:
    false`) where chgen would write it otherwise (other numbers, other words), so that the
    page's text is not lost; and the rule its kept numbers break (D002), if they are not the
    test's."""
    constraints = list(page.constraints)
    if page.bullet is None:
        return constraints, None
    names = performance.shown or [p.name for p in params if is_size(p)]
    sizes = [(name, int(perf_case.scalars[name])) for name in names if name in perf_case.scalars]
    ours = performance_bullet(sizes)
    if " ".join(page.bullet.split()) == ours:
        return constraints, None
    performance.bullet = False
    performance.blank_line = True  # the model's default: the kept bullet is a constraint
    report.note(
        "challenge.html: the performance bullet is kept as the page writes it (performance."
        f"bullet: false); chgen would write {ours!r}"
    )
    values = {name: value for name, value in sizes if name in page.performance}
    wrong = values != {name: page.performance[name] for name in values}
    return constraints + [page.bullet], "D002" if wrong else None


def bullet_layout(
    params: List[ParamInfo], text: str, page: page_reader.Page, performance: PerformanceEntry
) -> None:
    """`shown` when the bullet names other scalars than every size (derived.is_size);
    `blank_line: false` when no blank line stands before it (chgen's default has one);
    `bullet: false` when the page's bullet is kept as its last constraint (written over several
    lines)."""
    every = [p.name for p in params if is_size(p)]
    shown = [name for name in page.performance if name in {p.name for p in params}]
    if page.performance and shown == list(page.performance) and shown != every:
        performance.shown = shown
    last = " ".join(page.constraints[-1].split()) if page.constraints else ""
    if page.performance and last.lower().startswith(BULLET.lower()):
        performance.bullet = False  # the page's own, broken over lines: kept as its last item
    elif page.performance and not blank_before_bullet(text):
        performance.blank_line = False


def performance_section(
    read: Read,
    perf_case: Case,
    defaults: DefaultsEntry,
    prefill: Start,
    page: page_reader.Page,
    page_text: str,
    report: Report,
) -> Tuple[PerformanceEntry, List[str], Optional[str]]:
    """The spec's performance case with the page's bullet as the spec writes it; the constraints
    (the page's bullet kept as the last where chgen would write it otherwise) and the rule the
    kept bullet breaks, if any (see written_bullet)."""
    min_bytes = min_bytes_of(read.params)
    report.note(
        "performance.min_bytes is not in the tree: set to every tensor read or written once "
        f"({min_bytes}); adjust it"
    )
    performance = PerformanceEntry(scalars=perf_case.scalars)
    bullet_layout(read.params, page_text, page, performance)
    constraints, bullet_rule = written_bullet(read.params, perf_case, page, performance, report)
    perf_inputs = {
        k: v
        for k, v in perf_case.inputs.items()
        if not same_form((defaults.inputs or {}).get(k), v)
    }
    performance.inputs = perf_inputs or None
    performance.min_bytes = min_bytes
    performance.shapes = case_shapes(read.params, "performance") or None
    set_case_form(performance, perf_case, prefill)
    performance.note = read.source.performance_note or None
    return performance, constraints, bullet_rule
