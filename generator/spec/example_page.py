"""Which scalars an example's section writes beside its data, and the example fields that would
change nothing on the page (refused, with what to write instead).

A section shows its data in one of three forms (html.example_form): `matrix` (a bmatrix per
tensor, whose labels give the sizes), `pre` (one line per value) and `summary` (the shapes of data
too large to write). By default a matrix or <pre> section writes the scalars no tensor's shape
names (a <pre> one with `show_sizes` the sizes too) and a summary every scalar, less `hide`;
`shown` names the scalars instead, sizes too, in page order: a stride or a padding that only an
output's shape uses is no label's dimension, so a solver sees it only when the section writes it.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Mapping, Sequence, Tuple

from generator import html
from generator.challenge.page import strip_tags
from generator.page.vocabulary import standard_kind
from generator.spec import shapes
from generator.spec.model import Example, Param, Spec

#: (path, message, hint): one problem, as the loader's validators yield them
Issue = Tuple[Tuple[Any, ...], str, str]
#: the titles the page rules read as an Example section, as the message lists them
EXAMPLE_TITLES = "Example, Examples, Example 2 or Example 2:"


def tensor_data(p: Param, example: Example, given: Mapping[str, Any]) -> Any:
    """A tensor's literal data in `given` (the example's inputs or outputs), or its dims where it
    is drawn or the reference gives it (the page then knows it by its shape)."""
    if p.name in given and p.name not in example.drawn:
        return given[p.name]
    dims = shapes.resolve(example.shapes.get(p.name, p.shape), example.scalars) or ()
    return html.Summarised(tuple(dims))


def example_tensors(spec: Spec, example: Example) -> List[Tuple[str, List[Any], Any]]:
    """(name, shape, data) of the Input part's tensors, then the Output part's (an inout one in
    both), as the section shows them."""
    shape = {p.name: example.shapes.get(p.name, p.shape) or [] for p in spec.signature}
    tensors = [p for p in spec.signature if p.is_tensor]
    return [
        (p.name, shape[p.name], tensor_data(p, example, example.inputs))
        for p in tensors
        if p.direction != "out"
    ] + [
        (p.name, shape[p.name], tensor_data(p, example, example.hand_outputs))
        for p in tensors
        if p.direction != "in"
    ]


def example_form(spec: Spec, example: Example) -> str:
    """'matrix', 'pre' or 'summary', as html.example_form decides for the example's tensors."""
    return html.example_form(example_tensors(spec, example), spec.page.matrix.squeeze)


def default_scalars(spec: Spec, example: Example, sizes: Sequence[str]) -> List[str]:
    """What the section writes without `shown`, in signature order."""
    form = example_form(spec, example)
    listed = form == "summary" or (example.show_sizes and form == "pre")
    return [
        p.name
        for p in spec.signature
        if not p.is_tensor and (listed or p.name not in sizes) and p.name not in example.hide
    ]


def shown_scalars(spec: Spec, example: Example, sizes: Sequence[str]) -> List[str]:
    """The scalars the section writes, in page order."""
    if example.shown is not None:
        return list(example.shown)
    return default_scalars(spec, example, sizes)


def hidden_sizes(spec: Spec, example: Example, sizes: Sequence[str]) -> List[str]:
    """The sizes no tensor of the example has as a whole dimension: its data does not show them
    (a stride, a padding, a head count in `H * D`)."""
    whole = set()
    for p in spec.signature:
        for dim in (example.shapes.get(p.name, p.shape) or []) if p.is_tensor else []:
            expr = shapes.dimension(dim)
            if isinstance(expr, shapes.Size):
                whole.add(expr.name)
    return [name for name in sizes if name not in whole]


def _suggested(spec: Spec, example: Example, sizes: Sequence[str]) -> str:
    """`shown: [...]` writing what the section writes now and the sizes its data hides."""
    wanted = set(default_scalars(spec, example, sizes)) | set(hidden_sizes(spec, example, sizes))
    names = [p.name for p in spec.signature if p.name in wanted]
    return f"shown: [{', '.join(names)}]"


def field_issues(
    spec: Spec, index: int, base: Tuple[Any, ...], sizes: Sequence[str], label: str
) -> Iterable[Issue]:
    """The example's title, and each of `shown`, `show_sizes` and `hide`, where the field would
    do nothing or the page rules would not read what it writes."""
    example = spec.examples[index]
    if example.title is not None:
        yield from _title_issues(spec, example, base, sizes, label)
    scalars = [p.name for p in spec.signature if not p.is_tensor]
    if example.shown is not None:
        yield from _shown_issues(spec, example, base, sizes, scalars, label)
        return
    if example.display is not None:
        return  # the data block is the author's HTML: these fields were recorded by an import
    form = example_form(spec, example)
    if example.show_sizes and (form != "pre" or not sizes):
        why = (
            "the signature has no sizes"
            if not sizes
            else (
                f"{label} is shown as matrices, whose labels give the sizes"
                if form == "matrix"
                else f"{label} is summarised by its shapes, which lists every scalar already"
            )
        )
        hint = "drop it"
        if hidden_sizes(spec, example, sizes):
            suggested = _suggested(spec, example, sizes)
            hint += f"; to write scalars beside the data, did you mean {suggested}?"
        yield (
            base + ("show_sizes",),
            f"show_sizes lists the sizes in a <pre> example only, and changes nothing here: {why}",
            hint,
        )
    written = default_scalars(spec, example.model_copy(update={"hide": []}), sizes)
    for j, name in enumerate(example.hide):
        if name in scalars and name not in written:
            yield (
                base + ("hide", j),
                f"{label}'s section does not write {name!r} (its data gives it), so hiding it "
                "changes nothing",
                "drop it from hide",
            )


def _shown_issues(spec, example, base, sizes, scalars, label) -> Iterable[Issue]:
    seen = set()
    for j, name in enumerate(example.shown):
        if name not in scalars:
            yield (
                base + ("shown", j),
                f"{name!r} is not a scalar of the signature",
                f"name one of {', '.join(scalars) or '(none)'}",
            )
        elif name in seen:
            yield base + ("shown", j), f"{name!r} is named twice", "name each scalar once"
        seen.add(name)
    for field in ("hide", "show_sizes"):
        if getattr(example, field):
            yield (
                base + (field,),
                f"{field} and shown both choose the scalars {label} writes",
                f"give shown alone: drop {field}",
            )
    if example.display is not None:
        yield (
            base + ("shown",),
            f"{label} gives display, the data block's HTML as written, so shown changes nothing",
            "drop shown, or drop display to let chgen write the block",
        )
    elif list(example.shown) == default_scalars(spec, example, sizes):
        yield (
            base + ("shown",),
            f"{label}'s section writes exactly these scalars without shown, so it changes nothing",
            "drop it, or name the scalars to write, sizes too",
        )


def _title_issues(spec, example, base, sizes, label) -> Iterable[Issue]:
    """The page rules (H002) and the importer read an Example section by its heading."""
    heading = strip_tags(example.title).rstrip(":").strip()
    if standard_kind(heading) == "example":
        return
    hint = f"use {EXAMPLE_TITLES}"
    if "=" in example.title and example.shown is None and hidden_sizes(spec, example, sizes):
        hint += (
            ", and write the scalars beside the data with shown: did you mean "
            f"{_suggested(spec, example, sizes)}?"
        )
    yield (
        base + ("title",),
        f"title {example.title!r} is not an Example heading: the page rules would find no "
        f"Example section for {label}",
        hint,
    )
