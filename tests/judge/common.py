"""Paths and small functions shared by the judge's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from generator.judge.cache import Cache
from generator.judge.plan import Plan, PlanChallenge, PlanJob
from generator.judge.suite import SuiteOptions, run_plan
from generator.languages import for_file

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
HOSTILE = HERE / "hostile"
CHALLENGE_142 = ROOT / "generated" / "challenges" / "medium" / "142_rms_norm_backward"
SCALED_ADD = FIXTURES / "tree" / "challenges" / "easy" / "9001_scaled_add"
KEY_142 = "142_rms_norm_backward"


def make_plan(files: Dict[str, str], challenge: Path = CHALLENGE_142) -> Plan:
    """A plan judging each file (path -> expected verdict) against one challenge."""
    key = challenge.name
    jobs: List[PlanJob] = []
    for path, expect in files.items():
        name = Path(path).name
        jobs.append(
            PlanJob(
                id=f"{key}/fixture/{name}",
                challenge=key,
                kind="fixture",
                name=name,
                language=for_file(name).key,
                source=str(path),
                expect=expect,
            )
        )
    return Plan({key: PlanChallenge(key, str(challenge))}, jobs)


def run_files(
    files: Dict[str, str], cache: Cache, challenge: Path = CHALLENGE_142, **options
) -> Dict[str, dict]:
    """Judge the files in parallel workers; rows by file name."""
    rows = run_plan(make_plan(files, challenge), SuiteOptions(**{"jobs": 2, **options}), cache)
    return {row["name"]: row for row in rows}
