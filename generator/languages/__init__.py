"""The language registry: one adapter per language, in the order starters are listed.

Everything outside this package asks the registry or an adapter about a language, never
compares a language's key.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from generator.languages.base import BuildError, Language, SigParam, StarterParam
from generator.languages.cuda import Cuda
from generator.languages.cute import Cute
from generator.languages.jax import Jax
from generator.languages.mojo import Mojo
from generator.languages.pytorch import PyTorch
from generator.languages.tilelang import TileLang
from generator.languages.triton import Triton

LANGUAGES: List[Language] = [Cuda(), Cute(), Jax(), Mojo(), PyTorch(), TileLang(), Triton()]
BY_KEY: Dict[str, Language] = {lang.key: lang for lang in LANGUAGES}
#: the preview's tabs, in the order the platform lists the languages
IN_TAB_ORDER: List[Language] = sorted(LANGUAGES, key=lambda lang: lang.tab_order)


def for_file(name: str) -> Optional[Language]:
    """The language of `starter.cu`, `solution.pytorch.py`, ... (longest suffix wins)."""
    matches = [lang for lang in LANGUAGES if name.endswith(lang.suffix)]
    return max(matches, key=lambda lang: len(lang.suffix)) if matches else None


def suffixes() -> str:
    """'*.cu, *.cute.py, ...': the file names the judge knows, for messages."""
    return ", ".join(f"*{lang.suffix}" for lang in LANGUAGES)


def packages() -> List[str]:
    """Every language's distributions, torch first (the judge's own), each once."""
    return list(dict.fromkeys(["torch"] + [name for lang in LANGUAGES for name in lang.packages]))


__all__ = [
    "LANGUAGES",
    "BY_KEY",
    "IN_TAB_ORDER",
    "for_file",
    "suffixes",
    "packages",
    "Language",
    "SigParam",
    "StarterParam",
    "BuildError",
]
