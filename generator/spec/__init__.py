"""Spec model and loading (positions kept for every error).

Names are resolved lazily so that importing the error classes does not import pydantic.
"""

from generator.spec.yamlpos import Position, SpecError, SpecErrors

_LAZY = {
    "LoadedSpec": "generator.spec.read",
    "find_specs": "generator.naming",
    "load_spec": "generator.spec.read",
    "load_spec_text": "generator.spec.read",
    "Spec": "generator.spec.model",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


__all__ = ["Position", "SpecError", "SpecErrors", *_LAZY]
