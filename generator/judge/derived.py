"""What `chgen test` proves of any challenge from its challenge.py alone: no spec, no solutions.

For one challenge directory (ours, an imported one, or any tree's) this writes a derived solution
file, PyTorch, whose `solve` is the challenge's own reference and whose `solve_<name>` are mistakes:
the generic wrong outputs (derived_runtime.WRONG_OUTPUTS) and mutations of reference_impl
(generator/judge/mutate.py), at most `limit` of those, chosen the same way on every run. The plan
gets two jobs from it (plan.derived_jobs):

- `derived`, in one worker and one solution process (generator/judge/derived_worker.py): the
  tolerance audit (the reference in float64 and in half precision on every functional case, the
  performance case's size); the reference as a solution, which must pass every case on every
  seed; every mistake on every functional case, one that the cases cannot tell from the
  reference set apart as equivalent, one they miss a survivor (generator/judge/derived_proofs.py);
- `reference_solution`: under --perf, the reference as a solution on the performance case,
  judged and timed;
- `reference_jax`, where challenge.py has a `reference_impl_jax` (what the public set's runner
  prefers for JAX submissions): that method as a JAX solution (`<key>.jax.py`), which must pass
  every case on every seed, as the PyTorch reference must.

challenge.py is read through the one reader (generator/challenge/pyfile.py), never imported here.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.judge.derived_runtime import REFERENCE, WRONG_OUTPUTS
from generator.judge.mutate import choose, mutations

#: mutations of reference_impl per challenge, by default (the wrong outputs come on top)
DEFAULT_MUTANTS = 12


@dataclass
class DerivedPlan:
    """The derived file of one challenge and the mistakes in it (plain JSON for the plan)."""

    source: Optional[Path]
    #: {name, operator, mistake, line, entry}, wrong outputs first
    variants: List[Dict[str, Any]] = field(default_factory=list)
    #: why nothing (or less) was derived
    notes: List[str] = field(default_factory=list)
    #: reference_impl_jax as a JAX solution, where challenge.py has one
    jax_source: Optional[Path] = None


def entry_name(variant: str) -> str:
    return "solve" if variant == REFERENCE else f"solve_{variant}"


def _core_modules(read: Any, base_dir: Path) -> Dict[str, str]:
    """The text of every `core.<name>` module challenge.py imports (from the tree's core/)."""
    found: Dict[str, str] = {}
    for node in read.module.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("core."):
            path = base_dir / (node.module.split(".", 1)[1].replace(".", "/") + ".py")
            if path.is_file():
                found[node.module] = path.read_text(encoding="utf-8")
    return found


def derive(challenge_dir: Path, out_dir: Path, key: str, limit: int) -> DerivedPlan:
    """Write `<out_dir>/<key>.pytorch.py`, the challenge's derived solutions."""
    from generator.challenge.pyfile import read_challenge_py
    from generator.loading import ChallengeLoadError, find_base

    path = challenge_dir / "challenge.py"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return DerivedPlan(None, notes=[f"challenge.py cannot be read: {exc}"])
    read = read_challenge_py(text, str(path))
    method = read.method("reference_impl") if read.cls is not None else None
    if read.syntax_error is not None or method is None or read.signature is None:
        return DerivedPlan(None, notes=["challenge.py has no readable reference_impl or signature"])
    num_gpus = read.literal("num_gpus", 1)
    if isinstance(num_gpus, int) and num_gpus > 1:
        return DerivedPlan(
            None, notes=["a multi-GPU challenge: each rank holds part of the data, so the "
                         "reference cannot run as one rank's solution"])  # fmt: skip
    opaque = [e.name for e in read.signature if not e.is_tensor and not e.dtypes]
    if opaque:
        return DerivedPlan(None, notes=[f"{', '.join(opaque)}: not a tensor or a number"])
    try:
        base_dir = find_base(challenge_dir).parent
    except ChallengeLoadError as exc:
        return DerivedPlan(None, notes=[str(exc)])
    inputs = [e.name for e in read.signature if e.is_tensor and e.direction == "in"]
    outputs = [e.name for e in read.signature if e.is_tensor and e.direction != "in"]
    variants: List[Dict[str, Any]] = [
        {"name": name, "operator": name, "mistake": words, "line": None}
        for name, words in WRONG_OUTPUTS.items()
    ]
    notes: List[str] = []
    try:
        found = mutations(method.source, method.line)
    except (SyntaxError, ValueError) as exc:
        found = []
        notes.append(f"reference_impl could not be mutated: {exc}")
    picked = choose(found, limit, key)
    methods = {m.name: m.method for m in picked}
    variants += [
        {"name": m.name, "operator": m.operator, "mistake": m.mistake, "line": m.line}
        for m in picked
    ]
    for variant in variants:
        variant["entry"] = entry_name(variant["name"])
    source = out_dir / f"{key}.pytorch.py"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(
        derived_file(
            key,
            _core_modules(read, base_dir),
            text,
            [e.name for e in read.signature],
            inputs,
            outputs,
            methods,
            [v["name"] for v in variants],
        )
    )
    if len(found) > limit:
        notes.append(f"{len(found)} mutation site(s), {len(picked)} chosen")
    jax_source = None
    if "reference_impl_jax" in read.methods:
        jax_source = out_dir / f"{key}.jax.py"
        core = _core_modules(read, base_dir)
        taken = [e.name for e in read.signature if e.direction != "out"]
        scalars = [e.name for e in read.signature if not e.is_tensor]
        jax_source.write_text(jax_file(key, core, text, taken, scalars))
    return DerivedPlan(source, variants, notes, jax_source)


def _derived_module(
    docstring: List[str],
    core: Dict[str, str],
    challenge: str,
    params: List[str],
    inputs: List[str],
    outputs: List[str],
    methods: Dict[str, str],
) -> List[str]:
    """The lines every derived file starts with: its docstring and the data its Derived holds."""
    return docstring + [
        "",
        "from generator.judge.derived_runtime import Derived",
        "",
        "DERIVED = Derived(",
        f"    core={core!r},",
        f"    challenge={challenge!r},",
        f"    params={params!r},",
        f"    inputs={inputs!r},",
        f"    outputs={outputs!r},",
        f"    methods={methods!r},",
        ")",
    ]


def jax_file(
    key: str, core: Dict[str, str], challenge: str, taken: List[str], scalars: List[str]
) -> str:
    """The JAX solution whose `solve` is challenge.py's reference_impl_jax: it takes the
    in/inout arrays and the scalars (`taken`, in solve order) and returns the outputs."""
    docstring = [
        f'"""chgen test: reference_impl_jax of {key} as a JAX solution',
        '(generator/judge/derived.py)."""',
    ]
    lines = _derived_module(docstring, core, challenge, taken, [], [], {})
    lines.append(f"solve = DERIVED.jax_entry({scalars!r})")
    return "\n".join(lines) + "\n"


def derived_file(
    key: str,
    core: Dict[str, str],
    challenge: str,
    params: List[str],
    inputs: List[str],
    outputs: List[str],
    methods: Dict[str, str],
    variants: List[str],
) -> str:
    """The derived solution file: data, and one solve per variant bound to a Derived."""
    docstring = [
        f'"""chgen test: the reference of {key} and mistakes derived from it, as PyTorch',
        "solutions (generator/judge/derived.py): `solve` is the reference, each `solve_<name>` one",
        'mistake."""',
    ]
    lines = _derived_module(docstring, core, challenge, params, inputs, outputs, methods)
    lines.append(f"solve = DERIVED.entry({REFERENCE!r})")
    lines += [f"{entry_name(name)} = DERIVED.entry({name!r})" for name in variants]
    return "\n".join(lines) + "\n"
