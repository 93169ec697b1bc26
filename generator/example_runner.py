"""Verify worked examples, and check the rendered challenges, in one sandboxed child: the reference
is the spec author's code.

`verify_examples(specs, rendered)` starts one child per CPU core, at most four (generator/isolation/
child.py: time and memory limits, bubblewrap where it works), for the whole run, not one per
spec; each takes a share of the specs, weighed so that the children end together, and a tree of
a hundred specs is checked on every core. A child first runs the formatter rules on all of its
share at once (one flake8, one clang-format), then loads each spec again and calls
`example_check.verify_example`, then (given the rendered files)
`validation.check_rendered` on them and, for a spec with an oracle, `tolerance_check` (the
reference against the oracle on every functional case), announcing each spec as a step;
whatever the reference does there (raise SystemExit or KeyboardInterrupt, call os._exit, loop
forever, exhaust memory, crash the interpreter) becomes a SpecError at that spec's `reference:`
line, and the parent carries on.

    python -m generator.example_runner   # the child; reads its job from stdin
"""

from __future__ import annotations

import gc
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from generator.isolation import child
from generator.isolation.channel import Refused, typed
from generator.isolation.limits import spec_limits
from generator.spec.yamlpos import Position, SpecError, SpecErrors

if TYPE_CHECKING:  # the spec model is not needed to start a child
    from generator.spec.read import LoadedSpec


def verify_examples(
    specs: Sequence["LoadedSpec"], rendered: Optional[Sequence[Dict[str, str]]] = None
) -> Dict[int, List[SpecError]]:
    """The errors of each spec's example (by index in `specs`; a spec without errors is absent),
    and, given each spec's rendered files (tree-relative path -> text), of those files as
    `chgen check --formatters --deep` sees them (generator/validation.py).

    One child per core verifies its share; when spec code kills it, a new child takes the specs
    after it."""
    if not specs:
        return {}
    with tempfile.TemporaryDirectory(prefix="chgen-rendered-") as scratch:
        entries = [_entry(item) for item in specs]
        readable = sorted({item.path.resolve().parent for item in specs})
        if rendered is not None:
            _write_tree(Path(scratch), rendered)
            readable.append(Path(scratch).resolve())
            for entry, files in zip(entries, rendered):
                entry["tree"] = str(Path(scratch).resolve())
                entry["challenge"] = _challenge_of(files)
        shards = _shards([_weight(item) for item in specs])
        if len(shards) == 1:
            return _run(specs, entries, readable, shards[0])
        found: Dict[int, List[SpecError]] = {}
        with ThreadPoolExecutor(max_workers=len(shards)) as pool:
            for part in pool.map(lambda shard: _run(specs, entries, readable, shard), shards):
                found.update(part)
        return dict(sorted(found.items()))


#: the most children one run starts (each imports torch: about half a GiB)
MAX_CHILDREN = 4


def _shards(weights: Sequence[int]) -> List[List[int]]:
    """Spec indices per child, for k children (one per core, MAX_CHILDREN at most, never more
    than the specs): the heaviest spec first to the child with the least weight so far, so that
    the children end together; each child's share in index order."""
    count = len(weights)
    children = max(1, min(count, os.cpu_count() or 1, MAX_CHILDREN))
    shards: List[List[int]] = [[] for _ in range(children)]
    loads = [0] * children
    for index in sorted(range(count), key=lambda i: weights[i], reverse=True):
        lightest = loads.index(min(loads))
        shards[lightest].append(index)
        loads[lightest] += weights[index]
    return [sorted(shard) for shard in shards if shard]


#: how much more a spec with a reference_jax weighs (JAX compiles it for every case)
JAX_WEIGHT = 4


def _weight(item: "LoadedSpec") -> int:
    """A guess at a spec's verification time: its size, more with a reference_jax."""
    try:
        size = item.path.stat().st_size
    except OSError:
        size = 1
    return size * (JAX_WEIGHT if item.spec.reference_jax is not None else 1)


def _entry(item: "LoadedSpec") -> Dict:
    return {"path": str(item.path.resolve()), "display": item.display}


def _write_tree(root: Path, rendered: Sequence[Dict[str, str]]) -> None:
    """The rendered files and the base class they import, as a tree the checks can read."""
    from generator.render import render_core

    for files in [render_core(), *rendered]:
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)


def _challenge_of(files: Dict[str, str]) -> str:
    """The challenge folder of one spec's files: `challenges/<difficulty>/<id>_<slug>`."""
    name = next(n for n in files if n.endswith("/challenge.py"))
    return name.rsplit("/", 1)[0]


def _run(
    specs: Sequence["LoadedSpec"], entries: List[Dict], readable: List[Path], indices: List[int]
) -> Dict[int, List[SpecError]]:
    """The specs at `indices`, in one child (a new one after a spec that ended it)."""
    found: Dict[int, List[SpecError]] = {}
    remaining = list(indices)
    while remaining:
        job = [entries[i] for i in remaining]
        run = child.run_module("generator.example_runner", job, spec_limits(), readable)
        finished = set()
        for message in run.messages:
            if "done" in message:
                try:
                    at, errors = _done(message, len(remaining))
                except Refused as exc:
                    run.refused = str(exc)
                    break
                index = remaining[at]
                finished.add(index)
                if errors:
                    found[index] = errors
        if run.last_step is None:  # it never got to spec code: the interpreter or sandbox failed
            for index in remaining:
                found[index] = [_not_started(specs[index], run)]
            break
        stopped = remaining[min(max(run.last_step, 0), len(remaining) - 1)]
        if stopped not in finished:
            found[stopped] = [_ended(specs[stopped], run)]
        remaining = [i for i in remaining if i > stopped and i not in finished]
    return found


def _not_started(item: "LoadedSpec", run: child.ChildRun) -> SpecError:
    detail = run.stderr.strip().splitlines()[-1:]
    said = f": {detail[0][:200]}" if detail else ""
    return SpecError(
        item.position("reference"),
        f"the example could not be verified: the checking process {run.ending()}{said}",
        "run 'chgen generate' again; if it persists, check that torch imports",
    )


def _ended(item: "LoadedSpec", run: child.ChildRun) -> SpecError:
    detail = run.stderr.strip().splitlines()[-1:] if run.timed_out is None else []
    said = f": {detail[0][:200]}" if detail else ""
    return SpecError(
        item.position("reference"),
        f"the reference (or its helpers), run on the example inputs, {run.ending()}{said}",
        "spec code must return normally; fix the reference or its helpers",
    )


#: an error as the child sends it (_encode's form)
ERROR_FIELDS = {"position": list, "code": str, "message": str, "hint": str}


def _done(message: Dict, count: int) -> Tuple[int, List[SpecError]]:
    """A verified spec's index (of `count`) and errors, from the child's message (else Refused)."""
    index, rows = message["done"], message.get("errors", [])
    if not isinstance(index, int) or not 0 <= index < count or not isinstance(rows, list):
        raise Refused("a finished step without its index or errors")
    return index, [_error(typed(row, ERROR_FIELDS)) for row in rows]


def _error(data: Dict) -> SpecError:
    where = data["position"]
    if (
        len(where) != 3
        or not isinstance(where[0], str)
        or not all(isinstance(n, int) for n in where[1:])
    ):
        raise Refused("an error whose position is not [file, line, column]")
    position = Position(where[0], where[1], where[2])
    return SpecError(position, data["message"], data["hint"], data["code"])


def _encode(error: SpecError) -> Dict:
    where = error.position
    return {
        "position": [where.file, where.line, where.column],
        "code": error.code,
        "message": error.message,
        "hint": error.hint or "",
    }


def _child() -> None:
    """The child: verify each spec of the job, announcing it first (the parent's step clock)."""
    job = child.channel()
    import torch  # noqa: F401 - imported before the first step, within the start-up limit

    from generator.example_check import verify_example
    from generator.spec.read import load_spec_text
    from generator.spec.yamlpos import read_text
    from generator.tolerance_check import check_tolerance
    from generator.validation import check_rendered, formatter_findings

    gc.freeze()  # what was imported lives as long as the child: no collection need walk it

    trees: Dict[str, List[str]] = {}
    for entry in job:
        if "challenge" in entry:
            trees.setdefault(entry["tree"], []).append(entry["challenge"])
    # before any spec code runs: flake8 and clang-format once for the job, not once per spec
    formatted = {
        (tree, challenge): found
        for tree, challenges in trees.items()
        for challenge, found in formatter_findings(Path(tree), challenges).items()
    }
    for index, entry in enumerate(job):
        child.send({"step": index})
        path = Path(entry["path"])
        errors: List[SpecError] = []
        loaded = None
        try:
            loaded = load_spec_text(read_text(path, entry["display"]), entry["display"], path)
            verify_example(loaded)
            if "challenge" in entry:
                own = formatted[(entry["tree"], entry["challenge"])]
                errors = check_rendered(loaded, Path(entry["tree"]), entry["challenge"], own)
            if "challenge" in entry and not errors and loaded.spec.oracle is not None:
                child.send({"step": index})  # the oracle's own time on every case
                folder = Path(entry["tree"]) / entry["challenge"]
                errors = check_tolerance(loaded, folder)
        except SpecErrors as exc:
            errors = list(exc.errors)
        except SpecError as exc:
            errors = [exc]
        except BaseException as exc:  # noqa: B036 - SystemExit, KeyboardInterrupt: spec code's
            where = loaded.position("reference") if loaded else Position(entry["display"], 1, 1)
            said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            errors = [
                SpecError(
                    where,
                    f"the reference failed on the example inputs: {said}",
                    "spec code must return normally; fix the reference or its helpers",
                )
            ]
        child.send({"done": index, "errors": [_encode(e) for e in errors]})


if __name__ == "__main__":
    _child()
