"""Digests of the test data a challenge tree draws: run in a child, one tree at a time.

    python benchmarks/seeded_data.py < job.json > digests.json

The job names a tree and its challenge directories; for each challenge the child imports
challenge.py with the tree's own base class (`challenges/` on sys.path, as the platform runs
it), seeds torch as the judge does (example `seed`, functional `seed + 1`, performance
`seed + 2`), calls generate_example_test, generate_functional_test and generate_performance_test
on the CPU, and digests every tensor (dtype, shape, bytes) and scalar; then it runs
reference_impl on copies of the example's and each functional case's inputs and digests the
outputs. Performance inputs are drawn on the meta device first and digested with their values
only when they fit `perf_bytes`. It prints one JSON object: {directory: {"example", "functional",
"performance", "reference", "perf_values", "error"}}. The parent compares two trees' digests; it
never imports a challenge itself (benchmarks/migration.py runs this in the spec-code sandbox).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import signal
import sys
from pathlib import Path
from typing import Any, Dict, List

import torch


class TimedOut(Exception):
    pass


def _alarm(_signum, _frame):
    raise TimedOut()


def load(challenge_py: Path) -> Any:
    challenges = challenge_py.parent.parent.parent
    if str(challenges) not in sys.path:
        sys.path.insert(0, str(challenges))
    for name in [m for m in sys.modules if m == "core" or m.startswith("core.")]:
        del sys.modules[name]  # each tree's own base class
    spec = importlib.util.spec_from_file_location(
        f"challenge_{abs(hash(challenge_py))}", challenge_py
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.remove(str(challenges))
    return module.Challenge


def digest(value: Any) -> Any:
    """A stable description of a case value: tensors by dtype, shape and bytes."""
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta":
            return f"meta:{value.dtype}:{tuple(value.shape)}"
        data = value.detach().contiguous().cpu()
        raw = data.view(torch.uint8).numpy().tobytes() if data.numel() else b""
        return f"{data.dtype}:{tuple(data.shape)}:{hashlib.sha256(raw).hexdigest()[:16]}"
    if isinstance(value, dict):
        return {str(k): digest(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [digest(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return repr(value)
    fields = getattr(value, "__dict__", None)
    if fields is not None:  # the base class's input descriptors
        return {"descriptor": type(value).__name__, **{k: digest(v) for k, v in fields.items()}}
    return repr(value)


def seeded(instance: Any, method: str, seed: int) -> Any:
    torch.manual_seed(seed)
    return getattr(instance, method)()


def cases_of(result: Any) -> List[Dict[str, Any]]:
    return result if isinstance(result, list) else [result]


def reference_outputs(instance: Any, case: Dict[str, Any]) -> Any:
    copies = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in case.items()}
    if any(not isinstance(v, (torch.Tensor, int, float, bool)) for v in copies.values()):
        return "not a plain case"
    instance.reference_impl(**copies)
    signature = instance.get_solve_signature()
    return {
        name: digest(copies[name])
        for name, (_, direction) in signature.items()
        if direction != "in" and name in copies
    }


def inputs_digest(cases: List[Dict[str, Any]], outputs: set) -> Any:
    """The cases' inputs by value; an output buffer by dtype and shape alone (one drawn with
    torch.empty holds whatever memory it got; the reference's outputs are compared apart)."""
    return [
        (
            {
                k: (
                    f"out:{v.dtype}:{tuple(v.shape)}"
                    if k in outputs and torch.is_tensor(v)
                    else digest(v)
                )
                for k, v in case.items()
            }
            if isinstance(case, dict)
            else digest(case)
        )
        for case in cases
    ]


def one(challenge_py: Path, seed: int, perf_bytes: int) -> Dict[str, Any]:
    found: Dict[str, Any] = {}
    cls = load(challenge_py)
    instance = cls(device="cpu") if _takes_device(cls) else cls()
    signature = instance.get_solve_signature()
    outputs = {name for name, (_, direction) in signature.items() if direction == "out"}
    example = cases_of(seeded(instance, "generate_example_test", seed))
    functional = cases_of(seeded(instance, "generate_functional_test", seed + 1))
    found["example"] = inputs_digest(example, outputs)
    found["functional"] = inputs_digest(functional, outputs)
    found["reference"] = [reference_outputs(instance, c) for c in example + functional]
    meta = cls(device="meta") if _takes_device(cls) else cls()
    try:
        performance = cases_of(seeded(meta, "generate_performance_test", seed + 2))
        found["performance"] = digest(performance)
        size = sum(
            v.numel() * v.element_size()
            for case in performance
            for v in case.values()
            if isinstance(v, torch.Tensor)
        )
    except Exception as exc:  # a challenge whose performance case cannot be drawn on meta
        found["performance"] = f"meta failed: {type(exc).__name__}"
        size = perf_bytes + 1
    if size <= perf_bytes:
        found["perf_values"] = inputs_digest(
            cases_of(seeded(instance, "generate_performance_test", seed + 2)), outputs
        )
    return found


def _takes_device(cls: Any) -> bool:
    import inspect

    try:
        return "device" in inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return False


def main() -> None:
    job = json.loads(sys.stdin.read())
    tree = Path(job["tree"])
    results: Dict[str, Any] = {}
    signal.signal(signal.SIGALRM, _alarm)
    for directory in job["directories"]:
        signal.alarm(int(job.get("seconds", 120)))
        try:
            results[directory] = one(
                tree / directory / "challenge.py", job.get("seed", 0), job.get("perf_bytes", 0)
            )
        except TimedOut:
            results[directory] = {"error": "timed out"}
        except Exception as exc:  # the challenge's own failure is data here
            results[directory] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
        finally:
            signal.alarm(0)
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
