"""The worker's side of the proofs derived from a challenge alone (generator/judge/derived.py):
one `derived` job runs the three parts below, in order, in one worker and one solution process.

- `audit`, before any solution is loaded: on every functional case the reference runs as the
  judge runs it, then the same code in float64 (every floating input and output, and every
  floating dtype the code names, in float64: mutate.precision_variant) and, for a float32
  challenge, in float16 (generator/judge/precision.py, shared with the tolerance check at
  generate time). Each case records the judge's reference's error/tolerance against the float64
  result (the margin: it must stay <= 0.1) and the float16 result's (over 1 on some case, or the
  tolerance accepts half precision). The performance case's tensors are counted on torch's
  "meta" device (on the worker's device where that fails).
- the reference (the derived file's `solve`) judged as a solution, as `functional` judges one;
- `derived_mutants`: every mistake of the job, one after another in the one solution process,
  each on every functional case against reference outputs computed once; a mistake that brings the
  solution's process down (a crash, a timeout, a GPU error) gets a fresh process for the next.

The numbers go into the report under `audit` and `variants`; derived_proofs.py reads them.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.judge import verdicts as V
from generator.judge.precision import HALF, WIDE, all_float32, cast, run_on
from generator.judge.remote import Stop

#: how a variant can leave the solution's process unusable for the next one
LOST = (V.CRASH, V.TIMEOUT, V.MEMORY_LIMIT)


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return (text.splitlines() or [type(exc).__name__])[0][:300]


# ------------------------------------------------------------------------------------ audit
#: methods that make cases, not results: never rewritten
CASE_METHODS = ("get_solve_signature", "generate_example_test", "generate_functional_test",
                "generate_performance_test")  # fmt: skip


def _variant_reference(judge: Any, dtype: str) -> Any:
    """reference_impl of a Challenge whose every method and module function (bar the case
    makers and decorated ones) names `dtype` for each floating dtype (mutate.precision_variant),
    created for the worker's device: the same code, computing in `dtype`."""
    from generator.challenge.pyfile import read_challenge_py
    from generator.judge.mutate import precision_variant

    path = Path(judge.job["challenge_dir"]) / "challenge.py"
    read = read_challenge_py(path.read_text(encoding="utf-8"), str(path))
    cls = type(judge.challenge)
    scope = dict(cls.reference_impl.__globals__)
    functions = {name: (node, read.text) for name, node in read.functions.items()}
    for name, (node, text) in functions.items():
        if not node.decorator_list:
            segment = ast.get_source_segment(text, node) or ""
            source = precision_variant(segment, dtype)
            exec(compile(source, f"<{name} in {dtype}>", "exec"), scope)  # noqa: S102
    overrides: Dict[str, Any] = {}
    for name, node in read.methods.items():
        if name in CASE_METHODS or node.decorator_list:
            continue
        source = precision_variant(read.method(name).source, dtype)
        defined: Dict[str, Any] = {}
        exec(compile(source, f"<{name} in {dtype}>", "exec"), scope, defined)  # noqa: S102
        overrides[name] = defined[name]
    variant = type(cls.__name__, (cls,), overrides)
    return variant(device=judge.device).reference_impl


def _ratio(judge: Any, computed: Dict[str, Any], truth: Dict[str, Any]) -> float:
    from generator.judge.oracle import tolerance_ratio

    return max(
        (tolerance_ratio(computed[n], truth[n], judge.atol, judge.rtol) for n in truth),
        default=0.0,
    )


def float32_challenge(params: List[Any]) -> bool:
    """Every floating tensor is float32 and some output is one: half precision must not pass it
    (integer outputs are compared for equality; no tolerance is at stake there)."""
    floats = [p for p in params if p.is_tensor and p.dtype.is_float]
    return all_float32(p.dtype.name for p in floats) and any(p.direction != "in" for p in floats)


def audit(judge: Any) -> str:
    from generator.judge.oracle import encode

    found: Dict[str, Any] = {"cases": [], "float32": float32_challenge(judge.params)}
    judge.result.data["audit"] = found
    methods: Dict[str, Optional[Any]] = {WIDE: None, HALF: None}
    for dtype in [WIDE] + ([HALF] if found["float32"] else []):
        try:
            methods[dtype] = _variant_reference(judge, dtype)
        except Exception as exc:  # the rewritten code does not compile or start: say so
            found[f"{dtype}_failed"] = f"the reference in {dtype}: {_describe(exc)}"
    outputs = [p.name for p in judge.params if p.is_tensor and p.direction != "in"]
    for case in within_limit(judge, judge.cases(judge.seed)[1:]):  # not the leading example
        judge.result.progress("case", judge.timeout, case.name)
        started = time.perf_counter()
        entry: Dict[str, Any] = {"name": case.name, "elements": case.elements()}
        found["cases"].append(entry)
        expected = judge.reference(case.values)
        truth = None
        for dtype, method in methods.items():
            if method is None:
                continue
            try:
                values = cast(case.values, dtype)
                computed = run_on(method, values, outputs, default_dtype=dtype)
            except Exception as exc:  # an op without a kernel in that dtype, a dtype check
                found[f"{dtype}_failed"] = f"case {case.name}: {_describe(exc)}"
                methods[dtype] = None
                continue
            if dtype == WIDE:
                truth = computed
                entry["margin"] = encode(_ratio(judge, expected, computed))
            else:
                entry["half"] = encode(_ratio(judge, computed, truth or expected))
                if float(entry["half"]) > 1:  # settled: the tolerance tells float16 apart
                    methods[HALF] = None
        entry["seconds"] = round(time.perf_counter() - started, 4)
    found.update(performance_size(judge))
    margins = [float(c["margin"]) for c in found["cases"] if "margin" in c]
    said = f"float64 margin {max(margins):.3g} x the tolerance" if margins else "no float64 run"
    return said


def performance_size(judge: Any) -> Dict[str, Any]:
    """Bytes of the performance case's tensors, generated on the meta device (no memory), or on
    the worker's own device where the case's code needs real values."""
    from generator.judge.cases import performance
    from generator.judge.challenge import load_challenge

    judge.result.progress("performance size", max(judge.timeout, 300.0), "performance")
    torch = judge.torch
    errors = []
    for device in ("meta", None):
        try:
            challenge = load_challenge(Path(judge.job["challenge_dir"]), device or judge.device)
            case = performance(challenge, judge.params, judge.seed)
        except Exception as exc:
            errors.append(_describe(exc))
            continue
        total = sum(
            v.numel() * v.element_size()
            for v in case.values.values()
            if isinstance(v, torch.Tensor)
        )
        return {"perf_bytes": total, "perf_device": device or judge.device}
    return {"perf_error": errors[-1]}


def within_limit(judge: Any, cases: List[Any], report: bool = True) -> List[Any]:
    """The cases whose every tensor is within the job's max_case_elements (the CPU's
    --cpu-max-elements); the others are named as skipped (once: `report`)."""
    limit = judge.job.get("max_case_elements")
    kept = []
    for case in cases:
        tensor, count = case.largest_tensor()
        if limit and count > limit:
            if report:
                why = f"{tensor} has {count:,} elements, over {limit:,}"
                judge.result.data["skipped"].append({"name": case.name, "why": why})
        else:
            kept.append(case)
    return kept


# ---------------------------------------------------------------------------- derived mutants
def _restart(judge: Any) -> None:
    """A fresh solution process after one that died or hung (its arena is released first)."""
    solution, judge.solution = judge.solution, None
    if solution is not None:
        solution.close()
    judge.release()
    judge.load()


def derived(judge: Any) -> tuple:
    """The audit, the reference as a solution (every case of every seed: its verdict is the
    job's), then every mistake; returns (verdict, message, detail)."""
    said = [audit(judge)]
    judge.result.progress("load", float(judge.job.get("startup_timeout", 300)))
    judge.load()
    verdict, detail = V.PASS, ""
    try:
        judge.functional(judge.solution)
        seeds = len(judge.result.data["seeds"])
        said.insert(0, f"the reference passed {len(judge.result.data['cases'])} case(s)"
                    + (f" on {seeds} seeds" if seeds > 1 else ""))  # fmt: skip
    except Stop as stop:
        verdict, detail = stop.verdict, stop.detail
        said.insert(0, f"the reference as a solution: {stop.message}")
        if stop.verdict in LOST or stop.message.startswith("GPU error"):
            _restart(judge)
    said.append(derived_mutants(judge))
    return verdict, "; ".join(said), detail


def derived_mutants(judge: Any) -> str:
    """Every variant of the job on every functional case (records in the report's `variants`)."""
    from generator.judge.derived_runtime import applicable

    records: List[Dict[str, Any]] = []
    judge.result.data["variants"] = records
    kept = within_limit(judge, judge.cases(judge.seed)[1:], report=False)
    expected = [judge.reference(case.values) for case in kept]
    sample = kept[0].values if kept else {}
    inputs = [
        sample[p.name] for p in judge.params if p.is_tensor and p.direction == "in" and sample
    ]
    outputs = [
        sample[p.name] for p in judge.params if p.is_tensor and p.direction != "in" and sample
    ]
    startup = float(judge.job.get("startup_timeout", 300))
    for variant in judge.job.get("variants") or []:
        record: Dict[str, Any] = {"name": variant["name"], "cases": []}
        records.append(record)
        if not applicable(variant["name"], inputs, outputs):
            record.update({"verdict": "not_applicable", "message": "cannot differ here"})
            continue
        try:
            judge.solution.request({"op": "load", "entry": variant["entry"]}, startup, "load")
            for case, want in zip(kept, expected):
                judge.mutant_case(judge.solution, case, want, record["cases"])
        except Stop as stop:
            record.update({"verdict": stop.verdict, "message": stop.message})
            if stop.verdict in LOST or stop.message.startswith("GPU error"):
                _restart(judge)
            continue
        caught = [c["name"] for c in record["cases"] if c.get("caught")]
        record["verdict"] = V.WRONG_ANSWER if caught else V.PASS
        record["message"] = (
            f"caught by {len(caught)} of {len(kept)} case(s)" if caught else "survived every case"
        )
    judged = [r for r in records if r.get("verdict") != "not_applicable"]
    caught = sum(1 for r in judged if r["verdict"] in V.CAUGHT)
    return f"{caught} of {len(judged)} mistake(s) caught on {len(kept)} case(s)"
