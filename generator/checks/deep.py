"""Deep rules: import each challenge.py on the CPU and run what it defines (in the spec-code
sandbox, deep_runner.py: time and memory limits, bubblewrap where it works).

Each challenge.py imports its own tree's `core.challenge_base`, so the tree's `challenges/` folder
is put first on sys.path (and any `core` package of another tree forgotten) before the import. The
example and functional cases are generated on the CPU and the reference is run on every one of them
(a reference may fail on a later case only); the performance case is generated on torch's "meta"
device, which records shapes and dtypes without allocating (on the CPU if the meta device fails).
"""

from __future__ import annotations

import ast
import contextlib
import math
import traceback
from decimal import Decimal, InvalidOperation
from typing import Any, Dict, List, Optional, Sequence, Tuple

from generator.challenge.page import Page, bullet_int, example_values, performance_bullet, read_page
from generator.challenge.pyfile import WORLD_SIZE, ChallengePy, SigEntry
from generator.checks import challenge_py, jax_reference
from generator.checks.model import functional_count
from generator.checks.report import Report
from generator.checks.source import ChallengeDir
from generator.dtypes import DTYPES
from generator.loading import ChallengeLoadError, load_challenge_class
from generator.spec.limits import PERF_BYTES_LIMIT


class Failure(Exception):
    """Running challenge code failed; `line` is the innermost challenge.py line involved."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.message, self.line = message, line


def _failure(exc: BaseException, path: str, fallback: int) -> Failure:
    line = fallback
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == path and frame.lineno:
            line = frame.lineno
    text = str(exc).strip().split("\n")[0]
    return Failure(f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__, line)


def _where(exc: BaseException, path: str, fallback: int) -> Tuple[str, int]:
    """An exception in challenge code as its message and the challenge.py line it came from."""
    failed = _failure(exc, path, fallback)
    return failed.message, failed.line


def load_class(ch: ChallengeDir) -> Any:
    """Import challenge.py the way the judge does (generator/loading.py)."""
    path = ch.path / "challenge.py"
    try:
        return load_challenge_class(path)
    except ChallengeLoadError as exc:
        if exc.original is not None:
            raise _failure(exc.original, str(path.resolve()), 1) from None
        raise Failure(str(exc), 1) from None


def _call(function, path: str, fallback: int, *args, **kwargs) -> Any:
    try:
        return function(*args, **kwargs)
    except Failure:
        raise
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _failure(exc, path, fallback) from None


def _line(model: ChallengePy, method: str) -> int:
    node = model.methods.get(method)
    return node.lineno if node is not None else 1


#: the rules the functional cases (and what follows them) can report: without one of these
#: selected, the functional and performance cases are not generated
FUNCTIONAL_RULES = ("D002", "D003", "D004", "D005", "D006", "D007", "D008", "P017")
#: the rules the performance case can report
PERFORMANCE_RULES = ("D002", "D003", "D006", "D007")


def check_here(
    challenges: Sequence[ChallengeDir],
    models: Dict[Any, Optional[ChallengePy]],
    report: Report,
) -> None:
    """The deep rules in this process: only ever in the spec-code sandbox's child (deep_runner.py
    starts it; challenge.py is code chgen does not trust)."""
    import torch

    for ch in challenges:
        model = models.get(ch.path)
        if model is None or model.cls is None or not model.signature:
            continue
        _check_one(ch, model, report, torch)


def _check_one(ch: ChallengeDir, model: ChallengePy, report: Report, torch: Any) -> None:
    where = model.display
    path = str((ch.path / "challenge.py").resolve())
    try:
        cls = load_class(ch)
        cpu = _call(cls, path, model.cls.lineno, device="cpu")
    except Failure as exc:
        report.add("D006", where, exc.line, 1, f"importing challenge.py failed: {exc.message}")
        return
    signature = model.signature
    problems = CaseProblems()
    html_file = ch.file("challenge.html")
    page = read_page(html_file.text, html_file.display) if html_file else None
    # example
    example, example_out = None, None
    try:
        torch.manual_seed(0)
        with _visible_empty(torch):
            example = _call(cpu.generate_example_test, path, _line(model, "generate_example_test"))
    except Failure as exc:
        report.add("D006", where, exc.line, 1, f"generate_example_test failed: {exc.message}")
    example_ok = example is not None and _matches_signature(example, signature, "example", problems)
    if example_ok:
        try:
            example_out = _run_reference(cpu, example, signature, path, model)
        except Failure as exc:
            report.add(
                "D005", where, exc.line, 1, f"reference_impl failed on the example: {exc.message}"
            )
        if page is not None and report.wants("D001"):
            _compare_example(page, example, example_out, signature, model, report)
    # functional cases
    cases = None
    runs: List[jax_reference.Run] = []  # what reference_impl wrote, for reference_impl_jax
    if not report.wants(*FUNCTIONAL_RULES):  # e.g. D001 alone: the example is all it reads
        problems.flush(where, report)
        return
    try:
        torch.manual_seed(0)
        with _visible_empty(torch):
            cases = _call(
                cpu.generate_functional_test, path, _line(model, "generate_functional_test")
            )
    except Failure as exc:
        report.add("D006", where, exc.line, 1, f"generate_functional_test failed: {exc.message}")
    if cases is not None:
        if not isinstance(cases, (list, tuple)):
            report.add(
                "D007",
                where,
                _line(model, "generate_functional_test"),
                1,
                f"generate_functional_test returns {type(cases).__name__}, not a list",
            )
            cases = None
    if cases is not None:
        if functional_count(model) is None:
            challenge_py.report_count(model, report, where, len(cases))
        good = [
            (i, case)
            for i, case in enumerate(cases)
            if _matches_signature(case, signature, f"functional case {i}", problems)
        ]
        _prefill(([example] if example_ok else []) + [case for _, case in good], model, report)
        if example_out is not None:
            runs.append(jax_reference.Run("the example", example, example_out))
        for index, case in good:  # every case: a reference may fail on a later one only
            if any(_is_descriptor(value) for value in case.values()):
                continue  # the runner draws these: the reference never sees descriptors
            try:
                written = _run_reference(cpu, case, signature, path, model)
                runs.append(jax_reference.Run(f"functional case {index}", case, written))
            except Failure as exc:
                report.add(
                    "D005",
                    where,
                    exc.line,
                    1,
                    f"reference_impl failed on functional case {index}: {exc.message}",
                )
                break
    tolerances = (_number_attr(model, "atol"), _number_attr(model, "rtol"))
    jax_reference.check(
        cpu, runs, model, tolerances, report, lambda exc, line: _where(exc, path, line)
    )
    # performance case
    perf = None
    if not report.wants(*PERFORMANCE_RULES):  # e.g. D008 alone: the functional cases are all
        problems.flush(where, report)
        return
    for device in ("meta", "cpu"):
        try:
            instance = cpu if device == "cpu" else _call(cls, path, 1, device=device)
            torch.manual_seed(0)
            perf = _call(
                instance.generate_performance_test, path, _line(model, "generate_performance_test")
            )
            break
        except Failure as exc:
            if device == "cpu":
                report.add(
                    "D006", where, exc.line, 1, f"generate_performance_test failed: {exc.message}"
                )
    if perf is not None and _matches_signature(perf, signature, "performance case", problems):
        _perf_size(perf, model, report, torch)
        if page is not None:
            _compare_bullet(page, perf, signature, report, torch)
    problems.flush(where, report)


# ------------------------------------------------------------------------------ test cases


@contextlib.contextmanager
def _visible_empty(torch: Any):
    """torch.empty / empty_like return 0, 1, 2, ... (mod 7) instead of whatever memory held, so
    that an output left uninitialized is recognized the same way on every run."""
    originals = torch.empty, torch.empty_like

    def fill(tensor: Any) -> Any:
        count = tensor.numel()
        if count and tensor.device.type == "cpu" and not tensor.is_complex():
            with torch.no_grad():  # 0..6 repeated: the values of arange(count) % 7, no division
                period = torch.arange(7, dtype=torch.int64).to(tensor.dtype)
                pattern = period.repeat(-(-count // 7))[:count]
                tensor.copy_(pattern.reshape(tensor.shape))
        return tensor

    torch.empty = lambda *args, **kwargs: fill(originals[0](*args, **kwargs))
    torch.empty_like = lambda *args, **kwargs: fill(originals[1](*args, **kwargs))
    try:
        yield
    finally:
        torch.empty, torch.empty_like = originals


def _is_descriptor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and isinstance(value.dtype, str)


def _dtype_name(value: Any) -> Optional[str]:
    if _is_descriptor(value):
        return value.dtype
    dtype = getattr(value, "dtype", None)
    return str(dtype).replace("torch.", "") if dtype is not None else None


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape")


class CaseProblems:
    """D007 findings gathered over all cases, so one problem is reported once per challenge."""

    def __init__(self) -> None:
        self.seen: Dict[Tuple[int, int, str], List[str]] = {}

    def add(self, line: int, col: int, message: str, case: str) -> None:
        self.seen.setdefault((line, col, message), []).append(case)

    def flush(self, where: str, report: Report) -> None:
        for (line, col, message), cases in self.seen.items():
            shown = ", ".join(cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")
            report.add("D007", where, line, col, f"{message} (in the {shown})")


def _matches_signature(case: Any, signature: List[SigEntry], what: str, problems) -> bool:
    line = signature[0].line
    if not isinstance(case, dict):
        problems.add(line, 1, f"a test case is a {type(case).__name__}, not a dict", what)
        return False
    names = [e.name for e in signature]
    missing = [n for n in names if n not in case]
    extra = [k for k in case if k not in names and k != WORLD_SIZE]
    if missing or extra:
        detail = []
        if missing:
            detail.append(f"lacks {', '.join(missing)}")
        if extra:
            detail.append(f"has unknown {', '.join(map(str, extra))}")
        problems.add(line, 1, f"a test case {' and '.join(detail)}", what)
        return False
    ok = True
    for entry in signature:
        value = case[entry.name]
        if not entry.dtypes:
            continue  # P009 reports a type the dtype table lacks
        if entry.is_tensor:
            if not _is_tensor(value):
                message = f"'{entry.name}' is {type(value).__name__}, not a tensor"
                problems.add(entry.line, entry.col, message, what)
                ok = False
                continue
            dtype = _dtype_name(value)
            allowed = [row.torch for row in entry.dtypes]
            if dtype not in allowed:
                message = f"'{entry.name}' is {dtype}; {entry.written} means {' or '.join(allowed)}"
                problems.add(entry.line, entry.col, message, what)
                ok = False
        elif _is_tensor(value) and not _is_descriptor(value) and value.dim() != 0:
            problems.add(entry.line, entry.col, f"'{entry.name}' is a tensor, not a scalar", what)
            ok = False
    return ok


def _run_reference(
    instance: Any, case: Dict[str, Any], signature: List[SigEntry], path: str, model
) -> Dict[str, Any]:
    """Run reference_impl on copies; return the out/inout tensors afterwards."""
    values = {}
    for entry in signature:
        value = case[entry.name]
        values[entry.name] = value.clone() if hasattr(value, "clone") else value
    _call(instance.reference_impl, path, _line(model, "reference_impl"), **values)
    return {e.name: values[e.name] for e in signature if e.is_tensor and e.direction != "in"}


def _prefill(cases: List[Dict[str, Any]], model: ChallengePy, report: Report) -> None:
    where = model.display
    for entry in model.signature or []:
        if not entry.is_tensor or entry.direction != "out":
            continue
        bad, example_value = 0, None
        for case in cases:
            tensor = case.get(entry.name)
            if tensor is None or not hasattr(tensor, "flatten") or tensor.numel() == 0:
                continue
            flat = tensor.flatten()
            first = flat[0]
            same = bool((flat == first).all()) or bool(flat.isnan().all())
            if not same or (not bool(first.isnan()) and float(first) == 0.0):
                bad += 1
                if example_value is None:
                    example_value = _describe(flat)
        if bad:
            report.add(
                "D004",
                where,
                entry.line,
                entry.col,
                f"output '{entry.name}' is not pre-filled in {bad} of {len(cases)} cases "
                f"({example_value})",
            )


def _describe(flat: Any) -> str:
    if not bool(flat.any()):
        return "zeros"
    pattern = [i % 7 for i in range(min(flat.numel(), 64))]
    if [float(v) for v in flat[: len(pattern)].tolist()] == pattern:
        return "left uninitialized by torch.empty"
    return "varying values"


def _perf_size(perf: Dict[str, Any], model: ChallengePy, report: Report, torch: Any) -> None:
    total = 0
    for value in perf.values():
        if isinstance(value, torch.Tensor):
            total += value.numel() * value.element_size()
        elif _is_descriptor(value):
            row = DTYPES.get(value.dtype)
            itemsize = row.itemsize if row else 4
            total += math.prod(int(d) for d in value.shape) * itemsize
    if total > PERF_BYTES_LIMIT:
        report.add(
            "D003",
            model.display,
            _line(model, "generate_performance_test"),
            1,
            f"the performance tensors take {total / 1e9:.2f} GB; five copies must fit in 16 GB "
            f"(at most {PERF_BYTES_LIMIT / 1e9:.1f} GB)",
        )


# ------------------------------------------------------------------------------ bullet


def _compare_bullet(
    page: Page, perf: Dict[str, Any], signature: List[SigEntry], report: Report, torch: Any
) -> None:
    found = performance_bullet(page)
    if found is None:
        return
    where = page.display
    li, items = found
    named = {item.name for item in items}
    for item in items:
        if item.name not in perf or _is_tensor(perf[item.name]):
            continue
        actual = perf[item.name]
        value = bullet_int(item.value)
        if value is None:
            try:
                value = float(item.value)
            except ValueError:
                continue
        if isinstance(actual, (int, float)) and not math.isclose(value, actual, rel_tol=1e-9):
            line, col = page.pos(item.offset)
            shown = f"{actual:,}" if isinstance(actual, int) else f"{actual}"
            report.add(
                "D002",
                where,
                line,
                col,
                f"the bullet says {item.name} = {item.value}; generate_performance_test uses "
                f"{shown}",
                f"write {shown}",
            )
    dims = set()
    for value in perf.values():
        if _is_tensor(value):
            dims.update(int(d) for d in value.shape)
    for entry in signature:
        if entry.is_tensor or entry.name in named:
            continue
        actual = perf.get(entry.name)
        if isinstance(actual, int) and not isinstance(actual, bool) and actual > 1:
            if actual in dims:
                line, col = page.pos(li)
                report.add(
                    "D002",
                    where,
                    line,
                    col,
                    f"the bullet omits size {entry.name} = {actual:,} of generate_performance_test",
                    f"add <code>{entry.name}</code> = {actual:,} in signature order",
                )


# ------------------------------------------------------------------------------ example


def _tolerance(text: str, actual: float, atol: float, rtol: float) -> float:
    """One unit of the last digit written (pages round or truncate), plus the challenge's own."""
    try:
        exponent = Decimal(text).as_tuple().exponent
    except (InvalidOperation, ValueError):
        exponent = 0
    unit = 10.0 ** exponent if isinstance(exponent, int) and exponent < 0 else 0.0
    return unit * 1.0000001 + atol + rtol * abs(actual)


def _agrees(shown: List[Tuple[float, str]], actual: List[float], atol: float, rtol: float) -> bool:
    def close(item: Tuple[float, str], real: float) -> bool:
        value, text = item
        return not math.isnan(real) and abs(real - value) <= _tolerance(text, real, atol, rtol)

    if len(shown) == len(actual):
        return all(close(item, real) for item, real in zip(shown, actual))
    if len(shown) < len(actual):  # a slice (one head, one row): every value must occur
        return all(any(close(item, real) for real in actual) for item in shown)
    return False


def _compare_example(
    page: Page,
    example: Dict[str, Any],
    outputs: Optional[Dict[str, Any]],
    signature: List[SigEntry],
    model: ChallengePy,
    report: Report,
) -> None:
    examples = page.examples()
    if not examples:
        return
    ins = [e.name for e in signature if e.is_tensor and e.direction != "out"]
    outs = [e.name for e in signature if e.is_tensor and e.direction != "in"]
    shown_values = example_values(
        page,
        examples[0],
        [e.name for e in signature],
        [e.name for e in signature if e.is_tensor],
        ins[0] if len(ins) == 1 else None,
        outs[0] if len(outs) == 1 else None,
    )
    found, base, labelled = shown_values.found, shown_values.base, shown_values.labelled
    atol, rtol = _number_attr(model, "atol"), _number_attr(model, "rtol")
    by_name = {e.name: e for e in signature}
    where = page.display
    reported = set()
    for (name, in_output), candidates in sorted(found.items(), key=lambda kv: kv[1][0][1]):
        entry = by_name[name]
        if not entry.dtypes:
            continue  # not a ctypes type (P009): whether it is an output is unknown
        # in an Output part a written tensor shows the result; a page without Input/Output
        # parts can only show the result of an out tensor
        result = entry.is_tensor and entry.direction != "in"
        result = result and (in_output or (not labelled and entry.direction == "out"))
        if result:
            if outputs is None:
                continue
            actual, owner = _actual_values(outputs[name]), "the reference's result"
        else:
            actual, owner = _actual_values(example[name]), "generate_example_test"
        if actual is None or name in reported:
            continue
        if any(_agrees(c.values, actual, atol, rtol) for c in candidates):
            continue
        reported.add(name)
        shown, offset = candidates[0].values, candidates[0].offset
        line, col = page.pos(base + offset)
        if len(shown) > len(actual):
            message = f"the page shows {len(shown)} value(s) for {name}; {owner} has {len(actual)}"
        elif len(shown) < len(actual):
            message = (
                f"the page shows {len(shown)} value(s) for {name} that are not all among the "
                f"{len(actual)} of {owner}"
            )
        else:
            index = next(
                i
                for i, (item, real) in enumerate(zip(shown, actual))
                if not _agrees([item], [real], atol, rtol)
            )
            label = f"{name}[{index}]" if entry.is_tensor else name
            message = f"{label} is {shown[index][1]} on the page but {actual[index]:.6g} in {owner}"
        report.add("D001", where, line, col, message)


def _number_attr(model: ChallengePy, name: str) -> float:
    value = model.attribute_value(name)
    if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
        return float(value.value)
    return 0.0


def _actual_values(value: Any) -> Optional[List[float]]:
    if hasattr(value, "flatten") and hasattr(value, "tolist"):
        try:
            return [float(v) for v in value.detach().double().flatten().tolist()]
        except (RuntimeError, TypeError, ValueError):
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    return None
