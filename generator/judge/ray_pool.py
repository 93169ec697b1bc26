"""The jobs of `chgen test` on a Ray cluster (`--ray ADDRESS`, `--ray local` starts one here).

Beside pool.py and with its interface: inside `serving(address)`, `pool.judge(job, cache)`
stands for `runner.judge(job, cache)`. A native build (nvcc, mojo) is a CPU task of its own;
the job itself is a task asking for `num_gpus` GPUs (one, or a multi-GPU challenge's G; none on
the CPU), and that task runs `runner.judge`, the very function a local run runs: the build is
found in the cache, the solution runs in a judge worker and a sandboxed solution process, as
here. Ray gives the task its GPUs in CUDA_VISIBLE_DEVICES, which the judge worker inherits.

What crosses the cluster is JSON text both ways (the job's fields, the result): a task never
returns an object for the parent to unpickle. The nodes must see the challenge, solution and
cache paths at the same place (one machine, or a shared file system) and have chgen installed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

from generator.judge import verdicts as V
from generator.judge.cache import Cache
from generator.judge.runner import Job, result_for
from generator.languages import BY_KEY

#: `--ray local`: start a cluster on this machine for the run, and stop it after
LOCAL = "local"
#: where Ray finds a cluster's token (else in ~/.ray/auth_token, which it writes)
TOKEN_VARIABLES = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


class RayError(Exception):
    """The cluster cannot be reached or started; the message is the one line to show."""


def job_to_json(job: Job) -> Dict[str, Any]:
    """The job's fields as JSON (paths as text)."""
    data = {f.name: getattr(job, f.name) for f in dataclasses.fields(job)}
    return {k: str(v) if isinstance(v, Path) else v for k, v in data.items()}


def job_from_json(data: Dict[str, Any]) -> Job:
    """The inverse of job_to_json: the fields declared as paths become paths again."""
    values = {}
    for f in dataclasses.fields(Job):
        value = data[f.name]
        if "Path" in str(f.type) and value is not None:
            value = Path(value)
        values[f.name] = value
    return Job(**values)


def build_task(language: str, source: str, target: Optional[str], cache_root: str) -> str:
    """A CPU task: the build, into the shared build cache; its record as JSON."""
    from generator.judge.runner import build

    outcome = build(language, Path(source), target, Cache(Path(cache_root)))
    return json.dumps({**outcome.to_json(), "toolchain_missing": outcome.toolchain_missing})


def judge_task(job: str, cache_root: str, reuse: bool, cwd: str, built: Any = None) -> str:
    """A job: `runner.judge` as a local run calls it (`built`, the build task's record, only
    orders the two); the result as JSON text. Paths are shown relative to the caller's folder."""
    from generator.judge.runner import judge

    if os.path.isdir(cwd):
        os.chdir(cwd)
    result = judge(job_from_json(json.loads(job)), Cache(Path(cache_root), reuse=reuse))
    return json.dumps(result)


def gpu_request(job: Job, gpus: int, share: int) -> float:
    """The GPUs a job's task asks Ray for. A correctness job of a one-GPU challenge takes
    1/`share` of a GPU, so `share` of them run on one GPU at once, as a local run's `--jobs` do;
    a timed job takes a whole GPU (nothing else may run beside the clock), a multi-GPU job its
    `gpus` whole GPUs, and a job on the CPU or a build-only job none."""
    if job.device != "cuda" or job.build_only:
        return 0
    if gpus == 1 and not job.perf:
        return 1 / max(1, share)
    return gpus


class RayPool:
    """Jobs sent to the cluster `ray` is connected to; `gpu_share` correctness jobs share a GPU."""

    def __init__(self, ray: Any, gpu_share: int = 1) -> None:
        self.ray = ray
        self.gpu_share = max(1, gpu_share)
        self.build_remote = ray.remote(build_task)
        self.judge_remote = ray.remote(judge_task)
        resources = ray.cluster_resources()
        #: jobs the cluster runs at once (one CPU each): the caller keeps that many in flight
        self.slots = max(1, int(resources.get("CPU", 1)))
        #: the most GPUs one node has: a job needing more could never be scheduled
        self.node_gpus = max(
            [int(n.get("Resources", {}).get("GPU", 0)) for n in ray.nodes() if n.get("Alive")]
            or [0]
        )

    def judge(self, job: Job, cache: Cache, gpus: int = 1) -> Dict[str, Any]:
        """`runner.judge(job, cache)` on the cluster; `gpus`: the GPUs the job needs (a
        multi-GPU challenge's count; ignored on the CPU)."""
        request = gpu_request(job, gpus, self.gpu_share)
        if request > self.node_gpus:
            return result_for(
                job,
                V.JUDGE_ERROR,
                f"needs {request:g} GPU(s) on one node; the Ray cluster's largest node has "
                f"{self.node_gpus}",
            )
        built = None
        if BY_KEY[job.language].native and job.prebuilt_build is None and job.source.is_file():
            built = self.build_remote.options(num_cpus=1).remote(
                job.language, str(job.source.resolve()), job.target, str(cache.root)
            )
        payload = json.dumps(job_to_json(job))
        task = self.judge_remote.options(num_cpus=1, num_gpus=request)
        ref = task.remote(payload, str(cache.root), cache.reuse, os.getcwd(), built)
        try:
            text = self.ray.get(ref)
        except Exception as exc:  # the task's worker or node died, the cluster went away
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            return result_for(job, V.JUDGE_ERROR, f"the Ray task ended without a result: {first}")
        if not isinstance(text, str):
            return result_for(job, V.JUDGE_ERROR, "the Ray task returned no JSON text")
        return json.loads(text)


def unreachable(address: str, timeout: float = 5.0) -> Optional[str]:
    """Why `host:port` (or `ray://host:port`) takes no connection, None when it does or when the
    address is no host and port ("auto"): ray.init itself retries a silent address for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return None
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


@contextlib.contextmanager
def serving(
    address: str,
    num_cpus: Optional[int] = None,
    temp_dir: Optional[Path] = None,
    gpu_share: int = 1,
) -> Iterator[RayPool]:
    """Connected to the cluster at `address` (LOCAL: one started here with `num_cpus` CPUs and
    its files in `temp_dir`, a fresh temporary folder by default), `gpu_share` correctness jobs
    to a GPU; on leaving, disconnected, the cluster started here stopped and the folder made for
    it removed."""
    from generator import extras

    try:
        extras.require("ray", "chgen test --ray")
        import ray
    except (extras.MissingExtra, ImportError) as exc:
        raise RayError(str(exc)) from None
    if ray.is_initialized():
        raise RayError("this process is already connected to a Ray cluster")
    why = unreachable(address) if address != LOCAL else None
    if why is not None:
        raise RayError(f"--ray {address}: could not start or reach the cluster: {why}")
    options: Dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": "error",
    }
    made = None
    settings = {"RAY_USAGE_STATS_ENABLED": os.environ.get("RAY_USAGE_STATS_ENABLED", "0")}
    if address == LOCAL and not any(os.environ.get(name) for name in TOKEN_VARIABLES):
        # Ray guards a cluster it starts with a token, written to ~/.ray unless one is given:
        # a fresh one for this run, held in the environment only.
        settings["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    restore = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    if address == LOCAL:
        if temp_dir is None:
            temp_dir = made = Path(tempfile.mkdtemp(prefix="chgen-ray-"))
        options.update(num_cpus=num_cpus, _temp_dir=str(Path(temp_dir).resolve()))
    else:
        options["address"] = address
    try:
        ray.init(**options)
    except Exception as exc:  # ConnectionError, a timeout, a refused start: one line
        cleanup(made, restore)
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise RayError(f"--ray {address}: could not start or reach the cluster: {first}") from None
    try:
        yield RayPool(ray, gpu_share)
    finally:
        ray.shutdown()
        cleanup(made, restore)


def cleanup(made: Optional[Path], restore: Dict[str, Optional[str]]) -> None:
    """The folder made for a local cluster removed, the environment as it was."""
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)
    for name, value in restore.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
