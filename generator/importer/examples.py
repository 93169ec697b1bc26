"""The spec's examples: the first from generate_example_test, the others from the values the page
shows; each output as the page shows it where the reference agrees."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import torch

from generator.dtypes import lookup
from generator.example_check import reference_function, start_value
from generator.html import example_form, literal_dims
from generator.importer import html as page_reader
from generator.importer import infer
from generator.importer.cases import inputs_of, scalars_of
from generator.importer.draft import ExampleEntry
from generator.importer.infer import ParamInfo
from generator.importer.original import Read
from generator.importer.reference import reference_helpers
from generator.importer.report import ImportFailure, Report
from generator.importer.trace import Start, Traced
from generator.page.vocabulary import example_titles
from generator.spec import shapes as shape_exprs
from generator.spec.model import EXAMPLE_DRAW_KINDS, REFERENCE_OUTPUTS


def _example_inputs(params: List[ParamInfo], case: Traced, seed: int, report: Report):
    inputs = {}
    for p in params:
        if not p.is_tensor or p.direction == "out":
            continue
        tensor = infer.tensor_value(case, p, "example")
        kind = lookup(p.dtype).kind
        recipe, _ = infer.unwrap(case.recipes[p.name])
        literal = infer.literal(recipe.args[0] if recipe.kind == "literal" else None, tensor, kind)
        if literal is None:
            raise ImportFailure(f"example input {p.name} is not finite data")
        if recipe.kind not in ("literal", "constant"):
            report.note(
                f"example: input {p.name} is made by {recipe.why or recipe.kind} in challenge.py; "
                f"the spec fixes the values drawn with seed {seed}"
            )
        inputs[p.name] = literal
    return inputs


#: example tensors are written out as literals in the spec (the page summarises large ones by
#: their shapes); this many elements keep a spec well under its 2 MB limit
EXAMPLE_MAX_ELEMENTS = 32768


def _too_large_for_literals(params: List[ParamInfo], example: Traced) -> bool:
    """Whether an example tensor is past what a spec writes as literal data."""
    return any(
        infer.tensor_value(example, p, "example").numel() > EXAMPLE_MAX_ELEMENTS
        for p in params
        if p.is_tensor
    )


def _drawn_example(read: Read, scalars: Dict[str, Any], report: Report) -> ExampleEntry:
    """An example too large to write: its inputs as seeded draws (drawn on the CPU generator, so
    the same on every device), its outputs the reference's (verified when the spec loads)."""
    example = read.run.example
    drawn = inputs_of(read.params, example, "example", report)
    inputs: Dict[str, Any] = {}
    for name, dist in drawn.items():
        kind = next(iter(dist))
        if kind not in EXAMPLE_DRAW_KINDS + ("values",):
            raise ImportFailure(
                f"the example's {name} is drawn as {kind}, which a drawn example cannot write "
                "(not representable)"
            )
        inputs[name] = dist["values"] if kind == "values" else dist
    seed = example.seed
    if seed is None:
        # the same values as the original's for the import's seed alone: written as code below
        seed = read.seed
        report.approximate(
            "example",
            f"example: generate_example_test draws without a seed; the spec draws it with seed "
            f"{seed} on the CPU generator",
        )
    drawn = (
        "example: too large for literal data; its inputs are drawn on the CPU generator "
        f"(seed {seed}) and its outputs verified against the reference; its page lists shapes"
    )
    if example.seed is None:
        report.approximate("example", drawn)
    else:
        report.note(drawn)
    return ExampleEntry(scalars=scalars, seed=seed, inputs=inputs, outputs=REFERENCE_OUTPUTS)


def reference_outputs(
    params: List[ParamInfo],
    body: str,
    scalars: Dict[str, Any],
    inputs: Dict[str, Any],
    instance: Any,
    example: Optional[Traced],
    prefill: Start,
    helpers: Optional[str] = None,
) -> Dict[str, torch.Tensor]:
    """What the reference writes on the example, in float64 as chgen verifies it (its helpers,
    `reference_helpers`, in reach): outputs start as the spec's prefill says (uninitialised is
    NaN, so every element must be written)."""
    values: Dict[str, Any] = {}
    for p in params:
        if not p.is_tensor:
            values[p.name] = scalars[p.name]
            continue
        kind = lookup(p.dtype).kind
        dtype = torch.float64 if kind == "float" else torch.int64
        if p.direction == "out":
            shape = shape_exprs.resolve(p.case_shapes.get("example", p.shape), scalars)
            values[p.name] = torch.full(shape, start_value(prefill, kind), dtype=dtype)
        else:
            values[p.name] = torch.tensor(inputs[p.name], dtype=dtype)
    try:
        namespace: Dict[str, Any] = {"torch": torch, "math": math}
        names = [p.name for p in params]
        reference_function(body, helpers, names, namespace)(**values)
    except Exception as exc:
        if example is None:
            raise ImportFailure(f"the reference fails on it: {type(exc).__name__}: {exc}") from None
        # some references only run in their own dtype: run the original as it is
        values = {
            k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in example.values.items()
        }
        try:
            instance.reference_impl(**{p.name: values[p.name] for p in params})
        except Exception as exc:
            raise ImportFailure(
                f"reference_impl fails on the example: {type(exc).__name__}: {exc}"
            ) from None
    return {
        p.name: values[p.name].to(torch.float64)
        for p in params
        if p.is_tensor and p.direction != "in"
    }


def _shown(value: float, atol: float, rtol: float) -> float:
    """The shortest decimal within half the tolerance (what a page would show)."""
    limit = (atol + rtol * abs(value)) / 2
    if limit > 0 and math.isfinite(value):
        for digits in range(0, 10):
            rounded = round(value, digits)
            if abs(rounded - value) <= limit:
                return rounded
    return value


def _example_outputs(
    params: List[ParamInfo],
    computed: Dict[str, torch.Tensor],
    shown_outputs: Dict[str, Any],
    has_example: bool,
    attrs: Dict[str, Any],
    report: Report,
    number: int = 1,
) -> Dict[str, Any]:
    """Each output as the page shows it when that is within tolerance of the reference, else
    the reference's values rounded as a page would show them."""
    atol, rtol = attrs["atol"], attrs["rtol"]
    which = "example" if number == 1 else f"example {number}"
    outputs = {}
    for p in params:
        if not p.is_tensor or p.direction == "in":
            continue
        ref = computed[p.name]
        kind = lookup(p.dtype).kind
        if kind == "float" and bool(torch.isnan(ref).any()):
            raise ImportFailure(f"the reference writes NaN into {p.name} on the example")
        shown = shown_outputs.get(p.name)
        chosen = None
        if shown is not None:
            flat = torch.tensor(
                infer.flat(shown if isinstance(shown, list) else [shown]), dtype=torch.float64
            )
            if flat.numel() == ref.numel():
                close = torch.isclose(ref.flatten(), flat, atol=atol, rtol=rtol)
                if bool(close.all()):
                    chosen = flat.reshape(ref.shape).tolist()
                else:
                    report.note(
                        f"{which}: the page shows {p.name} = {_brief(shown)}, the reference "
                        f"computes {_brief(_round_all(ref, atol, rtol))}; the spec takes the "
                        "reference's values"
                    )
        elif has_example:
            report.note(f"{which}: {p.name} is not readable on the page; taken from the reference")
        if chosen is None:
            chosen = _round_all(ref, atol, rtol)
        outputs[p.name] = infer.nested(chosen, kind)
    return outputs


def _brief(value: Any, shown: int = 6) -> str:
    """A long example value, cut for a one-line note."""
    items = infer.flat(value if isinstance(value, list) else [value])
    text = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in items[:shown])
    return f"[{text}{', ...' if len(items) > shown else ''}]"


def _round_all(ref: torch.Tensor, atol: float, rtol: float) -> Any:
    return _map(ref.tolist(), lambda v: _shown(v, atol, rtol))


def _map(value: Any, fn) -> Any:
    return [_map(v, fn) for v in value] if isinstance(value, list) else fn(value)


def read_examples(
    read: Read,
    reference: str,
    page: page_reader.Page,
    attrs: Dict[str, Any],
    prefill: Start,
    report: Report,
) -> List[ExampleEntry]:
    """The first example from generate_example_test, the others from the page's values; each
    keeps the page's title, explanation and whether it lists the sizes. Every example's
    outputs start as the spec's prefill says."""
    example = read.run.example
    scalars = scalars_of(read.params, example, "example")
    if _too_large_for_literals(read.params, example):
        first = _drawn_example(read, scalars, report)
    else:
        inputs = _example_inputs(read.params, example, read.seed, report)
        computed = reference_outputs(
            read.params,
            reference,
            scalars,
            inputs,
            read.instance,
            example,
            prefill,
            reference_helpers(read.source),
        )
        shown = page.examples[0].shown if page.examples else None
        outputs = _example_outputs(
            read.params,
            computed,
            _shown_outputs(read.params, shown),
            page.has_example,
            attrs,
            report,
        )
        first = ExampleEntry(scalars=scalars, inputs=inputs, outputs=outputs)
    found = [first]
    for number, later in enumerate(page.examples[1:], start=2):
        found.append(_page_example(read, reference, later, number, attrs, prefill, report))
    titles = example_titles([None] * len(found))
    for entry, written, default in zip(found, page.examples, titles):
        if written.title != default:
            entry.title = written.title
        if entry.outputs in (None, REFERENCE_OUTPUTS):
            continue  # drawn (its page lists shapes), or the page's text alone
        if written.explanation:  # several lines: a literal block, as the page writes them
            multiline = "\n" in written.explanation
            entry.explanation = written.explanation + "\n" * multiline
        if not page.matrix and set(written.labels) & set(read.sizes) and _in_pre(entry):
            entry.show_sizes = True
        entry.hide = _hidden_scalars(read, written) or None
        entry.numbers = page_reader.example_numbers(*number_pairs(entry, written.shown)) or None
    return found


def _in_pre(entry: ExampleEntry) -> bool:
    """chgen writes the example's data in <pre> (its sizes then listed with show_sizes); 2-D data
    it writes as matrices, and a page that shows them in <pre> keeps its block as `display`."""
    return example_form(example_tensors(entry)) == "pre"


def example_tensors(entry: ExampleEntry) -> List[Tuple[str, Any, Any]]:
    """(name, dimensions, data) of every tensor an example writes as literal data."""
    return [
        (name, literal_dims(value), value)
        for part in (entry.inputs, entry.outputs)
        if isinstance(part, dict)
        for name, value in part.items()
        if isinstance(value, list)
    ]


def _hidden_scalars(read: Read, written: page_reader.PageExample) -> List[str]:
    """The scalars chgen would list (those no tensor's shape gives) that the section's scalar
    labels do not name: a count the page leaves to its data, e.g. a sparse matrix's `nnz`."""
    known = {p.name for p in read.params}
    if written.form not in ("pre", "bmatrix") or not set(written.labels) <= known:
        return []  # a label in LaTeX (`\alpha`) may be any scalar's: nothing is hidden
    return [
        p.name
        for p in read.params
        if not p.is_tensor and p.name not in read.sizes and p.name not in written.labels
    ]


def number_pairs(entry: ExampleEntry, shown: Any) -> Tuple[List[Any], List[Any]]:
    """(spec value, text on the page) of every number the page writes for the example's Input
    part and its Output part, where the page writes a value of the spec's size."""
    parts: Tuple[List[Any], List[Any]] = ([], [])
    given = {**(entry.scalars or {}), **(entry.inputs or {})}
    for is_output, values in ((False, given), (True, entry.outputs)):
        for name, value in values.items():
            flat = infer.flat(value if isinstance(value, list) else [value])
            written = next(
                (c for c in shown.found.get((name, is_output), []) if len(c.values) == len(flat)),
                None,
            )
            if written is not None:
                parts[is_output].extend(zip(flat, [text for _, text in written.values]))
    return parts


def _shown_outputs(params: List[ParamInfo], shown: Optional[Any]) -> Dict[str, Any]:
    """Output name -> the number or nested list an example shows for it."""
    found: Dict[str, Any] = {}
    for p in params:
        candidates = shown.found.get((p.name, True)) if shown else None
        if p.is_tensor and p.direction != "in" and candidates:
            found[p.name] = candidates[0].nested
    return found


def _page_example(
    read: Read,
    reference: str,
    written: page_reader.PageExample,
    number: int,
    attrs: Dict[str, Any],
    prefill: Start,
    report: Report,
) -> ExampleEntry:
    """An example after the first, from the values its section writes: inputs and scalars as
    shown (sizes not shown are read off the tensors), outputs from the reference."""
    params = read.params
    found = written.shown.found
    scalars: Dict[str, Any] = {}
    inputs: Dict[str, Any] = {}
    for p in params:
        value = (found.get((p.name, False)) or [None])[0]
        if p.is_tensor and p.direction != "out" and value is not None:
            inputs[p.name] = value.nested
        elif not p.is_tensor and value is not None and not isinstance(value.nested, list):
            scalars[p.name] = int(value.nested) if p.dtype == "int32" else float(value.nested)
    for p in params:
        if p.name in inputs and isinstance(inputs[p.name], list):
            for dim, size in zip(p.shape, literal_dims(inputs[p.name])):
                if isinstance(dim, str) and dim in read.sizes:
                    scalars.setdefault(dim, size)
    for p in params:
        if p.name in inputs and isinstance(inputs[p.name], list):
            _sizes_of_flat(p, inputs[p.name], read.sizes, scalars)
    missing = [p.name for p in params if not p.is_tensor and p.name not in scalars]
    missing += [
        p.name for p in params if p.is_tensor and p.direction != "out" and p.name not in inputs
    ]
    if missing:
        return _text_only(written, number, f"shows no readable {', '.join(missing)}", report)
    for p in params:
        if p.name not in inputs:
            continue
        shape = shape_exprs.resolve(p.case_shapes.get("example", p.shape), scalars)
        tensor = torch.tensor(inputs[p.name], dtype=torch.float64)
        if shape is None or tensor.numel() != math.prod(shape):
            why = f"shows {p.name} with {tensor.numel()} values, which its sizes do not give"
            return _text_only(written, number, why, report)
        inputs[p.name] = infer.nested(tensor.reshape(shape).tolist(), lookup(p.dtype).kind)
    scalars = {p.name: scalars[p.name] for p in params if not p.is_tensor}
    try:
        helpers = reference_helpers(read.source)
        computed = reference_outputs(
            params, reference, scalars, inputs, read.instance, None, prefill, helpers
        )
    except ImportFailure as exc:
        return _text_only(written, number, str(exc), report)
    outputs = _example_outputs(
        params, computed, _shown_outputs(params, written.shown), True, attrs, report, number
    )
    return ExampleEntry(scalars=scalars, inputs=inputs, outputs=outputs)


def _sizes_of_flat(
    p: ParamInfo, value: List[Any], sizes: List[str], scalars: Dict[str, Any]
) -> None:
    """The sizes a flat tensor's product dimension names (`rows * cols`), read off the nesting
    the page writes its data in (3 rows of 2: rows 3, cols 2), where each factor is a size."""
    shape = p.case_shapes.get("example", p.shape)
    if len(shape) != 1 or not isinstance(shape[0], str):
        return
    factors = _factors(shape_exprs.dimension(shape[0]))
    dims = literal_dims(value)
    if factors is None or len(factors) < 2 or len(factors) != len(dims):
        return
    if len(set(factors)) != len(factors) or not set(factors) <= set(sizes):
        return
    for name, size in zip(factors, dims):
        scalars.setdefault(name, size)


def _factors(expr: Any) -> Optional[List[str]]:
    """The size names a product of sizes multiplies, in order; None for any other expression."""
    if isinstance(expr, shape_exprs.Size):
        return [expr.name]
    if isinstance(expr, shape_exprs.BinOp) and expr.op == "*":
        left, right = _factors(expr.left), _factors(expr.right)
        return left + right if left is not None and right is not None else None
    return None


def _text_only(
    written: page_reader.PageExample, number: int, why: str, report: Report
) -> ExampleEntry:
    """An example whose values the page does not give readably: kept as the page's text alone
    (`display`, no values to verify), so that nothing the author wrote is lost."""
    report.note(
        f"challenge.html: example {number}: {why}; the spec keeps it as the page's text alone "
        "(display, no values: chgen cannot verify it)"
    )
    display, explanation = split_explanation(written.block, written.explanation)
    if explanation:
        explanation += "\n" * ("\n" in explanation)
    return ExampleEntry(display=display + "\n", explanation=explanation or None)


def split_explanation(block: str, explanation: Optional[str]) -> Tuple[str, Optional[str]]:
    """(the data block, the explanation) of a section's written block: the explanation apart
    where it is the block's end, else inside the block."""
    text = (explanation or "").strip()
    if text and block.endswith("\n" + text):
        return block[: -len(text)].rstrip("\n"), explanation
    return block, None
