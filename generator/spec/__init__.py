"""Spec model and loading (positions kept for every error)."""

from generator.spec.loader import LoadedSpec, find_specs, load_spec, load_spec_text
from generator.spec.model import Spec
from generator.spec.yamlpos import Position, SpecError, SpecErrors

__all__ = [
    "LoadedSpec",
    "Position",
    "Spec",
    "SpecError",
    "SpecErrors",
    "find_specs",
    "load_spec",
    "load_spec_text",
]
