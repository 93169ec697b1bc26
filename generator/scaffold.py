"""`chgen new`: a spec skeleton with the next free id, valid from the start.

The skeleton is validated by the spec loader (base install); rendering it is `chgen generate`'s
job, which needs the formatters and torch (the 'generate' extra).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional, Set

from generator.naming import DIFFICULTIES, MODELINE, SLUG_RE, SPEC_NAME_RE, URL_NAME_RE, find_specs
from generator.render import render_template
from generator.spec.read import load_spec_text
from generator.spec.yamlpos import SpecErrors

TREE_DIR_RE = re.compile(r"^(\d+)_[A-Za-z0-9_]+$")


class ScaffoldError(Exception):
    pass


def ids_in_specs(specs_dir: Path) -> Set[int]:
    return {int(SPEC_NAME_RE.match(p.name).group(1)) for p in find_specs(specs_dir)}


def ids_in_tree(root: Path) -> Set[int]:
    """Ids of the challenge directories in a LeetGPU-layout tree (root or root/challenges)."""
    base = root / "challenges" if (root / "challenges").is_dir() else root
    found = set()
    for difficulty in DIFFICULTIES:
        folder = base / difficulty
        if folder.is_dir():
            for child in folder.iterdir():
                match = TREE_DIR_RE.match(child.name)
                if match and child.is_dir():
                    found.add(int(match.group(1)))
    return found


def default_name(slug: str) -> str:
    return " ".join(word.capitalize() for word in slug.split("_"))


def new_spec(
    slug: str,
    difficulty: str,
    name: Optional[str],
    challenge_id: Optional[int],
    specs_dir: Path,
    against: Optional[Path] = None,
) -> Path:
    if not SLUG_RE.match(slug) or len(slug) > 60:
        raise ScaffoldError(
            f"bad slug {slug!r}: use lowercase letters and digits in words joined by single "
            "underscores, e.g. rms_norm_backward"
        )
    if difficulty not in DIFFICULTIES:
        raise ScaffoldError(f"bad difficulty {difficulty!r}: use easy, medium or hard")
    name = name or default_name(slug)
    if not URL_NAME_RE.match(name):
        raise ScaffoldError(
            f"bad name {name!r}: use letters and digits, words joined by ' ' or '-'"
        )
    taken = ids_in_specs(specs_dir) if specs_dir.is_dir() else set()
    if Path("generated").is_dir():
        taken |= ids_in_tree(Path("generated"))
    if against is not None:
        if not against.is_dir():
            raise ScaffoldError(f"--against {against}: not a directory")
        taken |= ids_in_tree(against)
    if challenge_id is None:
        challenge_id = max(taken, default=0) + 1
    elif challenge_id in taken:
        raise ScaffoldError(
            f"id {challenge_id} is already taken; the next free id is " f"{max(taken) + 1}"
        )
    elif challenge_id < 1:
        raise ScaffoldError("ids start at 1")
    for existing in find_specs(specs_dir) if specs_dir.is_dir() else []:
        if SPEC_NAME_RE.match(existing.name).group(2) == slug:
            raise ScaffoldError(f"slug {slug!r} is already used by {existing}")
    path = specs_dir / f"{challenge_id}_{slug}.yaml"
    text = render_template(
        "new_spec.yaml.j2",
        {
            "id": challenge_id,
            "slug": slug,
            "name": name,
            "difficulty": difficulty,
            "scaffold": difficulty == "easy",
            "modeline": MODELINE,
        },
    )
    try:  # the skeleton is checked as `chgen generate` would load it, before it is written
        load_spec_text(text, str(path), path)
    except SpecErrors as exc:
        raise ScaffoldError(f"the skeleton does not load: {exc.errors[0].render()}") from None
    specs_dir.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise ScaffoldError(f"{path} already exists") from None
    return path


def find_challenge_dir(reference: str, tree: Path) -> Optional[Path]:
    """A challenge directory from a path, or from an id looked up in a LeetGPU-layout tree."""
    path = Path(reference)
    if path.is_dir() and (path / "challenge.html").is_file():
        return path
    if not reference.isdigit():
        return None
    base = tree / "challenges" if (tree / "challenges").is_dir() else tree
    for difficulty in DIFFICULTIES:
        for child in sorted((base / difficulty).glob(f"{int(reference)}_*")):
            if TREE_DIR_RE.match(child.name) and child.is_dir():
                return child
    return None
