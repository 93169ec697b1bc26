"""The requests of the judge's timed rounds (generator/judge/rounds.py). Before each timed call
the worker has the solution's process let go of what the last call returned (JAX's arrays) in a
request of its own, so that the timed call's request, whose round trip the clock bound reads,
holds the call alone; an empty timed call makes the language's least call (JAX's), so that what
every call of the language costs is not counted against a solution, after a preparation request
of its own too, so that both kinds of round trip hold the same steps. The order of the
requests and which step of the solution's process runs what are asserted, never a time.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Dict, List

import pytest
import torch

from generator.judge.rounds import TimedRounds
from generator.judge.solver import Solver
from generator.toolchain.bindings import Bound


class SolutionProcess:
    """The worker's end of the channel, recording the requests in order."""

    def __init__(self) -> None:
        self.ops: List[str] = []

    def request(self, request: Dict[str, Any], timeout: float, where: str) -> Dict[str, Any]:
        self.ops.append(request["op"])
        return {"ok": True, "ms": 0.0}


def _rounds(process: SolutionProcess, baseline: bool = False) -> TimedRounds:
    params = [
        SimpleNamespace(name="x", is_tensor=True, direction="in"),
        SimpleNamespace(name="y", is_tensor=True, direction="out"),
    ]
    values = {"x": torch.ones(4), "y": torch.zeros(4)}
    judge = SimpleNamespace(
        params=params,
        language=SimpleNamespace(drops_outputs=False),
        job={"baseline": baseline},
        device="cpu",
        timeout=10.0,
        sync=lambda: None,
    )
    guarded = SimpleNamespace(values={name: tensor.clone() for name, tensor in values.items()})
    sets = SimpleNamespace(next=lambda index: (values, {"y": values["x"]}))
    options = SimpleNamespace(flush_bytes=64, budget_s=1.0, min_reps=1)
    return TimedRounds(judge, process, guarded, sets, options, {False: 0.0, True: 0.0})


def test_each_timed_call_is_preceded_by_a_request_that_lets_go_of_the_last_result():
    process = SolutionProcess()
    rounds = _rounds(process)
    for index in range(3):
        rounds.one(index, checked=False, isolate=False)
    assert process.ops == ["prepare_call", "timed_call"] * 3
    assert rounds.calls == 3 and len(rounds.steps.parts["timed"]) == 0  # no steps were sent


def test_a_baseline_gets_the_same_single_preparation_request():
    process = SolutionProcess()
    _rounds(process, baseline=True).one(0, checked=False, isolate=False)
    assert process.ops == ["prepare_call", "timed_call"]


def test_the_solution_process_frees_in_the_preparation_step_and_times_only_the_call():
    steps: List[str] = []
    bound = Bound(run=lambda: steps.append("run"), prepare=lambda: steps.append("prepare"))

    def timed(fn: Any, isolate: bool) -> Dict[str, Any]:
        fn()
        return {"ok": True, "ms": 0.0}

    baseline = SimpleNamespace(prepare_call=lambda params, values: steps.append("baseline"))
    worker = SimpleNamespace(
        bound=bound,
        baseline=False,
        solution=baseline,
        params=[],
        values={},
        sync=lambda: steps.append("sync"),
        _timed=timed,
    )
    Solver.prepare_call(worker, {}, [])
    Solver.timed_call(worker, {"isolate": False}, [])
    assert steps == ["prepare", "sync", "run"]
    worker.baseline = True
    steps.clear()
    Solver.prepare_call(worker, {}, [])
    assert steps == ["prepare", "baseline", "sync"]


def test_each_empty_call_is_preceded_by_its_own_preparation_request_as_a_timed_call_is():
    process = SolutionProcess()
    rounds = _rounds(process)
    rounds.one(0, checked=False, isolate=False)
    rounds.empty(False)
    assert process.ops == ["prepare_call", "timed_call", "prepare_call", "calibrate"]


def _worker(trivial_call: Any, steps: List[str]) -> SimpleNamespace:
    """The solution's process as far as the empty calls use it."""

    def timed(fn: Any, isolate: bool) -> Dict[str, Any]:
        fn()
        return {"ok": True, "ms": 0.0}

    worker = SimpleNamespace(
        trivial=None,
        device="cpu",
        language=SimpleNamespace(trivial_call=trivial_call),
        sync=lambda: steps.append("sync"),
        _timed=timed,
    )
    worker._least_call = lambda: Solver._least_call(worker)
    return worker


def test_the_empty_calls_make_the_languages_least_call_made_once_and_free_it_apart():
    steps: List[str] = []
    trivial = Bound(run=lambda: steps.append("trivial"), prepare=lambda: steps.append("free"))
    made: List[str] = []

    def trivial_call(device: str) -> Bound:
        made.append(device)
        return trivial

    worker = _worker(trivial_call, steps)
    replies = []
    for isolate in (False, True):
        Solver.prepare_call(worker, {"empty": True}, [])
        replies.append(Solver.calibrate(worker, {"isolate": isolate}, []))
    assert made == ["cpu"]
    # the call alone in the timed request; its arrays freed in the preparation request
    assert steps == ["free", "sync", "trivial"] * 2
    assert [reply["call"] for reply in replies] == ["least call"] * 2


def test_a_language_without_one_or_whose_framework_is_missing_times_an_empty_function():
    def missing(device: str) -> Bound:
        raise ImportError("no jax here")

    for trivial_call in (lambda device: None, missing):
        worker = _worker(trivial_call, [])
        Solver.prepare_call(worker, {"empty": True}, [])
        assert Solver.calibrate(worker, {"isolate": False}, [])["call"] == "empty function"


def test_the_least_jax_call_is_bound_as_a_solution_is():
    pytest.importorskip("jax")
    from generator.languages.jax import Jax

    bound = Jax().trivial_call("cpu")
    bound.prepare()
    bound.run()
    bound.finish()  # the returned array mapped onto the output buffer, as a solution's is
    assert bound.exchange == "bound"  # its buffer imported once, at bind
