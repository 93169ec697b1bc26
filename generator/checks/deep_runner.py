"""Run the deep rules in one sandboxed child: challenge.py is code chgen does not trust.

`check_in_sandbox` starts one child (generator/isolation/child.py: the limits of spec code,
bubblewrap where it works) for all the challenges. The child parses each challenge.py again, runs
`deep.check_here` on it, announcing each challenge as a step, and sends its findings back. What
challenge.py does there (os._exit, an endless loop, exhausting memory, crashing the interpreter)
becomes a D006 finding at its challenge.py, and a new child takes the challenges after it.

    python -m generator.checks.deep_runner   # the child; reads its job from stdin
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from generator.challenge.pyfile import ChallengePy
from generator.checks.report import Options, Report
from generator.checks.source import ChallengeDir
from generator.isolation import child
from generator.isolation.channel import Refused, typed
from generator.isolation.limits import TIMEOUT_ENV, Limits, spec_limits

#: seconds one challenge's deep rules may take (every case of it runs); CHGEN_REFERENCE_TIMEOUT,
#: the limit of spec code, overrides it
STEP_SECONDS = 300.0


def deep_limits() -> Limits:
    """The limits of spec code, with more time per challenge."""
    base = spec_limits()
    if os.environ.get(TIMEOUT_ENV):
        return base
    return dataclasses.replace(base, step_seconds=STEP_SECONDS)


def _readable(ch: ChallengeDir) -> Path:
    """What the child must see of a challenge: its tree's challenges/ folder (with `core`)."""
    path = ch.path.resolve()
    return path.parents[1] if len(path.parents) > 1 else path.parent


def check_in_sandbox(
    challenges: Sequence[ChallengeDir],
    models: Dict[Any, Optional[ChallengePy]],
    report: Report,
) -> None:
    """The deep rules' findings for `challenges` (those with a class and a signature), added to
    `report`."""
    todo = [ch for ch in challenges if _runnable(models.get(ch.path))]
    options = report.options
    while todo:
        job = {
            "challenges": [{"path": str(ch.path), "display": ch.display} for ch in todo],
            "select": list(options.select),
            "ignore": list(options.ignore),
            "cases": list(options.cases),
        }
        readable = sorted({_readable(ch) for ch in todo})
        run = child.run_module("generator.checks.deep_runner", job, deep_limits(), readable)
        done = 0
        for message in run.messages:
            if "done" in message:
                try:
                    index, findings = _done(message, len(todo))
                except Refused as exc:
                    run.refused = str(exc)
                    break
                done = index + 1
                report.findings.extend(findings)
        if done >= len(todo):
            return
        if run.last_step is None and not run.messages:
            started = f"could not start the checking process ({run.ending()})"
            for ch in todo:
                report.add("D006", _display(ch, models), 1, 1, f"{started}: {_tail(run)}")
            return
        stuck = todo[done]
        report.add(
            "D006",
            _display(stuck, models),
            1,
            1,
            f"running challenge.py {run.ending()}" + (f": {_tail(run)}" if _tail(run) else ""),
        )
        todo = todo[done + 1 :]


def _runnable(model: Optional[ChallengePy]) -> bool:
    return model is not None and model.cls is not None and bool(model.signature)


def _display(ch: ChallengeDir, models: Dict[Any, Optional[ChallengePy]]) -> str:
    model = models.get(ch.path)
    return model.display if model is not None else f"{ch.display}/challenge.py"


def _tail(run: child.ChildRun) -> str:
    lines = [line for line in run.stderr.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


#: a finding as the child sends it (Finding's fields)
FINDING_FIELDS = {
    "path": str,
    "line": int,
    "col": int,
    "code": str,
    "severity": str,
    "message": str,
}


def _done(message: Dict[str, Any], count: int) -> Tuple[int, List[Any]]:
    """A finished challenge's index (of `count`) and findings, from the child's message (else
    Refused)."""
    from generator.checks.registry import Finding

    index, rows = message["done"], message.get("findings", [])
    if not isinstance(index, int) or not 0 <= index < count or not isinstance(rows, list):
        raise Refused("a finished step without its index or findings")
    return index, [Finding.at(**typed(row, FINDING_FIELDS)) for row in rows]


# --- the child's side -------------------------------------------------------------------------


def main() -> None:
    job = child.channel()
    import torch  # noqa: F401  (before the first step: imports have the start-up limit)

    from generator.challenge.pyfile import read_challenge_py
    from generator.checks import deep

    options = Options(
        deep=True,
        select=tuple(job["select"]),
        ignore=tuple(job["ignore"]),
        cases=tuple(job["cases"]),  # type: ignore[arg-type]
    )
    for index, entry in enumerate(job["challenges"]):
        child.send({"step": index})
        ch = ChallengeDir(Path(entry["path"]), entry["display"])
        report = Report(options)
        source = ch.file("challenge.py")
        if source is not None:
            model = read_challenge_py(source.text, source.display)
            deep.check_here([ch], {ch.path: model}, report)
        findings: List[Dict[str, Any]] = [f.as_dict() for f in report.findings]
        child.send({"done": index, "findings": findings})


if __name__ == "__main__":
    main()
