"""The spec's cases: the functional cases, the performance case, the defaults they share and the
spec-wide prefill, from the traced runs. A case keeps the torch.manual_seed called right before
it, how its outputs start (torch.empty, zeros, full: the example's start is the spec's prefill, a
case's own where it differs) and whether it is written with the base class's descriptors."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

import torch

from generator.dtypes import lookup
from generator.importer import infer
from generator.importer.draft import CaseEntry, DefaultsEntry, PerformanceEntry
from generator.importer.infer import ParamInfo
from generator.importer.original import Read
from generator.importer.report import Report
from generator.importer.trace import Run, Start, Traced, output_start


@dataclass
class Case:
    label: str
    scalars: Dict[str, Any]
    inputs: Dict[str, Dict[str, Any]]
    from_example: bool
    note: Optional[str]
    seed: Optional[int] = None  # torch.manual_seed right before the case
    start: Optional[Start] = None  # how its outputs start (None: unknown)
    descriptors: bool = False  # every tensor given as RandTensor, OutTensor, ...


def scalars_of(params: List[ParamInfo], case: Traced, label: str) -> Dict[str, Any]:
    return {p.name: infer.scalar_value(case, p, label) for p in params if not p.is_tensor}


def inputs_of(
    params: List[ParamInfo], case: Traced, label: str, report: Report
) -> Dict[str, Dict[str, Any]]:
    earlier: Dict[str, torch.Tensor] = {}
    found: Dict[str, Dict[str, Any]] = {}
    for p in params:
        if not p.is_tensor or p.direction == "out":
            continue
        tensor = infer.tensor_value(case, p, label)
        drawn = infer.distribution(p, tensor, case.recipes[p.name], earlier)
        earlier[p.name] = tensor
        found[p.name] = drawn.dist
        if drawn.problem and drawn.dist:
            report.approximate(
                label,
                f"case {label}: input {p.name} drawn by {drawn.problem}; approximated by "
                f"{infer.describe(drawn.dist)} of the drawn values",
            )
    return found


def _defaults(cases: List[Case], params: List[ParamInfo], sizes: List[str]) -> DefaultsEntry:
    drawn = [c for c in cases if not c.from_example]
    inputs: Dict[str, Any] = {}
    for p in params:
        if not p.is_tensor or p.direction == "out":
            continue
        counts = Counter(
            infer.key(c.inputs[p.name])
            for c in drawn
            if c.inputs.get(p.name) and "values" not in c.inputs[p.name]
        )
        if counts:
            best, count = counts.most_common(1)[0]
            if count >= 2:
                inputs[p.name] = next(
                    c.inputs[p.name] for c in drawn if infer.key(c.inputs.get(p.name, {})) == best
                )
    scalars: Dict[str, Any] = {}
    for p in params:
        if p.is_tensor or p.name in sizes:
            continue
        counts = Counter(repr(c.scalars[p.name]) for c in drawn)
        if counts:
            best, count = counts.most_common(1)[0]
            if count >= 2:
                scalars[p.name] = next(
                    c.scalars[p.name] for c in drawn if repr(c.scalars[p.name]) == best
                )
    return DefaultsEntry(scalars=scalars or None, inputs=inputs or None)


def same_form(default: Optional[Dict[str, Any]], form: Dict[str, Any]) -> bool:
    """A case's input form is the default's when written the same (`[-1, 1]` is not
    `[-1.0, 1.0]`: challenge.py writes each as the spec does)."""
    return default is not None and infer.key(default) == infer.key(form)


def case_shapes(params: List[ParamInfo], label: str) -> Dict[str, Any]:
    """`shapes:` of one case: the tensors it passes with another rank than the example."""
    return {p.name: p.case_shapes[label] for p in params if label in p.case_shapes}


def case_entry(
    case: Case,
    defaults: DefaultsEntry,
    sizes: List[str],
    params: List[ParamInfo],
    prefill: Start,
) -> CaseEntry:
    entry = CaseEntry(case.label, note=case.note or None)
    if case.from_example:
        entry.from_example = True
        return entry
    default_scalars = defaults.scalars or {}
    scalars = {
        k: v for k, v in case.scalars.items() if k in sizes or default_scalars.get(k, None) != v
    }
    default_inputs = defaults.inputs or {}
    inputs = {k: v for k, v in case.inputs.items() if not same_form(default_inputs.get(k), v)}
    entry.scalars = scalars or None
    entry.inputs = inputs or None
    entry.shapes = case_shapes(params, case.label) or None
    set_case_form(entry, case, prefill)
    return entry


def set_case_form(entry: Union[CaseEntry, PerformanceEntry], case: Case, prefill: Start) -> None:
    """A case's own seed, output start and descriptors, as the spec writes them."""
    entry.seed = case.seed
    entry.prefill = case.start if case.start is not None and case.start != prefill else None
    entry.descriptors = case.descriptors


def _case_start(case: Traced, params: List[ParamInfo], label: str, report: Report):
    """How the outputs of one case start (one prefill covers them all); None when unknown."""
    starts = {
        p.name: output_start(case.recipes[p.name])
        for p in params
        if p.is_tensor and p.direction == "out" and p.name in case.recipes
    }
    known = {k: v for k, v in starts.items() if v is not None}
    if not known:
        return None
    distinct = {repr(v): v for v in known.values()}
    if len(distinct) > 1:
        report.note(
            f"case {label}: outputs start differently ({', '.join(distinct)}); one prefill "
            "covers every output of a case, so it is left as the spec's (not representable)"
        )
        return None
    start = next(iter(distinct.values()))
    if isinstance(start, float) and not math.isfinite(start):
        report.note(
            f"case {label}: outputs start as {start}, which a spec cannot write; they start "
            "uninitialised (not representable)"
        )
        return "empty"
    return start


def _prefill(example: Optional[Start], cases: List[Case]) -> Start:
    """The spec-wide output start: the example's (it has no prefill of its own), else the most
    common one."""
    if example is not None:
        return example
    seen = Counter(repr(c.start) for c in cases if c.start is not None)
    if not seen:
        return "empty"
    best = seen.most_common(1)[0][0]
    return next(c.start for c in cases if repr(c.start) == best)


def _report_unplaced_seeds(run: Run, report: Report) -> None:
    for method, seeds in run.unplaced_seeds.items():
        for value in seeds:
            report.note(
                f"{method} calls torch.manual_seed({value}) where no case can hold it (while a "
                "case is made, after the last one, or before descriptors the runner draws "
                "itself); dropped"
            )


@dataclass
class Cases:
    functional: List[Case]
    performance: Case
    defaults: DefaultsEntry
    prefill: Start  # the spec-wide output start (the example's)


def read_cases(read: Read, report: Report) -> Cases:
    """Functional cases, the performance case, the defaults they share and the spec's prefill."""
    params = read.params
    cases = []
    for label, case, note in zip(read.names, read.run.functional, read.notes):
        inputs = {} if case.from_example else inputs_of(params, case, label, report)
        scalars = scalars_of(params, case, label)
        cases.append(_case_form_of(Case(label, scalars, inputs, case.from_example, note), case))
    perf = read.run.performance
    perf_case = Case(
        "performance",
        scalars_of(params, perf, "performance"),
        inputs_of(params, perf, "performance", report),
        False,
        None,
    )
    _case_form_of(perf_case, perf)
    for label, case in [*zip(read.names, read.run.functional), ("performance", perf)]:
        _report_mixed_descriptors(params, case, label, report)
    for case, traced in [*zip(cases, read.run.functional), (perf_case, perf)]:
        case.start = _case_start(traced, params, case.label, report)
    _report_unplaced_seeds(read.run, report)
    defaults = _defaults(cases, params, read.sizes)
    _fill_unknown_performance(perf_case, perf, params, defaults, report)
    example_start = _case_start(read.run.example, params, "example", report)
    prefill = _prefill(example_start, [c for c in cases if not c.from_example])
    return Cases(cases, perf_case, defaults, prefill)


def _case_form_of(case: Case, traced: Traced) -> Case:
    """The seed placed before the case, and whether it is written with descriptors."""
    case.seed = traced.seed
    tensors = [k for k, v in traced.values.items() if isinstance(v, torch.Tensor)]
    case.descriptors = bool(tensors) and set(tensors) <= set(traced.described)
    return case


def _report_mixed_descriptors(
    params: List[ParamInfo], traced: Traced, label: str, report: Report
) -> None:
    tensors = [p.name for p in params if p.is_tensor]
    described = [n for n in tensors if n in traced.described]
    if described and len(described) < len(tensors):
        report.note(
            f"case {label}: {', '.join(described)} given as descriptors, the other tensors as "
            "tensors; a spec case is written all one way: with torch calls (not representable)"
        )


def _fill_unknown_performance(perf_case, perf, params, defaults, report) -> None:
    """Inputs of a meta-device performance case whose recipe is unknown take the default form."""
    for p in params:
        if p.name in perf_case.inputs and not perf_case.inputs[p.name]:
            fallback = (defaults.inputs or {}).get(p.name)
            kind = lookup(p.dtype).kind
            if fallback is None:
                fallback = {"uniform": [-1.0, 1.0]} if kind == "float" else {"randint": [0, 2]}
            perf_case.inputs[p.name] = fallback
            made, _ = infer.unwrap(perf.recipes[p.name])
            reason = made.why or made.kind
            report.approximate(
                "performance",
                f"case performance: input {p.name} drawn by code chgen cannot express ({reason}); "
                f"approximated by {infer.describe(fallback)}",
            )
