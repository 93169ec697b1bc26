"""The hand-written example outputs must be what the reference computes.

The reference body from the spec runs on the CPU in float64 on each example's inputs; a mismatch
beyond the challenge's tolerance is a spec error at the expected value's line, naming the example.
A drawn example (`outputs: reference`) is drawn here as challenge.py draws it, on the CPU
generator with its seed; the reference must write every output element, and what it computes in
the signature's dtypes must be within the tolerance of what it computes in float64.
torch is imported only here, and only when an example (or the reference) changed since the last
verified generation.
"""

from __future__ import annotations

import hashlib
import json
import math
import textwrap
from typing import Any, Dict, List, Optional

from generator.dtypes import lookup
from generator.incremental import JAX_VERIFIERS, verifier_versions
from generator.spec.derived import resolve_shape
from generator.spec.model import REFERENCE_OUTPUTS
from generator.spec.read import LoadedSpec
from generator.spec.yamlpos import SpecError, SpecErrors


def example_fingerprint(loaded: LoadedSpec) -> str:
    """Changes whenever anything the verification depends on changes."""
    spec = loaded.spec
    payload = {
        "signature": [p.model_dump() for p in spec.signature],
        "reference": spec.reference,
        "reference_helpers": spec.reference_helpers,
        "examples": [ex.model_dump() for ex in spec.examples],
        "prefill": spec.prefill,
        "atol": spec.atol,
        "rtol": spec.rtol,
        # the tolerance check (tolerance_check.py) measures the reference against the oracle
        "oracle": spec.oracle.model_dump() if spec.oracle else None,
    }
    if spec.reference_jax is not None:  # checked against the reference by JAX, whose version counts
        payload["reference_jax"] = spec.reference_jax
        payload["jax"] = verifier_versions(JAX_VERIFIERS)
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def compile_function(
    name: str, params: list, body: str, namespace: Dict[str, Any], assertions: bool = True
):
    """Turn a spec code block (a function body) into a function of the solve parameters;
    without `assertions`, as `python -O` compiles it (its assert statements left out)."""
    source = f"def {name}({', '.join(params)}):\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n") or "pass", "    "
    )
    code = compile(source, f"<spec {name}>", "exec", optimize=0 if assertions else 1)
    exec(code, namespace)  # noqa: S102 - the author's code
    return namespace[name]


def reference_function(reference: str, helpers: Optional[str], params: list, namespace):
    """The spec's reference as a function of the solve parameters, its helpers in reach: module
    helpers in `namespace`, method helpers (and `self.device`, the CPU) on a stand-in `self`.
    Its assertions are left out: a reference's own (an imported challenge keeps its author's)
    check the signature's dtypes, which the float64 runs depart from on purpose; challenge.py
    runs them (the deep rules, every case)."""
    challenge = stand_in(helpers, namespace)
    function = compile_function(
        "reference", ["self"] + list(params), reference, namespace, assertions=False
    )
    return lambda **values: function(challenge, **values)


def stand_in(helpers: Optional[str], namespace: Dict[str, Any]) -> Any:
    """The `self` spec code sees: `self.device` (the CPU) and the method helpers; the module
    helpers go into `namespace`."""
    from generator.spec.model import helper_functions, is_method

    methods: Dict[str, Any] = {"device": "cpu"}
    if helpers is not None:
        exec(compile(textwrap.dedent(helpers), "<spec reference_helpers>", "exec"), namespace)
        for node in helper_functions(textwrap.dedent(helpers)):
            if is_method(node):
                methods[node.name] = namespace.pop(node.name)
    return type("Challenge", (), methods)()


def start_value(prefill: Any, kind: str) -> Any:
    """An output element as the example's challenge.py starts it (the spec's prefill);
    uninitialised is NaN for floats, so a reference that leaves an element unwritten cannot
    match."""
    if prefill is None or prefill == "empty":
        return float("nan") if kind == "float" else 0
    value = 0 if prefill == "zeros" else prefill
    return float(value) if kind == "float" else int(value)


def _left_at_start(value: float, prefill: Any) -> bool:
    """An element still holding the value its output started with: NaN (empty) or the prefill
    number (zeros are left out: a reference may compute a zero)."""
    start = start_value(prefill, "float")
    if math.isnan(start):
        return math.isnan(value)
    return start != 0 and value == start


def _start_text(prefill: Any) -> str:
    if prefill is None or prefill == "empty":
        return "NaN, as every output starts here unwritten (prefill: empty)"
    return f"{start_value(prefill, 'float'):g}, the prefill every output starts with"


def verify_example(loaded: LoadedSpec) -> None:
    """Every example, in order; all mismatches of all examples are reported together."""
    errors = []
    for index, example in enumerate(loaded.spec.examples):
        if example.text_only:  # the page's text alone: no values to verify
            continue
        try:
            verify_one_example(loaded, index)
        except SpecErrors as exc:
            errors.extend(exc.errors)
    if errors:
        raise SpecErrors(errors)


def draw_example_input(dist: Any, shape: List[int], dtype: Any, generator: Any) -> Any:
    """One drawn example input, as challenge.py draws it (render.example_draw_expr) on the CPU
    generator, before it moves to the device."""
    import torch

    if dist.kind == "constant":
        return torch.full(shape, dist.constant, dtype=dtype)
    if dist.kind == "randint":
        low, high = dist.randint
        return torch.randint(low, high, shape, generator=generator, dtype=dtype)
    a, b = getattr(dist, dist.kind)
    tensor = torch.empty(shape, dtype=dtype)
    if dist.kind == "uniform":
        return tensor.uniform_(a, b, generator=generator)
    return tensor.normal_(a, b, generator=generator)


def _coded_inputs(spec: Any, ex: Any) -> Dict[str, Any]:
    """An example with a code input: its inputs made as generate_example_test makes them (its
    rendered lines, here in the spec-code child, on the CPU, the random stream seeded with the
    example's seed, the caller's stream left as it was)."""
    import math

    import torch

    from generator.render import example_code

    code = example_code(spec, ex)
    names = [p.name for p in spec.signature if p.is_tensor and p.direction != "out"]
    body = "\n".join(code.lines + ["return {" + ", ".join(f"{n!r}: {n}" for n in names) + "}"])
    namespace: Dict[str, Any] = {"torch": torch, "math": math}
    challenge = stand_in(spec.reference_helpers, namespace)
    make = compile_function("example_inputs", ["self"], body, namespace)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(ex.seed if ex.seed is not None else 0)
        made = make(challenge)
    return {name: made[name] for name in names if name not in ex.inputs or name in ex.drawn}


def _drawn_inputs(spec: Any, ex: Any) -> Dict[str, Any]:
    """A drawn example's drawn inputs in the signature's dtypes, in signature order (the order
    challenge.py draws them in)."""
    import torch

    if not ex.drawn:
        return {}
    if any(dist.kind == "code" for dist in ex.drawn.values()):
        return _coded_inputs(spec, ex)
    generator = torch.Generator().manual_seed(ex.seed if ex.seed is not None else 0)
    return {
        p.name: draw_example_input(
            ex.drawn[p.name],
            list(resolve_shape(p, ex.scalars, ex.shapes)),
            getattr(torch, lookup(p.dtype).torch),
            generator,
        )
        for p in spec.signature
        if p.name in ex.drawn
    }


def _example_values(spec: Any, ex: Any, wide: bool, drawn: Dict[str, Any]) -> Dict[str, Any]:
    """The solve arguments of one example: tensors in float64/int64 when `wide`, else in the
    signature's own dtypes; outputs start as the spec's prefill says. `drawn`: its drawn (or
    code-made) inputs."""
    import torch

    values: Dict[str, Any] = {}
    for p in spec.signature:
        if not p.is_tensor:
            values[p.name] = ex.scalars[p.name]
            continue
        row = lookup(p.dtype)
        if wide:
            dtype = torch.float64 if row.kind == "float" else torch.int64
        else:
            dtype = getattr(torch, row.torch)
        if p.direction == "out":
            shape = list(resolve_shape(p, ex.scalars, ex.shapes))
            values[p.name] = torch.full(shape, start_value(spec.prefill, row.kind), dtype=dtype)
        elif p.name in drawn:
            values[p.name] = drawn[p.name].to(dtype)
        else:
            values[p.name] = torch.tensor(ex.inputs[p.name], dtype=dtype)
    return values


def verify_one_example(loaded: LoadedSpec, index: int) -> None:
    """The reference runs in float64; one that cannot (it makes float32 tensors of its own and
    mixes them with its inputs) runs in the signature's dtypes instead."""
    import torch

    spec = loaded.spec
    ex = spec.examples[index]
    label = loaded.example_label(index)
    prefix = f"{label}: " if len(spec.examples) > 1 else ""
    names = [p.name for p in spec.signature]
    precision = "float64"
    drawn = _made_inputs(loaded, index)
    try:
        values = _example_values(spec, ex, True, drawn)
        namespace: Dict[str, Any] = {"torch": torch, "math": __import__("math")}
        reference_function(spec.reference, spec.reference_helpers, names, namespace)(**values)
    except Exception as wide_exc:
        try:
            values = _example_values(spec, ex, False, drawn)
            namespace = {"torch": torch, "math": __import__("math")}
            reference_function(spec.reference, spec.reference_helpers, names, namespace)(**values)
            precision = "the signature's dtypes"
        except Exception:  # the author's code failed: say where, without a traceback
            raise SpecErrors(
                [
                    SpecError(
                        loaded.position("reference"),
                        f"the reference failed on {label}'s inputs: "
                        f"{type(wide_exc).__name__}: {wide_exc}",
                        "fix the reference or the example",
                    )
                ]
            ) from None
    if ex.outputs == REFERENCE_OUTPUTS:
        _verify_reference_outputs(loaded, index, values, precision)
        return
    errors = []
    directions = {p.name: p.direction for p in spec.signature}
    for name, expected in ex.outputs.items():
        got = values[name].to(torch.float64)
        want = torch.tensor(expected, dtype=torch.float64)
        bad = ~torch.isclose(got, want, atol=spec.atol, rtol=spec.rtol, equal_nan=True)
        if bad.any():
            at = tuple(int(i) for i in bad.nonzero()[0])
            where = loaded.example_position(index, "outputs", name)
            tolerance = f"{precision}, atol={spec.atol:g}, rtol={spec.rtol:g}"
            if directions[name] == "out" and _left_at_start(got[at].item(), spec.prefill):
                errors.append(
                    SpecError(
                        where,
                        f"{prefix}expected {name}{list(at)} = {want[at].item():g}, but the "
                        f"reference never writes it: it still holds {_start_text(spec.prefill)} "
                        f"({tolerance})",
                        f"write every element of {name} in place ({name}.copy_(...) or "
                        f"{name}[...] = ...), not a new tensor under its name",
                    )
                )
                continue
            errors.append(
                SpecError(
                    where,
                    f"{prefix}expected {name}{list(at)} = {want[at].item():g}, but the "
                    f"reference computes {got[at].item():.6g} ({tolerance})",
                    "fix the hand-written value or the reference",
                )
            )
    if errors:
        raise SpecErrors(errors)


def _made_inputs(loaded: LoadedSpec, index: int) -> Dict[str, Any]:
    """The example's drawn and code-made inputs; a code input that fails, or makes a tensor of
    another shape or dtype than the signature's, is an error at its code."""
    import torch

    spec = loaded.spec
    ex = spec.examples[index]
    label = loaded.example_label(index)
    coded = [name for name, dist in ex.drawn.items() if dist.kind == "code"]
    try:
        drawn = _drawn_inputs(spec, ex)
    except Exception as exc:  # the author's code failed: say where, without a traceback
        raise SpecErrors(
            [
                SpecError(
                    loaded.example_position(index, "inputs", coded[0], "code"),
                    f"the code of {label}'s inputs failed: {type(exc).__name__}: {exc}",
                    "fix the code (it runs on the CPU, seeded with the example's seed)",
                )
            ]
        ) from None
    errors = []
    for p in spec.signature:
        value = drawn.get(p.name)
        if not coded or value is None:
            continue
        where = loaded.example_position(index, "inputs", p.name if p.name in ex.drawn else coded[0])
        want = list(resolve_shape(p, ex.scalars, ex.shapes))
        dtype = getattr(torch, lookup(p.dtype).torch)
        if not isinstance(value, torch.Tensor):
            kind = type(value).__name__
            errors.append(
                SpecError(where, f"the code makes {p.name} a {kind}, not a tensor", "make it one")
            )
        elif list(value.shape) != want or value.dtype != dtype:
            errors.append(
                SpecError(
                    where,
                    f"the code makes {p.name} {list(value.shape)} {str(value.dtype)[6:]}; the "
                    f"signature and {label}'s sizes give {want} {p.dtype}",
                    "make the tensor in that shape and dtype",
                )
            )
    if errors:
        raise SpecErrors(errors)
    return drawn


def _verify_reference_outputs(
    loaded: LoadedSpec, index: int, wide: Dict[str, Any], precision: str
) -> None:
    """A drawn example's outputs are the reference's: every element written (outputs start
    NaN), and, when the reference ran in float64, its result in the signature's dtypes within
    atol/rtol of it (so a solution checked against either passes)."""
    import torch

    spec = loaded.spec
    ex = spec.examples[index]
    label = loaded.example_label(index)
    names = [p.name for p in spec.signature]
    outputs = [p for p in spec.signature if p.is_tensor and p.direction != "in"]
    narrow = wide
    if precision == "float64":
        narrow = _example_values(spec, ex, False, _drawn_inputs(spec, ex))
        try:
            namespace: Dict[str, Any] = {"torch": torch, "math": __import__("math")}
            reference_function(spec.reference, spec.reference_helpers, names, namespace)(**narrow)
        except Exception:  # it ran in float64; only the comparison is left out
            narrow = wide
    errors = []
    for p in outputs:
        got = wide[p.name].to(torch.float64)
        where = loaded.example_position(index, "outputs")
        if bool(torch.isnan(got).any()):
            at = tuple(int(i) for i in torch.isnan(got).nonzero()[0])
            errors.append(
                SpecError(
                    where,
                    f"the reference leaves {p.name}{list(at)} unwritten (NaN) on {label}'s "
                    f"drawn inputs ({precision})",
                    "fix the reference, or draw inputs it computes a value for",
                )
            )
            continue
        own = narrow[p.name].to(torch.float64)
        bad = ~torch.isclose(own, got, atol=spec.atol, rtol=spec.rtol, equal_nan=True)
        if bad.any():
            at = tuple(int(i) for i in bad.nonzero()[0])
            errors.append(
                SpecError(
                    where,
                    f"on {label}'s drawn inputs the reference computes {p.name}{list(at)} = "
                    f"{own[at].item():.6g} in the signature's dtypes but {got[at].item():.6g} "
                    f"in float64 (atol={spec.atol:g}, rtol={spec.rtol:g})",
                    "loosen atol/rtol, or draw the example's inputs from a narrower range",
                )
            )
    if errors:
        raise SpecErrors(errors)
