"""What a spec implies beyond its fields, computed once per spec: which scalars are sizes, which
shapes each tensor is given, the signature sorted by role.

Render, the example checks, the section rules and the importer all ask these questions; they ask
this module, so "is a size parameter" has one answer.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from generator.dtypes import lookup
from generator.spec import code_inputs, shapes

if TYPE_CHECKING:
    from generator.spec.model import Param, Spec


def is_size(param: Any) -> bool:
    """A scalar whose dtype may name a tensor dimension (int32, size_t). `param` is anything with
    `is_tensor` and `dtype`: a spec's Param or the importer's ParamInfo."""
    return not param.is_tensor and lookup(param.dtype).is_size


def every_shape(spec: "Spec") -> List[Any]:
    """Every shape a tensor is given: the signature's and each example's and case's overrides."""
    every = [p.shape for p in spec.signature if p.is_tensor]
    for overrides in (
        [e.shapes for e in spec.examples]
        + [spec.performance.shapes]
        + [c.shapes for c in spec.functional]
    ):
        every.extend(overrides.values())
    return every


def size_names_among(params: Sequence[Any], every: Iterable[Sequence[Any]]) -> Tuple[str, ...]:
    """The scalars of `params` that a dimension of `every` shape names, in `params` order: a
    spec's signature, or the importer's ParamInfo list (anything with `name` and `is_tensor`)."""
    used = set()
    for shape in every:
        for dim in shape:
            try:
                used.update(shapes.names(shapes.dimension(dim)))
            except shapes.ShapeError:
                continue
    return tuple(p.name for p in params if not p.is_tensor and p.name in used)


def _whole_dimension_sizes(spec: "Spec", every: List[Any]) -> FrozenSet[str]:
    whole = {dim for shape in every for dim in shape if isinstance(dim, str) and dim.isidentifier()}
    if spec.scaffold is not None:
        whole.update(spec.scaffold.grid)
    return frozenset(whole)


@dataclass(frozen=True)
class SpecView:
    """The signature sorted the ways render, the rules and the checks ask about it."""

    spec: "Spec"
    params: Dict[str, "Param"]
    scalars: List["Param"]
    tensors: List["Param"]
    inputs: List["Param"]
    outputs: List["Param"]
    case_names: frozenset
    #: scalar parameters used in tensor dimensions (the signature's or a case's), signature order
    size_names: Tuple[str, ...]
    #: sizes that are a whole dimension somewhere (`[N, C]`) or the scaffold's grid: at least 1.
    #: A size met only inside expressions (the padding of `(H + 2 * P - K) // S + 1`) may be 0;
    #: the dimensions it gives are checked for every case.
    whole_dimension_sizes: FrozenSet[str]

    @classmethod
    def of(cls, spec: "Spec") -> "SpecView":
        tensors = [p for p in spec.signature if p.is_tensor]
        every = every_shape(spec)
        return cls(
            spec=spec,
            params={p.name: p for p in spec.signature},
            scalars=[p for p in spec.signature if not p.is_tensor],
            tensors=tensors,
            inputs=[p for p in tensors if p.direction in ("in", "inout")],
            outputs=[p for p in tensors if p.direction in ("out", "inout")],
            case_names=frozenset(case.name for case in spec.functional),
            size_names=size_names_among(spec.signature, every),
            whole_dimension_sizes=_whole_dimension_sizes(spec, every),
        )

    @property
    def size_params(self) -> List["Param"]:
        """The scalars whose dtype is a size's (int32, size_t), in signature order."""
        return [p for p in self.scalars if is_size(p)]


#: recent views, by the spec's id; each entry holds its spec, so an id is not reused while cached
_VIEWS: "OrderedDict[int, Tuple[Spec, SpecView]]" = OrderedDict()
_MAX_VIEWS = 64


def view_of(spec: "Spec") -> SpecView:
    """The one view of `spec` (specs are frozen: computed on first use, then reused)."""
    entry = _VIEWS.get(id(spec))
    if entry is not None and entry[0] is spec:
        _VIEWS.move_to_end(id(spec))
        return entry[1]
    view = SpecView.of(spec)
    _VIEWS[id(spec)] = (spec, view)
    while len(_VIEWS) > _MAX_VIEWS:
        _VIEWS.popitem(last=False)
    return view


def size_names(spec: "Spec") -> List[str]:
    """Scalar parameters used in tensor dimensions (the signature's or a case's), in signature
    order."""
    return list(view_of(spec).size_names)


def whole_dimension_sizes(spec: "Spec") -> set:
    """Sizes that are a whole dimension somewhere or the scaffold's grid (see SpecView)."""
    return set(view_of(spec).whole_dimension_sizes)


def made_together(spec: "Spec", forms: Mapping[str, Any]) -> Dict[str, str]:
    """The inputs an earlier input's code makes (they have no line of their own), each -> the
    input whose code makes it."""
    return code_inputs.made_together([p.name for p in view_of(spec).inputs], forms)


def computed_scalars(spec: "Spec", forms: Mapping[str, Any]) -> Dict[str, str]:
    """The scalars a case's code computes from its inputs (passed by name), each -> its input;
    `forms` are the case's inputs, its defaults merged in."""
    view = view_of(spec)
    order = [p.name for p in view.inputs]
    scalars = [p.name for p in view.scalars if p.name not in view.size_names]
    return code_inputs.made_scalars(order, forms, scalars)


def shape_of(param: "Param", overrides: Dict[str, Any]) -> List[Any]:
    """The symbolic shape a case passes `param` with: its own override, else the signature's."""
    return list(overrides.get(param.name, param.shape))


def resolve_shape(
    param: "Param", scalars: Dict[str, Any], overrides: Optional[Dict[str, Any]] = None
) -> Optional[Tuple[int, ...]]:
    """Concrete dims for the given sizes, or None when a size is missing or a dim fails."""
    return shapes.resolve(shape_of(param, overrides or {}), scalars)


def literal_shape(value: Any) -> Tuple[int, ...]:
    """The shape of nested-list data (its first element at each depth)."""
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        value = value[0]
    return tuple(shape)


def example_label(spec: "Spec", index: int) -> str:
    """'the example' when the spec gives one, else 'example 2'."""
    return "the example" if len(spec.examples) == 1 else f"example {index + 1}"
