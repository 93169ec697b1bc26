"""Are two challenge.py files the same challenge? Same signature, cases and reference results.

Both are imported on the CPU and their cases drawn with the judge's seeds (example `seed`,
functional `seed + 1`, performance `seed + 2`). Inputs must match in shape, dtype and value
(performance cases, drawn on the meta device, in shape and dtype, and where their tensors are small
enough to draw on the CPU, drawn there too and in value); scalars must be equal; outputs
must start alike (empty, zeros, a fill value) and a case must use the base class's descriptors in
both or neither (the runner draws and seeds those itself); both references, run on the same
copies of the original's inputs, must write the same outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import torch

from generator.importer.result import CaseCheck, Equivalence
from generator.importer.trace import (
    Run,
    Traced,
    load_challenge,
    output_start,
    performance_case,
    run_cases,
    same_start,
)

#: functional cases up to this many elements also have their reference results compared
REFERENCE_CASE_ELEMENTS = 1 << 18


def _signature(a: Any, b: Any) -> List[str]:
    sa, sb = a.get_solve_signature(), b.get_solve_signature()
    problems = []
    if list(sa) != list(sb):
        return [f"signature names differ: {list(sa)} vs {list(sb)}"]
    for name in sa:
        (ka, da), (kb, db) = sa[name], sb[name]
        if da != db:
            problems.append(f"signature: {name} is {da!r} vs {db!r}")
        if ka is not kb:
            problems.append(f"signature: {name} is {ka.__name__} vs {kb.__name__}")
    return problems


def _same(x: torch.Tensor, y: torch.Tensor) -> bool:
    if torch.equal(x, y):  # the common case, without two NaN masks
        return True
    if x.dtype.is_floating_point:
        both_nan = torch.isnan(x) & torch.isnan(y)
        return bool(((x == y) | both_nan).all())
    return torch.equal(x, y)


def _start_words(start: Any) -> str:
    return start if isinstance(start, str) else f"filled with {start:g}"


def _compare_case(label: str, a: Traced, b: Traced, signature: Dict[str, tuple]) -> CaseCheck:
    check = CaseCheck(label)
    described = [n for n in signature if (n in a.described) != (n in b.described)]
    if described:
        check.problems.append(
            f"{', '.join(described)} written with descriptors in one and not the other"
        )
    for name, (_, direction) in signature.items():
        if name not in a.values or name not in b.values:
            check.problems.append(f"{name} is missing from one of the two")
            continue
        x, y = a.values[name], b.values[name]
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            check.problems.append(f"{name} is a tensor in one and not the other")
        elif not isinstance(x, torch.Tensor):
            if x != y:
                check.problems.append(f"{name} = {x!r} vs {y!r}")
        elif x.shape != y.shape or x.dtype != y.dtype:
            check.problems.append(
                f"{name} is {tuple(x.shape)} {x.dtype} vs {tuple(y.shape)} {y.dtype}"
            )
        elif direction == "out":
            start_a, start_b = (output_start(c.recipes[name]) for c in (a, b))
            if not same_start(start_a, start_b):
                check.problems.append(
                    f"{name} starts {_start_words(start_a)} vs {_start_words(start_b)}"
                )
        elif "meta" not in (x.device.type, y.device.type):
            if not _same(x, y):
                check.differing.append(name)
    return check


def _clone(values: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in values.items()}


def _references(a: Any, b: Any, case: Traced, signature: Dict[str, tuple]) -> List[str]:
    outputs = [n for n, (_, d) in signature.items() if d != "in"]
    results = []
    for challenge in (a, b):
        values = {k: v for k, v in _clone(case.values).items() if k in signature}
        try:
            challenge.reference_impl(**values)
        except Exception as exc:
            return [f"reference_impl failed: {type(exc).__name__}: {exc}"]
        results.append(values)
    return [n for n in outputs if not _same(results[0][n], results[1][n])]


def _elements(case: Traced) -> int:
    return sum(v.numel() for v in case.values.values() if isinstance(v, torch.Tensor))


def _has_values(case: Traced) -> bool:
    """Descriptors stand for tensors without values (meta): no reference runs on them."""
    return not any(
        isinstance(v, torch.Tensor) and v.device.type == "meta" for v in case.values.values()
    )


def compare(
    original: Any,
    generated: Any,
    names: List[str],
    seed: int = 0,
    original_run: Optional[Run] = None,
) -> Equivalence:
    """Compare two loaded challenges; `names` label the functional cases in reports."""
    signature = original.get_solve_signature()
    problems = _signature(original, generated)
    run_a = original_run or run_cases(original, seed)
    run_b = run_cases(generated, seed)
    cases = []
    pairs = [("example", run_a.example, run_b.example)]
    if len(run_a.functional) != len(run_b.functional):
        problems.append(f"{len(run_a.functional)} functional cases vs {len(run_b.functional)}")
    for i, (x, y) in enumerate(zip(run_a.functional, run_b.functional)):
        pairs.append((names[i] if i < len(names) else f"case_{i + 1}", x, y))
    for label, x, y in pairs:
        check = _compare_case(label, x, y, signature)
        small = label == "example" or _elements(x) <= REFERENCE_CASE_ELEMENTS
        if not check.problems and small and _has_values(x):
            found = _references(original, generated, x, signature)
            check.reference.extend(
                f"the references disagree on {n}" if " " not in n else n for n in found
            )
        cases.append(check)
    performance = _compare_case("performance", run_a.performance, run_b.performance, signature)
    values = False
    if not performance.problems and _bytes(run_a.performance) <= PERFORMANCE_VALUE_BYTES:
        on_cpu = [performance_case(c, seed, "cpu") for c in (original, generated)]
        if all(c is not None for c in on_cpu):
            performance.differing = _compare_case("performance", *on_cpu, signature).differing
            values = _has_values(on_cpu[0])
    cases.append(performance)
    return Equivalence(problems, cases, values)


#: a performance case whose tensors take at most this many bytes is also drawn on the CPU, and its
#: values compared
PERFORMANCE_VALUE_BYTES = 1 << 28


def _bytes(case: Traced) -> int:
    return sum(
        v.numel() * v.element_size() for v in case.values.values() if isinstance(v, torch.Tensor)
    )


def compare_files(
    original_py: Path,
    original_base: Path,
    generated_py: Path,
    generated_base: Path,
    names: List[str],
    seed: int = 0,
) -> Equivalence:
    """compare() for two challenge.py files, each with the base class of its own tree."""
    return compare(
        load_challenge(original_py, original_base),
        load_challenge(generated_py, generated_base),
        names,
        seed,
    )


# ------------------------------------------------------------------------------- two trees


def compare_trees(pairs: List[Dict[str, Any]], seed: int = 0) -> List[Dict[str, Any]]:
    """compare_files for each pair (`original`, `generated`: challenge directories; `names`: the
    functional cases' names), in a child (challenge.py is code from elsewhere: the spec-code
    sandbox, a time limit per challenge). One entry per pair: `problems` (every difference),
    `performance_values` (its values were compared too), or `error`."""
    from generator import sandbox
    from generator.loading import find_base

    job = {"seed": seed, "pairs": []}
    readable = set()
    for pair in pairs:
        entry = {}
        for key in ("original", "generated"):
            folder = Path(pair[key]).resolve()
            entry[key] = str(folder)
            base = find_base(folder)
            entry[f"{key}_base"] = str(base)
            readable.update({folder.parent.parent.parent, base.parent})
        entry["names"] = list(pair.get("names", []))
        job["pairs"].append(entry)
    found: List[Dict[str, Any]] = [{"error": "not compared"} for _ in pairs]
    remaining = list(range(len(pairs)))
    while remaining:
        run = sandbox.run_module(
            "generator.importer.equivalence",
            {"seed": seed, "pairs": [job["pairs"][i] for i in remaining]},
            sandbox.Limits(step_seconds=COMPARE_SECONDS),
            sorted(readable),
        )
        finished = set()
        for message in run.messages:
            if "done" in message:
                index = remaining[int(message["done"])]
                found[index] = {k: v for k, v in message.items() if k != "done"}
                finished.add(index)
        if run.last_step is None:
            break
        stopped = remaining[int(run.last_step)]
        if stopped not in finished:
            found[stopped] = {"error": f"the comparison {run.ending()}"}
        remaining = [i for i in remaining if i > stopped and i not in finished]
    return found


#: seconds one challenge's comparison may take in the child
COMPARE_SECONDS = 300.0


def _child() -> None:
    from generator import sandbox

    job = sandbox.channel()
    for index, pair in enumerate(job["pairs"]):
        sandbox.send({"step": index})
        try:
            result = compare_files(
                Path(pair["original"]) / "challenge.py",
                Path(pair["original_base"]),
                Path(pair["generated"]) / "challenge.py",
                Path(pair["generated_base"]),
                pair["names"],
                int(job["seed"]),
            )
            answer = {
                "problems": result.problems(),
                "performance_values": result.performance_values,
            }
        except Exception as exc:  # noqa: BLE001 - a challenge that fails is that pair's answer
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sandbox.send({"done": index, **answer})


if __name__ == "__main__":
    _child()
