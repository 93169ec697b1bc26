"""What a run may write into a tree that is not chgen's alone (a clone of a challenge set).

A maintainer who regenerates their repository in place must see only what they meant to change:
the starters are written in the languages the tree already ships (unless they ask for others),
the shared base class is written only where chgen wrote it, and a spec never adds a second
directory for an id the tree already uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from generator.languages import BY_KEY, LANGUAGES, for_file
from generator.naming import DIFFICULTIES
from generator.spec.yamlpos import Position, SpecError, SpecErrors, load_positioned, read_text
from generator.tree import Manifest

#: the settings file a specs folder may hold beside its specs
SETTINGS_FILE = "chgen.yaml"
CORE_BASE = "challenges/core/challenge_base.py"
CORE_OWNER = "core"
_ID_RE = re.compile(r"^(\d+)_")


@dataclass(frozen=True)
class Languages:
    """The starter languages a run writes (None: every language), and why those."""

    keys: Optional[Tuple[str, ...]]
    reason: str
    #: read off the tree: a challenge directory that ships starters keeps its own languages
    per_challenge: bool = False

    def for_challenge(self, tree: Path, directory: str) -> Optional[Tuple[str, ...]]:
        """The languages the challenge at `directory` is written in: its own starters' where
        the languages were read off the tree and it ships some, else the run's."""
        if self.per_challenge:
            own = _starter_languages(tree / directory / "starter")
            if own:
                return None if set(own) == {lang.key for lang in LANGUAGES} else own
        return self.keys

    @property
    def key(self) -> str:
        """What the cache must keep apart: the run's languages, and whether each challenge keeps
        its own (a cached render is reused only where the files on disk are the same anyway)."""
        keys = ",".join(self.keys) if self.keys is not None else "all"
        return f"{keys};per_challenge={self.per_challenge}"


def language_keys_text() -> str:
    return ", ".join(lang.key for lang in LANGUAGES)


def parse_languages(text: str, where: str) -> Tuple[str, ...]:
    """`cuda,triton` or `all` -> language keys; SpecErrors naming `where` for an unknown one."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if words == ["all"]:
        return tuple(lang.key for lang in LANGUAGES)
    return _known(words, Position(where, 1, 1))


def _known(words: Sequence[str], position: Position) -> Tuple[str, ...]:
    unknown = [w for w in words if w not in BY_KEY]
    if unknown or not words:
        raise SpecErrors(
            [
                SpecError(
                    position,
                    f"unknown language {unknown[0]!r}" if unknown else "no language given",
                    f"languages are {language_keys_text()}, or all",
                )
            ]
        )
    return tuple(lang.key for lang in LANGUAGES if lang.key in words)


def read_settings(specs_dir: Path) -> Optional[Tuple[str, ...]]:
    """The `languages:` of `<specs_dir>/chgen.yaml`, if that file exists."""
    path = specs_dir / SETTINGS_FILE
    if not path.is_file():
        return None
    display = str(path)
    try:
        raw = load_positioned(read_text(path, display), display)
    except SpecError as exc:
        raise SpecErrors([exc]) from None
    data = raw.data
    top = raw.position(())
    if not isinstance(data, dict) or set(data) - {"languages"}:
        extra = sorted(set(data) - {"languages"}) if isinstance(data, dict) else []
        where = raw.position((extra[0],)) if extra else top
        raise SpecErrors(
            [SpecError(where, "chgen.yaml holds one setting, languages", "e.g. languages: [cuda]")]
        )
    value = data.get("languages")
    if value == "all":
        return tuple(lang.key for lang in LANGUAGES)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SpecErrors(
            [
                SpecError(
                    raw.position(("languages",)),
                    "languages is a list of language keys",
                    f"e.g. languages: [cuda, pytorch]; the keys are {language_keys_text()}",
                )
            ]
        )
    for index, word in enumerate(value):
        _known([word], raw.position(("languages", index)))
    return _known(value, raw.position(("languages",)))


def _starter_languages(starter: Path) -> Tuple[str, ...]:
    """The languages whose starter files a starter/ folder holds."""
    found = set()
    if starter.is_dir() and not starter.is_symlink():
        for path in starter.iterdir():
            lang = for_file(path.name)
            if lang is not None and path.name == lang.starter_name:
                found.add(lang.key)
    return tuple(lang.key for lang in LANGUAGES if lang.key in found)


def shipped_languages(tree: Path) -> Optional[Tuple[str, ...]]:
    """The languages whose starters the tree's challenges already ship (None: no challenge)."""
    found = set()
    for directory in challenge_dirs(tree):
        found.update(_starter_languages(directory / "starter"))
    if not found:
        return None
    return tuple(lang.key for lang in LANGUAGES if lang.key in found)


def choose_languages(
    explicit: Optional[Sequence[str]], specs_dir: Optional[Path], tree: Path
) -> Languages:
    """--languages, else the specs folder's chgen.yaml, else what the tree ships, else all
    (keys None: every language, so that a tree of every language caches as it always did)."""
    if explicit is not None:
        chosen = Languages(tuple(explicit), "asked for")
    elif specs_dir is not None and read_settings(specs_dir) is not None:
        chosen = Languages(read_settings(specs_dir), f"{specs_dir / SETTINGS_FILE}")
    elif shipped_languages(tree) is not None:
        chosen = Languages(shipped_languages(tree), f"the languages {tree}/ ships", True)
    else:
        return Languages(None, "every language")
    if set(chosen.keys) == {lang.key for lang in LANGUAGES}:
        return Languages(None, chosen.reason, chosen.per_challenge)
    return chosen


def challenge_dirs(tree: Path) -> List[Path]:
    """`challenges/<difficulty>/<name>/` folders of a tree, in name order."""
    found = []
    for difficulty in DIFFICULTIES:
        folder = tree / "challenges" / difficulty
        if folder.is_dir():
            found += sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    return found


def writes_core(tree: Path) -> bool:
    """Whether a run writes the shared base class: only where the tree has none, or chgen wrote
    the one it has (a repository's own base class is never chgen's to change)."""
    if not (tree / CORE_BASE).exists():
        return True
    return Manifest.read(tree).owner(CORE_BASE) == CORE_OWNER


@dataclass(frozen=True)
class Claim:
    """A spec's claim on a challenge directory: its id, its owner name, the directory."""

    spec_id: int
    owner: str
    directory: str  # challenges/<difficulty>/<name>
    spec_path: Path


def claim_of(spec_path: Path, spec_id: int, owner: str, files: Sequence[str]) -> Optional[Claim]:
    """The directory a spec's rendered `files` live in (None: it renders none)."""
    for name in files:
        parts = name.split("/")
        if len(parts) > 3 and parts[0] == "challenges":
            return Claim(spec_id, owner, "/".join(parts[:3]), spec_path)
    return None


def duplicate_directories(claims: Sequence[Claim], tree: Path) -> List[Tuple[Claim, str, str]]:
    """Each claim whose id another directory of the tree already uses (one that spec did not
    write), with the message and the hint: the tree would hold two challenges of one id."""
    manifest = Manifest.read(tree)
    by_id: Dict[int, List[Path]] = {}
    for directory in challenge_dirs(tree):
        match = _ID_RE.match(directory.name)
        if match:
            by_id.setdefault(int(match.group(1)), []).append(directory)
    found = []
    for claim in claims:
        difficulty, name = claim.directory.split("/")[1:3]
        for other in by_id.get(claim.spec_id, []):
            if other == tree / claim.directory or _owned_by(manifest, tree, other, claim.owner):
                continue
            relative = other.relative_to(tree).as_posix()
            hint = (
                f"set 'directory: {other.name}' to regenerate that challenge"
                if other.parent.name == difficulty
                else f"that challenge is {other.parent.name}: give this one its own id"
            )
            message = (
                f"id {claim.spec_id} is already used by {relative}/ in {tree}/; writing "
                f"{difficulty}/{name} would give the tree two challenges {claim.spec_id}"
            )
            found.append((claim, message, hint))
            break
    return found


def _owned_by(manifest: Manifest, tree: Path, directory: Path, owner: str) -> bool:
    prefix = directory.relative_to(tree).as_posix() + "/"
    owners = {e.get("owner") for p, e in manifest.files.items() if p.startswith(prefix)}
    return owners == {owner}
