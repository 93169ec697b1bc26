"""reference_impl_jax against reference_impl, on the CPU (a deep rule, D008).

The public set's runner prefers `reference_impl_jax` for JAX submissions: it takes the in/inout
tensors and the scalars, in solve order, and returns the outputs (one array, or a tuple of them in
signature order). Where a challenge has one, it must agree with `reference_impl`: each case's
inputs are handed to it as JAX arrays on JAX's CPU backend, and what it returns is compared with
what reference_impl wrote, at the challenge's atol/rtol (integer outputs exactly). The first case
that disagrees is named with its worst element. JAX is imported only for a challenge that has
the method, and only here, in the deep rules' sandboxed child.
"""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from generator.challenge.pyfile import ChallengePy, SigEntry
from generator.checks.report import Report
from generator.judge.compare import unravel

METHOD = "reference_impl_jax"


@dataclass
class Run:
    """One case and what reference_impl wrote on it (its out/inout tensors)."""

    label: str  # "the example", "functional case 3"
    case: Dict[str, Any]
    expected: Dict[str, Any]


def jax_parameters(signature: Sequence[SigEntry]) -> List[str]:
    """What reference_impl_jax takes: the in/inout tensors and the scalars, in solve order."""
    return [e.name for e in signature if e.direction != "out"]


def check(
    instance: Any,
    runs: Sequence[Run],
    model: ChallengePy,
    tolerances: Tuple[float, float],
    report: Report,
    failure: Callable[[BaseException, int], Any],
) -> None:
    """D008 for the first run reference_impl_jax fails on or disagrees with reference_impl on;
    `failure` turns an exception into (message, challenge.py line)."""
    node = model.methods.get(METHOD)
    if node is None or not runs or not report.wants("D008"):
        return
    where, line = model.display, node.lineno
    signature = model.signature or []
    if [a.arg for a in node.args.args[1:]] != jax_parameters(signature):
        return  # P019 says so; called by name it would only fail
    jax = _import_jax()
    outputs = [e for e in signature if e.is_tensor and e.direction != "in"]
    wrong: List[Tuple[Run, str]] = []
    call = _Caller(getattr(instance, METHOD), [e.name for e in signature if not e.is_tensor], jax)
    try:
        with jax.default_device(jax.devices("cpu")[0]):
            for run in runs:
                try:
                    arguments = {
                        e.name: _to_jax(run.case[e.name], e.is_tensor, jax)
                        for e in signature
                        if e.direction != "out"
                    }
                    returned = call(arguments)
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # noqa: B036 - the challenge's code: say where
                    message, at = failure(exc, line)
                    report.add("D008", where, at, 1, f"{METHOD} failed on {run.label}: {message}")
                    return
                problem = _disagreement(returned, run.expected, outputs, tolerances)
                if problem:
                    wrong.append((run, problem))
                del arguments, returned
    finally:
        jax.clear_caches()  # compiled code of one challenge is no use to the next
        gc.collect()
    if wrong:
        run, problem = wrong[0]
        others = f"; {len(wrong)} of {len(runs)} cases disagree" if len(wrong) > 1 else ""
        report.add(
            "D008",
            where,
            line,
            node.col_offset + 1,
            f"{METHOD} disagrees with reference_impl on {run.label}: {problem}{others}",
        )


class _Caller:
    """reference_impl_jax compiled whole by jax.jit (the scalars static): one compilation per
    case instead of one per operation and shape, which is what makes op-by-op JAX slow on the
    CPU. A reference that needs concrete values (Python control flow on an array, boolean
    masks) cannot be traced: it then runs op by op, as written."""

    def __init__(self, method: Callable[..., Any], scalars: List[str], jax: Any):
        self.method, self.jax = method, jax
        self.traced: Optional[Callable[..., Any]] = jax.jit(method, static_argnames=scalars)

    def __call__(self, arguments: Dict[str, Any]) -> Any:
        if self.traced is not None:
            try:
                return self.traced(**arguments)
            except (self.jax.errors.JAXTypeError, self.jax.errors.JAXIndexError):
                self.traced = None
        return self.method(**arguments)


def _import_jax() -> Any:
    first = "jax" not in sys.modules
    import jax
    import jax.dlpack

    if first:  # never start a GPU backend to check a reference (this process only)
        jax.config.update("jax_platforms", "cpu")
        # JAX's module objects live as long as the process: out of the collector's sight, the
        # full collection after each challenge walks only what that challenge made (milliseconds
        # instead of about 0.2 s, a fifth of the check on the public set)
        gc.freeze()
    return jax


def _to_jax(value: Any, is_tensor: bool, jax: Any) -> Any:
    """A case's torch tensor as a JAX array of the same dtype (shared through DLPack: JAX never
    writes it, and reference_impl ran on copies); a scalar as it is."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    if not is_tensor:  # a scalar given as a 0-d tensor: a static argument must be hashable
        return value.item()
    return jax.dlpack.from_dlpack(value.detach().cpu().contiguous())


def _to_torch(value: Any) -> Any:
    """What reference_impl_jax returned, as a torch tensor (shared through DLPack)."""
    import numpy
    import torch

    try:
        return torch.from_dlpack(value)
    except (TypeError, RuntimeError, BufferError):  # an object without DLPack: through numpy
        return torch.from_numpy(numpy.array(value))


def _disagreement(
    returned: Any,
    expected: Dict[str, Any],
    outputs: List[SigEntry],
    tolerances: Tuple[float, float],
) -> Optional[str]:
    """Why what reference_impl_jax returned is not what reference_impl wrote, else None."""
    names = [e.name for e in outputs]
    several = isinstance(returned, (tuple, list))
    values = list(returned) if several else [returned]
    if len(values) != len(names):
        said = f"{len(values)} values" if several else "one array"
        wanted = f"a tuple ({', '.join(names)})" if len(names) > 1 else names[0]
        return f"it returns {said}; the outputs are {wanted}"
    for name, value in zip(names, values):
        problem = _compare(name, value, expected[name], tolerances)
        if problem:
            return problem
    return None


#: elements compared at a time (in float64): a large case costs no more memory than this
CHUNK = 1 << 20


def _compare(
    name: str, value: Any, expected: Any, tolerances: Tuple[float, float]
) -> Optional[str]:
    if value is None or not hasattr(value, "shape"):
        return f"{name} is returned as {type(value).__name__}, not an array"
    got = _to_torch(value)
    if got.numel() != expected.numel():
        return (
            f"{name} has {got.numel()} element(s) of shape {tuple(got.shape)}; reference_impl's "
            f"has {expected.numel()} of shape {tuple(expected.shape)}"
        )
    exact = not expected.dtype.is_floating_point
    flat_got, flat_expected = got.reshape(-1), expected.reshape(-1)
    count, worst, worst_at = 0, float("-inf"), -1
    for start in range(0, expected.numel(), CHUNK):
        stop = start + CHUNK
        bad, excess = _beyond(flat_got[start:stop], flat_expected[start:stop], exact, tolerances)
        found = int(bad.sum())
        if found:
            count += found
            at = int(excess.argmax())
            if worst_at < 0 or float(excess[at]) > worst:
                worst, worst_at = float(excess[at]), start + at
    if count == 0:
        return None
    index = unravel(worst_at, tuple(expected.shape))
    shown = f"{name}[{', '.join(map(str, index))}]" if index else name
    if exact:
        rule = "differ"
    else:
        rule = f"are beyond atol={tolerances[0]:g}, rtol={tolerances[1]:g}"
    return (
        f"{shown} = {_number(flat_got[worst_at])} but reference_impl gives "
        f"{_number(flat_expected[worst_at])} ({count} of {expected.numel()} element(s) {rule})"
    )


def _beyond(got: Any, expected: Any, exact: bool, tolerances: Tuple[float, float]) -> Any:
    """Which elements disagree, and by how much beyond their tolerance (the worst is the
    largest; a NaN or an infinity where the other has none is worse than any number)."""
    import torch

    if exact:
        a, e = got.to(torch.int64), expected.to(torch.int64)
        bad = a != e
        return bad, torch.where(bad, (a - e).abs().to(torch.float64), -1.0)
    atol, rtol = tolerances
    a, e = got.to(torch.float64), expected.to(torch.float64)
    diff = (a - e).abs()
    limit = atol + rtol * e.abs()
    # the common case first: a finite difference (both finite) within the limit everywhere
    within = (diff <= limit) & diff.isfinite()
    if bool(within.all()):
        return torch.zeros_like(within), torch.full_like(diff, float("-inf"))
    finite = a.isfinite() & e.isfinite()
    same_special = (a.isnan() & e.isnan()) | (a.isinf() & e.isinf() & (a.sign() == e.sign()))
    bad = ~((finite & (diff <= limit)) | same_special)
    excess = torch.where(finite, diff - limit, float("inf"))
    return bad, torch.where(bad, excess, float("-inf"))


def _number(element: Any) -> str:
    value = element.item()
    return f"{value:.6g}" if isinstance(value, float) else str(value)
