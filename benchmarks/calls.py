"""A run split over calls of limited length (a GPU machine lent a few minutes at a time): each
call's start kept in the run's state folder beside its journal (generator/judge/journal.py), and
the run's seconds summed over its calls. Shared by benchmarks/public_set_proof.py and
benchmarks/gpu_judge.py (`--state DIR`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional


def start_call(state: Optional[Path]) -> List[Dict[str, Any]]:
    """--state: this call's start, recorded before any job runs (a call killed at its limit
    still counts up to the last job it journalled)."""
    if state is None:
        return []
    path = state / "calls.json"
    calls = json.loads(path.read_text()) if path.is_file() else []
    calls.append({"started": time.time(), "ended": None})
    state.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(calls, indent=1) + "\n")
    return calls


def calls_timing(state: Path, calls: List[Dict[str, Any]], now: float) -> Dict[str, Any]:
    """The proof's seconds over every call of a resumed run: each call from its start to its
    end, or, for a call that was killed, to the last job it journalled."""
    from generator.judge.journal import Journal

    calls[-1]["ended"] = now
    (state / "calls.json").write_text(json.dumps(calls, indent=1) + "\n")
    finished = Journal(state / "journal.jsonl").finished_at
    spans = []
    for i, call in enumerate(calls):
        upto = calls[i + 1]["started"] if i + 1 < len(calls) else float("inf")
        mine = [t for t in finished if call["started"] <= t < upto]
        end = call["ended"] or max(mine, default=call["started"])
        spans.append({"seconds": round(end - call["started"], 1), "jobs_finished": len(mine),
                      "killed": call["ended"] is None})  # fmt: skip
    return {"calls": spans, "seconds": round(sum(s["seconds"] for s in spans), 1)}
