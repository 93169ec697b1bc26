"""pydantic's errors in chgen's words: the field as the YAML names it, at the offending node, with
what to do ("did you mean 'out'?" for a near miss)."""

from __future__ import annotations

import difflib
import re
import typing
from typing import Any, Dict, Iterable, List, Optional, Tuple

from pydantic import BaseModel

from generator.spec.model import Spec
from generator.spec.yamlpos import PathKey, Position, PositionedData, SpecError, as_written


def translate_pydantic(raw: PositionedData, errors: List[Dict[str, Any]]) -> List[SpecError]:
    """One SpecError per offending node: the errors pydantic gives for each member of a union
    (`prefill: zero` fails both 'empty'/'zeros' and number) are merged into one."""
    grouped: Dict[PathKey, List[Dict[str, Any]]] = {}
    for err in errors:
        grouped.setdefault(_data_path(raw.data, tuple(err.get("loc", ()))), []).append(err)
    return [_node_error(raw, path, group) for path, group in grouped.items()]


def _data_path(data: Any, loc: PathKey) -> PathKey:
    """`loc` without the union-member tags pydantic inserts ("float", "literal['empty','zeros']",
    "uniform"): only the steps that index the YAML data itself."""
    path: List[Any] = []
    value = data
    for step in loc:
        found, child = _child(value, step)
        if found:
            path.append(step)
            value = child
    return tuple(path)


def _child(value: Any, step: Any) -> Tuple[bool, Any]:
    """(True, value[step]) when `step` indexes `value` as the model reads it, else (False, None)."""
    if isinstance(value, dict) and step in value:
        return True, value[step]
    if isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
        return True, value[step]
    if isinstance(value, dict) and step == "examples" and "example" in value:
        return True, [value["example"]]  # `example:` is read as a list of one
    return False, None


def field_label(path: PathKey) -> str:
    """How a message names a node: its keys, dotted (list indices are left to the position)."""
    keys = [str(step) for step in path if not isinstance(step, int)]
    return ".".join(keys) or "the spec"


def _near(word: Any, choices: Iterable[str]) -> Optional[str]:
    matches = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


#: what a strict type error asks for, and an example of it
_TYPE_WORDS = {
    "int_type": ("an integer", "e.g. 4"),
    "float_type": ("a number", "e.g. 1.0e-5"),
    "string_type": ("text", "quote it if YAML reads it as something else, e.g. '1.0'"),
    "bool_type": ("true or false", "write true or false"),
    "list_type": ("a list", "e.g. [N, C]"),
    "dict_type": ("a mapping", "write key: value lines or {key: value}"),
    "model_type": ("a mapping", "write key: value lines or {key: value}"),
    "model_attributes_type": ("a mapping", "write key: value lines or {key: value}"),
}


def _shown(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)


def _node_error(raw: PositionedData, path: PathKey, group: List[Dict[str, Any]]) -> SpecError:
    where = raw.position(as_written(raw, path))
    field = field_label(as_written(raw, path))
    first = group[0]
    kind = first.get("type", "")
    value = first.get("input")
    if kind == "extra_forbidden":
        known = _known_fields(raw.data, path[:-1])
        near = _near(path[-1], known)
        hint = f"did you mean '{near}'?" if near else _fields_hint(known)
        return SpecError(where, f"unknown field '{path[-1]}'", hint)
    if kind == "missing":
        name = str(first["loc"][-1])
        return SpecError(
            where,
            f"missing required field '{field_label(as_written(raw, path + (name,)))}'",
            f"add '{name}:' here (see the spec format: docs/spec.md, or `chgen schema --markdown`)",
        )
    if kind == "distribution":
        return _distribution_error(raw, path, value, first.get("msg", ""))
    if kind == "value_error":
        error = first.get("ctx", {}).get("error")
        hint = (
            getattr(error, "hint", "")
            or "see docs/spec.md (or `chgen schema --markdown`) for this field"
        )
        at = getattr(error, "at", None)
        if at is not None:
            where = raw.position(as_written(raw, path + (at,)))
            field = field_label(as_written(raw, path + (at,)))
        return SpecError(where, f"{field}: {error or first.get('msg', '')}", hint)
    choices: List[str] = []
    wanted: List[str] = []
    for err in group:
        if err.get("type") == "literal_error":
            choices += re.findall(r"'([^']*)'", err.get("ctx", {}).get("expected", ""))
        elif err.get("type") in _TYPE_WORDS:
            wanted.append(_TYPE_WORDS[err["type"]][0])
    if "a number" in wanted:  # Union[int, float]: an integer is a number too
        wanted = [w for w in wanted if w != "an integer"]
    if choices or wanted:
        options = [f"'{c}'" for c in choices] + sorted(set(wanted), key=wanted.index)
        expected = (
            ", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]
        )
        message = f"{field} is {_shown(value)}; it must be {expected}"
        near = _near(value, choices) if isinstance(value, str) and choices else None
        if near:
            hint = f"did you mean '{near}'?"
        elif choices:
            hint = f"use {expected}"
        else:
            hint = _TYPE_WORDS[next(e["type"] for e in group if e.get("type") in _TYPE_WORDS)][1]
        return SpecError(where, message, hint)
    return _bound_error(where, field, first)


def _bound_error(where: Position, field: str, err: Dict[str, Any]) -> SpecError:
    """Number bounds and list lengths (Field(ge=..., min_length=...))."""
    ctx = err.get("ctx", {})
    value = err.get("input")
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "greater_than": ("greater than", "gt"),
        "less_than_equal": ("at most", "le"),
        "less_than": ("less than", "lt"),
    }
    kind = err.get("type", "")
    if kind in bounds:
        words, key = bounds[kind]
        return SpecError(
            where,
            f"{field} is {_shown(value)}; it must be {words} {ctx.get(key)}",
            f"use {words} {ctx.get(key)}",
        )
    if kind in ("too_short", "too_long"):
        if kind == "too_short":
            count, words = ctx.get("min_length"), "at least"
        else:
            count, words = ctx.get("max_length"), "at most"
        return SpecError(
            where,
            f"{field} has {ctx.get('actual_length')} entries; it needs {words} {count}",
            "add entries" if kind == "too_short" else "remove entries",
        )
    return SpecError(
        where,
        f"{field}: {err.get('msg', 'invalid value')}",
        "see the spec format: docs/spec.md, or `chgen schema --markdown`",
    )


def _distribution_error(raw: PositionedData, path: PathKey, value: Any, message: str) -> SpecError:
    from generator.spec.model import DISTRIBUTION_KINDS

    where = raw.position(as_written(raw, path))
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        near = _near(key, DISTRIBUTION_KINDS)
        if near:
            where = raw.position(as_written(raw, path + (key,)))
            return SpecError(
                where, f"{field_label(path)}: unknown input form '{key}'", f"did you mean '{near}'?"
            )
    return SpecError(where, f"{field_label(path)}: {message}", "e.g. {uniform: [-1.0, 1.0]}")


def _known_fields(data: Any, path: PathKey) -> List[str]:
    """The fields the model at `path` accepts (for "did you mean"), walking the model's types
    along the data."""
    annotation: Any = Spec
    value = data
    for step in path:
        annotation = _step_type(annotation, value, step)
        value = _child(value, step)[1]
    model = _model_of(annotation, value)
    if model is None:
        return []
    names = list(model.model_fields)
    return names + (["example"] if model is Spec else [])


def _model_of(annotation: Any, value: Any) -> Any:
    """The pydantic model an annotation stands for at `value` (a union: the member whose fields
    the value's keys match best)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    models = [a for a in _members(annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
    keys = set(value) if isinstance(value, dict) else set()
    return max(models, key=lambda m: len(keys & set(m.model_fields)), default=None)


def _members(annotation: Any) -> List[Any]:
    """The types inside Optional/Union/Annotated, flattened."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union:
        return [m for arg in typing.get_args(annotation) for m in _members(arg)]
    return [annotation]


def _step_type(annotation: Any, value: Any, step: Any) -> Any:
    """The type one step (a field, a list index, a mapping key) below `annotation`."""
    model = _model_of(annotation, value)
    if model is not None:
        field = model.model_fields.get(step)
        return field.annotation if field is not None else None
    for member in _members(annotation):
        origin = typing.get_origin(member)
        if origin in (list, List):
            return typing.get_args(member)[0]
        if origin in (dict, Dict):
            return typing.get_args(member)[1]
    return None


def _fields_hint(known: List[str]) -> str:
    if not known:
        return "remove it or check its spelling against docs/spec.md"
    return f"remove it; the fields here are {', '.join(known)}"
