"""Multi-GPU challenges (num_gpus > 1): each case is judged on G ranks at once.

A challenge says how a case is spread (`get_rank_layout`: the size `rows` and the tensors `split`
by it) and, per case, on how many ranks (`world_size`, default num_gpus; the job's `ranks`, from
`--ranks N`, puts every case on N ranks instead). Rank r of G holds rows
[start_r, end_r) of every split tensor, contiguous and in rank order, the first rows % G ranks one
row more (`row_blocks`), and receives its own row count as the size scalar; every other tensor is
whole on every rank, and an output among them must end identical on every rank.

The worker keeps every guarantee of a single-GPU run, per rank: it computes the expected outputs
of the whole case (the reference never sees a shard), gives each rank guarded shared buffers of
its own shard, and checks each rank's bands, inputs and outputs itself. The ranks are G solution
processes started together by `generator.judge.ranks`, in one sandbox, as one process group
(gloo on the CPU, NCCL on GPUs with rank r on GPU r; a file store in their private /tmp, or in
the group's scratch folder when unsandboxed) that the solution's process initialises before the
solution is loaded. A failure, timeout or death of any rank kills the whole group; the slowest
rank's time is the time of a call.
"""

from __future__ import annotations

import math
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from generator.isolation.channel import Channel, ChannelClosed, Refused
from generator.isolation.limits import process_limit
from generator.isolation.probe import Mode
from generator.isolation.process import OutputTail, stop_process, tree_usage
from generator.isolation.solution import SCRATCH, python_paths, solution_argv, solution_env
from generator.isolation.watchdog import MEMORY, POLL_S, TIME, Breach, Watchdog
from generator.judge import verdicts as V
from generator.judge.remote import REPORTED, Stop, death_message, param_rows, refusal_message
from generator.resources import PACKAGE_DIR

#: how long a rank's reported failure waits for the group to end (a peer that died first)
PEER_GRACE_S = 1.0


def row_blocks(rows: int, world: int) -> List[Tuple[int, int]]:
    """Rank r's rows [start, end): contiguous, in rank order, the first rows % world ranks one
    row more than the others (a rank may hold none when rows < world)."""
    base, extra = divmod(rows, world)
    blocks, start = [], 0
    for rank in range(world):
        end = start + base + (1 if rank < extra else 0)
        blocks.append((start, end))
        start = end
    return blocks


@dataclass(frozen=True)
class RankLayout:
    rows: str
    split: Tuple[str, ...]

    @classmethod
    def of(cls, challenge: Any) -> Optional["RankLayout"]:
        """The challenge's layout, or None for a single-GPU challenge."""
        if int(getattr(challenge, "num_gpus", 1) or 1) <= 1:
            return None
        layout = getattr(challenge, "get_rank_layout", None)
        if layout is None:
            raise Stop(V.JUDGE_ERROR, "num_gpus > 1, but the challenge has no get_rank_layout")
        raw = layout()
        return cls(str(raw["rows"]), tuple(str(name) for name in raw["split"]))

    def shard(
        self, values: Dict[str, Any], rank: int, world: int, device: str, rows: int
    ) -> Dict[str, Any]:
        """Rank `rank`'s values: its rows of the split tensors, its row count, the rest whole
        (every tensor a fresh copy on the rank's device)."""
        start, end = row_blocks(rows, world)[rank]
        shard: Dict[str, Any] = {}
        for name, value in values.items():
            if name == self.rows:
                shard[name] = end - start
            elif hasattr(value, "clone"):
                part = value[start:end] if name in self.split else value
                shard[name] = part.to(device).clone().contiguous()
            else:
                shard[name] = value
        return shard


class ShardedArgs:
    """One GuardedArgs per rank; `values` is the whole case as the ranks left it (split tensors
    joined in rank order, a replicated output as the rank farthest from the expected one holds
    it, other tensors as rank 0 holds them), for the proofs' measurements."""

    def __init__(self, layout: RankLayout, ranks: List[Any]):
        self.layout = layout
        self.ranks = ranks
        #: per replicated output, the rank farthest from the expected value (set by the check)
        self.worst: Dict[str, int] = {}

    @property
    def values(self) -> Dict[str, Any]:
        import torch

        joined = dict(self.ranks[0].values)
        for name, rank in self.worst.items():
            joined[name] = self.ranks[rank].values[name].to(joined[name].device)
        for name in self.layout.split:
            joined[name] = torch.cat([r.values[name].to(joined[name].device) for r in self.ranks])
        return joined


class RankedViolation:
    def __init__(self, rank: int, world: int, violation: Any):
        self.rank, self.world, self.violation = rank, world, violation

    def describe(self) -> str:
        return f"rank {self.rank} of {self.world}: {self.violation.describe()}"


class RankGroup:
    """G solution processes as one process group: started together (one sandbox), asked
    together, watched together (the memory of the whole group, the death of any rank), and
    killed together."""

    def __init__(
        self,
        job: Dict[str, Any],
        params: List[Any],
        mode: Mode,
        world: int,
        backend: str,
        idle_rss: Callable[[], float] = lambda: 0.0,
    ):
        self.job, self.mode, self.world = job, mode, world
        #: the resident memory of the job's other groups, idle meanwhile (the limit is for all)
        self.idle_rss = idle_rss
        self.memory_limit = int(job["memory_limit"])
        artifact = Path(job["artifact"])
        inside = f"{SCRATCH}/solution/{artifact.name}"
        self.scratch = Path(tempfile.mkdtemp(prefix="chgen-ranks-"))
        pairs = [socket.socketpair() for _ in range(world)]
        env = solution_env(os.environ, SCRATCH if mode.sandboxed else str(self.scratch))
        inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_DIR.parent)] + inherited)
        store_name = f"chgen-store-{secrets.token_hex(8)}"
        if mode.sandboxed:
            binds = python_paths(inherited)
            argv = solution_argv(binds, {inside: str(artifact.resolve())}, job["device"]) + ["--"]
            artifact_path, store = inside, f"/tmp/{store_name}"
        else:
            target = self.scratch / "solution" / artifact.name
            target.parent.mkdir()
            shutil.copy(artifact, target)
            artifact_path, store = str(target), str(self.scratch / store_name)
            argv = []
            if mode.uid is not None:
                for path in [self.scratch, target.parent, target]:
                    os.chown(path, mode.uid, mode.uid)
        theirs = [str(b.fileno()) for _, b in pairs]
        argv += [sys.executable, "-m", "generator.judge.ranks", *theirs]
        launch_uid = None if mode.sandboxed else mode.uid
        if mode.sandboxed and mode.uid is not None:
            argv.append(f"--uid={mode.uid}")
        out_r, out_w = os.pipe()
        self.proc = subprocess.Popen(
            argv,
            cwd=str(self.scratch),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=out_w,
            pass_fds=[b.fileno() for _, b in pairs],
            user=launch_uid,
            group=launch_uid,
            extra_groups=[] if launch_uid is not None else None,
        )
        os.close(out_w)
        for _, b in pairs:
            b.close()
        self.output = OutputTail(out_r)
        self.channels = [Channel(a) for a, _ in pairs]
        self.dog = Watchdog(self.proc, 0.0, memory_bytes=self.memory_limit, also_rss=idle_rss)
        nproc = process_limit(
            mode.uid if mode.uid is not None else os.getuid(), job.get("side_by_side", 1)
        )
        hellos = [
            {
                "op": "hello",
                "device": rank_device(job["device"], rank),
                "language": job["language"],
                "params": param_rows(params),
                "artifact": artifact_path,
                "nproc": nproc,
                "memory_limit": self.memory_limit // world,
                "cpu_threads": job.get("cpu_threads"),
                "distributed": {"rank": rank, "world_size": world, "backend": backend,
                                "init_method": f"file://{store}"},  # fmt: skip
            }
            for rank in range(world)
        ]
        self.request_all(hellos, float(job.get("startup_timeout", 300)), "start-up")

    def request_all(
        self,
        messages: Sequence[Dict[str, Any]],
        limit: float,
        where: str,
        fds: Optional[Sequence[List[int]]] = None,
    ) -> List[Dict[str, Any]]:
        """One request per rank, sent to all before any reply is awaited (a collective needs
        every rank inside solve); a failure of any rank becomes the group's Stop."""
        replies: List[Optional[Dict[str, Any]]] = [None] * self.world

        def step(timeout: float) -> bool:
            for rank, channel in enumerate(self.channels):
                if replies[rank] is not None:
                    continue
                try:
                    replies[rank], _ = channel.receive(timeout=timeout / self.world)
                except socket.timeout:
                    continue
                if not replies[rank].get("ok"):
                    self._peer_died(where)
                    self.kill()
                    raise self._failure(rank, replies[rank])
            return all(reply is not None for reply in replies)

        self.dog.restart(limit)
        try:
            for rank, channel in enumerate(self.channels):
                channel.send(messages[rank], fds[rank] if fds else None)
            breach = self.dog.watch(step)
        except Refused as refused:
            self.kill()
            message = refusal_message(where, refused, "a rank")
            raise Stop(V.RUNTIME_ERROR, message, self.log()) from None
        except ChannelClosed:
            self._died(where)
        if breach is not None:
            self._breached(breach, where)
        return [reply for reply in replies if reply is not None]

    def _peer_died(self, where: str) -> None:
        """A rank that reports a broken collective may only have outlived a peer that died:
        the group (which ends when any rank ends) is given a moment to say so, a crash."""
        deadline = time.monotonic() + PEER_GRACE_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._died(where)
            time.sleep(POLL_S)

    def _failure(self, rank: int, reply: Dict[str, Any]) -> Stop:
        verdict = reply.get("verdict")
        message = f"rank {rank} of {self.world}: {str(reply.get('message', ''))[:500]}"
        return Stop(verdict if verdict in REPORTED else V.RUNTIME_ERROR, message,
                    str(reply.get("detail", "")))  # fmt: skip

    def _breached(self, breach: Breach, where: str) -> None:
        if breach.kind == TIME:
            self.kill()
            raise Stop(
                V.TIMEOUT,
                f"{where} ran past its {breach.limit:.0f} s limit on some of the {self.world} "
                "ranks; every rank was killed",
            )
        if breach.kind == MEMORY:
            self.kill()
            raise Stop(
                V.MEMORY_LIMIT,
                f"{where}: the ranks held {breach.rss / 2**20:.0f} MiB resident, over "
                f"the {self.memory_limit / 2**20:.0f} MiB limit; every rank was killed",
            )
        self._died(where)

    def _died(self, where: str) -> None:
        code = self.dog.wait_exit()
        self.kill()
        if code is None:  # a rank's channel closed, yet the group runs on: stopped at its limit
            raise Stop(
                V.TIMEOUT,
                f"{where} ran past its {self.dog.seconds:.0f} s limit on some of the {self.world} "
                "ranks; every rank was killed",
            )
        message = death_message(code, self.mode.sandboxed, "a rank", where)
        raise Stop(V.CRASH, f"{message}; every rank was killed", self.log())

    def log(self) -> str:
        self.output.thread.join(timeout=2)
        return self.output.text()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        stop_process(self.proc)

    def close(self) -> None:
        for channel in self.channels:
            try:
                channel.send({"op": "quit"})
            except ChannelClosed:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        shutil.rmtree(self.scratch, ignore_errors=True)


def visible_gpus(needed: int, visible: int) -> None:
    """One GPU per rank, and the example and the performance case run on num_gpus ranks (or on
    the ranks of --ranks): a machine with fewer GPUs cannot judge the challenge."""
    if visible < needed:
        raise Stop(
            V.JUDGE_ERROR,
            f"needs {needed} GPUs (one per rank), this machine has {visible}; "
            f"--ranks {max(1, visible)} judges every case on {V.rank_count(max(1, visible))}",
        )


def rank_device(device: str, rank: int) -> str:
    """One GPU per rank: rank r on cuda:r; on the CPU every rank on the CPU."""
    return f"cuda:{rank}" if device.startswith("cuda") else device


@contextmanager
def on_device(device: str) -> Iterator[None]:
    """Allocations (the arena's cuMemAlloc) land on the rank's GPU."""
    if device.startswith("cuda:"):
        import torch

        with torch.cuda.device(int(device.split(":")[1])):
            yield
    else:
        with nullcontext():
            yield


class Groups:
    """The process groups of one job, one per world size its cases use, each started on first
    use and kept while the others run (starting a group takes seconds, and the cases of a
    challenge alternate between sizes)."""

    def __init__(self, ranks: "Ranks"):
        self.ranks = ranks
        self.groups: Dict[int, RankGroup] = {}

    def of(self, world: int) -> RankGroup:
        """The group of `world` ranks: started anew when it is missing or was killed (a rank
        that raised leaves its peers waiting in a collective, so a failure kills the group)."""
        if world not in self.groups or not self.groups[world].alive:
            ranks, judge = self.ranks, self.ranks.judge
            if world in self.groups:
                self.groups.pop(world).close()
            judge.result.progress("load", float(judge.job.get("startup_timeout", 300)))

            def idle_rss() -> float:
                others = [g for size, g in self.groups.items() if size != world and g.alive]
                return float(sum(tree_usage(g.proc.pid)[0] for g in others))

            group = RankGroup(judge.job, judge.params, ranks.mode, world, ranks.backend, idle_rss)
            self.groups[world] = group
            group.request_all([{"op": "load"}] * world, ranks.startup, "load")
        return self.groups[world]

    def close(self) -> None:
        for group in self.groups.values():
            group.close()
        self.groups.clear()


class Ranks:
    """What a Judge does differently for num_gpus > 1 (the judge asks this part where it does):
    the same modes, each case spread over its ranks."""

    def __init__(self, judge: Any, layout: RankLayout):
        self.judge = judge
        self.layout = layout
        self.num_gpus = int(judge.challenge.num_gpus)
        self.startup = float(judge.job.get("startup_timeout", 300))
        self.arenas: List[Any] = []
        self.group: Optional[RankGroup] = None
        self.groups: Optional[Groups] = None
        #: --ranks N: every case on N ranks instead of its own (None: each case's own)
        self.forced = int(judge.job["ranks"]) if judge.job.get("ranks") else None
        #: the ranks the cases asked for, where `forced` replaced them
        self.replaced: set = set()

    def load(self) -> Groups:
        judge = self.judge
        language, env = judge.language, judge.result.data["env"]
        kind = "cuda" if judge.device.startswith("cuda") else "cpu"
        if not language.distributed:
            raise Stop(
                V.JUDGE_ERROR,
                f"{language.title} cannot take part in a multi-GPU challenge: "
                f"{language.distributed_refusal}",
            )
        if kind not in language.distributed_backends:
            raise Stop(V.JUDGE_ERROR, f"{language.title} runs its ranks on GPUs only")
        self.backend = language.distributed_backends[kind]
        if kind == "cuda":
            visible_gpus(self.forced or self.num_gpus, judge.torch.cuda.device_count())
        self.mode = Mode(**judge.job["sandbox"])
        env["sandbox"] = self.mode.describe()
        env["memory_limit"] = int(judge.job["memory_limit"])
        if self.forced:
            env["ranks"] = f"{self.backend}, every case on {V.rank_count(self.forced)} (--ranks)"
        else:
            env["ranks"] = f"{self.backend}, up to {self.num_gpus} ranks"
        self.groups = Groups(self)
        return self.groups

    def world_of(self, case: Any) -> int:
        world = int(getattr(case, "world_size", 0) or self.num_gpus)
        if not 1 <= world <= self.num_gpus:
            raise Stop(V.JUDGE_ERROR, f"case {case.name}: world_size {world} is not 1..num_gpus")
        if self.forced is None:
            return world
        self.replaced.add(world)
        self.judge.result.data["env"]["forced_ranks"] = {
            "ranks": self.forced,
            "instead_of": sorted(self.replaced),
        }
        return self.forced

    def survived(self, message: str) -> tuple:
        """A mutant that survived: on fewer ranks than its cases ask for, not provable there (on
        one rank every collective is the identity: a mistake in one cannot show)."""
        fewer = self.forced is not None and self.forced < max(self.replaced, default=0)
        if not fewer:
            return V.PASS, message
        instead = V.rank_choices(self.replaced)
        return (
            V.NOT_PROVABLE,
            f"{message} on {V.rank_count(self.forced)} instead of {instead}: not provable at "
            f"{V.rank_count(self.forced)}",
        )

    # ------------------------------------------------------------------ one case, G ranks
    def guarded_case(self, case: Any, seed: int) -> ShardedArgs:
        from generator.judge.guard import GuardedArgs
        from generator.judge.shared import Arena

        judge = self.judge
        self.release()
        world = self.world_of(case)
        self.rows = int(case.values[self.layout.rows])
        self.group = self.groups.of(world)
        ranks = []
        for rank in range(world):
            device = rank_device(judge.device, rank)
            with on_device(device):
                arena = Arena(device)
                self.arenas.append(arena)
                shard = self.layout.shard(case.values, rank, world, device, self.rows)
                ranks.append(GuardedArgs(judge.params, shard, seed + rank, judge.band, arena))
        self.pristine = [
            self.layout.shard(case.values, rank, world, rank_device(judge.device, rank), self.rows)
            for rank in range(world)
        ]
        return ShardedArgs(self.layout, ranks)

    def release(self) -> None:
        if self.arenas and self.group is not None and self.group.alive:
            world = self.group.world
            self.group.request_all([{"op": "release"}] * world, self.judge.timeout, "release")
        for arena in self.arenas:
            arena.close()
        self.arenas = []

    def call(self, guarded: Any, where: str, extra: Optional[Dict[str, Any]] = None) -> None:
        try:
            requests = [{"op": "case", **r.describe(), **(extra or {})} for r in guarded.ranks]
        except TypeError as exc:
            raise Stop(V.JUDGE_ERROR, str(exc)) from None
        fds = [arena.fds for arena in self.arenas]
        self.group.request_all(requests, self.judge.timeout, where, fds)

    def check(self, guarded: Any, expected: Dict[str, Any]) -> Any:
        """Every rank against its own share: its bands, its inputs, its rows of the split
        outputs and the whole of every other output (identical on every rank)."""
        from generator.judge.oracle import tolerance_ratio

        judge = self.judge
        world, tolerance = len(guarded.ranks), (judge.atol, judge.rtol)
        for name, want in expected.items():
            if name not in self.layout.split:
                ratios = [
                    tolerance_ratio(r.values[name], want.to(r.values[name].device), *tolerance)
                    for r in guarded.ranks
                ]
                guarded.worst[name] = max(range(world), key=lambda rank: ratios[rank])
        reports = []
        for rank, args in enumerate(guarded.ranks):
            device = rank_device(judge.device, rank)
            want = self.layout.shard(expected, rank, world, device, self.rows)
            want = {name: want[name] for name in expected}
            try:
                violation = args.first_violation()
                if violation is not None:
                    raise Stop(V.OUT_OF_BOUNDS, RankedViolation(rank, world, violation).describe())
                reports.append(judge.check_one(args, self.pristine[rank], want))
            except Stop as stop:
                if not stop.message.startswith("rank "):
                    stop.message = f"rank {rank} of {world}: {stop.message}"
                raise
        # a NaN error is the worst of all
        return max(
            reports, key=lambda report: math.inf if math.isnan(report.max_abs) else report.max_abs
        )

    # ---------------------------------------------------------------------- timing
    def perf(self, solution: Any) -> None:
        """The performance case, judged; then timed on every rank at once (each repetition
        starts together behind a barrier): a call takes as long as its slowest rank."""
        from generator.judge.cases import performance
        from generator.judge.timing import PerfOptions, PerfReport, Timing, copy_bandwidth

        judge = self.judge
        options = PerfOptions.from_json(judge.job.get("perf_options"))
        judge.result.progress("performance setup", max(judge.timeout, 300.0), "performance")
        try:
            case = performance(judge.challenge, judge.params, judge.seed)
        except Exception as exc:
            raise Stop(V.JUDGE_ERROR, f"performance case: {exc}") from None
        entry, guarded, expected = judge.run_case(solution, case)
        if any(p.is_tensor and p.direction == "inout" for p in judge.params):
            raise Stop(V.JUDGE_ERROR, "timing ranks with inout tensors is not supported")
        limit = 3 * options.budget_s + 2 * judge.timeout + 120
        judge.result.progress("timing", limit, "performance")
        request = {"op": "time_ranks", "options": options.__dict__}
        started = time.monotonic()
        replies = self.group.request_all([request] * self.group.world, limit, "timing")
        wall_s = time.monotonic() - started
        try:
            self.check(guarded, expected)
        except Stop as stop:
            entry.update({"verdict": stop.verdict, "message": stop.message})
            raise
        try:
            per_rank = [[float(x) for x in reply["samples_ms"]] for reply in replies]
        except (KeyError, TypeError, ValueError):
            raise Stop(V.RUNTIME_ERROR, "a rank sent no timing") from None
        count = min(len(samples) for samples in per_rank)
        slowest = [max(samples[i] for samples in per_rank) for i in range(count)]
        if not slowest or min(slowest) < 0 or sum(slowest) > wall_s * 1e3:
            raise Stop(V.RUNTIME_ERROR, "timing: the reported samples do not fit the wall time")
        timing = Timing(slowest, str(replies[0].get("clock", "host")), True, wall_s)
        min_bytes = judge.job.get("min_bytes") or judge.tensor_traffic(case.values)
        world = self.group.world
        note = f"the slowest of {world} ranks per call" if world > 1 else "timed on 1 rank"
        report = PerfReport(timing, copy_bandwidth(judge.device, options), min_bytes, note)
        perf = report.to_json()
        perf["min_bytes_from"] = "spec" if judge.job.get("min_bytes") else "tensor sizes"
        judge.result.data["perf"] = perf
