"""A run split over calls of limited length: the journal of finished jobs, the stop after which
no job starts, and the run that takes up what is left (generator/judge/journal.py)."""

from __future__ import annotations

import json
import time

from generator.judge import verdicts as V
from generator.judge.journal import FUNCTIONAL, Journal
from generator.judge.suite import NOT_STARTED, SuiteOptions, run_plan
from tests.judge.common import SCALED_ADD, make_plan

SOLUTIONS = SCALED_ADD / "solutions"


def test_the_journal_reads_back_what_it_signed_and_nothing_else(tmp_path):
    path = tmp_path / "state" / "journal.jsonl"
    journal = Journal(path)
    journal.add("a/starter/pytorch", FUNCTIONAL, {"verdict": V.PASS, "message": "ok"})
    journal.add("b/starter/pytorch", FUNCTIONAL, {"verdict": V.NOT_RUN, "message": ""})
    forged = json.loads(path.read_text().splitlines()[0])
    forged.update(id="c/starter/pytorch")  # another job's line under the first one's signature
    with open(path, "a") as handle:
        handle.write(json.dumps(forged) + "\n")
        handle.write('{"id": "d/starter/pytorch", "phase": "functional", "at": 1, "res')  # cut off
    again = Journal(path)
    assert again.get("a/starter/pytorch", FUNCTIONAL) == {
        "verdict": V.PASS, "message": "ok", "resumed": True}  # fmt: skip
    assert again.get("b/starter/pytorch", FUNCTIONAL) is None  # not run: left for the next run
    assert again.get("c/starter/pytorch", FUNCTIONAL) is None
    assert len(again.finished_at) == 1


def test_a_stopped_run_starts_nothing_and_a_resumed_one_reads_the_journal(tmp_path, judge_cache):
    plan = make_plan(
        {SOLUTIONS / "solution.pytorch.py": "pass", SOLUTIONS / "solution.jax.py": "pass"},
        SCALED_ADD,
    )
    journal = tmp_path / "journal.jsonl"
    done = {"verdict": V.PASS, "message": "from an earlier call", "cases": []}
    first_id = plan.jobs[0].id
    Journal(journal).add(first_id, FUNCTIONAL, done)
    options = SuiteOptions(jobs=2, journal=journal, stop_starting=time.time() - 1)
    rows = {r["id"]: r for r in run_plan(plan, options, judge_cache)}
    assert rows[first_id]["verdict"] == V.PASS
    assert rows[first_id]["message"] == "from an earlier call"
    other = rows[plan.jobs[1].id]
    assert other["verdict"] == V.NOT_RUN and other["message"] == NOT_STARTED
    assert len(journal.read_text().splitlines()) == 1  # a job not run is not journalled
