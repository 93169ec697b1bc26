"""The language registry: one adapter per language, in the order starters are listed.

Everything outside this package asks the registry or an adapter about a language, never
compares a language's key.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Dict, List, Optional

from generator.languages.base import BuildError, Language, SigParam, StarterParam


def _discover() -> List[Language]:
    """One instance of each adapter: every module of this package but `base` defines one
    Language subclass with its own `key`, so adding a language is adding its module — nothing
    here names it. Sorted by key, so the order never depends on the file system."""
    found: Dict[str, Language] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            defined_here = isinstance(value, type) and value.__module__ == module.__name__
            if defined_here and issubclass(value, Language) and "key" in vars(value):
                if value.key in found:
                    raise RuntimeError(f"two language adapters use the key {value.key!r}")
                found[value.key] = value()
    return [found[key] for key in sorted(found)]


LANGUAGES: List[Language] = _discover()
BY_KEY: Dict[str, Language] = {lang.key: lang for lang in LANGUAGES}
#: the preview's tabs, in the order the platform lists the languages
IN_TAB_ORDER: List[Language] = sorted(LANGUAGES, key=lambda lang: lang.tab_order)


def for_gpus(num_gpus: int) -> List[Language]:
    """The languages a challenge on `num_gpus` GPUs ships starters in: all of them, or for a
    multi-GPU challenge those whose solutions can reach their peer ranks (each other language
    says why not in its `distributed_refusal`)."""
    return [lang for lang in LANGUAGES if num_gpus <= 1 or lang.distributed]


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
    "for_gpus",
    "suffixes",
    "packages",
    "Language",
    "SigParam",
    "StarterParam",
    "BuildError",
]
