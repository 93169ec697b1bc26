"""Which optional part of chgen (a pip extra) a command needs, and whether it is installed.

The extras and their pins are written once, in pyproject.toml; this module reads them back from
chgen's installed metadata, so a command can say in one line what to install instead of failing
with an ImportError deep inside a formatter or torch.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
from typing import Dict, List, Optional, Tuple

DISTRIBUTION = "chgen"

#: `name[extra,...] <version>; <marker>` as Requires-Dist writes it
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?[^;]*(?:;(.*))?$")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


class MissingExtra(Exception):
    """A command needs an extra that is not installed; the message is the one line to show."""

    def __init__(self, what: str, extra: str, missing: List[str]) -> None:
        self.what, self.extra, self.missing = what, extra, missing
        super().__init__(
            f"{what} needs the '{extra}' extra: pip install '{DISTRIBUTION}[{extra}]' "
            f"(missing: {', '.join(missing)})"
        )


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.lru_cache(maxsize=1)
def declared() -> Optional[Dict[str, Tuple[str, ...]]]:
    """Each extra's requirements (distribution names, nested extras expanded); None when chgen
    runs without its metadata (a bare checkout), where nothing can be told."""
    try:
        lines = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    direct: Dict[str, List[str]] = {}
    nested: Dict[str, List[str]] = {}
    for line in lines:
        match = _REQUIREMENT.match(line)
        marker = _EXTRA_MARKER.search(match.group(3) or "") if match else None
        if not marker:
            continue  # a base dependency
        name, extra = _normal(match.group(1)), marker.group(1)
        if name == DISTRIBUTION:
            inner = [part.strip() for part in (match.group(2) or "").split(",") if part.strip()]
            nested.setdefault(extra, []).extend(inner)
        else:
            direct.setdefault(extra, []).append(name)

    def expand(extra: str, seen: Tuple[str, ...]) -> List[str]:
        names = list(direct.get(extra, []))
        for inner in nested.get(extra, []):
            if inner not in seen:
                names.extend(expand(inner, seen + (inner,)))
        return names

    extras = set(direct) | set(nested)
    return {extra: tuple(dict.fromkeys(expand(extra, (extra,)))) for extra in sorted(extras)}


def _installed(name: str) -> bool:
    try:
        importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def missing(extra: str) -> List[str]:
    """The distributions of `extra` that are not installed (none when it cannot be told)."""
    extras = declared()
    if extras is None:
        return []
    if extra not in extras:
        raise KeyError(f"pyproject.toml declares no extra {extra!r}")
    return [name for name in extras[extra] if not _installed(name)]


def require(extra: str, what: str) -> None:
    """Raise MissingExtra when `what` (e.g. "chgen generate") cannot run for lack of `extra`."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(what, extra, absent)
