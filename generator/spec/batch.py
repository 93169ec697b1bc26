"""The specs of one run, loaded together: every file's errors collected before failing, and an id
that two specs use refused. `chgen generate`, `chgen check SPEC` and `chgen test`'s plan load
specs through here, so the judge reads specs without the generate stage.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional

from generator.spec.yamlpos import SpecError, SpecErrors

if TYPE_CHECKING:  # the spec model (pydantic) is imported only when a spec must be parsed
    from generator.spec import LoadedSpec


def load_all(paths: Iterable[Path], root: Optional[Path] = None) -> List["LoadedSpec"]:
    """Load every spec; collect the errors of all files before failing."""
    from generator.spec import load_spec

    loaded, errors = [], []
    for path in paths:
        try:
            loaded.append(load_spec(path, root))
        except SpecErrors as exc:
            errors.extend(exc.errors)
    errors.extend(_duplicate_ids(loaded))
    if errors:
        raise SpecErrors(errors)
    return loaded


def _duplicate_ids(loaded: List["LoadedSpec"]) -> List[SpecError]:
    seen: Dict[int, "LoadedSpec"] = {}
    errors = []
    for item in loaded:
        other = seen.get(item.spec.id)
        if other is not None and other.path.resolve() != item.path.resolve():
            errors.append(
                SpecError(
                    item.position("id"),
                    f"id {item.spec.id} is also used by {other.display}",
                    "every challenge needs its own id",
                )
            )
        seen.setdefault(item.spec.id, item)
    return errors
