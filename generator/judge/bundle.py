"""Build here, run there: a self-contained folder of everything a plan needs at run time.

    DIR/plan.json               the plan, paths relative to DIR, build records, min_bytes, targets
    DIR/tree-<n>/challenges/... the challenge folders and their core/ (LeetGPU layout), one
                                folder per distinct tree
    DIR/sources/<job>/<file>    every judged file (starters, solutions, baselines, hostile cases)
    DIR/artifacts/<sha>.so.gz   CUDA and Mojo shared libraries, built for the plan's targets
                                (gzip: a CUDA library carries its static runtime, ~1 MB)
    DIR/mojo-runtime.tar.gz     the five Mojo runtime libraries (only when Mojo jobs built)

The building machine needs the toolchains (nvcc, mojo, the CuTe DSL for its compile-check) and
pydantic; the running machine needs torch (and triton/jax for those languages) and, for CuTe, the
CuTe DSL wheels installed somewhere named by CHGEN_CUTE_SITE.
"""

from __future__ import annotations

import dataclasses
import gzip
import shutil
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from generator.judge.cache import Cache, file_sha
from generator.judge.challenge import ChallengeError, tree_root
from generator.judge.plan import Plan, PlanChallenge, PlanJob
from generator.judge.runner import Job, build, display, judge
from generator.judge.toolchains import machine_facts, target_for
from generator.languages import BY_KEY
from generator.toolchain.tools import MOJO_RUNTIME_LIBS, find_mojo_runtime

RUNTIME_ARCHIVE = "mojo-runtime.tar.gz"


class BundleError(Exception):
    pass


def _prepare(out: Path) -> None:
    if out.exists():
        if not (out / "plan.json").is_file() and any(out.iterdir()):
            raise BundleError(f"{out} exists and is not a bundle; choose an empty folder")
        shutil.rmtree(out)
    out.mkdir(parents=True)


def _copy_challenge(challenge: PlanChallenge, out: Path, trees: Dict[Path, str]) -> str:
    """Copy a challenge and its tree's core/; each distinct tree gets a folder of its own, so two
    trees' core/ never mix."""
    folder = Path(challenge.dir)
    if not (folder / "challenge.py").is_file():
        raise BundleError(f"{folder}: no challenge.py (run 'chgen generate' first?)")
    try:
        root = tree_root(folder)
    except ChallengeError as exc:
        raise BundleError(str(exc)) from None
    if root not in trees:
        trees[root] = f"tree-{len(trees)}/challenges"
        shutil.copytree(
            root / "core", out / trees[root] / "core", ignore=shutil.ignore_patterns("__pycache__")
        )
    relative = Path(trees[root]) / folder.resolve().relative_to(root)
    shutil.copytree(folder, out / relative, ignore=shutil.ignore_patterns("__pycache__"))
    return str(relative)


def _build_one(pj: PlanJob, plan: Plan, arch: Optional[str], cache: Cache) -> PlanJob:
    """Build (native), compile-check (CuTe, with CUTE_DSL_ARCH) or parse (Python) one job."""
    source = Path(pj.source)
    adapter = BY_KEY[pj.language]
    target = pj.target or target_for(pj.language, arch if adapter.native else None)
    if not source.is_file():
        record = {"ok": False, "message": f"no such file: {display(source)}"}
        return dataclasses.replace(pj, build=record, target=target)
    if adapter.compiles_in_worker:
        challenge = Path(plan.challenges[pj.challenge].dir)
        result = judge(Job(challenge, source, pj.language, device="cpu", target=target), cache)
        ok = result["verdict"] == "built"
        message = "" if ok else result.get("detail") or result["message"]
        if result["verdict"] == "judge_error":
            record = {"ok": False, "message": result["message"], "toolchain_missing": True}
        else:
            record = {"ok": ok, "message": message}
        return dataclasses.replace(pj, build=record, target=target)
    outcome = build(pj.language, source, target, cache)
    record = {"ok": outcome.ok, "message": outcome.message, "seconds": outcome.seconds}
    if outcome.toolchain_missing:
        record["toolchain_missing"] = True
    artifact = str(outcome.artifact) if outcome.ok and adapter.native else None
    return dataclasses.replace(pj, build=record, target=target, artifact=artifact)


def build_bundle(
    plan: Plan,
    out: Path,
    cache: Cache,
    arch: Optional[str] = None,
    jobs: int = 2,
    progress: Optional[Callable[[PlanJob, int, int], None]] = None,
) -> Tuple[Plan, int]:
    """Build every job of `plan` into the folder `out`; returns the bundle's plan and its size."""
    _prepare(out)
    challenges: Dict[str, PlanChallenge] = {}
    trees: Dict[Path, str] = {}
    for key, challenge in plan.challenges.items():
        folder = _copy_challenge(challenge, out, trees)
        challenges[key] = dataclasses.replace(challenge, dir=folder)
    built: List[PlanJob] = []
    counter = {"done": 0}

    def one(pj: PlanJob) -> PlanJob:
        result = _build_one(pj, plan, arch, cache)
        counter["done"] += 1
        if progress:
            progress(result, counter["done"], len(plan.jobs))
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        built = list(pool.map(one, plan.jobs))

    final: List[PlanJob] = []
    for pj in built:
        folder = out / "sources" / pj.id.replace("/", "__")
        folder.mkdir(parents=True, exist_ok=True)
        source = Path(pj.source)
        relative_source = folder.relative_to(out) / source.name
        if source.is_file():
            shutil.copy2(source, out / relative_source)
        artifact = None
        if pj.artifact:
            name = f"{file_sha(Path(pj.artifact))[:16]}.so.gz"
            (out / "artifacts").mkdir(exist_ok=True)
            with open(pj.artifact, "rb") as src, gzip.open(out / "artifacts" / name, "wb") as dst:
                shutil.copyfileobj(src, dst)
            artifact = f"artifacts/{name}"
        final.append(dataclasses.replace(pj, source=str(relative_source), artifact=artifact))

    if any(BY_KEY[pj.language].bundles_runtime and (pj.build or {}).get("ok") for pj in final):
        runtime = find_mojo_runtime()
        if runtime is None:
            raise BundleError("Mojo jobs built, but the Mojo runtime libraries were not found")
        with tarfile.open(out / RUNTIME_ARCHIVE, "w:gz", compresslevel=9) as archive:
            for name in MOJO_RUNTIME_LIBS:
                archive.add(runtime / name, arcname=name)

    meta = dict(plan.meta)
    meta.update({"built": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "build_machine": machine_facts()})
    bundle = Plan(challenges, final, meta)
    bundle.write(out / "plan.json")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return bundle, size


def _unpack(packed: Path, folder: Path) -> Path:
    """A bundled library, unzipped once into the cache (named by its content)."""
    target = folder / packed.name.removesuffix(".gz")
    if not target.is_file() and packed.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        with gzip.open(packed, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
        tmp.replace(target)
    return target


def load_bundle(folder: Path, cache: Cache) -> Tuple[Plan, Optional[Path]]:
    """The bundle's plan with absolute paths, and the unpacked Mojo runtime (if any)."""
    import json

    path = folder / "plan.json"
    if not path.is_file():
        raise BundleError(f"{folder}: no plan.json (build one with 'chgen test --build-only')")
    try:
        plan = Plan.from_json(json.loads(path.read_text()))
    except (ValueError, TypeError, KeyError) as exc:
        raise BundleError(f"{path}: {exc}") from None
    base = folder.resolve()
    for key, challenge in plan.challenges.items():
        plan.challenges[key] = dataclasses.replace(challenge, dir=str(base / challenge.dir))
    unpacked = cache.root / "prebuilt"
    plan.jobs = [
        dataclasses.replace(
            pj,
            source=str(base / pj.source),
            artifact=str(_unpack(base / pj.artifact, unpacked)) if pj.artifact else None,
        )
        for pj in plan.jobs
    ]
    runtime = None
    archive = folder / RUNTIME_ARCHIVE
    if archive.is_file():
        runtime = cache.root.resolve() / "mojo-runtime" / file_sha(archive)[:16]
        if not all((runtime / name).is_file() for name in MOJO_RUNTIME_LIBS):
            runtime.mkdir(parents=True, exist_ok=True)
            with tarfile.open(archive, "r:gz") as tar:
                for member in tar.getmembers():
                    if member.name in MOJO_RUNTIME_LIBS and member.isfile():
                        tar.extract(member, runtime)
    return plan, runtime
