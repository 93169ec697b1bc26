"""The language registry: one adapter per language, in the order starters are listed."""

from __future__ import annotations

from typing import Dict, List, Optional

from generator.languages.base import BuildError, Language, SigParam, StarterParam
from generator.languages.cuda import Cuda
from generator.languages.cute import Cute
from generator.languages.jax import Jax
from generator.languages.mojo import Mojo
from generator.languages.pytorch import PyTorch
from generator.languages.triton import Triton

LANGUAGES: List[Language] = [Cuda(), Cute(), Jax(), Mojo(), PyTorch(), Triton()]
BY_KEY: Dict[str, Language] = {lang.key: lang for lang in LANGUAGES}


def for_file(name: str) -> Optional[Language]:
    """The language of `starter.cu`, `solution.pytorch.py`, ... (longest suffix wins)."""
    matches = [lang for lang in LANGUAGES if name.endswith(lang.suffix)]
    return max(matches, key=lambda lang: len(lang.suffix)) if matches else None


__all__ = ["LANGUAGES", "BY_KEY", "for_file", "Language", "SigParam", "StarterParam", "BuildError"]
