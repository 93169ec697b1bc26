"""The rules that span fields, one module per spec section (pydantic checks each field's form
first): shapes name declared sizes, every case gives every size, example data matches the declared
shapes, ... Each rule yields (model path, message, hint); the reader turns paths into positions."""

from __future__ import annotations

from typing import Callable, Iterable, Tuple

from generator.spec.derived import SpecView, view_of
from generator.spec.rules import (
    cases,
    code,
    distributed,
    examples,
    page,
    performance,
    scaffold,
    signature,
    tolerated_rules,
    values,
)
from generator.spec.rules.common import Issue

#: one validator per spec section, run in this order (errors are reported in this order)
SECTION_VALIDATORS: Tuple[Callable[[SpecView], Iterable[Issue]], ...] = (
    signature.validate_signature,
    signature.validate_reference,
    examples.validate_examples,
    page.validate_page,
    cases.validate_functional,
    cases.validate_expected_cases,
    tolerated_rules.validate_tolerated_rules,
    cases.validate_defaults,
    performance.validate_performance,
    code.validate_mutants,
    code.validate_oracle,
    code.validate_accuracy_floor,
    scaffold.validate_scaffold,
    scaffold.validate_exploded_solve,
    code.validate_reference_jax,
    code.validate_helpers,
    cases.validate_case_forms,
    values.validate_values,
    distributed.validate_distributed,
)


def cross_checks(spec) -> Iterable[Issue]:
    """Every section validator in turn, in the order the spec's sections are written."""
    view = view_of(spec)
    for validate in SECTION_VALIDATORS:
        yield from validate(view)
