"""What an import learnt, as plain data: made in the import worker, read in chgen's own process.

An ImportResult crosses from the worker (which ran challenge.py, code from elsewhere) to the pool
as JSON (`to_json`, `from_json`); nothing here imports torch. `from_json` takes only what it
expects, of the types it expects, and file names that are plain names: anything else is Refused,
the challenge's refusal, never a file written elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from generator.importer.pychanges import CAUSES, Change, PyChanges
from generator.importer.report import Report
from generator.isolation.channel import Refused
from generator.spec_docs import write_schema_beside


@dataclass
class CaseCheck:
    label: str
    problems: List[str] = field(default_factory=list)  # keys, shapes, dtypes, scalars
    differing: List[str] = field(default_factory=list)  # inputs equal in form but not in value
    reference: List[str] = field(default_factory=list)  # outputs the references disagree on


@dataclass
class Equivalence:
    signature: List[str]
    cases: List[CaseCheck]
    #: the performance case's values were compared too (drawn on the CPU), not its form alone
    performance_values: bool = False

    def problems(self) -> List[str]:
        """Every difference: of form, of values, of reference results."""
        found = list(self.signature)
        for case in self.cases:
            found.extend(f"case {case.label}: {p}" for p in case.problems)
            found.extend(f"case {case.label}: {p}" for p in case.reference)
            found.extend(f"case {case.label}: {name} differs in value" for name in case.differing)
        return found


@dataclass
class ImportResult:
    """The spec text and everything learnt while making it."""

    spec_name: str  # <id>_<slug>.yaml
    spec_text: str
    svg_name: Optional[str]  # sidecar file name, when the SVG is not inline
    svg_text: Optional[str]
    report: Report
    identical: Dict[str, bool]  # file (challenge.py, challenge.html, starter/...) -> byte-identical
    equivalence: Equivalence
    case_names: List[str]
    generate_errors: List[str] = field(default_factory=list)  # why `chgen generate` refuses it
    #: what the spec keeps of the page, per kind of part: {"values": n, "text": m} (page_parts)
    page_parts: Dict[str, Dict[str, int]] = field(default_factory=dict)
    #: what the regenerated challenge.py changes in the original, by cause
    challenge_py: Optional[PyChanges] = None
    #: starter file name -> what became of it (identical, kept, migrated, chgen's form: ...)
    starters: Dict[str, str] = field(default_factory=dict)
    #: rule code -> why the spec tolerates it (tolerated_rules): the original's form, kept
    tolerated: Dict[str, str] = field(default_factory=dict)

    def write(self, spec_path: Path) -> List[Path]:
        """Write the spec (and its SVG sidecar next to it); return the paths written."""
        spec_path.parent.mkdir(parents=True, exist_ok=True)
        spec_path.write_text(self.spec_text, encoding="utf-8")
        written = [spec_path]
        if self.svg_name:
            svg = spec_path.parent / self.svg_name
            svg.write_text(self.svg_text + "\n", encoding="utf-8")
            written.append(svg)
        schema = write_schema_beside(spec_path.parent)  # what the spec's first line names
        return written + ([schema] if schema else [])


#: the names an import writes: <id>_<slug>.yaml and its sidecar SVG, never a path
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\.(yaml|svg)$")


def to_json(result: ImportResult) -> Dict[str, Any]:
    return asdict(result)


def from_json(data: Any) -> ImportResult:
    """The ImportResult `to_json` gave, from what the worker sent; Refused if it is not one."""
    if not isinstance(data, dict):
        raise Refused("a result that is not an object")
    report = _object(data, "report")
    equivalence = _object(data, "equivalence")
    cases = equivalence.get("cases")
    if not isinstance(cases, list):
        raise Refused("a result whose equivalence has no list of cases")
    approximated = report.get("approximated")
    if not isinstance(approximated, dict) or not all(
        _strings(reasons) for reasons in approximated.values()
    ):
        raise Refused("a result whose approximated cases are not lists of words")
    result = ImportResult(
        spec_name=_name(data.get("spec_name"), optional=False),
        spec_text=_text(data.get("spec_text")),
        svg_name=_name(data.get("svg_name"), optional=True),
        svg_text=_text(data.get("svg_text"), optional=True),
        report=Report(_list(report, "notes"), dict(approximated)),
        identical=_flags(data.get("identical")),
        equivalence=Equivalence(
            _list(equivalence, "signature"),
            [_case(case) for case in cases],
            equivalence.get("performance_values") is True,
        ),
        case_names=_list(data, "case_names"),
        generate_errors=_list(data, "generate_errors"),
        page_parts=_counts(data.get("page_parts", {})),
        challenge_py=_py_changes(data.get("challenge_py")),
        starters=_starters(data.get("starters", {})),
        tolerated=_tolerated(data.get("tolerated", {})),
    )
    if result.svg_name is not None and result.svg_text is None:
        raise Refused("a result that names an SVG file without its text")
    return result


def _counts(value: Any) -> Dict[str, Dict[str, int]]:
    """{kind: {"values": n, "text": m}}: words to whole numbers, nothing else."""
    if not isinstance(value, dict) or len(value) > 100:
        raise Refused("a result whose page parts are not counts")
    counts: Dict[str, Dict[str, int]] = {}
    for kind, kept in value.items():
        if not isinstance(kind, str) or not isinstance(kept, dict):
            raise Refused("a result whose page parts are not counts")
        if not all(
            isinstance(k, str) and type(v) is int and 0 <= v < 1_000_000 for k, v in kept.items()
        ):
            raise Refused("a result whose page parts are not counts")
        counts[kind] = dict(kept)
    return counts


def _py_changes(value: Any) -> Optional[PyChanges]:
    """challenge.py's account: numbers, and causes of the vocabulary with lists of words."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("identical"), bool):
        raise Refused("a result whose challenge.py account is not one")
    counts = [value.get("added"), value.get("removed")]
    if not all(type(n) is int and 0 <= n < 10_000_000 for n in counts):
        raise Refused("a result whose challenge.py account does not count lines")
    changes = value.get("changes")
    if not isinstance(changes, list) or not all(
        isinstance(c, dict) and c.get("cause") in CAUSES and _strings(c.get("details"))
        for c in changes
    ):
        raise Refused("a result whose challenge.py changes are not causes chgen knows")
    return PyChanges(
        value["identical"],
        counts[0],
        counts[1],
        [Change(c["cause"], list(c["details"])) for c in changes],
    )


def _starters(value: Any) -> Dict[str, str]:
    """starter/<file> -> a few words."""
    if (
        not isinstance(value, dict)
        or len(value) > 100
        or not all(
            isinstance(k, str) and k.startswith("starter/") and isinstance(v, str) and len(v) < 200
            for k, v in value.items()
        )
    ):
        raise Refused("a result whose starters are not names and outcomes")
    return dict(value)


def _tolerated(value: Any) -> Dict[str, str]:
    """rule code -> a few words."""
    if (
        not isinstance(value, dict)
        or len(value) > 200
        or not all(
            isinstance(k, str)
            and re.fullmatch(r"[A-Z]\d{3}", k)
            and isinstance(v, str)
            and len(v) < 500
            for k, v in value.items()
        )
    ):
        raise Refused("a result whose tolerated rules are not codes and reasons")
    return dict(value)


def _object(data: Dict[str, Any], key: str) -> Dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise Refused(f"a result without its {key}")
    return value


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _list(data: Dict[str, Any], key: str) -> List[str]:
    value = data.get(key)
    if not _strings(value):
        raise Refused(f"a result whose {key} is not a list of words")
    return list(value)


def _text(value: Any, optional: bool = False) -> Optional[str]:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise Refused("a result whose text is not a string")
    return value


def _name(value: Any, optional: bool) -> Optional[str]:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not _FILE_NAME.match(value):
        raise Refused(f"a result that names the file {str(value)[:80]!r}, not a plain spec name")
    return value


def _flags(value: Any) -> Dict[str, bool]:
    if not isinstance(value, dict) or not all(isinstance(v, bool) for v in value.values()):
        raise Refused("a result whose identical files are not flags")
    return dict(value)


def _case(value: Any) -> CaseCheck:
    if not isinstance(value, dict) or not isinstance(value.get("label"), str):
        raise Refused("a result with a case check that is not one")
    return CaseCheck(
        value["label"],
        _list(value, "problems"),
        _list(value, "differing"),
        _list(value, "reference"),
    )
