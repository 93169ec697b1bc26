"""The hand-written example outputs must be what the reference computes.

The reference body from the spec runs on the CPU in float64 on the example inputs; a mismatch beyond
the challenge's tolerance is a spec error at the expected value's line. torch is imported only here,
and only when the example (or the reference) changed since the last verified generation.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from typing import Any, Dict

from generator.dtypes import lookup
from generator.spec.loader import LoadedSpec, resolve_shape
from generator.spec.yamlpos import SpecError, SpecErrors


def example_fingerprint(loaded: LoadedSpec) -> str:
    """Changes whenever anything the verification depends on changes."""
    spec = loaded.spec
    payload = {
        "signature": [p.model_dump() for p in spec.signature],
        "reference": spec.reference,
        "example": spec.example.model_dump(),
        "atol": spec.atol,
        "rtol": spec.rtol,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def compile_function(name: str, params: list, body: str, namespace: Dict[str, Any]):
    """Turn a spec code block (a function body) into a function of the solve parameters."""
    source = f"def {name}({', '.join(params)}):\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n") or "pass", "    "
    )
    exec(compile(source, f"<spec {name}>", "exec"), namespace)  # noqa: S102 - the author's code
    return namespace[name]


def verify_example(loaded: LoadedSpec) -> None:
    import torch

    spec = loaded.spec
    ex = spec.example
    values: Dict[str, Any] = {}
    for p in spec.signature:
        if not p.is_tensor:
            values[p.name] = ex.scalars[p.name]
            continue
        row = lookup(p.dtype)
        dtype = torch.float64 if row.kind == "float" else torch.int64
        if p.direction == "out":
            shape = list(resolve_shape(p, ex.scalars, ex.shapes))
            values[p.name] = torch.full(shape, float("nan"), dtype=torch.float64)
            if row.kind == "int":
                values[p.name] = torch.zeros(shape, dtype=dtype)
        else:
            values[p.name] = torch.tensor(ex.inputs[p.name], dtype=dtype)
    namespace: Dict[str, Any] = {"torch": torch, "math": __import__("math")}
    try:
        reference = compile_function(
            "reference", [p.name for p in spec.signature], spec.reference, namespace
        )
        reference(**values)
    except Exception as exc:  # the author's code failed: say where, without a traceback
        raise SpecErrors(
            [
                SpecError(
                    loaded.position("reference"),
                    f"the reference failed on the example inputs: {type(exc).__name__}: {exc}",
                    "fix the reference or the example",
                )
            ]
        ) from None
    errors = []
    for name, expected in ex.outputs.items():
        got = values[name].to(torch.float64)
        want = torch.tensor(expected, dtype=torch.float64)
        bad = ~torch.isclose(got, want, atol=spec.atol, rtol=spec.rtol)
        if bad.any():
            index = tuple(int(i) for i in bad.nonzero()[0])
            errors.append(
                SpecError(
                    loaded.position("example", "outputs", name),
                    f"expected {name}{list(index)} = {want[index].item():g}, but the reference "
                    f"computes {got[index].item():.6g} (float64, atol={spec.atol:g}, "
                    f"rtol={spec.rtol:g})",
                    "fix the hand-written value or the reference",
                )
            )
    if errors:
        raise SpecErrors(errors)
