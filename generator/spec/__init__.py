"""Spec model and loading (positions kept for every error).

Names are resolved lazily so that importing the error classes does not import pydantic.
"""

from generator.spec.yamlpos import Position, SpecError, SpecErrors

_LAZY = {
    "LoadedSpec": "generator.spec.loader",
    "find_specs": "generator.spec.loader",
    "load_spec": "generator.spec.loader",
    "load_spec_text": "generator.spec.loader",
    "Spec": "generator.spec.model",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


__all__ = ["Position", "SpecError", "SpecErrors", *_LAZY]
