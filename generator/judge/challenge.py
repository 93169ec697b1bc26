"""The challenge a worker judges: its `Challenge` class, created for the worker's device.

Loading itself (the tree's own `core`, several trees per process) is generator/loading.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.loading import ChallengeLoadError, find_base, load_challenge_class

#: the judge's name for a directory that is not a loadable challenge
ChallengeError = ChallengeLoadError


def tree_root(challenge_dir: Path) -> Path:
    """The `challenges/` folder above a challenge: the nearest ancestor holding core/."""
    return find_base(challenge_dir).parent.parent


def load_challenge(challenge_dir: Path, device: str) -> Any:
    """An instance of the directory's `Challenge` class, created for `device`."""
    path = challenge_dir / "challenge.py"
    if not path.is_file():
        raise ChallengeError(f"{challenge_dir}: no challenge.py")
    return load_challenge_class(path)(device=device)
