"""The spec's tolerance against its reference's own error, measured before anything is written.

`chgen test` runs challenge.py's reference_impl against the float64 oracle on every functional case
and fails where the reference's error is over a tenth of the tolerance (judge/proofs.py,
ORACLE_LIMIT): the tolerance must measure a solution, not the reference. Generation runs the same
measurement on the CPU (the judge's cases, the judge's first seed, the oracle with the spec's
reference_helpers), so that a tolerance too tight for its own reference is refused at the `atol` or
`rtol` line, with the case named. For a float32 challenge it also runs the same reference body in
float16 (every float tensor cast, outputs too): a tolerance that this half-precision computation
passes on every case would accept a solution that computes in half precision, and is refused too.

Runs in the spec-code sandbox's child (generator/example_runner.py) on the rendered challenge.py:
the reference, its helpers and the oracle are the author's code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List

from generator.judge.precision import HALF
from generator.spec.read import LoadedSpec
from generator.spec.yamlpos import SpecError

#: the seed the judge draws the cases of its first run with (`chgen test --seeds`' first)
SEED = 0


@dataclass(frozen=True)
class Deviation:
    """The largest error / tolerance of one computation on one case, and what set the tolerance
    at that element (`atol`, or `rtol` times the expected value)."""

    case: str
    ratio: float
    field: str


def check_tolerance(loaded: LoadedSpec, challenge_dir: Path) -> List[SpecError]:
    """The errors of the tolerance against the reference on every functional case; none for a
    spec without an oracle."""
    spec = loaded.spec
    if spec.oracle is None:
        return []
    from generator.judge.cases import example_and_functional
    from generator.judge.challenge import load_challenge
    from generator.judge.oracle import Oracle
    from generator.judge.plan import oracle_entry
    from generator.judge.precision import cast, run_on
    from generator.judge.signature import params_from_signature

    challenge = load_challenge(challenge_dir, "cpu")
    params = params_from_signature(challenge.get_solve_signature())
    names = [case.name for case in spec.functional]
    cases = example_and_functional(challenge, params, SEED, names)[1:]
    try:
        oracle = Oracle(oracle_entry(spec), params, "cpu")
    except Exception as exc:
        return [_oracle_failed(loaded, "", exc)]
    outputs = [p.name for p in params if p.is_tensor and p.direction != "in"]
    half = _half_reference(loaded) if _all_float32(spec) else None
    own: List[Deviation] = []
    halves: List[Deviation] = []
    for case in cases:
        try:
            truth = oracle.outputs(case.values)
        except Exception as exc:
            return [_oracle_failed(loaded, f" on case {case.name}", exc)]
        unknown = sorted(set(truth) - set(outputs))
        if unknown:
            return [
                SpecError(
                    loaded.position("oracle"),
                    f"the oracle returns {unknown}, which are not outputs of the signature",
                    f"return a dict of outputs: {', '.join(outputs)}",
                )
            ]
        try:
            computed = run_on(challenge.reference_impl, case.values, outputs)
        except Exception as exc:
            return [
                SpecError(
                    loaded.position("reference"),
                    f"the reference failed on case {case.name}: {type(exc).__name__}: {exc}",
                    "fix the reference or the case",
                )
            ]
        own.append(_deviation(case.name, computed, truth, spec.atol, spec.rtol))
        if half is not None:
            try:
                low = run_on(half, cast(case.values, HALF), outputs)
            except Exception:  # an op without a float16 kernel on the CPU: nothing to tell
                half = None
                continue
            halves.append(_deviation(case.name, low, truth, spec.atol, spec.rtol))
    errors = _too_tight(loaded, own)
    if not errors and half is not None and halves:
        errors = _too_loose(loaded, own, halves)
    return errors


def _oracle_failed(loaded: LoadedSpec, where: str, exc: Exception) -> SpecError:
    said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return SpecError(
        loaded.position("oracle"),
        f"the oracle failed{where}: {said}",
        "fix the oracle; it has torch, math, F and the reference_helpers in reach",
    )


def _all_float32(spec: Any) -> bool:
    """Every floating tensor of the signature is float32 (and there is one)."""
    from generator.dtypes import lookup
    from generator.judge.precision import all_float32

    return all_float32(p.dtype for p in spec.signature if p.is_tensor and lookup(p.dtype).is_float)


def _half_reference(loaded: LoadedSpec) -> Any:
    """The spec's reference body (without challenge.py's dtype assertions) as a function of
    the solve parameters."""
    import torch

    from generator.example_check import reference_function

    spec = loaded.spec
    names = [p.name for p in spec.signature]
    namespace: Dict[str, Any] = {"torch": torch, "math": math}
    return reference_function(spec.reference, spec.reference_helpers, names, namespace)


def _deviation(
    case: str, computed: Dict[str, Any], truth: Dict[str, Any], atol: float, rtol: float
) -> Deviation:
    """The largest error / tolerance over the outputs the oracle gives (judge/oracle.py's
    measure), and whether atol or rtol makes most of the tolerance where that error is."""
    from generator.judge.oracle import tolerance_ratio

    ratios = {name: tolerance_ratio(computed[name], e, atol, rtol) for name, e in truth.items()}
    if not ratios:
        return Deviation(case, 0.0, "atol" if atol > 0 else "rtol")
    name = max(ratios, key=lambda n: ratios[n])
    return Deviation(case, ratios[name], _setting(computed[name], truth[name], atol, rtol))


def _setting(computed: Any, expected: Any, atol: float, rtol: float) -> str:
    """`atol` where it is at least rtol * |expected| at the element of the largest
    error / tolerance, else `rtol` (always `rtol` when atol is 0)."""
    import torch

    if atol == 0 or expected.numel() == 0 or not expected.dtype.is_floating_point:
        return "rtol" if atol == 0 else "atol"
    got, want = computed.to(torch.float64).flatten(), expected.to(torch.float64).flatten()
    scaled = ((got - want).abs() / (atol + rtol * want.abs())).nan_to_num(nan=math.inf)
    at = int(scaled.argmax())
    return "atol" if atol >= rtol * float(want[at].abs()) else "rtol"


def _limit() -> float:
    from generator.judge.proofs import ORACLE_LIMIT

    return ORACLE_LIMIT


def _scaled(loaded: LoadedSpec, factor: float, up: bool) -> str:
    """`atol = a, rtol = r`: the tolerance times `factor`, rounded to one significant digit
    (up, or down)."""
    spec = loaded.spec

    def rounded(value: float) -> str:
        if value == 0:
            return "0"
        exponent = math.floor(math.log10(value))
        digit = value / 10**exponent
        digit = math.ceil(digit - 1e-9) if up else math.floor(digit + 1e-9)
        return f"{digit * 10.0 ** exponent:.0e}".replace("e-0", "e-").replace("e+0", "e")

    return f"atol = {rounded(spec.atol * factor)}, rtol = {rounded(spec.rtol * factor)}"


def _tolerance_text(loaded: LoadedSpec) -> str:
    return f"atol={loaded.spec.atol:g}, rtol={loaded.spec.rtol:g}"


def _too_tight(loaded: LoadedSpec, own: List[Deviation]) -> List[SpecError]:
    limit = _limit()
    over = [d for d in own if not d.ratio <= limit]
    if not over:
        return []
    worst = max(over, key=lambda d: d.ratio if not math.isnan(d.ratio) else math.inf)
    more = f" (and {len(over) - 1} more case(s))" if len(over) > 1 else ""
    if not math.isfinite(worst.ratio):
        return [
            SpecError(
                loaded.position(worst.field),
                f"on case {worst.case}{more} the reference and the float64 oracle disagree "
                "(NaN, an infinity or a shape the other does not give)",
                "fix the reference or the oracle: they must compute the same outputs",
            )
        ]
    factor = worst.ratio / limit
    return [
        SpecError(
            loaded.position(worst.field),
            f"on case {worst.case}{more} the reference deviates from the float64 oracle by "
            f"{worst.ratio:.3g} x the tolerance ({_tolerance_text(loaded)}); chgen test allows "
            f"{limit:g}: the tolerance must be at least {1 / limit:g} x the reference's own error",
            f"loosen it to {_scaled(loaded, factor, up=True)} or more, or make the reference "
            "more accurate",
        )
    ]


def _too_loose(
    loaded: LoadedSpec, own: List[Deviation], halves: List[Deviation]
) -> List[SpecError]:
    """A float16 computation of the reference within the tolerance on every case."""
    if any(not d.ratio <= 1.0 for d in halves):
        return []
    worst = max(halves, key=lambda d: d.ratio)
    floor = max(d.ratio for d in own) / _limit()  # the tightest the reference allows, as a factor
    if worst.ratio > floor:
        hint = (
            f"tighten it below {_scaled(loaded, worst.ratio, up=False)} (the reference's own "
            f"error allows down to {_scaled(loaded, max(floor, 1e-300), up=True)}), or add a case "
            f"{HALF} gets wrong (larger values, longer sums)"
        )
    else:
        hint = (
            f"no tolerance tells them apart on these cases: add a case {HALF} gets wrong "
            "(larger values, longer sums)"
        )
    return [
        SpecError(
            loaded.position(worst.field),
            f"the reference computed in {HALF} passes every functional case at "
            f"{_tolerance_text(loaded)} (at most {worst.ratio:.3g} x the tolerance, on case "
            f"{worst.case}): the tolerance would accept a half-precision solution of a float32 "
            "challenge",
            hint,
        )
    ]
