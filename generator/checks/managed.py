"""Which findings a tree's own record excuses: a tree chgen writes (`chgen generate`, after `chgen
import` too) holds a manifest (`.chgen/manifest.json`) naming the spec that owns each file and the
file's hash when chgen wrote it.

- A finding is tolerated when its rule is in the owning spec's `tolerated_rules` and the file is
  as chgen wrote it (its hash is the manifest's): the form the spec keeps on purpose (an author's
  page carried unchanged by the import). A later edit changes the hash, so what it brings in is
  counted again. A finding on the challenge's directory itself, or on a file it lacks, needs every
  file the manifest records for that challenge unchanged.
- A challenge of such a tree that the manifest records no file of is not chgen's (no spec: the
  import refused it, or nobody imported it): its findings are set apart, not counted, unless
  `chgen check --all`.
A tree without a manifest (a plain tree) counts every finding.

The spec of owner `<id>_<slug>` is `<id>_<slug>.yaml` in the specs folder: `--specs DIR`, else the
tree's own `specs/` (a clone that adopted chgen), else the `specs/` beside the tree (a chgen
project's `generated/`). A spec that cannot be found or read tolerates nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

import yaml

from generator.checks.registry import Finding
from generator.checks.source import ChallengeDir, Tree
from generator.tree import Manifest, as_recorded

#: where a tree without --specs keeps its specs, relative to its root, in this order
SPEC_FOLDERS = (Path("specs"), Path("..") / "specs")
SPEC_SUFFIXES = (".yaml", ".yml")


@dataclass
class Split:
    """Findings sorted three ways: counted, tolerated (with the spec file that tolerates each),
    and those of challenges chgen does not manage."""

    counted: List[Finding] = field(default_factory=list)
    tolerated: List[Tuple[Finding, str]] = field(default_factory=list)
    unmanaged: List[Finding] = field(default_factory=list)
    #: the unmanaged challenges that have findings, by id (their directory name without one)
    unmanaged_ids: List[str] = field(default_factory=list)


class _TreeRecord:
    """One tree's manifest and the specs its owners name, each read once."""

    def __init__(self, tree: Tree, specs: Optional[Path]):
        self.root = tree.root
        manifest = Manifest.read(tree.root)
        self.manifest: Optional[Manifest] = manifest if manifest.files else None
        folders = [specs] if specs is not None else [tree.root / f for f in SPEC_FOLDERS]
        self.folders = [f for f in folders if f.is_dir()]
        self._specs: Dict[str, Tuple[Optional[str], FrozenSet[str]]] = {}

    def entries(self, ch: ChallengeDir) -> Dict[str, Dict[str, str]]:
        """The manifest's entries under the challenge's directory, by path inside it."""
        if self.manifest is None:
            return {}
        try:
            prefix = ch.path.resolve().relative_to(self.root.resolve()).as_posix() + "/"
        except ValueError:
            return {}
        return {
            path[len(prefix) :]: entry
            for path, entry in self.manifest.files.items()
            if path.startswith(prefix)
        }

    def spec(self, owner: str) -> Tuple[Optional[str], FrozenSet[str]]:
        """The owner's spec file as shown, and the rules it tolerates."""
        if owner not in self._specs:
            self._specs[owner] = (None, frozenset())
            for folder in self.folders:
                for suffix in SPEC_SUFFIXES:
                    path = folder / f"{owner}{suffix}"
                    if not path.is_file():
                        continue
                    try:
                        data = yaml.safe_load(path.read_text(encoding="utf-8"))
                    except (OSError, UnicodeDecodeError, yaml.YAMLError):
                        data = None
                    rules = data.get("tolerated_rules") if isinstance(data, dict) else None
                    codes = frozenset(c for c in rules or () if isinstance(c, str))
                    self._specs[owner] = (str(path), codes)
                    return self._specs[owner]
        return self._specs[owner]


def _unchanged(ch: ChallengeDir, entries: Dict[str, Dict[str, str]]) -> bool:
    return all(as_recorded(ch.path / rel, entry) for rel, entry in entries.items())


def split(
    findings: Sequence[Finding],
    challenges: Sequence[ChallengeDir],
    specs: Optional[Path] = None,
    count_unmanaged: bool = False,
) -> Split:
    """Sort `findings` (of `challenges`, and of whatever else was checked) as the module says."""
    records: Dict[Path, _TreeRecord] = {}
    owned: List[Tuple[str, ChallengeDir, _TreeRecord]] = []
    for ch in challenges:
        if ch.tree is None:
            continue
        key = ch.tree.root.resolve()
        if key not in records:
            records[key] = _TreeRecord(ch.tree, specs)
        if records[key].manifest is not None:
            owned.append((ch.display.rstrip("/") or ".", ch, records[key]))
    owned.sort(key=lambda item: -len(item[0]))  # the longest display first: a nested match wins
    result = Split()
    unmanaged_ids = set()
    for finding in findings:
        match = next(
            (o for o in owned if finding.path == o[0] or finding.path.startswith(o[0] + "/")), None
        )
        if match is None:
            result.counted.append(finding)
            continue
        shown, ch, record = match
        entries = record.entries(ch)
        if not entries:
            if count_unmanaged:
                result.counted.append(finding)
            else:
                result.unmanaged.append(finding)
                ident = ch.challenge_id
                unmanaged_ids.add((ident if ident is not None else -1, ch.name))
            continue
        rel = finding.path[len(shown) :].lstrip("/")
        entry = entries.get(rel)
        owner = (entry or next(iter(entries.values()))).get("owner")
        spec_file, codes = record.spec(owner) if owner else (None, frozenset())
        if entry is not None:
            same = as_recorded(ch.path / rel, entry)
        else:  # the directory itself, or a file it lacks: the whole challenge as chgen wrote it
            same = (not rel or not (ch.path / rel).exists()) and _unchanged(ch, entries)
        if spec_file is not None and finding.code in codes and same:
            result.tolerated.append((finding, spec_file))
        else:
            result.counted.append(finding)
    result.unmanaged_ids = [
        str(ident) if ident >= 0 else name for ident, name in sorted(unmanaged_ids)
    ]
    return result
