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


def load_proof():
    """benchmarks/public_set_proof.py as a module."""
    import importlib.util

    from tests.judge.common import ROOT

    spec = importlib.util.spec_from_file_location(
        "public_set_proof", ROOT / "benchmarks" / "public_set_proof.py"
    )
    proof = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(proof)
    return proof


def test_the_proof_counts_each_call_a_killed_one_up_to_its_last_job(tmp_path):
    """--state of benchmarks/public_set_proof.py and gpu_judge.py (benchmarks/calls.py): each
    call's seconds, a call killed at its limit (no end recorded) counted up to the last job it
    journalled, and their sum."""
    from benchmarks import calls as proof

    state = tmp_path / "state"
    first = proof.start_call(state)
    first[0]["started"] -= 100.0  # the first call began 100 s ago and was killed
    (state / "calls.json").write_text(json.dumps(first))
    Journal(state / "journal.jsonl").add("a/derived/reference/pytorch", FUNCTIONAL,
                                         {"verdict": V.PASS, "message": ""})  # fmt: skip
    calls = proof.start_call(state)
    calls[-1]["started"] += 0.5  # the second call starts after the first one's last job
    timing = proof.calls_timing(state, calls, calls[-1]["started"] + 20.0)
    killed, resumed = timing["calls"]
    assert killed["killed"] and killed["jobs_finished"] == 1 and 99 < killed["seconds"] < 102
    assert resumed == {"seconds": 20.0, "jobs_finished": 0, "killed": False}
    assert timing["seconds"] == round(killed["seconds"] + 20.0, 1)


def test_the_proofs_rerun_judges_afresh(tmp_path):
    """--rerun reaches the cache the run judges with (a --ray run given --rerun must not read
    back what a local run just stored)."""
    proof = load_proof()
    fresh = proof.run_cache(proof.parse(["--prebuilt", "b", "--rerun", "--cache", str(tmp_path)]))
    kept = proof.run_cache(proof.parse(["--prebuilt", "b", "--cache", str(tmp_path)]))
    assert (fresh.reuse, kept.reuse) == (False, True)
    assert fresh.root == tmp_path.resolve()
