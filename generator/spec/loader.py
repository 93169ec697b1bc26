"""Spec files -> validated `Spec` objects, with every error at file:line:column.

Two passes: pydantic checks each field's form; `_cross_checks` then checks what spans fields (shapes
name declared sizes, every case gives every size, example data matches the declared shapes, ...).
Both passes report through the YAML positions kept by `yamlpos`.
"""

from __future__ import annotations

import ast
import difflib
import math
import re
import textwrap
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from pydantic import BaseModel, ValidationError

from generator.challenge.page import BULLET
from generator.dtypes import DTYPES, lookup
from generator.naming import IDENT_RE, SPEC_NAME_RE, find_specs  # noqa: F401 - re-exported
from generator.spec import code_inputs, example_page, shapes
from generator.spec.model import (
    EXAMPLE_DRAW_KINDS,
    REFERENCE_OUTPUTS,
    Correlated,
    Distribution,
    Param,
    Spec,
    Values,
    helper_names,
)
from generator.spec.yamlpos import (
    BlockLine,
    PathKey,
    Position,
    PositionedData,
    SpecError,
    SpecErrors,
    block_line,
    load_positioned,
    read_text,
)

MAX_SPEC_BYTES = 2_000_000
#: the performance case must fit five times in a 16 GB card
PERF_BYTES_LIMIT = 3_200_000_000


@dataclass(frozen=True)
class LoadedSpec:
    """A validated spec, where it came from, and the YAML positions for later error reports."""

    spec: Spec
    path: Path
    display: str
    svg: Optional[str]
    raw: PositionedData

    def position(self, *path: Any) -> Position:
        return self.raw.position(as_written(self.raw, tuple(path)))

    def example_position(self, index: int, *path: Any) -> Position:
        """Where example `index` (0-based) or one of its fields is written."""
        return self.position("examples", index, *path)

    def example_label(self, index: int) -> str:
        """'the example' when the spec gives one, else 'example 2'."""
        return example_label(self.spec, index)


def as_written(raw: PositionedData, path: PathKey) -> PathKey:
    """A model path as the YAML writes it: a spec that says `example:` has no list to index."""
    if path[:2] == ("examples", 0) and isinstance(raw.data, dict) and "example" in raw.data:
        return ("example",) + tuple(path[2:])
    return path


def _issue_position(raw: PositionedData, text: str, where: PathKey) -> Position:
    """The node at `where`, or, for a path ending in a BlockLine, that line of its text."""
    if where and isinstance(where[-1], BlockLine):
        return block_line(text, raw.position(as_written(raw, where[:-1])), where[-1].index)
    return raw.position(as_written(raw, where))


def example_label(spec: Spec, index: int) -> str:
    return "the example" if len(spec.examples) == 1 else f"example {index + 1}"


def _display(path: Path, root: Optional[Path]) -> str:
    if root is not None:
        try:
            return str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            pass
    return str(path)


def load_spec(path: Path, root: Optional[Path] = None) -> LoadedSpec:
    """Load and validate one spec; raise SpecErrors listing every problem found."""
    display = _display(path, root)
    if path.is_file() and path.stat().st_size > MAX_SPEC_BYTES:
        raise SpecErrors(
            [
                SpecError(
                    Position(display, 1, 1),
                    "spec file is larger than 2 MB",
                    "keep data literal only in the examples; cases draw theirs",
                )
            ]
        )
    try:
        text = read_text(path, display)
        return load_spec_text(text, display, path)
    except SpecError as err:
        raise SpecErrors([err]) from None


def load_spec_text(text: str, display: str, path: Optional[Path] = None) -> LoadedSpec:
    try:
        raw = load_positioned(text, display)
    except SpecError as err:
        raise SpecErrors([err]) from None
    if not isinstance(raw.data, dict):
        raise SpecErrors(
            [
                SpecError(
                    Position(display, 1, 1),
                    "a spec is a YAML mapping (key: value lines)",
                    "start from the skeleton 'chgen new' writes",
                )
            ]
        )
    try:
        spec = Spec.model_validate(raw.data)
    except ValidationError as exc:
        raise SpecErrors(_translate_pydantic(raw, exc.errors())) from None
    except (RecursionError, OverflowError, MemoryError):
        raise SpecErrors(
            [SpecError(Position(display, 1, 1), "spec is too deeply nested", "nest less")]
        )
    errors: List[SpecError] = []
    svg = None
    for where, message, hint in _cross_checks(spec):
        errors.append(SpecError(_issue_position(raw, text, where), message, hint))
    if path is not None:
        errors.extend(_file_name_checks(spec, path, raw))
        try:
            svg = _load_svg(spec, path, raw)
        except SpecError as err:
            errors.append(err)
    if errors:
        raise SpecErrors(errors)
    return LoadedSpec(spec=spec, path=path or Path(display), display=display, svg=svg, raw=raw)


# ----------------------------------------------------------------------------------------------
# pydantic's errors in chgen's words: the field as the YAML names it, at the offending node, with
# what to do ("did you mean 'out'?" for a near miss)


def _translate_pydantic(raw: PositionedData, errors: List[Dict[str, Any]]) -> List[SpecError]:
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
            f"add '{name}:' here (see the README's spec format)",
        )
    if kind == "distribution":
        return _distribution_error(raw, path, value, first.get("msg", ""))
    if kind == "value_error":
        error = first.get("ctx", {}).get("error")
        hint = getattr(error, "hint", "") or "see the README's spec format for this field"
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
        where, f"{field}: {err.get('msg', 'invalid value')}", "see the README's spec format"
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
        return "remove it or check its spelling against the README's spec format"
    return f"remove it; the fields here are {', '.join(known)}"


def _file_name_checks(spec: Spec, path: Path, raw: PositionedData) -> List[SpecError]:
    match = SPEC_NAME_RE.match(path.name)
    expected = f"{spec.id}_{spec.slug}.yaml"
    if not match or path.name not in (expected, expected[:-5] + ".yml"):
        return [
            SpecError(
                raw.position(("slug",)),
                f"spec file is named {path.name!r} but id and slug say {expected!r}",
                "rename the file or fix id/slug",
            )
        ]
    return []


def _load_svg(spec: Spec, path: Path, raw: PositionedData) -> Optional[str]:
    """Inline SVG text, or a sidecar file that must sit in the spec's own folder."""
    if spec.svg is None:
        return None
    value = spec.svg.strip()
    where = raw.position(("svg",))
    if value.startswith("<svg"):
        return value
    if not value.endswith(".svg"):
        raise SpecError(
            where,
            "svg is inline '<svg ...>' text or a sidecar file name ending .svg",
            "e.g. svg: 142_rms_norm_backward.svg",
        )
    if "/" in value or "\\" in value or value.startswith(".") or value != Path(value).name:
        raise SpecError(
            where,
            f"sidecar SVG {value!r} must be a plain file name in the spec's folder",
            "no directories or '..'",
        )
    sidecar = path.parent / value
    if sidecar.is_symlink() or not sidecar.is_file():
        raise SpecError(
            where,
            f"sidecar SVG {value!r} not found next to the spec",
            "put the file in the spec's folder, or write the '<svg ...>' inline",
        )
    text = read_text(sidecar, str(Path(raw.file).parent / value)).strip()
    if not text.startswith("<svg"):
        raise SpecError(
            where, f"sidecar {value!r} does not start with '<svg'", "give it an SVG file"
        )
    return text


# ----------------------------------------------------------------------------------------------
# cross-field checks

Issue = Tuple[PathKey, str, str]


def every_shape(spec: Spec) -> List[Any]:
    """Every shape a tensor is given: the signature's and each example's and case's overrides."""
    every = [p.shape for p in spec.signature if p.is_tensor]
    for overrides in (
        [e.shapes for e in spec.examples]
        + [spec.performance.shapes]
        + [c.shapes for c in spec.functional]
    ):
        every.extend(overrides.values())
    return every


def size_names(spec: Spec) -> List[str]:
    """Scalar parameters used in tensor dimensions (the signature's or a case's), in signature
    order."""
    every = every_shape(spec)
    used = set()
    for shape in every:
        for dim in shape:
            try:
                used.update(shapes.names(shapes.dimension(dim)))
            except shapes.ShapeError:
                continue
    return [p.name for p in spec.signature if not p.is_tensor and p.name in used]


def whole_dimension_sizes(spec: Spec) -> set:
    """Sizes that are a whole dimension somewhere (`[N, C]`) or the scaffold's grid: at least 1.
    A size met only inside expressions (the padding of `(H + 2 * P - K) // S + 1`) may be 0;
    the dimensions it gives are checked for every case."""
    every = every_shape(spec)
    whole = {dim for shape in every for dim in shape if isinstance(dim, str) and dim.isidentifier()}
    if spec.scaffold is not None:
        whole.update(spec.scaffold.grid)
    return whole


def shape_of(param: Param, overrides: Dict[str, Any]) -> List[Any]:
    """The symbolic shape a case passes `param` with: its own override, else the signature's."""
    return list(overrides.get(param.name, param.shape))


def resolve_shape(
    param: Param, scalars: Dict[str, Any], overrides: Optional[Dict[str, Any]] = None
) -> Optional[Tuple[int, ...]]:
    """Concrete dims for the given sizes, or None when a size is missing or a dim fails."""
    return shapes.resolve(shape_of(param, overrides or {}), scalars)


def literal_shape(value: Any) -> Tuple[int, ...]:
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        value = value[0]
    return tuple(shape)


@dataclass(frozen=True)
class SignatureView:
    """The signature sorted the ways the section validators ask about it."""

    spec: Spec
    params: Dict[str, Param]
    scalars: List[Param]
    tensors: List[Param]
    inputs: List[Param]
    outputs: List[Param]
    case_names: frozenset

    @classmethod
    def of(cls, spec: Spec) -> "SignatureView":
        tensors = [p for p in spec.signature if p.is_tensor]
        return cls(
            spec=spec,
            params={p.name: p for p in spec.signature},
            scalars=[p for p in spec.signature if not p.is_tensor],
            tensors=tensors,
            inputs=[p for p in tensors if p.direction in ("in", "inout")],
            outputs=[p for p in tensors if p.direction in ("out", "inout")],
            case_names=frozenset(case.name for case in spec.functional),
        )


def _cross_checks(spec: Spec) -> Iterable[Issue]:
    """Every section validator in turn, in the order the spec's sections are written."""
    view = SignatureView.of(spec)
    for validate in SECTION_VALIDATORS:
        yield from validate(view)


def _validate_signature(view: SignatureView) -> Iterable[Issue]:
    seen: Dict[str, int] = {}
    for i, p in enumerate(view.spec.signature):
        if p.name in seen:
            yield (
                ("signature", i, "name"),
                f"duplicate parameter name {p.name!r}",
                "rename one of them",
            )
        seen[p.name] = i
    if not view.outputs:
        yield ("signature",), "the signature has no out or inout tensor", "solve must write one"
    for i, p in enumerate(view.spec.signature):
        yield from _check_shape_names(view, p.name, p.shape or [], ("signature", i, "shape"))


def _validate_reference(view: SignatureView) -> Iterable[Issue]:
    """Outputs are written in place: a reference that binds an output's name to a new tensor
    (`output = ...`) leaves the caller's tensor as it was (its prefill). A new binding made
    from the output itself (`y = y.view(-1)`, a view of it) is no such mistake."""
    outputs = {p.name for p in view.outputs}
    try:
        tree = ast.parse(textwrap.dedent(view.spec.reference))
    except SyntaxError:
        return  # reported by the model
    for node, name in _rebound_names(tree):
        value = getattr(node, "value", None)
        reads = value is not None and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)
        )
        if name in outputs and not reads:  # `y = y.view(-1)` still writes into the caller's y
            yield (
                ("reference", BlockLine(node.lineno - 1)),
                f"the reference rebinds the output {name!r} (line {node.lineno} of the block): "
                f"the tensor the caller passed keeps its prefill; outputs are written in place",
                f"write into it: {name}.copy_(...) or {name}[...] = ...",
            )


def _rebound_names(tree: ast.AST) -> Iterable[Tuple[ast.AST, str]]:
    """(statement, name) of every plain name a statement binds: `x = ...`, `x: T = ...`,
    `for x in ...`, `with ... as x`, `(x := ...)`, tuple targets too (not `x[...] = ...`)."""

    def names(target: ast.AST) -> Iterable[str]:
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                yield from names(element)
        elif isinstance(target, ast.Starred):
            yield from names(target.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, ast.With):
            targets = [item.optional_vars for item in node.items if item.optional_vars]
        else:
            continue
        for target in targets:
            for name in names(target):
                yield node, name


def _check_shape_names(view: SignatureView, name: str, shape: List[Any], where: PathKey):
    """Each dimension parses and names size scalars (int32 or size_t) only."""
    for j, dim in enumerate(shape):
        try:
            used = shapes.names(shapes.dimension(dim))
        except shapes.ShapeError as exc:
            yield where + (j,), f"shape of {name!r}: {exc}", "e.g. 2 * N or (K + 1) // 2"
            continue
        for size_name in used:
            size = view.params.get(size_name)
            if size is None or size.is_tensor:
                problem = "which is not a scalar parameter"
            elif not _is_size(size):
                problem = f"a {size.dtype} scalar; dimensions use sizes (int32 or size_t) only"
            else:
                continue
            yield (
                where + (j,),
                f"shape of {name!r} names {size_name!r}, {problem}",
                "add it to the signature as an int32 (or size_t) scalar or use a number",
            )


def _check_overrides(
    view: SignatureView, overrides: Dict[str, Any], sizes: Dict[str, Any], where: PathKey, label
) -> Iterable[Issue]:
    """A case's `shapes:` entries name tensors and parse; then every tensor's dims (overridden or
    the signature's) evaluate to non-negative values for the case's sizes."""
    for key, shape in overrides.items():
        if key not in view.params or not view.params[key].is_tensor:
            yield (
                where + (key,),
                f"{key!r} is not a tensor parameter",
                "use the name of a tensor in the signature",
            )
            continue
        yield from _check_shape_names(view, key, shape, where + (key,))
    if any(not isinstance(sizes.get(n), int) for n in size_names(view.spec)):
        return  # a missing or non-integer size is reported on its own
    for i, p in enumerate(view.spec.signature):
        if not p.is_tensor:
            continue
        shape = shape_of(p, overrides)
        try:
            used = {n for dim in shape for n in shapes.names(shapes.dimension(dim))}
        except shapes.ShapeError:
            continue  # reported by _check_shape_names
        if not used <= set(size_names(view.spec)) or any(
            not _is_size(view.params[n]) for n in used
        ):
            continue  # an unknown or float name, reported by _check_shape_names
        failed = shapes.check_dims(shape, sizes)
        if failed is not None:
            j, problem = failed
            at = where + (p.name, j) if p.name in overrides else ("signature", i, "shape", j)
            yield (
                at,
                f"dimension {shapes.spell(shape[j])} of {p.name!r} {problem} for the sizes of "
                f"{label} ({_sizes_text(view.spec, sizes)})",
                "fix the expression or the case's sizes",
            )
            continue
        dims = shapes.resolve(shape, sizes) or ()
        if 0 in dims:  # the sizes chose it (the expression holds for the others): at the sizes
            j = dims.index(0)
            yield (
                where + (p.name, j) if p.name in overrides else where[:-1] + ("scalars",),
                f"dimension {shapes.spell(shape[j])} of {p.name!r} is 0 for the sizes of {label} "
                f"({_sizes_text(view.spec, sizes)}): {p.name} would have no elements, and the "
                "reference and solutions nothing to compute",
                "choose sizes that make every dimension at least 1",
            )


def _sizes_text(spec: Spec, sizes: Dict[str, Any]) -> str:
    return ", ".join(f"{n}={sizes[n]}" for n in size_names(spec))


def _validate_tolerated_rules(view: SignatureView) -> Iterable[Issue]:
    """Codes of `chgen check --list-rules`, each once; the spec rules (G) are not tolerable, as
    they are about the spec and its tree, not about a form the spec keeps."""
    from generator.checks.registry import RULES

    seen = set()
    for j, code in enumerate(view.spec.tolerated_rules):
        where = ("tolerated_rules", j)
        if code not in RULES:
            close = difflib.get_close_matches(code, sorted(RULES), n=1)
            hint = f"did you mean {close[0]!r}?" if close else "see chgen check --list-rules"
            yield where, f"{code!r} is not a rule code", hint
        elif code.startswith("G"):
            yield where, f"{code} is about the spec itself and cannot be tolerated", "fix it"
        elif code in seen:
            yield where, f"{code} is named twice", "name each rule once"
        seen.add(code)


def _validate_expected_cases(view: SignatureView) -> Iterable[Issue]:
    spec = view.spec
    if spec.expected_cases is None:
        return
    low, high = spec.expected_cases
    if not 1 <= low <= high:
        yield ("expected_cases",), f"expected_cases [{low}, {high}] is no range", "give [MIN, MAX]"
    elif not low <= len(spec.functional) <= high:
        yield (
            ("expected_cases",),
            f"the spec has {len(spec.functional)} functional cases, outside its expected_cases "
            f"[{low}, {high}]",
            "add or drop cases, or widen the range",
        )


def _validate_examples(view: SignatureView) -> Iterable[Issue]:
    spec = view.spec
    for i, ex in enumerate(spec.examples):
        base = ("examples", i)
        if ex.text_only:
            if i == 0:
                yield (
                    base + ("display",),
                    "the first example is what generate_example_test returns: it cannot be the "
                    "page's text alone",
                    "give its scalars, inputs and outputs (display may still show them)",
                )
            continue
        yield from _check_scalar_values(spec, view.scalars, ex.scalars, base + ("scalars",))
        yield from _check_overrides(
            view, ex.shapes, ex.scalars, base + ("shapes",), example_label(spec, i)
        )
        yield from _check_example(spec, i, view.params, view.inputs, view.outputs)
        yield from example_page.field_issues(
            spec, i, base, size_names(spec), example_label(spec, i)
        )


def _validate_page(view: SignatureView) -> Iterable[Issue]:
    spec = view.spec
    gaps = spec.page.section_gaps
    sections = len(spec.examples) + 2
    if gaps is not None and len(gaps) != sections:
        yield (
            ("page", "section_gaps"),
            f"section_gaps gives {len(gaps)} gap(s); the page has {sections} sections "
            "(Implementation Requirements, each example, Constraints)",
            "give one number of blank lines per section",
        )
    if spec.after_svg is not None and spec.svg is None:
        yield (
            ("after_svg",),
            "after_svg places HTML after the SVG, and the spec has no svg",
            "give the svg, or move this HTML to the end of the description",
        )
    indents = spec.page.item_indents
    items = len(spec.requirement_items) + len(spec.constraints)
    if indents is not None and len(indents) != items:
        yield (
            ("page", "item_indents"),
            f"item_indents gives {len(indents)} indentation(s); the page has {items} items "
            "(Implementation Requirements, then Constraints, the performance bullet apart)",
            "give one indentation per item, in page order",
        )
    order = ["description", "requirements", "examples", "constraints"]
    for i, (before, section) in enumerate(zip(spec.sections, spec.sections[1:]), start=1):
        if order.index(section.after) < order.index(before.after):
            yield (
                ("sections", i, "after"),
                f"section {section.title!r} comes after {section.after}, before the section "
                f"{before.title!r} above it (after {before.after})",
                "list the sections in page order",
            )


def _validate_functional(view: SignatureView) -> Iterable[Issue]:
    spec = view.spec
    case_names: Dict[str, int] = {}
    for i, case in enumerate(spec.functional):
        base = ("functional", i)
        if case.name in case_names:
            yield base + ("name",), f"duplicate case name {case.name!r}", "rename one of them"
        case_names[case.name] = i
        if case.example_number > len(spec.examples):
            yield (
                base + ("from_example",),
                f"from_example: {case.from_example} but the spec has "
                f"{len(spec.examples)} example(s)",
                "use true (the first) or the number of one of 'examples'",
            )
        elif case.example_number and spec.examples[case.example_number - 1].text_only:
            yield (
                base + ("from_example",),
                f"example {case.example_number} is the page's text alone: it has no values "
                "to run",
                "give that example its scalars, inputs and outputs, or draw this case",
            )
        if case.from_example:
            continue
        merged = {**spec.defaults.scalars, **case.scalars}
        computed = _computed_scalars(view, case.inputs)
        yield from _check_scalar_values(
            spec, view.scalars, merged, base + ("scalars",), case.scalars, computed
        )
        yield from _check_overrides(
            view, case.shapes, merged, base + ("shapes",), f"case {case.name!r}"
        )
        yield from _check_inputs(
            spec, view.params, view.inputs, case.inputs, merged, base + ("inputs",), case.shapes
        )


def _validate_defaults(view: SignatureView) -> Iterable[Issue]:
    params = view.params
    for key in view.spec.defaults.scalars:
        if key not in params or params[key].is_tensor:
            yield (
                ("defaults", "scalars", key),
                f"{key!r} is not a scalar parameter",
                "use the name of a scalar in the signature",
            )
    for key in view.spec.defaults.inputs:
        if key not in params or params[key] not in view.inputs:
            yield (
                ("defaults", "inputs", key),
                f"{key!r} is not an input tensor",
                "use the name of an in or inout tensor",
            )


def _validate_performance(view: SignatureView) -> Iterable[Issue]:
    spec, perf = view.spec, view.spec.performance
    computed = _computed_scalars(view, perf.inputs)
    yield from _check_scalar_values(
        spec, view.scalars, perf.scalars, ("performance", "scalars"), None, computed
    )
    for j, name in enumerate(perf.shown or []):
        if name in computed:
            yield (
                ("performance", "shown", j),
                f"{name!r} is computed by the performance case's code: the bullet cannot name it",
                "drop it from shown",
            )
    yield from _check_overrides(
        view, perf.shapes, perf.scalars, ("performance", "shapes"), "the performance case"
    )
    yield from _check_inputs(
        spec,
        view.params,
        view.inputs,
        perf.inputs,
        perf.scalars,
        ("performance", "inputs"),
        perf.shapes,
    )
    yield from _check_perf_size(spec, view.tensors, perf.scalars, perf.shapes)
    for j, name in enumerate(perf.shown or []):
        if name not in view.params or view.params[name].is_tensor:
            yield (
                ("performance", "shown", j),
                f"{name!r} is not a scalar parameter",
                "use the name of a scalar in the signature",
            )
    last = " ".join(re.sub(r"<[^>]*>", " ", (spec.constraints or [""])[-1]).split())
    if not perf.bullet and not last.lower().startswith(BULLET.lower()):
        yield (
            ("performance", "bullet"),
            f"performance.bullet is false but the last constraint is no '{BULLET} ...' item",
            "end the constraints with the bullet as the page writes it, or drop bullet: false",
        )
    try:
        if eval_size_expression(perf.min_bytes, perf.scalars) <= 0:
            yield (
                ("performance", "min_bytes"),
                "min_bytes must be positive",
                "the least bytes a kernel moves, e.g. '2 * N * 4'",
            )
    except ValueError as exc:
        yield ("performance", "min_bytes"), f"min_bytes: {exc}", "e.g. '3 * N * C * 4'"
    for i, base in enumerate(perf.baselines):
        yield from _check_code(base.code, ("performance", "baselines", i, "code"))


def _validate_mutants(view: SignatureView) -> Iterable[Issue]:
    mutant_names = set()
    for i, mutant in enumerate(view.spec.mutants):
        if mutant.name in mutant_names:
            yield (
                ("mutants", i, "name"),
                f"duplicate mutant name {mutant.name!r}",
                "rename one of them",
            )
        mutant_names.add(mutant.name)
        yield from _check_code(mutant.code, ("mutants", i, "code"))
        for j, name in enumerate(mutant.caught_by or []):
            if name not in view.case_names and name != "example":
                yield (
                    ("mutants", i, "caught_by", j),
                    f"no functional case is named {name!r}",
                    "use a case name from 'functional'",
                )


def _validate_oracle(view: SignatureView) -> Iterable[Issue]:
    if view.spec.oracle is not None:
        yield from _check_oracle(view.spec, view.params, view.inputs, view.outputs)


def _validate_accuracy_floor(view: SignatureView) -> Iterable[Issue]:
    floor = view.spec.accuracy_floor
    if floor is None:
        return
    if floor.output not in view.params or view.params[floor.output] not in view.outputs:
        yield (
            ("accuracy_floor", "output"),
            f"{floor.output!r} is not an output tensor",
            "use the name of an out or inout tensor",
        )
    yield from _check_code(floor.baseline, ("accuracy_floor", "baseline"), mode="eval")


def _validate_scaffold(view: SignatureView) -> Iterable[Issue]:
    spec, params = view.spec, view.params
    if spec.scaffold is None:
        if spec.difficulty == "easy":
            yield (
                ("difficulty",),
                "easy challenges carry kernel scaffolds: add 'scaffold: {kernel: NAME, grid: [N]}'",
                "or make the challenge medium",
            )
        return
    if not IDENT_RE.match(spec.scaffold.kernel):
        yield ("scaffold", "kernel"), "kernel name must be an identifier", "e.g. leaky_relu_kernel"
    for j, name in enumerate(spec.scaffold.grid):
        if name not in params or params[name].is_tensor or not _is_size(params[name]):
            yield (
                ("scaffold", "grid", j),
                f"{name!r} is not a size parameter (int32 or size_t)",
                "use an int32 or size_t scalar of the signature",
            )
    if spec.difficulty != "easy":
        yield (
            ("scaffold",),
            "only easy challenges have a scaffold; medium/hard start empty",
            "drop 'scaffold', or make the challenge easy",
        )
    yield from _validate_starter_scaffolds(view)


def _validate_starter_scaffolds(view: SignatureView) -> Iterable[Issue]:
    """`scaffold.starters`: a scaffolded language, identifiers, one name per solve parameter, a
    1-D grid expression of the sizes."""
    from generator.languages import BY_KEY

    spec = view.spec
    sizes = {p.name: 1 for p in spec.signature if not p.is_tensor and _is_size(p)}
    for key, variant in spec.scaffold.starters.items():
        where = ("scaffold", "starters", key)
        lang = BY_KEY.get(key)
        if lang is None or not lang.scaffolded:
            scaffolded = ", ".join(k for k, v in BY_KEY.items() if v.scaffolded)
            yield where, f"{key!r} is not a scaffolded language", f"use one of {scaffolded}"
            continue
        if variant.kernel is not None and not IDENT_RE.match(variant.kernel):
            yield where + (
                "kernel",
            ), "kernel name must be an identifier", "use letters, digits and _"
        if variant.parameters is not None:
            if len(variant.parameters) != len(spec.signature):
                yield (
                    where + ("parameters",),
                    f"{len(variant.parameters)} name(s) for {len(spec.signature)} solve "
                    "parameters",
                    "name every parameter, in solve order",
                )
            for j, name in enumerate(variant.parameters):
                if not IDENT_RE.match(name):
                    problem = f"{name!r} is not an identifier"
                    yield where + ("parameters", j), problem, "use letters, digits and _"
        if variant.grid is not None:
            if len(spec.scaffold.grid) != 1:
                problem = "a grid expression is for 1-D scaffolds"
                yield where + ("grid",), problem, "drop it, or give scaffold.grid one size"
            try:
                expr = shapes.parse(variant.grid)
                missing = [n for n in shapes.names(expr) if n not in sizes]
                if missing:
                    problem = f"{missing[0]!r} is not a size parameter"
                    yield where + ("grid",), problem, "use the size scalars of the signature"
            except shapes.ShapeError as exc:
                yield where + ("grid",), str(exc), "write arithmetic of sizes, e.g. N // 2"


def _validate_exploded_solve(view: SignatureView) -> Iterable[Issue]:
    from generator.languages import BY_KEY

    for j, key in enumerate(view.spec.exploded_solve):
        lang = BY_KEY.get(key)
        if lang is None or lang.starter_syntax != "python":
            python = ", ".join(k for k, v in BY_KEY.items() if v.starter_syntax == "python")
            yield ("exploded_solve", j), f"{key!r} is not a Python starter", f"use {python}"


#: the modules reference_jax may import (challenge.py's own imports allow math beside JAX)
JAX_REFERENCE_MODULES = ("jax", "math")


def _validate_reference_jax(view: SignatureView) -> Iterable[Issue]:
    """reference_impl_jax returns the outputs and imports JAX (or math) only; generation then
    runs it against the reference on every case (generator/checks/jax_reference.py)."""
    spec = view.spec
    if spec.reference_jax is None:
        if spec.exploded_reference_jax:
            yield (
                ("exploded_reference_jax",),
                "exploded_reference_jax without a reference_jax",
                "drop it, or add the body of reference_impl_jax as reference_jax",
            )
        return
    where = ("reference_jax",)
    body = ast.parse(spec.reference_jax).body
    own = [node for statement in body for node in _outside_functions(statement)]
    for node in own:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for module in names:
                if (module or "").split(".")[0] not in JAX_REFERENCE_MODULES:
                    yield (
                        where,
                        f"reference_jax line {node.lineno} imports {module}; it may import jax "
                        "modules and math only",
                        "write it in jax and jax.numpy (import jax.numpy as jnp)",
                    )
    if not any(isinstance(node, ast.Return) and node.value is not None for node in own):
        outputs = ", ".join(p.name for p in view.outputs)
        yield (
            where,
            "reference_jax returns nothing: reference_impl_jax returns the outputs",
            f"return their values as arrays, in signature order: `return {outputs}`",
        )


def _outside_functions(node: ast.AST) -> Iterable[ast.AST]:
    """`node` and what it holds, except the bodies of the functions and classes it defines."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _outside_functions(child)


def _validate_helpers(view: SignatureView) -> Iterable[Issue]:
    """Starter helpers name a language chgen writes; Python ones must parse (the others are
    proved by the compile checks of the starters)."""
    from generator.languages import BY_KEY  # the registry: which starters exist

    spec = view.spec
    for key, code in spec.starter_helpers.items():
        where = ("starter_helpers", key)
        lang = BY_KEY.get(key)
        if lang is None:
            yield where, f"no language is called {key!r}", f"use one of {', '.join(BY_KEY)}"
        elif lang.starter_syntax == "python":
            yield from _check_code(code, where)
    if spec.reference_helpers is not None:
        names = {p.name for p in spec.signature}
        for node in ast.parse(spec.reference_helpers).body:
            for name in helper_names(node):
                if name in names:
                    yield (
                        ("reference_helpers",),
                        f"helper {name!r} has the name of a solve parameter",
                        "rename it",
                    )


def _validate_case_forms(view: SignatureView) -> Iterable[Issue]:
    """Descriptors stand for drawn inputs and empty outputs only."""
    spec = view.spec
    forms = [(("functional", i), case) for i, case in enumerate(spec.functional)]
    forms.append((("performance",), spec.performance))
    for where, case in forms:
        if not case.descriptors:
            continue
        if case.seed is not None:
            yield (
                where + ("seed",),
                "descriptors are drawn by the runner, which seeds them itself: a seed here has "
                "no effect",
                "drop the seed or descriptors: true",
            )
        prefill = case.prefill if case.prefill is not None else spec.prefill
        if prefill not in (None, "empty"):
            at = where + ("prefill",) if case.prefill is not None else ("prefill",)
            yield (
                at,
                f"outputs written with descriptors start empty (OutTensor), not {prefill!r}",
                "drop descriptors: true or the prefill",
            )
        own = case.inputs
        merged = {**spec.defaults.inputs, **own}
        for name, dist in merged.items():
            if dist.kind in ("values", "correlated", "code"):
                loc = where + ("inputs", name) if name in own else ("defaults", "inputs", name)
                yield (
                    loc,
                    f"{dist.kind} has no descriptor (RandTensor, RandnTensor, RandIntTensor, "
                    "FullTensor)",
                    "drop descriptors: true for this case",
                )


def _validate_values(view: SignatureView) -> Iterable[Issue]:
    """Every number a tensor is filled or drawn with fits the tensor's dtype (generator/dtypes.py):
    NaN and infinity for floats only, integers for integer dtypes, within the dtype's range."""
    spec = view.spec
    outs = [p for p in view.tensors if p.direction == "out"]
    prefills = [
        (("prefill",), spec.prefill),
        (("performance", "prefill"), spec.performance.prefill),
    ]
    prefills += [(("functional", i, "prefill"), c.prefill) for i, c in enumerate(spec.functional)]
    for where, prefill in prefills:
        if prefill is None or isinstance(prefill, str):
            continue
        for p in outs:
            problem = lookup(p.dtype).value_problem(prefill)
            if problem:
                yield (
                    where,
                    f"prefill {_spelled(prefill)} does not fit {_typed(p)}: {problem}",
                    _fitting(p),
                )
                break
    inputs = {p.name: p for p in view.inputs}
    drawn = [(("defaults", "inputs"), spec.defaults.inputs)]
    drawn += [(("functional", i, "inputs"), c.inputs) for i, c in enumerate(spec.functional)]
    drawn.append((("performance", "inputs"), spec.performance.inputs))
    for where, dists in drawn:
        for name, dist in dists.items():
            if name in inputs:
                yield from _check_drawn_values(inputs[name], dist, where + (name,))
    for i, ex in enumerate(spec.examples):
        for name, dist in ex.drawn.items():
            if name in inputs:
                yield from _check_drawn_values(inputs[name], dist, ("examples", i, "inputs", name))
        literals = {k: v for k, v in ex.inputs.items() if k not in ex.drawn}
        for group, values in (("inputs", literals), ("outputs", ex.hand_outputs)):
            for name, value in values.items():
                if name in view.params and view.params[name].is_tensor:
                    where = ("examples", i, group, name)
                    yield from _check_literal(view.params[name], value, where)


def _typed(p: Param) -> str:
    return f"{p.name!r} ({p.dtype})"


def _fitting(p: Param) -> str:
    row = lookup(p.dtype)
    low, high = row.limits
    if row.is_float:
        return f"give a number within {p.dtype}'s range, ±{high:.5g}"
    return f"give an integer from {low} to {high}"


def _spelled(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}[repr(value)]
    return repr(value)


def _check_drawn_values(p: Param, dist: Distribution, loc: PathKey) -> Iterable[Issue]:
    """The bounds of a draw, a constant and literal values, against `p`'s dtype."""
    row = lookup(p.dtype)
    kind = dist.kind
    if kind == "constant":
        problem = row.value_problem(dist.constant)
        if problem:
            yield (
                loc + ("constant",),
                f"constant {_spelled(dist.constant)} does not fit {_typed(p)}: {problem}",
                _fitting(p),
            )
    elif kind in ("uniform", "normal"):
        for j, bound in enumerate(getattr(dist, kind)):
            problem = row.value_problem(bound) if row.is_float else None
            if problem:
                yield (
                    loc + (kind, j),
                    f"{kind} bound {_spelled(bound)} does not fit {_typed(p)}: {problem}",
                    _fitting(p),
                )
                return
        low, high = getattr(dist, kind)
        width = high - low if kind == "uniform" else high
        if row.is_float and width > row.limits[1]:
            what = "uniform's width (high - low)" if kind == "uniform" else "normal's deviation"
            yield (
                loc + (kind,),
                f"{what} {width:g} exceeds {p.dtype}'s largest value {row.limits[1]:g}",
                f"draw a narrower range for {p.name!r}",
            )
    elif kind == "randint":
        low, high = dist.randint
        if row.is_float:
            top = row.exact_integers
            for j, bound in ((0, low), (1, high - 1)):
                if abs(bound) > top:
                    yield (
                        loc + ("randint", j),
                        f"randint into {_typed(p)} draws integers exactly only within "
                        f"[-{top}, {top}], not {bound}",
                        "draw a narrower range",
                    )
                    return
        else:
            for j, bound in ((0, low), (1, high - 1)):
                problem = row.value_problem(bound)
                if problem:
                    what = "low" if j == 0 else "high - 1"
                    yield (
                        loc + ("randint", j),
                        f"randint {what} ({bound}) does not fit {_typed(p)}: {problem}",
                        _fitting(p),
                    )
                    return
    elif kind == "values":
        yield from _check_literal(p, dist.values, loc + ("values",))


def _check_literal(p: Param, value: Any, loc: PathKey) -> Iterable[Issue]:
    """The first element of literal data that does not fit `p`'s dtype, at its own position."""
    row = lookup(p.dtype)
    stack: List[Tuple[PathKey, Any]] = [(loc, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed([(where + (k,), v) for k, v in enumerate(item)]))
            continue
        problem = row.value_problem(item)
        if problem:
            yield where, f"{_spelled(item)} does not fit {_typed(p)}: {problem}", _fitting(p)
            return


def _validate_distributed(view: SignatureView) -> Iterable[Issue]:
    """A multi-GPU challenge says how a case is split over its ranks, and only such a one does:
    `rows` is a size, each split tensor's first dimension is exactly that size."""
    spec, layout = view.spec, view.spec.distributed
    if spec.num_gpus > 1 and layout is None:
        yield (
            ("num_gpus",),
            f"num_gpus: {spec.num_gpus} needs a 'distributed' section",
            "add distributed: {rows: N, split: [x, ...]} (the tensors each rank holds rows of)",
        )
    if layout is not None and spec.num_gpus == 1:
        yield ("distributed",), "'distributed' needs num_gpus of 2 to 8", "set num_gpus: G"
    for i, case in enumerate(spec.functional):
        if case.gpus is not None and case.gpus > spec.num_gpus:
            yield (
                ("functional", i, "gpus"),
                f"case {case.name!r} asks for {case.gpus} GPUs, more than num_gpus "
                f"({spec.num_gpus})",
                "raise num_gpus to the most GPUs any case uses",
            )
    if layout is None:
        return
    size = view.params.get(layout.rows)
    if size is None or size.is_tensor or not _is_size(size):
        yield (
            ("distributed", "rows"),
            f"rows: {layout.rows!r} is not a size scalar of the signature",
            "name the int32 (or size_t) size the split tensors' first dimension is",
        )
    for j, name in enumerate(layout.split):
        p = view.params.get(name)
        if p is None or not p.is_tensor:
            yield ("distributed", "split", j), (
                f"{name!r} is not a tensor parameter",
                "split names tensors of the signature",
            )
        elif not p.shape or str(p.shape[0]) != layout.rows:
            yield (
                ("distributed", "split", j),
                f"the first dimension of {name!r} is not {layout.rows!r}",
                f"split only tensors of shape [{layout.rows}, ...]",
            )
        elif any(name in form.shapes for form in [*spec.examples, *spec.functional]):
            yield ("distributed", "split", j), (
                f"a case passes {name!r} in another shape",
                "a split tensor keeps its signature shape in every case",
            )


#: one validator per spec section, run in this order (errors are reported in this order)
SECTION_VALIDATORS: Tuple[Callable[[SignatureView], Iterable[Issue]], ...] = (
    _validate_signature,
    _validate_reference,
    _validate_examples,
    _validate_page,
    _validate_functional,
    _validate_expected_cases,
    _validate_tolerated_rules,
    _validate_defaults,
    _validate_performance,
    _validate_mutants,
    _validate_oracle,
    _validate_accuracy_floor,
    _validate_scaffold,
    _validate_exploded_solve,
    _validate_reference_jax,
    _validate_helpers,
    _validate_case_forms,
    _validate_values,
    _validate_distributed,
)


#: the values an integer scalar may take, by dtype
SCALAR_RANGES = {
    name: (row.limits[0], row.limits[1] + 1) for name, row in DTYPES.items() if not row.is_float
}


def _is_size(p: Param) -> bool:
    from generator.dtypes import lookup

    return not p.is_tensor and lookup(p.dtype).is_size


def _check_scalar_values(
    spec: Spec,
    scalars: List[Param],
    values: Dict[str, Any],
    where: PathKey,
    own: Optional[Dict[str, Any]] = None,
    computed: Optional[Dict[str, str]] = None,
) -> Iterable[Issue]:
    """`computed`: the scalars the case's code computes (no value of their own)."""
    computed = computed or {}
    for key in own if own is not None else values:
        if key in computed:
            yield (
                where + (key,),
                f"{key!r} is computed by the code of {computed[key]!r}, and given here too",
                f"drop this value, or stop binding {key} in that code",
            )
    values = {k: v for k, v in values.items() if k not in computed}
    scalars = [p for p in scalars if p.name not in computed]
    if own is not None:
        own = {k: v for k, v in own.items() if k not in computed}
    names = {p.name: p for p in scalars}
    for key, value in (own if own is not None else values).items():
        if key not in names:
            yield (
                where + (key,),
                f"{key!r} is not a scalar parameter",
                "use the name of a scalar in the signature",
            )
            continue
        p = names[key]
        low, high = SCALAR_RANGES.get(p.dtype, (None, None))
        if _is_size(p) and (not isinstance(value, int) or isinstance(value, bool)):
            yield where + (key,), f"{key!r} is {p.dtype}: give an integer", "e.g. 1024"
        elif isinstance(value, float) and not math.isfinite(value):
            yield where + (key,), f"{key!r} must be finite", "write a finite number"
        elif low is not None and not low <= value < high:
            yield (
                where + (key,),
                f"{key!r} does not fit in {p.dtype}",
                f"use a value from {low} to {high - 1}",
            )
    for p in scalars:
        if p.name not in values:
            yield where, f"no value for scalar {p.name!r}", "add it here or under defaults.scalars"
    whole = whole_dimension_sizes(spec)
    for p in scalars:
        if p.name in values and p.name in size_names(spec):
            value = values[p.name]
            least = 1 if p.name in whole else 0
            if isinstance(value, int) and not isinstance(value, bool) and value < least:
                yield where + (
                    p.name,
                ), f"size {p.name!r} must be at least {least}", f"use {least} or more"


def _check_example(spec, index, params, inputs, outputs) -> Iterable[Issue]:
    ex = spec.examples[index]
    base = ("examples", index)
    label = example_label(spec, index)
    for key in ex.inputs:
        if key not in params or params[key] not in inputs:
            yield (
                base + ("inputs", key),
                f"{key!r} is not an input tensor",
                "use the name of an in or inout tensor",
            )
    yield from _check_drawn_example(ex, base, label, params, inputs)
    for key in ex.hand_outputs:
        if key not in params or params[key] not in outputs:
            yield (
                base + ("outputs", key),
                f"{key!r} is not an output tensor",
                "use the name of an out or inout tensor",
            )
    scalar_names = [p.name for p in spec.signature if not p.is_tensor]
    for i, name in enumerate(ex.hide):
        if name not in scalar_names:
            yield (
                base + ("hide", i),
                f"{name!r} is not a scalar of the signature",
                f"name one of {', '.join(scalar_names) or '(none)'}",
            )
    made = code_inputs.made_together([p.name for p in inputs], ex.drawn)
    for p in inputs:
        if p.name in made and p.name in ex.inputs:
            yield (
                base + ("inputs", p.name),
                f"{p.name!r} is made by the code of {made[p.name]!r}, and given here too",
                f"drop this entry, or stop binding {p.name} in that code",
            )
        elif p.name not in ex.inputs and p.name not in made:
            yield (
                base + ("inputs",),
                f"{label} gives no value for input {p.name!r}",
                "add it under inputs",
            )
    for p in outputs:
        if ex.outputs != REFERENCE_OUTPUTS and p.name not in ex.outputs:
            yield (
                base + ("outputs",),
                f"{label} gives no expected {p.name!r}",
                "add its hand-computed value under outputs",
            )
    if any(p.name not in ex.scalars for p in spec.signature if not p.is_tensor):
        return
    if any(not isinstance(ex.scalars[n], int) for n in size_names(spec)):
        return
    literals = {k: v for k, v in ex.inputs.items() if k not in ex.drawn}
    for group, values in (("inputs", literals), ("outputs", ex.hand_outputs)):
        for key, value in values.items():
            if key in params and params[key].is_tensor:
                want = resolve_shape(params[key], ex.scalars, ex.shapes)
                got = literal_shape(value)
                if want is not None and min(want, default=0) >= 0 and got != want:
                    yield (
                        base + (group, key),
                        f"{key!r} has shape {list(got)} but the signature and {label}'s "
                        f"sizes give {list(want)}",
                        "make the literal match that shape, or fix the example's sizes",
                    )


def _check_drawn_example(ex, base, label, params, inputs) -> Iterable[Issue]:
    """A drawn example: draws chgen renders on the CPU generator, its seed, and its outputs
    given by the reference (none can be written by hand for data nobody sees)."""
    for key, dist in ex.drawn.items():
        if dist.kind not in EXAMPLE_DRAW_KINDS:
            yield (
                base + ("inputs", key),
                f"an example input is literal data or one of "
                f"{', '.join(EXAMPLE_DRAW_KINDS)}, not {dist.kind}",
                "write the values themselves as a nested list, or draw them with "
                "{normal: [mean, std]}, {uniform: [lo, hi]} or {randint: [lo, hi]}",
            )
        elif key in params and params[key] in inputs:
            order = [p.name for p in inputs]
            yield from _check_distribution(
                params[key], dist, params, order, ex.scalars, base + ("inputs", key), ex.shapes
            )
    # a code input draws as its code says (from `generator` when the example has a seed)
    random = [k for k, d in ex.drawn.items() if d.kind not in ("constant", "code")]
    coded = [k for k, d in ex.drawn.items() if d.kind == "code"]
    if random and ex.seed is None:
        yield (
            base + ("inputs", random[0]),
            f"{label} draws {random[0]!r} but gives no seed",
            "add seed: 0 (or any seed) to the example: its inputs are drawn on the CPU "
            "generator with it",
        )
    if ex.seed is not None and not random and not coded:
        yield (
            base + ("seed",),
            f"{label} gives a seed but draws no input",
            "drop seed, or draw an input ({normal: [0, 1]}, {uniform: [lo, hi]}, ...)",
        )
    if ex.drawn and ex.outputs != REFERENCE_OUTPUTS:
        yield (
            base + ("outputs",),
            f"{label} draws its inputs, so its outputs cannot be written by hand",
            "write outputs: reference (they are verified against the reference at generate "
            "time)",
        )
    if not ex.drawn and ex.outputs == REFERENCE_OUTPUTS:
        yield (
            base + ("outputs",),
            f"{label} gives literal inputs, so its outputs are written by hand",
            "give each output's hand-computed value, or draw the inputs "
            "({normal: [0, 1]} with a seed)",
        )
    if ex.drawn and ex.display is None and ex.numbers is not None:
        yield (
            base + ("numbers",),
            f"{label} is drawn: its page lists shapes, not numbers",
            "drop numbers",
        )


def _check_inputs(spec, params, inputs, own, scalars, where, overrides=None) -> Iterable[Issue]:
    merged: Dict[str, Any] = {**spec.defaults.inputs, **own}
    order = [p.name for p in inputs]
    for key in own:
        if key not in params or params[key] not in inputs:
            yield (
                where + (key,),
                f"{key!r} is not an input tensor",
                "use the name of an in or inout tensor",
            )
    made = code_inputs.made_together(order, merged)
    for p in inputs:
        if p.name in made:
            if p.name in own:
                yield (
                    where + (p.name,),
                    f"{p.name!r} is made by the code of {made[p.name]!r}, and given here too",
                    f"drop this entry, or stop binding {p.name} in that code",
                )
            continue
        if p.name not in merged:
            yield where, f"no distribution for input {p.name!r}", "add it or give a default"
            continue
        dist = merged[p.name]
        loc = where + (p.name,) if p.name in own else ("defaults", "inputs", p.name)
        yield from _check_distribution(p, dist, params, order, scalars, loc, overrides or {})


def _check_code_input(p: Param, dist: Any, params, order, loc) -> Iterable[Issue]:
    sizes = {n for q in params.values() if q.is_tensor for n in _shape_names(q)}
    names = {
        n: (
            ("size" if n in sizes else "scalar")
            if not q.is_tensor
            else "output tensor" if q.direction == "out" else "input"
        )
        for n, q in params.items()
    }
    if loc[0] == "examples":  # an example's scalars are shown on the page: given, not computed
        names = {n: ("given scalar" if kind == "scalar" else kind) for n, kind in names.items()}
    for message, hint in code_inputs.code_problems(p.name, dist.code, order, names):
        yield loc + ("code",), message, hint


def _shape_names(p: Param) -> List[str]:
    found: List[str] = []
    for dim in p.shape or []:
        try:
            found += shapes.names(shapes.dimension(dim))
        except shapes.ShapeError:
            pass
    return found


def _computed_scalars(view: "SignatureView", own: Dict[str, Any]) -> Dict[str, str]:
    """The scalars a case's code computes (code_inputs.made_scalars), each -> its input."""
    forms = {**view.spec.defaults.inputs, **own}
    order = [p.name for p in view.inputs]
    sizes = set(size_names(view.spec))
    scalars = [p.name for p in view.scalars if p.name not in sizes]
    return code_inputs.made_scalars(order, forms, scalars)


def _check_distribution(p: Param, dist: Distribution, params, order, scalars, loc, overrides):
    kind = dist.kind
    if kind == "code":
        yield from _check_code_input(p, dist, params, order, loc)
        return
    if kind in ("uniform", "randint"):
        low, high = getattr(dist, kind)
        if not low < high:
            yield (
                loc,
                f"{kind} needs low < high, got [{low}, {high}]",
                "give [low, high] with low < high",
            )
    if kind == "normal" and not dist.normal[1] >= 0:
        yield (
            loc,
            "normal needs a non-negative standard deviation",
            "give [mean, std] with std >= 0",
        )
    if kind in ("uniform", "normal") and not lookup(p.dtype).is_float:
        yield loc, f"{kind} draws floats but {p.name!r} is {p.dtype}", "use randint"
    if isinstance(dist, Values):
        want = resolve_shape(p, scalars, overrides)
        if want is not None and min(want, default=0) >= 0:
            got = literal_shape(dist.values)
            if got != want:
                yield (
                    loc,
                    f"values have shape {list(got)}, the case's sizes give {list(want)}",
                    "make the literal match that shape, or fix the case's sizes",
                )
    if isinstance(dist, Correlated):
        src = dist.correlated.source
        if src not in params or not params[src].is_tensor:
            yield (
                loc,
                f"correlated source {src!r} is not a tensor parameter",
                "name a tensor input of the signature",
            )
        elif src not in order or order.index(src) >= order.index(p.name):
            yield (
                loc,
                f"correlated source {src!r} must be an input listed before {p.name!r}",
                "list the source first in the signature, or correlate with an earlier input",
            )
        elif resolve_shape(params[src], scalars, overrides) != resolve_shape(p, scalars, overrides):
            yield (
                loc,
                f"correlated source {src!r} has another shape than {p.name!r}",
                "correlate tensors of the same shape",
            )
        if dist.correlated.noise[1] < 0:
            yield (
                loc,
                "noise needs a non-negative standard deviation",
                "give [mean, std] with std >= 0",
            )


def _check_perf_size(spec: Spec, tensors: List[Param], scalars, overrides) -> Iterable[Issue]:
    from generator.dtypes import lookup

    if any(not isinstance(scalars.get(n), int) for n in size_names(spec)):
        return
    total = 0
    for p in tensors:
        shape = resolve_shape(p, scalars, overrides)
        if shape is None:
            return
        total += math.prod(shape) * lookup(p.dtype).itemsize
    if total > PERF_BYTES_LIMIT:
        yield (
            ("performance", "scalars"),
            f"performance tensors take {total / 1e9:.2f} GB; they must fit five times in 16 GB "
            "(at most 3.2 GB)",
            "use smaller sizes",
        )


def _check_code(code: str, where: PathKey, mode: str = "exec") -> Iterable[Issue]:
    try:
        ast.parse(code, mode=mode)
    except SyntaxError as exc:
        yield (
            where,
            f"not valid Python: {exc.msg} (line {exc.lineno} of the block)",
            "fix the Python at that line of the block",
        )


def _check_oracle(spec, params, inputs, outputs) -> Iterable[Issue]:
    oracle = spec.oracle
    if oracle.code is not None:
        yield from _check_code(oracle.code, ("oracle", "code"))
        return
    yield from _check_code(oracle.forward, ("oracle", "forward"), mode="eval")
    if oracle.grad_output not in params or params[oracle.grad_output] not in inputs:
        yield (
            ("oracle", "grad_output"),
            f"{oracle.grad_output!r} is not an input tensor",
            "name an in or inout tensor",
        )
    for key, out in oracle.gradients.items():
        if key not in params or params[key] not in inputs:
            yield (
                ("oracle", "gradients", key),
                f"{key!r} is not an input tensor",
                "name an in or inout tensor",
            )
        if out not in params or params[out] not in outputs:
            yield (
                ("oracle", "gradients", key),
                f"{out!r} is not an output tensor",
                "name an out or inout tensor",
            )


_ALLOWED_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)


def eval_size_expression(text: str, scalars: Dict[str, Any]) -> float:
    """Evaluate arithmetic over scalar names (min_bytes); anything else is refused."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ValueError("not an arithmetic expression") from None

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in scalars:
                raise ValueError(f"unknown name {node.id!r}")
            return scalars[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ALLOWED_BINOPS):
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise ValueError("exponent too large")
            try:
                return {
                    ast.Add: lambda: left + right,
                    ast.Sub: lambda: left - right,
                    ast.Mult: lambda: left * right,
                    ast.Div: lambda: left / right,
                    ast.FloorDiv: lambda: left // right,
                    ast.Pow: lambda: left**right,
                }[type(node.op)]()
            except ZeroDivisionError:
                raise ValueError("division by zero") from None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError("only numbers, scalar names and + - * / // ** are allowed")

    return ev(tree)
