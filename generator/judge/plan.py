"""What `chgen test` judges: every starter, every solution, the spec's baselines and mutants.

A plan is made from the specs (this needs the spec model, hence pydantic) and can be written as
plain JSON (plan.json in a prebuilt bundle), so that a machine without pydantic runs the same plan:
it carries everything the spec-level proofs need (tolerances, mutants with their expected catching
cases, the float64 oracle, the accuracy floor).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.languages import LANGUAGES, for_gpus

PLAN_VERSION = 3
#: Baselines may compile on their first call (torch.compile on a cold machine).
BASELINE_TIMEOUT = 240.0


@dataclass
class PlanJob:
    id: str  # "<challenge>/<kind>/<name>/<language>"
    challenge: str  # key into Plan.challenges (the challenge's directory name)
    #: starter | solution | baseline | mutant | reference | hostile, and the derived kinds:
    #: derived | reference_solution (generator/judge/derived.py)
    kind: str
    name: str  # variant, baseline name, hostile case, or "starter"
    language: str
    source: str  # path; relative to the bundle folder inside plan.json
    expect: str  # pass | not_pass | baseline | caught | verdict names joined by |
    perf: bool = False  # timed under --perf
    functional: bool = True  # baselines are timed only
    timeout: Optional[float] = None
    memory_limit: Optional[int] = None  # bytes
    #: the expectation holds only in the sandbox (it hides files); judged where the plan runs
    needs_sandbox: bool = False
    target: Optional[str] = None
    artifact: Optional[str] = None  # bundle: the built .so
    build: Optional[Dict[str, Any]] = None  # bundle: the build record
    priority: int = 2  # timing order when time is short: lower first
    #: the expectation when the run times nothing (`expect` holds when it is timed)
    untimed_expect: Optional[str] = None


@dataclass
class PlanChallenge:
    key: str
    dir: str  # the challenge folder (holding challenge.py); relative inside plan.json
    case_names: List[str] = field(default_factory=list)
    min_bytes: Optional[float] = None
    perf_scalars: Dict[str, Any] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    atol: Optional[float] = None
    rtol: Optional[float] = None
    #: {name, mistake, code, caught_by (expected case names or None)}, in spec order
    mutants: List[Dict[str, Any]] = field(default_factory=list)
    #: {forward, grad_output, gradients} or {code}: the float64 ground truth
    oracle: Optional[Dict[str, Any]] = None
    #: {output, baseline, factor, min_elements}
    accuracy_floor: Optional[Dict[str, Any]] = None
    #: the spec's num_gpus (> 1: a multi-GPU challenge, which --ranks applies to)
    num_gpus: int = 1
    #: the mistakes derived from challenge.py, each {name, operator, mistake, line, entry}
    #: (generator/judge/derived.py); judged by the challenge's `derived` job
    derived: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Plan:
    challenges: Dict[str, PlanChallenge]
    jobs: List[PlanJob]
    meta: Dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {
            "version": PLAN_VERSION,
            "meta": self.meta,
            "challenges": {k: asdict(v) for k, v in self.challenges.items()},
            "jobs": [asdict(j) for j in self.jobs],
        }

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Plan":
        if data.get("version") != PLAN_VERSION:
            raise ValueError(
                f"plan version {data.get('version')!r}; this chgen reads {PLAN_VERSION}"
            )
        challenges = {k: PlanChallenge(**v) for k, v in data["challenges"].items()}
        return cls(challenges, [PlanJob(**j) for j in data["jobs"]], data.get("meta", {}))

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")


class PlanError(Exception):
    """The specs or the folders named on the command line do not make a plan."""


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "baseline"


def resolve_specs(args: List[str], specs_dir: Path) -> List[Path]:
    """Spec files for `142`, `142_rms_norm_backward`, or a path; all specs when none is given."""
    from generator.naming import SPEC_NAME_RE, find_specs

    available = find_specs(specs_dir) if specs_dir.is_dir() else []
    if not args:
        if not available:
            raise PlanError(f"no specs found in {specs_dir}/")
        return available
    picked = []
    for arg in args:
        path = Path(arg)
        if path.suffix in (".yaml", ".yml"):
            if not path.is_file():
                raise PlanError(f"no such spec file: {arg}")
            picked.append(path)
            continue
        matches = [
            p for p in available if SPEC_NAME_RE.match(p.name).group(1) == arg or p.stem == arg
        ]
        if not matches:
            raise PlanError(f"no spec in {specs_dir}/ matches {arg!r}")
        picked.extend(matches)
    return picked


def case_names_from_spec(spec_path: Path) -> List[str]:
    """Functional case names from a spec file, read as plain YAML (no spec model needed)."""
    import yaml

    try:
        data = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
        return [str(case["name"]) for case in data.get("functional", [])]
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError):
        return []


def oracle_entry(spec: Any) -> Optional[Dict[str, Any]]:
    """A spec's oracle as plain JSON, with the reference_helpers it may call (the oracle runs
    where the spec model is not installed)."""
    if spec.oracle is None:
        return None
    entry = spec.oracle.model_dump(exclude_none=True)
    if spec.reference_helpers:
        entry["helpers"] = spec.reference_helpers
    return entry


def starter_jobs(challenge: PlanChallenge, folder: Path, num_gpus: int) -> List[PlanJob]:
    """One job per starter the challenge ships: a language without a starter file beside the
    others is one its tree does not ship (a note says so); without a starter/ folder at all,
    every language's starter is a job, and each fails as missing."""
    key = challenge.key
    jobs = []
    shipped = (folder / "starter").is_dir()
    for lang in for_gpus(num_gpus):  # a multi-GPU challenge ships no other starters
        source = folder / "starter" / lang.starter_name
        if shipped and not source.is_file():
            challenge.notes.append(f"no starter/{lang.starter_name}: not shipped, not judged")
            continue
        jobs.append(
            PlanJob(
                id=f"{key}/starter/{lang.key}",
                challenge=key,
                kind="starter",
                name="starter",
                language=lang.key,
                source=str(source),
                expect="not_pass",
            )
        )
        jobs += [
            PlanJob(
                id=f"{key}/build/{target}/{lang.key}",
                challenge=key,
                kind="build",
                name=target,
                language=lang.key,
                source=str(source),
                expect="built",
                target=target,
            )
            for target in lang.platform_targets
        ]
    return jobs


def derived_jobs(
    challenge: PlanChallenge, folder: Path, work_dir: Path, limit: int
) -> List[PlanJob]:
    """What generator/judge/derived.py derives from one challenge.py: the `derived` job (the
    tolerance audit, the reference as a solution on every seed, each derived mistake), the
    reference timed under --perf and, where challenge.py has one, reference_impl_jax as a JAX
    solution; none where nothing can be derived (the notes say why)."""
    from generator.judge.derived import derive

    key = challenge.key
    derived = derive(folder, work_dir / "derived", key, limit)
    challenge.notes.extend(derived.notes)
    if derived.source is None:
        return []
    challenge.derived = derived.variants
    common = dict(challenge=key, language="pytorch", source=str(derived.source), expect="pass")
    jax = []
    if derived.jax_source is not None:
        jax.append(PlanJob(id=f"{key}/reference_jax/reference/jax", challenge=key,
                           kind="reference_jax", name="reference", language="jax",
                           source=str(derived.jax_source), expect="pass"))  # fmt: skip
    return [
        PlanJob(
            id=f"{key}/derived/reference/pytorch", kind="derived", name="reference", **common
        ),  # fmt: skip
        PlanJob(
            id=f"{key}/reference_solution/reference/pytorch",
            kind="reference_solution",
            name="reference",
            perf=True,
            functional=False,  # judged in the derived job; timed only, like a baseline
            priority=1,
            **common,
        ),
    ] + jax


def plan_from_tree(
    tree_dir: Path, selection: List[str], work_dir: Path, limit: Optional[int]
) -> Plan:
    """Every challenge of a tree (or those `selection` names: ids or directory names), read
    through the one reader, no spec: its starters, and, unless `limit` is None, what
    generator/judge/derived.py derives from its challenge.py."""
    from generator.challenge.pyfile import read_challenge_py

    root = tree_dir / "challenges"
    if not root.is_dir():
        raise PlanError(f"{tree_dir}: no challenges/ folder here (a challenge tree holds one)")
    folders = sorted(
        (p.parent for p in root.glob("*/*/challenge.py") if p.parent.parent.name != "core"),
        key=lambda p: (_leading_id(p.name), p.name),
    )
    if selection:
        wanted = set(selection)
        picked = [p for p in folders if p.name in wanted or p.name.split("_")[0] in wanted]
        known = {p.name for p in picked} | {p.name.split("_")[0] for p in picked}
        missing = sorted(wanted - known)
        if missing:
            raise PlanError(f"{tree_dir}: no challenge matches {', '.join(missing)}")
        folders = picked
    if not folders:
        raise PlanError(f"{tree_dir}: no challenge (challenges/<difficulty>/<dir>/challenge.py)")
    challenges: Dict[str, PlanChallenge] = {}
    jobs: List[PlanJob] = []
    for folder in folders:
        key = folder.name
        try:
            text = (folder / "challenge.py").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PlanError(f"{folder}/challenge.py: {exc}") from None
        read = read_challenge_py(text, str(folder / "challenge.py"))
        num_gpus = read.literal("num_gpus", 1)
        num_gpus = num_gpus if isinstance(num_gpus, int) else 1
        challenge = PlanChallenge(
            key,
            str(folder),
            atol=_number(read.literal("atol")),
            rtol=_number(read.literal("rtol")),
            num_gpus=num_gpus,
        )
        challenges[key] = challenge
        jobs += starter_jobs(challenge, folder, num_gpus)
        if limit is not None:
            jobs += derived_jobs(challenge, folder, work_dir, limit)
    return Plan(challenges, jobs, {"perf_bytes_limit": perf_bytes_limit()})


def _leading_id(name: str) -> int:
    head = name.split("_")[0]
    return int(head) if head.isdigit() else 10**9


def _number(value: Any) -> Optional[float]:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def perf_bytes_limit() -> int:
    """Rule D003's bound on the performance case's tensors (five copies fit in 16 GB)."""
    from generator.spec.limits import PERF_BYTES_LIMIT

    return PERF_BYTES_LIMIT


def plan_from_specs(
    spec_paths: List[Path],
    tree_dir: Path,
    solutions_dir: Path,
    work_dir: Path,
    derive_limit: Optional[int] = None,
) -> Plan:
    """Starters from the generated tree, solutions from solutions/<id>_<slug>/<variant>/, and the
    spec's baselines written out as PyTorch files under `work_dir`; unless `derive_limit` is None,
    what generator/judge/derived.py derives from each challenge.py (that many mutations)."""
    from generator.spec.batch import load_all
    from generator.spec.shapes import evaluate_arithmetic

    loaded = load_all(spec_paths, Path.cwd())
    challenges: Dict[str, PlanChallenge] = {}
    jobs: List[PlanJob] = []
    for item in loaded:
        spec = item.spec
        key = spec.dir_name
        folder = tree_dir / "challenges" / spec.difficulty / key
        scalars = {**spec.defaults.scalars, **spec.performance.scalars}
        try:
            min_bytes = float(evaluate_arithmetic(spec.performance.min_bytes, scalars))
        except ValueError as exc:
            raise PlanError(f"{item.display}: performance.min_bytes: {exc}") from None
        challenges[key] = PlanChallenge(
            key,
            str(folder),
            [c.name for c in spec.functional],
            min_bytes,
            scalars,
            atol=spec.atol,
            rtol=spec.rtol,
            mutants=[m.model_dump() for m in spec.mutants],
            oracle=oracle_entry(spec),
            accuracy_floor=spec.accuracy_floor.model_dump() if spec.accuracy_floor else None,
            num_gpus=spec.num_gpus,
        )
        jobs += starter_jobs(challenges[key], folder, spec.num_gpus)
        variants = sorted(p for p in (solutions_dir / key).glob("*") if p.is_dir())
        for variant in variants:
            for lang in LANGUAGES:
                source = variant / lang.solution_name
                if source.is_file():
                    jobs.append(
                        PlanJob(
                            id=f"{key}/solution/{variant.name}/{lang.key}",
                            challenge=key,
                            kind="solution",
                            name=variant.name,
                            language=lang.key,
                            source=str(source),
                            expect="pass",
                            perf=True,
                            priority=0 if variant.name == "optimized" else 2,
                        )
                    )
        for baseline in spec.performance.baselines:
            slug = slugify(baseline.name)
            path = work_dir / "baselines" / key / f"{slug}.pytorch.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(baseline.code)
            jobs.append(
                PlanJob(
                    id=f"{key}/baseline/{slug}/pytorch",
                    challenge=key,
                    kind="baseline",
                    name=baseline.name,
                    language="pytorch",
                    source=str(path),
                    expect="baseline",
                    perf=True,
                    functional=False,
                    timeout=BASELINE_TIMEOUT,
                    priority=1,
                )
            )
        if spec.oracle is not None:
            # The reference itself (in challenge.py) against the float64 oracle.
            jobs.append(
                PlanJob(
                    id=f"{key}/reference/oracle/pytorch",
                    challenge=key,
                    kind="reference",
                    name="reference vs oracle",
                    language="pytorch",
                    source=str(folder / "challenge.py"),
                    expect="pass",
                )
            )
        for mutant in spec.mutants:
            path = work_dir / "mutants" / key / f"{slugify(mutant.name)}.pytorch.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(mutant.code)
            jobs.append(
                PlanJob(
                    id=f"{key}/mutant/{mutant.name}/pytorch",
                    challenge=key,
                    kind="mutant",
                    name=mutant.name,
                    language="pytorch",
                    source=str(path),
                    expect="caught",
                )
            )
        if derive_limit is not None:
            jobs += derived_jobs(challenges[key], folder, work_dir, derive_limit)
    return Plan(challenges, jobs, {"perf_bytes_limit": perf_bytes_limit()})


def jobs_from_catalogue(path: Path, device: str, timed: bool = False) -> List[PlanJob]:
    """Extra files with the verdict each must get (e.g. a catalogue of hostile solutions).

    The YAML names a `challenge` (a plan key) and `cases`: {file, expect, timed, devices,
    timeout, memory_mib, sandbox}, files relative to the catalogue. An entry with `timed` (a
    verdict, or one per device) is timed under --perf; with `timed=True` (a run that times) its
    expectation is that verdict instead of `expect`. On the CPU, CUDA/Mojo/CuTe files that
    build must end in `built`; entries not meant for `device` are left out. An entry with
    `sandbox: true` is only held to its expectation where solutions run sandboxed."""
    import yaml

    from generator.languages import for_file

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    challenge = data["challenge"]
    jobs = []
    for entry in data["cases"]:
        if device not in entry.get("devices", ["cpu", "cuda"]):
            continue
        source = path.parent / entry["file"]
        language = for_file(source.name)
        if language is None:
            raise PlanError(f"{path}: {entry['file']}: unknown language")
        when_timed = entry.get("timed")
        if isinstance(when_timed, dict):
            when_timed = when_timed.get(device, entry["expect"])
        expect = str(when_timed if timed and when_timed is not None else entry["expect"])
        # languages that do not run on the CPU only build (or compile) there
        if device == "cpu" and not language.runs_on_cpu and expect != "build_error":
            expect = "built"
        name = source.name.split(".")[0]
        jobs.append(
            PlanJob(
                id=f"{challenge}/hostile/{name}/{language.key}",
                challenge=challenge,
                kind="hostile",
                name=name,
                language=language.key,
                source=str(source),
                expect=expect,
                perf=when_timed is not None,
                untimed_expect=str(entry["expect"]) if timed and when_timed is not None else None,
                timeout=entry.get("timeout"),
                memory_limit=int(entry["memory_mib"]) << 20 if entry.get("memory_mib") else None,
                needs_sandbox=bool(entry.get("sandbox")),
                priority=1,
            )
        )
    return jobs
