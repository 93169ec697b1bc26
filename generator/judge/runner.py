"""The parent side: build (cached), start a worker per solution, watch it, classify how it ended.

The parent never imports torch or the challenge. The worker (which never loads the solution)
reports over a pipe only the parent and the worker hold, one JSON line per update naming the
running phase, its case and its limit (each at most MAX_UPDATE bytes: the worker runs the
challenge's code, so what it sends is data, never unpickled, and a line that is no update is
refused); the parent times each phase on its own clock (the watchdog) and, past the limit plus a
grace (the worker enforces the limit itself first), kills the whole process tree, descendants
that left the session included. A worker that dies without a final verdict is a crash. The job
travels on the worker's stdin, so no file in a shared folder holds its seed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.isolation.channel import Lines, Refused
from generator.isolation.limits import default_memory_limit
from generator.isolation.probe import probe
from generator.isolation.process import kill_tree, signal_name
from generator.isolation.watchdog import Watchdog
from generator.judge import verdicts as V
from generator.judge.cache import PACKAGE_ROOT, Cache, fields_fingerprint, file_sha, key_of
from generator.judge.toolchains import gpus, package_versions
from generator.languages import BY_KEY
from generator.languages.base import BuildError
from generator.resources import package_fingerprint
from generator.toolchain.tools import MOJO_ENV, tool_version

#: The most elements one tensor of a case may have for an interpreter (Triton's) on the CPU;
#: cases with a larger tensor are skipped and named (`--cpu-max-elements` raises it).
INTERPRETER_MAX_ELEMENTS = 100_000
LOG_TAIL = 3000
#: Seconds the parent gives the worker beyond a phase's limit (the worker enforces it first).
GRACE_S = 30.0
#: The longest update the worker may send (its whole report so far, every case's row in it).
MAX_UPDATE = 16 << 20
_SAID_UNSANDBOXED = False


def random_seed() -> int:
    """A run's secret seed: drawn per run unless the caller fixes one."""
    return secrets.randbelow(2**31 - 16)


@dataclass
class Job:
    """One solution file to judge against one challenge."""

    challenge_dir: Path
    source: Path
    language: str
    device: str = "cpu"
    perf: bool = False
    functional: bool = True
    timeout: float = 60.0
    startup_timeout: float = 300.0
    seed: int = 0
    target: Optional[str] = None
    artifact: Optional[Path] = None  # prebuilt (for native languages)
    prebuilt_build: Optional[Dict[str, Any]] = None  # the bundle's build record
    case_names: Optional[List[str]] = None
    max_case_elements: Optional[int] = None
    #: the interpreter's limit on the CPU (max_case_elements there); None: INTERPRETER_MAX_ELEMENTS
    cpu_max_elements: Optional[int] = None
    min_bytes: Optional[float] = None
    perf_options: Dict[str, Any] = field(default_factory=dict)
    mojo_runtime: Optional[Path] = None
    band_bytes: int = 64 * 1024
    extra_seeds: List[int] = field(default_factory=list)  # correctness only, after `seed`
    oracle: Optional[Dict[str, Any]] = None  # the spec's float64 oracle (plan JSON)
    accuracy_floor: Optional[Dict[str, Any]] = None  # the spec's floor (plan JSON)
    mutant: bool = False  # a known mistake: every functional case, none stopping the job
    reference: bool = False  # the challenge's reference against `oracle`; no solution is loaded
    #: a derived file (generator/judge/derived.py): the tolerance audit, its `solve` (the
    #: reference) as a solution, then each of `variants` ({name, entry}) on every functional case
    derived: bool = False
    variants: List[Dict[str, Any]] = field(default_factory=list)
    memory_limit: Optional[int] = None  # bytes, the solution's process tree; None: the default
    sandbox: bool = True  # bubblewrap where the system has it
    #: a multi-GPU challenge: every case on this many ranks instead of its own (--ranks)
    ranks: Optional[int] = None
    #: a spec's baseline: its solve may return its outputs and it may `prepare` off the clock
    #: (generator/judge/baseline.py)
    baseline: bool = False
    #: built for `target` only, never run (a starter built for each GPU the platform lists)
    build_only: bool = False
    #: how many jobs the run holds at once (they share the solutions' user and its process
    #: limit); not part of the verdict's cache key
    side_by_side: int = field(default=1, metadata={"fingerprint": False})


@dataclass
class BuildOutcome:
    ok: bool
    artifact: Optional[Path]
    message: str = ""
    seconds: float = 0.0
    cached: bool = False
    toolchain_missing: bool = False

    def to_json(self) -> Dict[str, Any]:
        return {
            "ok": self.ok,
            "message": self.message,
            "seconds": round(self.seconds, 3),
            "cached": self.cached,
        }


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def toolchain_id(language: str) -> Any:
    """The version of the tool that builds the language (the Python version for the others)."""
    tool = BY_KEY[language].build_tool
    return tool_version(tool) if tool else package_versions()["python"]


def build_key(language: str, source: Path, target: Optional[str]) -> str:
    return key_of(
        {
            "language": language,
            "source": file_sha(source),
            "target": target,
            "toolchain": toolchain_id(language),
            "chgen": package_fingerprint(),
        }
    )


def build(language: str, source: Path, target: Optional[str], cache: Cache) -> BuildOutcome:
    """Compile (native) or syntax-check (Python) a source, through the build cache."""
    adapter = BY_KEY[language]
    if not adapter.native:
        started = time.perf_counter()
        try:
            adapter.build(source, source.parent, target)
        except BuildError as exc:
            return BuildOutcome(False, None, str(exc), time.perf_counter() - started)
        return BuildOutcome(True, source, "", time.perf_counter() - started)
    if toolchain_id(language) is None:
        message = f"{adapter.build_tool} not found"
        return BuildOutcome(False, None, message, toolchain_missing=True)
    key = build_key(language, source, target)
    with cache.lock(key):
        record = cache.read_build(key)
        if record is not None:
            artifact = cache.build_dir(key) / "solution.so" if record["ok"] else None
            if artifact is None or artifact.is_file():
                return BuildOutcome(
                    record["ok"], artifact, record["message"], record["seconds"], cached=True
                )
        workdir = cache.new_build_dir()
        started = time.perf_counter()
        try:
            adapter.build(source, workdir, target)
            ok, message = True, ""
        except BuildError as exc:
            ok, message = False, str(exc)
        except FileNotFoundError as exc:
            return BuildOutcome(False, None, str(exc), toolchain_missing=True)
        seconds = time.perf_counter() - started
        record = {"ok": ok, "message": message, "seconds": seconds, "target": target}
        record["toolchain"] = toolchain_id(language)
        final = cache.commit_build(key, workdir, record)
        return BuildOutcome(ok, final / "solution.so" if ok else None, message, seconds)


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def result_for(job: Job, verdict: str, message: str, detail: str = "") -> Dict[str, Any]:
    return {
        "verdict": verdict,
        "message": message,
        "detail": detail,
        "cases": [],
        "skipped": [],
        "seeds": [],
        "perf": None,
        "language": job.language,
        "source": display(job.source),
        "challenge": job.challenge_dir.name,
        "device": job.device,
        "cached": False,
    }


def judge(job: Job, cache: Optional[Cache] = None) -> Dict[str, Any]:
    """Build and run one job; always returns a result (never raises for a solution's fault)."""
    cache = cache or Cache()
    started = time.perf_counter()
    if job.language not in BY_KEY:
        return result_for(job, V.JUDGE_ERROR, f"unknown language {job.language!r}")
    if not job.source.is_file():
        return result_for(job, V.JUDGE_ERROR, f"no such file: {display(job.source)}")
    outcome = _build_for(job, cache)
    if outcome.toolchain_missing:
        result = result_for(job, V.JUDGE_ERROR, outcome.message)
    elif not outcome.ok:
        result = result_for(job, V.BUILD_ERROR, first_line(outcome.message), outcome.message)
    elif job.build_only and BY_KEY[job.language].native:
        result = result_for(job, V.BUILT, f"compiled for {job.target}")
    elif job.device == "cpu" and BY_KEY[job.language].native:
        result = result_for(job, V.BUILT, f"compiled for {job.target}; a GPU is needed to run it")
    else:
        result = _run(job, outcome.artifact, cache)
    result["build"] = outcome.to_json()
    result["seconds"] = round(time.perf_counter() - started, 3)
    return result


def _build_for(job: Job, cache: Cache) -> BuildOutcome:
    if job.prebuilt_build is not None:
        record = job.prebuilt_build
        artifact = job.artifact if record.get("ok") else None
        native = BY_KEY[job.language].native
        if record.get("ok") and native and not (artifact and artifact.is_file()):
            message = f"prebuilt artifact missing: {artifact}"
            return BuildOutcome(False, None, message, toolchain_missing=True)
        return BuildOutcome(
            bool(record.get("ok")),
            artifact or (job.source if record.get("ok") else None),
            record.get("message", ""),
            float(record.get("seconds", 0.0)),
            cached=True,
            toolchain_missing=bool(record.get("toolchain_missing")),
        )
    return build(job.language, job.source, job.target, cache)


def modes_for(job: Job) -> List[str]:
    adapter = BY_KEY[job.language]
    if job.device == "cpu" and adapter.compiles_in_worker:
        return ["compile"]
    if job.reference:
        return ["oracle"]
    if job.derived and job.functional:
        return ["derived"]
    if job.mutant:
        return ["mutant"]
    modes = ["functional"] if job.functional else []
    if job.perf and not (job.device == "cpu" and adapter.interpreted_on_cpu):
        modes.append("perf")
    return modes


def run_key(job: Job, artifact: Path, modes: List[str]) -> str:
    """Every field of the job (files by content), plus what the job does not say: the built
    artifact, the shared base class, the machine, the packages and chgen itself."""
    core = [p / "core" / "challenge_base.py" for p in job.challenge_dir.resolve().parents]
    core_file = next((p for p in core if p.is_file()), None)
    return key_of(
        {
            "job": fields_fingerprint(job),
            "artifact": file_sha(artifact),
            "core": file_sha(core_file) if core_file else None,
            "modes": modes,
            "gpu": [(g["name"], g["driver"]) for g in gpus()] if job.device != "cpu" else None,
            "packages": package_versions(),
            "cute_site": os.environ.get("CHGEN_CUTE_SITE"),
            "chgen": package_fingerprint(),
        }
    )


def worker_env(job: Job, modes: List[str]) -> Dict[str, str]:
    # a Ray task's own variables (its cluster's token among them) stay with the task
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    # The worker runs in a folder of its own: relative entries (a baseline's library on
    # PYTHONPATH, the CuTe site) are made absolute so that they still mean the same place.
    inherited = [str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT.parent)] + inherited)
    if env.get("CHGEN_CUTE_SITE"):
        env["CHGEN_CUTE_SITE"] = str(Path(env["CHGEN_CUTE_SITE"]).resolve())
    env.update(MOJO_ENV)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # JAX and torch share the GPU: JAX must not reserve most of its memory up front.
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    if job.device == "cpu":
        env["JAX_PLATFORMS"] = "cpu"
        env["CUDA_VISIBLE_DEVICES"] = ""
    env.update(BY_KEY[job.language].worker_env(job.device, job.target))
    return env


def _run(job: Job, artifact: Path, cache: Cache) -> Dict[str, Any]:
    modes = modes_for(job)
    adapter = BY_KEY[job.language]
    if job.device == "cpu" and adapter.interpreted_on_cpu and job.max_case_elements is None:
        limit = job.cpu_max_elements or INTERPRETER_MAX_ELEMENTS
        job = dataclasses.replace(job, max_case_elements=limit)
    elif job.device == "cpu" and job.derived and job.max_case_elements is None:
        # the derived proofs run the reference many times: --cpu-max-elements bounds them too
        job = dataclasses.replace(job, max_case_elements=job.cpu_max_elements)
    key = run_key(job, artifact, modes)
    cached = cache.read_run(key)
    if cached is not None:
        cached["cached"] = True
        return cached
    result = run_worker(job, artifact, modes)
    if job.perf and "perf" not in modes and result["verdict"] == V.PASS:
        result["message"] += f"; not timed (the {adapter.title} interpreter is no measure of speed)"
    if result["verdict"] not in (V.TIMEOUT, V.JUDGE_ERROR):
        cache.write_run(key, result)
    return result


def sandbox_mode(job: Job) -> Any:
    """The sandbox this machine gives solutions; "unsandboxed" is said once per process."""
    global _SAID_UNSANDBOXED
    mode = probe(job.sandbox, job.device)
    if not mode.sandboxed and not _SAID_UNSANDBOXED:
        _SAID_UNSANDBOXED = True
        print(f"chgen judge: {mode.describe()}; the limits still apply", file=sys.stderr)
    return mode


def run_worker(job: Job, artifact: Path, modes: List[str]) -> Dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="chgen-judge-") as tmp:
        rundir = Path(tmp)
        payload = {
            "challenge_dir": str(job.challenge_dir.resolve()),
            "language": job.language,
            "artifact": str(artifact.resolve()),
            "source": str(job.source.resolve()),
            "device": job.device,
            "modes": modes,
            "seed": job.seed,
            "timeout": job.timeout,
            "startup_timeout": job.startup_timeout,
            "target": job.target,
            "case_names": job.case_names,
            "max_case_elements": job.max_case_elements,
            "min_bytes": job.min_bytes,
            "perf_options": job.perf_options,
            "mojo_runtime": str(job.mojo_runtime) if job.mojo_runtime else None,
            "band_bytes": job.band_bytes,
            "extra_seeds": job.extra_seeds,
            "oracle": job.oracle,
            "accuracy_floor": job.accuracy_floor,
            "memory_limit": job.memory_limit or default_memory_limit(),
            "sandbox": dataclasses.asdict(sandbox_mode(job)),
            "ranks": job.ranks,
            "baseline": job.baseline,
            "variants": job.variants,
            "side_by_side": job.side_by_side,
        }
        from generator.judge.pool import active

        pool = active()
        if pool is not None:
            return _run_pooled(pool, job, payload, worker_env(job, modes))
        read_fd, write_fd = os.pipe()
        with open(rundir / "stdout.log", "wb") as out, open(rundir / "stderr.log", "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "generator.judge.worker", str(write_fd)],
                cwd=str(rundir),
                env=worker_env(job, modes),
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                pass_fds=[write_fd],
                start_new_session=True,
            )
            os.close(write_fd)
            try:
                proc.stdin.write(json.dumps(payload).encode())
                proc.stdin.close()
            except OSError:
                pass
            state, killed, refusal = _watch(proc, read_fd, job.startup_timeout)
        logs = _tail(rundir / "stderr.log") + _tail(rundir / "stdout.log")
        return _outcome(job, state, killed, refusal, proc.returncode, logs)


def _run_pooled(pool: Any, job: Job, payload: Dict[str, Any], env: Dict[str, str]) -> Dict:
    """The job on a warm worker (generator/judge/pool.py), given back when it may run another."""
    from generator.judge.pool import reusable

    worker = pool.take(env, job.language)
    try:
        worker.send(payload)
    except OSError:  # it died while idle: a fresh one
        worker.kill()
        worker = pool.take(env, job.language)
        worker.send(payload)
    state, killed, refusal = _watch(worker.proc, worker.read_fd, job.startup_timeout, pooled=True)
    if killed is None and refusal is None and reusable(state) and worker.alive():
        pool.give_back(worker)
        returncode = 0
    else:
        if worker.alive():
            worker.kill()
        returncode = worker.proc.returncode or 0
    return _outcome(job, state, killed, refusal, returncode, _tail(worker.log))


def _outcome(
    job: Job,
    state: Dict[str, Any],
    killed: Optional[float],
    refusal: Optional[str],
    returncode: int,
    logs: str,
) -> Dict[str, Any]:
    """The result of a watched worker: its verdict, or how it ended without one."""
    result = result_for(job, V.CRASH, "")
    for name in ("cases", "skipped", "seeds", "perf", "env", "audit", "variants"):
        if state.get(name) is not None:
            result[name] = state[name]
    where = _where(state)
    if killed is not None:
        result["verdict"] = V.TIMEOUT
        result["message"] = f"{where} ran past its {killed:.0f} s limit; the worker was killed"
        result["detail"] = logs
    elif refusal is not None:
        result["verdict"] = V.JUDGE_ERROR
        result["message"] = (
            f"the worker sent what chgen refuses ({refusal}) during {where}; it was killed"
        )
        result["detail"] = logs
    elif state.get("done"):
        for name in ("verdict", "message", "detail"):
            result[name] = state.get(name, "")
    elif returncode < 0:
        name = signal_name(-returncode)
        result["message"] = f"worker killed by {name} during {where}"
        result["detail"] = logs
    else:
        result["message"] = (
            f"worker exited with status {returncode} during {where} without a verdict"
        )
        result["detail"] = logs
    return result


def _watch(
    proc: subprocess.Popen, read_fd: int, startup_timeout: float, pooled: bool = False
) -> tuple:
    """Read the worker's updates until its pipe closes (a warm worker, `pooled`: until its job is
    done, leaving it running); kill its tree when a phase overstays its limit plus GRACE_S on
    this process's clock, or it sends what is no update. Returns (last state, the limit exceeded
    or None, why what it sent was refused or None)."""
    state: Dict[str, Any] = {}
    dog = Watchdog(proc, startup_timeout, grace=GRACE_S, exits=False)
    lines = Lines(MAX_UPDATE)

    def step(timeout: float) -> bool:
        nonlocal state
        ready, _, _ = select.select([read_fd], [], [], timeout)
        if not ready:
            return False
        data = os.read(read_fd, 1 << 16)
        if not data:
            return True
        for update in lines.feed(data):
            if update.get("since") != state.get("since") or update.get("phase") != state.get(
                "phase"
            ):
                dog.restart()
            state = update
            dog.seconds = _limit(state.get("limit"), startup_timeout)
        return pooled and bool(state.get("done"))

    killed, refusal = None, None
    try:
        breach = dog.watch(step, poll=0.2)
        killed = breach.limit if breach is not None else None
    except Refused as exc:
        refusal = str(exc)
    if pooled and killed is None and refusal is None and state.get("done"):
        return state, None, None  # the worker waits for its next job
    os.close(read_fd)
    kill_tree(proc.pid)
    proc.wait()
    return state, killed, refusal


def _limit(value: Any, default: float) -> float:
    """A phase's limit as the worker gives it (a number of seconds), else `default`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    return default


def _where(state: Dict[str, Any]) -> str:
    phase = state.get("phase") or "start-up"
    if phase == "case" and state.get("case"):
        return f"case {state['case']}"
    if state.get("case"):
        return f"{phase} ({state['case']})"
    return phase


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-LOG_TAIL:].decode("utf-8", errors="replace")
