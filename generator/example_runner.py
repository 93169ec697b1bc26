"""Verify worked examples, and check the rendered challenges, in one sandboxed child: the reference
is the spec author's code.

`verify_examples(specs, rendered)` starts one child (generator/sandbox.py: time and memory limits,
bubblewrap where it works) for the whole run, not one per spec. The child loads each spec again
and calls `example_check.verify_example`, then (given the rendered files)
`validation.check_rendered` on them and, for a spec with an oracle, `tolerance_check` (the
reference against the oracle on every functional case), announcing each spec as a step; whatever the reference does
there (raise SystemExit or KeyboardInterrupt, call os._exit, loop forever, exhaust memory, crash
the interpreter) becomes a SpecError at that spec's `reference:` line, and the parent carries on.

    python -m generator.example_runner   # the child; reads its job from stdin
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from generator import sandbox
from generator.spec.yamlpos import Position, SpecError, SpecErrors

if TYPE_CHECKING:  # the spec model is not needed to start a child
    from generator.spec.loader import LoadedSpec

#: seconds one spec's example verification may take (the child's imports have their own limit)
TIMEOUT_ENV = "CHGEN_REFERENCE_TIMEOUT"


def limits() -> sandbox.Limits:
    seconds = os.environ.get(TIMEOUT_ENV, "")
    try:
        step = float(seconds) if seconds else sandbox.STEP_SECONDS
    except ValueError:
        step = sandbox.STEP_SECONDS
    return sandbox.Limits(step_seconds=max(step, 0.1))


def verify_examples(
    specs: Sequence["LoadedSpec"], rendered: Optional[Sequence[Dict[str, str]]] = None
) -> Dict[int, List[SpecError]]:
    """The errors of each spec's example (by index in `specs`; a spec without errors is absent),
    and, given each spec's rendered files (tree-relative path -> text), of those files as
    `chgen check --formatters --deep` sees them (generator/validation.py).

    One child verifies them all; when spec code kills it, a new child takes the specs after it."""
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
        return _run(specs, entries, readable)


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
    specs: Sequence["LoadedSpec"], entries: List[Dict], readable: List[Path]
) -> Dict[int, List[SpecError]]:
    found: Dict[int, List[SpecError]] = {}
    remaining = list(range(len(specs)))
    while remaining:
        job = [entries[i] for i in remaining]
        run = sandbox.run_module("generator.example_runner", job, limits(), readable)
        finished = set()
        for message in run.messages:
            if "done" in message:
                index = remaining[int(message["done"])]
                finished.add(index)
                errors = [_error(e) for e in message.get("errors", [])]
                if errors:
                    found[index] = errors
        if run.last_step is None:  # it never got to spec code: the interpreter or sandbox failed
            for index in remaining:
                found[index] = [_not_started(specs[index], run)]
            break
        stopped = remaining[int(run.last_step)]
        if stopped not in finished:
            found[stopped] = [_ended(specs[stopped], run)]
        remaining = [i for i in remaining if i > stopped and i not in finished]
    return found


def _not_started(item: "LoadedSpec", run: sandbox.ChildRun) -> SpecError:
    detail = run.stderr.strip().splitlines()[-1:]
    said = f": {detail[0][:200]}" if detail else ""
    return SpecError(
        item.position("reference"),
        f"the example could not be verified: the checking process {run.ending()}{said}",
        "run 'chgen generate' again; if it persists, check that torch imports",
    )


def _ended(item: "LoadedSpec", run: sandbox.ChildRun) -> SpecError:
    detail = run.stderr.strip().splitlines()[-1:] if run.timed_out is None else []
    said = f": {detail[0][:200]}" if detail else ""
    return SpecError(
        item.position("reference"),
        f"the reference (or its helpers), run on the example inputs, {run.ending()}{said}",
        "spec code must return normally; fix the reference or its helpers",
    )


def _error(data: Dict) -> SpecError:
    where = data["position"]
    return SpecError(
        Position(where[0], int(where[1]), int(where[2])), data["message"], data.get("hint", "")
    )


def _encode(error: SpecError) -> Dict:
    where = error.position
    return {
        "position": [where.file, where.line, where.column],
        "message": error.message,
        "hint": error.hint,
    }


def _child() -> None:
    """The child: verify each spec of the job, announcing it first (the parent's step clock)."""
    job = sandbox.channel()
    import torch  # noqa: F401 - imported before the first step, within the start-up limit

    from generator.example_check import verify_example
    from generator.spec.loader import load_spec_text
    from generator.spec.yamlpos import read_text
    from generator.tolerance_check import check_tolerance
    from generator.validation import check_rendered

    for index, entry in enumerate(job):
        sandbox.send({"step": index})
        path = Path(entry["path"])
        errors: List[SpecError] = []
        loaded = None
        try:
            loaded = load_spec_text(read_text(path, entry["display"]), entry["display"], path)
            verify_example(loaded)
            if "challenge" in entry:
                errors = check_rendered(loaded, Path(entry["tree"]), entry["challenge"])
            if "challenge" in entry and not errors and loaded.spec.oracle is not None:
                sandbox.send({"step": index})  # the oracle's own time on every case
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
        sandbox.send({"done": index, "errors": [_encode(e) for e in errors]})


if __name__ == "__main__":
    _child()
