"""The solution's process: loads the solution and calls it on buffers the judge shares with it.

    python -m generator.judge.solver FD

FD is a Unix socket to the judge. This process holds no challenge, no reference, no expected
output and no seed; it answers each request with "done" or with what went wrong, and the judge
checks the shared buffers itself. It limits itself (processes, file size, address space on the CPU)
before the solution's code runs. Everything here may be patched by the solution: nothing it
reports is taken as a verdict, and its timings are bounded by the judge's own clock.
"""

from __future__ import annotations

import os
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Dict, List

MAX_DETAIL = 6000
#: This process's own clock for the warm-up, taken before a solution can patch `time`.
_CLOCK = time.monotonic


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return (text.splitlines() or [type(exc).__name__])[0][:500]


def _out_of_memory(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, MemoryError) or any(
        marker in text
        for marker in ("can't allocate memory", "out of memory", "bad_alloc", "Cannot allocate")
    )


def failure(exc: BaseException) -> Dict[str, Any]:
    """A request that went wrong, as the verdict the solution earned by it."""
    from generator.judge import verdicts as V
    from generator.toolchain.errors import BuildError, CannotJudge, ReturnMismatch

    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-MAX_DETAIL:]
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:500]
    if isinstance(exc, ReturnMismatch):
        return {"ok": False, "verdict": V.WRONG_ANSWER, "message": str(exc)}
    if isinstance(exc, BuildError):
        return {"ok": False, "verdict": V.BUILD_ERROR, "message": first, "detail": str(exc)}
    if isinstance(exc, CannotJudge):
        return {"ok": False, "verdict": V.JUDGE_ERROR, "message": str(exc)}
    if isinstance(exc, SyntaxError):
        return {"ok": False, "verdict": V.BUILD_ERROR, "message": _describe(exc), "detail": detail}
    if _out_of_memory(exc):
        return {"ok": False, "verdict": V.MEMORY_LIMIT, "message": _describe(exc), "detail": detail}
    text = str(exc)
    gpu = "CUDA error" in text or "illegal memory access" in text or "CUDA_ERROR" in text
    message = ("GPU error: " if gpu else "") + _describe(exc)
    return {"ok": False, "verdict": V.RUNTIME_ERROR, "message": message, "detail": detail}


def _nothing() -> None:
    return None


def rebuild_params(rows: List[Dict[str, Any]]) -> List[Any]:
    import ctypes

    from generator.dtypes import DType
    from generator.judge.signature import JudgeParam

    params = []
    for row in rows:
        ctype = eval(row["ctype"], {"ctypes": ctypes}) if row.get("ctype") else None  # noqa: S307
        dtype = DType(**row["dtype"])
        params.append(JudgeParam(row["name"], dtype, row["direction"], row["is_tensor"], ctype))
    return params


class Solver:
    def __init__(self, hello: Dict[str, Any]):
        import torch

        from generator.isolation.limits import limit_this_process
        from generator.languages import BY_KEY

        self.torch = torch
        self.device = hello["device"]
        self.language = BY_KEY[hello["language"]]
        self.params = rebuild_params(hello["params"])
        if self.device == "cpu":
            torch.set_num_threads(int(hello.get("cpu_threads") or 1))
        memory = hello.get("memory_limit") if self.device == "cpu" else None
        self.language.prepare_worker()
        limit_this_process(int(hello["nproc"]), memory)
        from generator.judge.timing import LAUNCH_COVER_CYCLES, CallClock

        #: made before the solution is loaded, so that what it patches later is not read
        self.clock = CallClock(self.device)
        self.cover_cycles = self.language.launch_cover_cycles or LAUNCH_COVER_CYCLES
        #: what solve gets after the signature's parameters on a rank (a native solve's NCCL
        #: communicator, rank and world size; see generator.judge.nccl)
        self.rank_values: Dict[str, Any] = {}
        if hello.get("distributed"):
            from generator.judge.nccl import rank_arguments

            join_process_group(hello["distributed"], self.device)
            self.params, self.rank_values = rank_arguments(
                self.language, self.params, hello["distributed"], self.device
            )
        self.artifact = Path(hello["artifact"])
        self.mapped = None
        self.values: Dict[str, Any] = {}
        self.bound: Any = None
        #: the empty timed calls' call (`calibrate`)
        self.trivial: Any = None
        self.baseline = bool(hello.get("baseline"))
        self.solution = None

    def sync(self) -> None:
        if self.device.startswith("cuda"):
            self.torch.cuda.synchronize()

    def load(self, request: Dict[str, Any], __: List[int]) -> Dict[str, Any]:
        """The solution; `entry` names another function of the file to call as solve (a derived
        file holds one per variant of the reference, generator/judge/derived.py)."""
        entry = request.get("entry")
        if self.baseline:
            from generator.judge.baseline import BaselineSolve

            self.solution = BaselineSolve.load(self.artifact)
        elif entry is None:
            self.solution = self.language.load(self.artifact, self.params)
        else:
            self.solution = self.language.load_entry(self.artifact, self.params, str(entry))
        return {"ok": True}

    def case(self, request: Dict[str, Any], fds: List[int]) -> Dict[str, Any]:
        from generator.judge.shared import Mapped

        self.release({}, [])
        self.mapped = Mapped(request["buffers"], fds)
        self.values = {**request["scalars"], **self.rank_values}
        for name, spec in request["tensors"].items():
            self.values[name] = self.mapped.view(spec)
        if request.get("compile_only"):
            self.language.compile_only(self.solution, self.params, self.values)
            return {"ok": True}
        if self.baseline:
            self.solution.prepare_call(self.params, self.values)
        self.sync()
        self.language.call(self.solution, self.params, self.values)
        self.sync()
        return {"ok": True}

    def calibrate(self, request: Dict[str, Any], _: List[int]) -> Dict[str, Any]:
        """An empty timed call (the judge's yardstick of what a round costs besides the call):
        the language's least call where it has one (`Language.trivial_call`), else an empty
        function. Its preparation is a request of its own (`prepare_call` with `empty`), as a
        timed call's is, so that the two round trips hold the same steps."""
        least = self._least_call()
        reply = self._timed(least.run, bool(request.get("isolate")))
        reply["call"] = "empty function" if least.run is _nothing else "least call"
        return reply

    def _least_call(self) -> Any:
        """The empty calls' call, made at the first of them, before the solution is loaded."""
        if self.trivial is None:
            from generator.toolchain.bindings import Bound

            try:
                made = self.language.trivial_call(self.device)
            except Exception:  # noqa: BLE001 - the framework missing: loading the solution says so
                made = None
            self.trivial = made or Bound(_nothing)
        return self.trivial

    def _timed(self, fn: Any, isolate: bool) -> Dict[str, Any]:
        ms, steps = self.clock.call(fn, isolate, self.cover_cycles)
        return {"ok": True, "ms": ms, "steps_ns": steps}

    def time_setup(self, request: Dict[str, Any], fds: List[int]) -> Dict[str, Any]:
        """Before the judge's timed calls: bind the call, see whether its work is ordered with
        the current stream (`isolated` otherwise), warm up; inout tensors restored from the
        judge's copies before each call."""
        from generator.judge.shared import Mapped
        from generator.judge.timing import PerfOptions, warm_up

        pristine = Mapped(request.get("restore_buffers") or [], fds)
        restore_from = {
            name: pristine.view(spec) for name, spec in (request.get("restore") or {}).items()
        }

        def restore() -> None:
            for name, source in restore_from.items():
                self.values[name].copy_(source)

        options = PerfOptions.from_json(request.get("options"))
        self.bound = self.solution.bind(self.params, self.values)
        prepare = restore if restore_from else None
        isolate = must_isolate(
            self.language, self.bound, self.params, self.values, self.device, prepare
        )

        def call() -> None:
            restore()
            self.bound.run()

        warm_up(call, options, _CLOCK)
        self.sync()
        restore()
        self.sync()
        pristine.close()
        return {"ok": True, "isolated": isolate}

    def prepare_call(self, request: Dict[str, Any], __: List[int]) -> Dict[str, Any]:
        """Before each timed call, outside its request (whose round trip the judge's clock bound
        reads): the last call's returned arrays let go of, and a baseline's own preparation for
        the inputs the judge just wrote; before an empty call (`empty`), the same for the
        language's least call. Both kinds of call then reach the solution's process just after
        a request of the same kind, its thread as awake for one as for the other."""
        if request.get("empty"):
            self._least_call().prepare()
        else:
            self.bound.prepare()
            if self.baseline:
                self.solution.prepare_call(self.params, self.values)
        self.sync()
        return {"ok": True}

    def timed_call(self, request: Dict[str, Any], _: List[int]) -> Dict[str, Any]:
        """One of the judge's timed calls (generator.judge.timing.CallClock)."""
        return self._timed(self.bound.run, bool(request.get("isolate")))

    def collect(self, _: Dict[str, Any], __: List[int]) -> Dict[str, Any]:
        """The last call's returned outputs mapped onto the output tensors (JAX, a baseline that
        returns them), after the clock, for the judge to check."""
        self.bound.finish()
        self.sync()
        return {"ok": True}

    def time_ranks(self, request: Dict[str, Any], _: List[int]) -> Dict[str, Any]:
        """A multi-GPU challenge: every rank runs the same repetitions, each one starting behind
        a barrier, so that the judge can take the slowest rank's time of each call."""
        from generator.judge.rank_timing import ranked_samples
        from generator.judge.timing import PerfOptions

        options = PerfOptions.from_json(request.get("options"))
        bound = self.solution.bind(self.params, self.values)
        samples, clock = ranked_samples(bound.run, self.device, options)
        bound.finish()
        self.sync()
        return {"ok": True, "samples_ms": samples, "clock": clock}

    def ping(self, _: Dict[str, Any], __: List[int]) -> Dict[str, Any]:
        return {"ok": True}

    def release(self, _: Dict[str, Any], __: List[int]) -> Dict[str, Any]:
        self.values, self.bound = {}, None
        if self.mapped is not None:
            self.mapped.close()
            self.mapped = None
        return {"ok": True}


def must_isolate(
    language: Any, bound: Any, params: List[Any], values: Dict[str, Any], device: str, prepare: Any
) -> bool:
    """Whether the device is synchronised after each flush when the solution is timed: for a
    language that may run on a stream of its own, unless its work is seen ordered with the
    current stream (generator.judge.timing.stream_ordered). That check reads the outputs the
    solution writes in place, or for a language that returns its outputs (JAX) the tensors its
    binding exchanged them into (`Bound.returned`); without those it stays isolated."""
    from generator.judge.timing import is_gpu, stream_ordered

    if not language.own_streams:
        return False
    if not is_gpu(device) or (language.drops_outputs and bound.returned is None):
        return True
    tensors = [p for p in params if p.is_tensor]
    inputs = [values[p.name] for p in tensors if p.direction != "out"]
    outputs = [values[p.name] for p in tensors if p.direction != "in"]
    try:
        return not stream_ordered(bound.run, inputs, outputs, prepare, bound.returned)
    except Exception:  # noqa: BLE001 - the timed calls report what fails; unproven is isolated
        return True


def join_process_group(setup: Dict[str, Any], device: str) -> None:
    """A rank of a multi-GPU challenge: the default process group, before the solution loads
    (rank r on GPU r, bound to it: NCCL's communicator is made at once, on that GPU, and every
    collective and barrier of the group runs there)."""
    import datetime

    import torch
    import torch.distributed as dist

    bound = {}
    if device.startswith("cuda"):
        torch.cuda.set_device(int(device.split(":")[1]))
        bound["device_id"] = torch.device(device)
    dist.init_process_group(
        backend=setup["backend"],
        init_method=setup["init_method"],
        rank=int(setup["rank"]),
        world_size=int(setup["world_size"]),
        timeout=datetime.timedelta(seconds=600),
        **bound,
    )


def serve(channel: Any) -> None:
    hello, _ = channel.receive()
    try:
        solver = Solver(hello)
    except BaseException as exc:  # noqa: B036 - reported, then this process ends
        channel.send(failure(exc))
        return
    channel.send({"ok": True})
    while True:
        request, fds = channel.receive()
        handler = getattr(solver, str(request.get("op")), None)
        if request.get("op") == "quit" or handler is None:
            return
        try:
            reply = handler(request, fds)
        except BaseException as exc:  # noqa: B036 - a solution's sys.exit is its runtime error
            reply = failure(exc)
        channel.send(reply)


def main() -> None:
    if len(sys.argv) > 2:  # in the sandbox, started by root: become `uid` before other imports
        from generator.isolation.limits import drop_to

        drop_to(int(sys.argv[2]))
    from generator.isolation.channel import Channel, ChannelClosed

    channel = Channel(socket.socket(fileno=int(sys.argv[1])))
    try:
        serve(channel)
    except ChannelClosed:
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
