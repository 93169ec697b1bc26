"""`chgen import`: a challenge directory of the public layout -> a spec that regenerates it.

The pieces come from where they live: attributes, signature spellings, the reference body and case
names from challenge.py's source (pyast); the cases from running it on the CPU (trace, infer); texts
and the example as shown from challenge.html (html); an easy challenge's scaffold from starter.cu
(starters). A case keeps the torch.manual_seed called right before it, how its outputs start
(torch.empty, zeros, full: the example's start is the spec's prefill, a case's own where it
differs) and whether it is written with the base class's descriptors. The spec is then loaded and
rendered like any other, every rendered file is compared with its original, and the two
challenge.py files are checked for equivalence; whatever differs is in the report.
"""

from __future__ import annotations

import ast
import copy
import math
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import torch

from generator.challenge.page import BULLET, blank_before_bullet, describe_losses
from generator.challenge.page import read_page as read_page_facts
from generator.challenge.page import text_losses
from generator.checks.report import Options
from generator.checks.runner import run as run_checks
from generator.dtypes import lookup
from generator.example_check import reference_function, start_value, verify_example
from generator.html import example_form, literal_dims, performance_bullet
from generator.importer import coded
from generator.importer import html as page_reader
from generator.importer import infer, pyast, starters
from generator.importer.equivalence import Equivalence, compare
from generator.importer.infer import ParamInfo
from generator.importer.pychanges import account
from generator.importer.replay import ReplayError
from generator.importer.report import ImportFailure, Report
from generator.importer.result import ImportResult
from generator.importer.trace import (
    ChallengeLoadError,
    Run,
    Start,
    Traced,
    load_challenge,
    output_start,
    run_cases,
)
from generator.importer.specfile import built_spec, verify_written
from generator.importer.writer import dump_spec
from generator.languages import LANGUAGES, SigParam
from generator.naming import DIFFICULTIES, MODELINE, SLUG_RE, URL_NAME_RE
from generator.page.vocabulary import example_titles
from generator.render import CORE_BASE, challenge_dir, render_challenge, render_core, render_page
from generator.resources import template_dir
from generator.spec import SpecErrors
from generator.spec import shapes as shape_exprs
from generator.spec.derived import is_size
from generator.spec.model import EXAMPLE_DRAW_KINDS, HELPER_MODULES, REFERENCE_OUTPUTS

DIR_RE = re.compile(r"^(\d+)_(\w+)$")
STARTERS = tuple(lang.starter_name for lang in LANGUAGES)
#: starters a tree may lack without that being a difference (languages newer than the tree)
OPTIONAL_STARTERS = {lang.starter_name for lang in LANGUAGES if not lang.required_in_tree}


def _locate(directory: Path, report: Report) -> Tuple[int, str, str]:
    match = DIR_RE.match(directory.name)
    if not match:
        raise ImportFailure(f"{directory.name!r} is not named <id>_<slug>")
    difficulty = directory.parent.name.lower()
    if difficulty not in DIFFICULTIES:
        raise ImportFailure(
            f"the folder above {directory.name} is {directory.parent.name!r}, not easy, medium or "
            "hard: the difficulty comes from it"
        )
    # a slug may start with a digit (public 48); anything else is rewritten as lowercase words
    slug = match.group(2) if SLUG_RE.match(match.group(2)) else infer.slugify(match.group(2))
    if slug != match.group(2):
        report.note(
            f"directory slug {match.group(2)!r} is written {slug!r} (lowercase words); the spec "
            f"keeps the directory's name ({directory.name})"
        )
    return int(match.group(1)), slug, difficulty


def _base_file(directory: Path) -> Path:
    """The tree's own base class (challenges/core), else chgen's."""
    own = directory.parent.parent / "core" / "challenge_base.py"
    return own if own.is_file() else template_dir() / "core" / "challenge_base.py"


# ----------------------------------------------------------------------------- attributes


def _attributes(source: pyast.ChallengeSource, report: Report) -> Dict[str, Any]:
    attrs = source.attrs
    name = attrs.get("name")
    if not isinstance(name, str):
        raise ImportFailure("class Challenge sets no name")
    if not URL_NAME_RE.match(name):
        cleaned = " ".join(re.sub(r"[^A-Za-z0-9 -]", " ", name).split())
        cleaned = re.sub(r" ?-+ ?", "-", cleaned).strip("-")
        if not URL_NAME_RE.match(cleaned):
            raise ImportFailure(f"name {name!r} has no URL-friendly form")
        report.note(f"name {name!r} is written {cleaned!r} (URL-friendly characters only)")
        name = cleaned
    out: Dict[str, Any] = {"name": name}
    for key in ("atol", "rtol"):
        value = attrs.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ImportFailure(f"class Challenge sets no numeric {key}")
        out[key] = float(value)
    tier = attrs.get("access_tier", "free")
    if tier not in ("free", "premium"):
        report.note(f"access_tier {tier!r} is written 'free'")
        tier = "free"
    out["access_tier"] = tier
    gpus = attrs.get("num_gpus", 1)
    out["num_gpus"] = gpus if isinstance(gpus, int) and 1 <= gpus <= 8 else 1
    return out


# ------------------------------------------------------------------------------ reference


def _reference(source: pyast.ChallengeSource, params: List[ParamInfo], report: Report) -> str:
    ref = source.reference
    body = ref.body
    names = [p.name for p in params]
    if ref.params != names:
        if sorted(ref.params) == sorted(names):
            report.note("reference_impl takes the parameters in another order than solve")
        else:
            report.note(
                f"reference_impl takes ({', '.join(ref.params)}) but solve takes "
                f"({', '.join(names)}); the body is kept as written (not representable)"
            )
    imports = [
        source.imports[n]
        for n in sorted(ref.free_names)
        if n in source.imports and n not in source.helper_imports
    ]
    inside = [line for line in imports if not is_helper_import(line)]
    if inside:
        report.note(
            "reference: " + "; ".join(f"`{line}`" for line in inside) + " moved into the body "
            "(a spec's reference_helpers import math and torch modules only)"
        )
        body = "\n".join(inside) + "\n" + body
    module_level = sorted(
        n for n in ref.free_names if n in source.module_names and n not in source.helper_names
    )
    if module_level:
        report.note(
            f"reference uses module-level {', '.join(module_level)} from challenge.py, which a "
            "spec cannot carry (not representable)"
        )
    if source.helpers:
        report.note(
            f"reference helpers {', '.join(sorted(source.helper_names))} are carried over as "
            "reference_helpers"
        )
    if ref.uses_self and not _self_is_representable(ref_node(source), source.helper_names):
        report.note(
            "reference uses `self` beyond its helpers and self.device, which a spec's reference "
            "cannot (not representable)"
        )
    return body.rstrip("\n") + "\n"


def is_helper_import(line: str) -> bool:
    """An import reference_helpers may hold (math and torch modules): challenge.py keeps it at
    module level, where the author wrote it."""
    node = ast.parse(line).body[0]
    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
    return all((m or "").split(".")[0] in HELPER_MODULES for m in modules)


def reference_helpers(source: pyast.ChallengeSource) -> Optional[str]:
    """What the reference reaches besides its body: the module imports of math and torch
    modules it names (kept at module level), then the helpers pyast found."""
    imports = [
        source.imports[n]
        for n in sorted(source.reference.free_names)
        if n in source.imports and is_helper_import(source.imports[n])
    ]
    helpers = source.helpers or ""
    missing = [line for line in imports if line not in helpers.splitlines()]
    text = "\n\n".join(part for part in ("\n".join(missing), helpers) if part)
    return text + "\n" if text else None


def _reference_jax(
    source: pyast.ChallengeSource, params: List[ParamInfo], report: Report
) -> Dict[str, Any]:
    """reference_impl_jax as the spec's reference_jax (its header is chgen's: the in/inout
    tensors and the scalars in solve order); empty when there is none or it takes others."""
    jax = source.reference_jax
    if jax is None:
        return {}
    expected = [p.name for p in params if p.direction != "out"]
    if jax.params != expected:
        report.note(
            f"reference_impl_jax takes ({', '.join(jax.params)}), not the in/inout tensors and "
            f"scalars ({', '.join(expected)}); it is dropped (not representable)"
        )
        return {}
    module_level = sorted(
        n
        for n in jax.free_names
        if n in set(source.imports) | source.module_names
        and n not in source.helper_names | source.helper_imports
    )
    if module_level:
        report.note(
            f"reference_impl_jax uses module-level {', '.join(module_level)} from challenge.py, "
            "which a spec cannot carry; it is dropped (not representable)"
        )
        return {}
    found: Dict[str, Any] = {"reference_jax": jax.body + "\n"}
    if jax.exploded:
        found["exploded_reference_jax"] = True
        report.note("exploded_reference_jax: reference_impl_jax lists one parameter per line")
    return found


def ref_node(source: pyast.ChallengeSource) -> ast.Module:
    return ast.parse(source.reference.body)


def _self_is_representable(tree: ast.AST, helpers: set) -> bool:
    """`self.device` and calls of carried-over helpers are what a spec's reference may use."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "self" and node.attr not in helpers | {"device"}:
                return False
    return True


# --------------------------------------------------------------------------------- cases


@dataclass
class _Case:
    label: str
    scalars: Dict[str, Any]
    inputs: Dict[str, Dict[str, Any]]
    from_example: bool
    note: Optional[str]
    seed: Optional[int] = None  # torch.manual_seed right before the case
    start: Optional[Start] = None  # how its outputs start (None: unknown)
    descriptors: bool = False  # every tensor given as RandTensor, OutTensor, ...


def _scalars(params: List[ParamInfo], case: Traced, label: str) -> Dict[str, Any]:
    return {p.name: infer.scalar_value(case, p, label) for p in params if not p.is_tensor}


def _inputs(
    params: List[ParamInfo], case: Traced, label: str, report: Report
) -> Dict[str, Dict[str, Any]]:
    earlier: Dict[str, torch.Tensor] = {}
    found: Dict[str, Dict[str, Any]] = {}
    for p in params:
        if not p.is_tensor or p.direction == "out":
            continue
        tensor = infer.tensor_value(case, p, label)
        drawn = infer.distribution(p, tensor, case.recipes[p.name], earlier)
        earlier[p.name] = tensor
        found[p.name] = drawn.dist
        if drawn.problem and drawn.dist:
            report.approximate(
                label,
                f"case {label}: input {p.name} drawn by {drawn.problem}; approximated by "
                f"{infer.describe(drawn.dist)} of the drawn values",
            )
    return found


def _defaults(cases: List[_Case], params: List[ParamInfo], sizes: List[str]) -> Dict[str, Any]:
    drawn = [c for c in cases if not c.from_example]
    inputs: Dict[str, Any] = {}
    for p in params:
        if not p.is_tensor or p.direction == "out":
            continue
        counts = Counter(
            infer.key(c.inputs[p.name])
            for c in drawn
            if c.inputs.get(p.name) and "values" not in c.inputs[p.name]
        )
        if counts:
            best, count = counts.most_common(1)[0]
            if count >= 2:
                inputs[p.name] = next(
                    c.inputs[p.name] for c in drawn if infer.key(c.inputs.get(p.name, {})) == best
                )
    scalars: Dict[str, Any] = {}
    for p in params:
        if p.is_tensor or p.name in sizes:
            continue
        counts = Counter(repr(c.scalars[p.name]) for c in drawn)
        if counts:
            best, count = counts.most_common(1)[0]
            if count >= 2:
                scalars[p.name] = next(
                    c.scalars[p.name] for c in drawn if repr(c.scalars[p.name]) == best
                )
    out: Dict[str, Any] = {}
    if scalars:
        out["scalars"] = scalars
    if inputs:
        out["inputs"] = inputs
    return out


def _same_form(default: Optional[Dict[str, Any]], form: Dict[str, Any]) -> bool:
    """A case's input form is the default's when written the same (`[-1, 1]` is not
    `[-1.0, 1.0]`: challenge.py writes each as the spec does)."""
    return default is not None and infer.key(default) == infer.key(form)


def _case_shapes(params: List[ParamInfo], label: str) -> Dict[str, Any]:
    """`shapes:` of one case: the tensors it passes with another rank than the example."""
    return {p.name: p.case_shapes[label] for p in params if label in p.case_shapes}


def _case_entry(
    case: _Case,
    defaults: Dict[str, Any],
    sizes: List[str],
    params: List[ParamInfo],
    prefill: Start,
) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"name": case.label}
    if case.note:
        entry["note"] = case.note
    if case.from_example:
        entry["from_example"] = True
        return entry
    default_scalars = defaults.get("scalars", {})
    scalars = {
        k: v for k, v in case.scalars.items() if k in sizes or default_scalars.get(k, None) != v
    }
    default_inputs = defaults.get("inputs", {})
    inputs = {k: v for k, v in case.inputs.items() if not _same_form(default_inputs.get(k), v)}
    if scalars:
        entry["scalars"] = scalars
    if inputs:
        entry["inputs"] = inputs
    if _case_shapes(params, case.label):
        entry["shapes"] = _case_shapes(params, case.label)
    entry.update(_case_form(case, prefill))
    return entry


def _case_form(case: _Case, prefill: Start) -> Dict[str, Any]:
    """A case's own seed, output start and descriptors, as the spec writes them."""
    form: Dict[str, Any] = {}
    if case.seed is not None:
        form["seed"] = case.seed
    if case.start is not None and case.start != prefill:
        form["prefill"] = case.start
    if case.descriptors:
        form["descriptors"] = True
    return form


def _case_start(case: Traced, params: List[ParamInfo], label: str, report: Report):
    """How the outputs of one case start (one prefill covers them all); None when unknown."""
    starts = {
        p.name: output_start(case.recipes[p.name])
        for p in params
        if p.is_tensor and p.direction == "out" and p.name in case.recipes
    }
    known = {k: v for k, v in starts.items() if v is not None}
    if not known:
        return None
    distinct = {repr(v): v for v in known.values()}
    if len(distinct) > 1:
        report.note(
            f"case {label}: outputs start differently ({', '.join(distinct)}); one prefill "
            "covers every output of a case, so it is left as the spec's (not representable)"
        )
        return None
    start = next(iter(distinct.values()))
    if isinstance(start, float) and not math.isfinite(start):
        report.note(
            f"case {label}: outputs start as {start}, which a spec cannot write; they start "
            "uninitialised (not representable)"
        )
        return "empty"
    return start


def _prefill(example: Optional[Start], cases: List[_Case]) -> Start:
    """The spec-wide output start: the example's (it has no prefill of its own), else the most
    common one."""
    if example is not None:
        return example
    seen = Counter(repr(c.start) for c in cases if c.start is not None)
    if not seen:
        return "empty"
    best = seen.most_common(1)[0][0]
    return next(c.start for c in cases if repr(c.start) == best)


def _report_unplaced_seeds(run: Run, report: Report) -> None:
    for method, seeds in run.unplaced_seeds.items():
        for value in seeds:
            report.note(
                f"{method} calls torch.manual_seed({value}) where no case can hold it (while a "
                "case is made, after the last one, or before descriptors the runner draws "
                "itself); dropped"
            )


def _factor(dim: Any) -> str:
    """A dimension as a factor of a product: `(N - K + 1)`, `2 * N`, `N`."""
    return shape_exprs.spelled(shape_exprs.dimension(dim), parent=2)


def _min_bytes(params: List[ParamInfo]) -> str:
    """Every tensor read or written once: `3 * N * C * 4 + 2 * C * 4`."""
    terms: Dict[tuple, List[Any]] = {}
    for p in params:
        if p.is_tensor:
            dims = [_factor(d) for d in p.shape if d != 1] + [str(lookup(p.dtype).itemsize)]
            entry = terms.setdefault(tuple(sorted(dims)), [" * ".join(dims), 0])
            entry[1] += 1
    return " + ".join(f"{n} * {text}" if n > 1 else text for text, n in terms.values())


# ------------------------------------------------------------------------------- example


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


def _drawn_example(read: _Read, scalars: Dict[str, Any], report: Report) -> Dict[str, Any]:
    """An example too large to write: its inputs as seeded draws (drawn on the CPU generator, so
    the same on every device), its outputs the reference's (verified when the spec loads)."""
    example = read.run.example
    drawn = _inputs(read.params, example, "example", report)
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
    return {"scalars": scalars, "seed": seed, "inputs": inputs, "outputs": REFERENCE_OUTPUTS}


def _reference_outputs(
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


def _latex(params: List[ParamInfo], sizes: List[str], page: page_reader.Page) -> Dict[str, str]:
    """Scalar labels the page writes in LaTeX (\\varepsilon for eps, ...)."""
    scalars = [p.name for p in params if not p.is_tensor]
    inputs = [p.name for p in params if p.is_tensor and p.direction != "out"]
    labels = page.scalar_labels
    if page.matrix:
        names = [n for n in scalars if n not in sizes]
        if len(labels) != len(names):
            return {}
        pairs = zip(names, labels)
    else:
        if labels[: len(inputs)] != inputs or len(labels) != len(inputs) + len(scalars):
            return {}
        pairs = zip(scalars, labels[len(inputs) :])
    return {
        n: label
        for n, label in pairs
        if label.startswith("\\") and label not in (n, f"\\text{{{n}}}")
    }


# ---------------------------------------------------------------------------------- build


@dataclass
class _Read:
    """What reading a challenge directory gave, before the spec is assembled."""

    directory: Path
    source: pyast.ChallengeSource
    instance: Any
    run: Run
    params: List[ParamInfo]
    names: List[str]
    notes: List[Optional[str]]
    sizes: List[str]
    seed: int
    findings: List[Any]  # what `chgen check` (static) finds in the original


def import_challenge(
    directory: Path, seed: int = 0, inline_svg: bool = False, written_examples: bool = True
) -> ImportResult:
    """Read `directory` (challenges/<difficulty>/<id>_<slug>) and write its spec in memory;
    `written_examples`: an example section chgen does not render as the page writes it keeps the
    page's HTML as its `display` (the author's text is not lost; its values are still those of
    challenge.py, verified at generate time); off, every example is rendered from its values."""
    report = Report()
    for name in ("challenge.py", "challenge.html"):
        if not (directory / name).is_file():
            raise ImportFailure(f"{directory.name}/{name} is missing")
    challenge_id, slug, difficulty = _locate(directory, report)
    read = _read(directory, seed, report)
    attrs = _attributes(read.source, report)
    found = _cases(read, report)
    cases, perf_case, defaults = found.functional, found.performance, found.defaults
    reference = _reference(read.source, read.params, report)
    page_text = (directory / "challenge.html").read_text(encoding="utf-8")
    tensor_inputs = [p.name for p in read.params if p.is_tensor and p.direction != "out"]
    page = page_reader.read_page(
        page_text,
        [p.name for p in read.params if p.is_tensor and p.direction != "in"],
        [p.name for p in read.params],
        tensor_inputs[0] if len(tensor_inputs) == 1 else None,
        tensor_inputs,
    )
    for note in page.notes:
        report.note(note)
    examples = _examples(read, reference, page, attrs, found.prefill, report)
    _check_performance_bullet(read.params, perf_case, page, report)
    starter_texts = starters.read_starters(directory / "starter", STARTERS)
    scaffold = _scaffold(difficulty, slug, starter_texts, read.sizes, report)
    _starter_scaffolds(scaffold, starter_texts, read.params, report)
    starter_helpers = _starter_helpers(starter_texts, scaffold, report)
    requirements = page.requirements
    if not requirements:
        requirements = ["The <code>solve</code> function signature must remain unchanged"]
        report.note("challenge.html lists no Implementation Requirements; chgen writes one")
    elif isinstance(requirements, str):
        report.note(
            "challenge.html: the Implementation Requirements are no list; the spec keeps the "
            "section's HTML as the page writes it (requirements)"
        )
    min_bytes = _min_bytes(read.params)
    report.note(
        "performance.min_bytes is not in the tree: set to every tensor read or written once "
        f"({min_bytes}); adjust it"
    )
    performance: Dict[str, Any] = {"scalars": perf_case.scalars}
    performance.update(_bullet_layout(read.params, page_text, page))
    constraints, bullet_rule = _written_bullet(read.params, perf_case, page, performance, report)
    perf_inputs = {
        k: v
        for k, v in perf_case.inputs.items()
        if not _same_form(defaults.get("inputs", {}).get(k), v)
    }
    if perf_inputs:
        performance["inputs"] = perf_inputs
    performance["min_bytes"] = min_bytes
    if _case_shapes(read.params, "performance"):
        performance["shapes"] = _case_shapes(read.params, "performance")
    performance.update(_case_form(perf_case, found.prefill))
    if read.source.performance_note:
        performance["note"] = read.source.performance_note
    svg_name = f"{challenge_id}_{slug}.svg" if page.svg and not inline_svg else None
    data: Dict[str, Any] = {
        "id": challenge_id,
        "slug": slug,
        "directory": None if directory.name == f"{challenge_id}_{slug}" else directory.name,
        "name": attrs["name"],
        "difficulty": difficulty,
        "access_tier": attrs["access_tier"],
        "num_gpus": attrs["num_gpus"],
        "atol": attrs["atol"],
        "rtol": attrs["rtol"],
        "signature": _signature(read.params, _latex(read.params, read.sizes, page)),
        "reference_helpers": reference_helpers(read.source),
        "reference": reference,
        **_reference_jax(read.source, read.params, report),
        "description": page.description + "\n",
        "svg": svg_name or (page.svg + "\n" if page.svg else None),
        "after_svg": page.after_svg + "\n" if page.after_svg else None,
        "requirements": requirements,
        "constraints": constraints,
        "example": examples[0] if len(examples) == 1 else None,
        "examples": examples if len(examples) > 1 else None,
        "prefill": None if found.prefill == "empty" else found.prefill,
        "scaffold": scaffold,
        "starter_helpers": starter_helpers or None,
        "exploded_solve": _exploded_solve(starter_texts, report) or None,
        "defaults": defaults or None,
        "functional": [
            _case_entry(c, defaults, read.sizes, read.params, found.prefill) for c in cases
        ],
        "performance": performance,
        "page": _page_form(page, len(examples), _items(requirements), report),
        "sections": page.sections or None,
        "tolerated_rules": _original_rule_codes(read, page_text, report, bullet_rule) or None,
    }
    _squeeze_batches_of_one(data, page_text, report)
    spec_name = f"{challenge_id}_{slug}.yaml"
    if written_examples:
        kept = _keep_written_examples(page_text, data, spec_name, svg_name, page.svg)
        for note in kept:
            report.note(note)
        wrong = kept and _page_contradicts_example(data, spec_name, svg_name, page.svg)
        if wrong:
            # the author's text is kept as written, and so is its mistake: D001 is tolerated
            data["tolerated_rules"] = sorted({*(data["tolerated_rules"] or []), "D001"})
            report.note(
                f"challenge.html: the page's example shows values its own challenge.py does not "
                f"produce (D001 {wrong}); the spec keeps the page's text and tolerates D001: "
                "correct the page or challenge.py"
            )
    keep = page_text if written_examples else None
    before = copy.deepcopy(report)
    finished = _finish(read, data, spec_name, svg_name, page.svg, keep, report)
    finished = _exact_inputs(read, data, spec_name, svg_name, page.svg, keep, before, finished)
    result = finished.result
    verify_written(result.spec_text, spec_name, svg_name, page.svg, finished.files)
    return result


@dataclass
class _Finished:
    """An import's outcome and the files its spec (built in memory) renders."""

    result: ImportResult
    files: Dict[str, str]


def _exact_inputs(
    read: _Read,
    data: Dict[str, Any],
    spec_name: str,
    svg_name: Optional[str],
    svg_text: Optional[str],
    page_text: Optional[str],
    before: Report,
    finished: "_Finished",
) -> "_Finished":
    """Every case the regenerated challenge.py does not reproduce (inputs, reference results)
    gets its inputs as the original's own torch calls (coded.py): first keeping the inputs that
    are one plain draw as distributions, then all as code. A challenge still not reproduced is
    refused, with the first difference."""
    codable = coded.labels_of(read.run, read.names)
    done: Dict[str, coded.Coded] = {}
    for keep in (True, False):
        wrong = _inexact(finished.result) + [
            label
            for label in codable
            if label != coded.EXAMPLE
            and coded.draws_differ(read.run, read.params, read.names, label, _forms(data, label))
        ]
        wrong = list(dict.fromkeys(wrong))
        if not wrong:
            return finished
        # an example is written as code only where it is drawn (its page shows no values)
        fixable = [
            label
            for label in wrong
            if label in codable and (label != coded.EXAMPLE or _example_is_drawn(data))
        ]
        if not fixable:
            break
        data = copy.deepcopy(data)
        for label in fixable:
            try:
                done[label] = coded.code_inputs(
                    read.run, read.params, read.names, label, keep and label != coded.EXAMPLE
                )
            except ReplayError as exc:
                raise ImportFailure(
                    f"case {label}: its inputs cannot be written as code: {exc}"
                ) from None
            _place_code(data, label, done[label])
        report = copy.deepcopy(before)
        for label in done:
            report.withdraw(label)
            report.note(
                f"case {label}: its inputs are made by the original's own torch calls (code)"
            )
        if coded.EXAMPLE in done and done[coded.EXAMPLE].draws:
            data["tolerated_rules"] = sorted(set(data.get("tolerated_rules") or []) | {"P018"})
            report.note(
                "example: its code draws as the original's generate_example_test does, from the "
                "stream the judge seeds (P018 tolerated)"
            )
        finished = _finish(read, data, spec_name, svg_name, svg_text, page_text, report)
    result = finished.result
    if not _inexact(result):
        return finished
    problems = result.equivalence.problems()
    reasons = problems or [f"case {label}: {why}" for label, why in _approximations(result)]
    raise ImportFailure(f"the regenerated challenge.py is not equivalent: {reasons[0]}")


def _example_is_drawn(data: Dict[str, Any]) -> bool:
    example = data["example"] or data["examples"][0]
    return example.get("outputs") == REFERENCE_OUTPUTS


def _forms(data: Dict[str, Any], label: str) -> Dict[str, Any]:
    """The spec forms of a case's inputs (its own over the defaults)."""
    if label == coded.PERFORMANCE:
        own = data["performance"].get("inputs", {})
    else:
        own = next(e for e in data["functional"] if e["name"] == label).get("inputs", {})
    return {**((data.get("defaults") or {}).get("inputs") or {}), **own}


def _inexact(result: ImportResult) -> List[str]:
    """The cases whose regenerated values (inputs, reference results) differ, or that the
    import approximated."""
    found = [c.label for c in result.equivalence.cases if c.problems or c.differing or c.reference]
    found += [label for label in result.report.approximated if label not in found]
    if result.equivalence.signature:
        found.append("signature")
    return found


def _approximations(result: ImportResult) -> List[Tuple[str, str]]:
    return [(label, why[0]) for label, why in result.report.approximated.items() if why]


def _place_code(data: Dict[str, Any], label: str, made: coded.Coded) -> None:
    """The coded inputs (and seed) of one case, in the spec data."""
    if label == coded.EXAMPLE:
        example = data["example"] or data["examples"][0]
        example["inputs"] = made.inputs
        example.pop("seed", None)  # the code draws from the stream the judge seeds
        return
    if label == coded.PERFORMANCE:
        entry = data["performance"]
    else:
        entry = next(e for e in data["functional"] if e["name"] == label)
    rebuilt: Dict[str, Any] = {}
    for key, value in entry.items():
        if key in ("inputs", "seed"):
            continue
        if key == "scalars":  # those the code computes are passed by name
            value = {k: v for k, v in value.items() if k not in made.computed}
        rebuilt[key] = value
        if key == "scalars" or (key == "name" and "scalars" not in entry):
            rebuilt["inputs"] = made.inputs
    if "inputs" not in rebuilt:
        rebuilt["inputs"] = made.inputs
    if made.seed is not None:
        rebuilt["seed"] = made.seed
    entry.clear()
    entry.update(rebuilt)


def _squeeze_batches_of_one(data: Dict[str, Any], page_text: str, report: Report) -> None:
    """A page writing its examples as bmatrix where chgen would write the data in <pre> for a
    [1, 3, 4] tensor among it shows that batch of one as its matrix (page.matrix.squeeze)."""
    from generator.challenge.page import example_forms, read_page

    if set(example_forms(read_page(page_text))) != {"bmatrix"}:
        return
    examples = data["examples"] or [data["example"]]
    shown = [
        [
            (name, literal_dims(value), value)
            for part in ("inputs", "outputs")
            if isinstance(example[part], dict)
            for name, value in example[part].items()
            if isinstance(value, list)
        ]
        for example in examples
    ]
    if all(example_form(tensors) == "pre" for tensors in shown) and all(
        example_form(tensors, squeeze=True) == "matrix" for tensors in shown
    ):
        page = data["page"] = dict(data["page"] or {})
        page["matrix"] = {**page.get("matrix", {}), "squeeze": True}
        report.note(
            "challenge.html: the example shows each tensor of a batch of one (leading dimensions "
            "1) as its matrix; so does the spec (page.matrix.squeeze)"
        )


def _original_rule_codes(
    read: _Read, page_text: str, report: Report, extra: Optional[str] = None
) -> List[str]:
    """The rules `chgen check` (static) finds errors of in the original challenge: the forms it
    keeps, which the spec then tolerates, so that `chgen generate` reproduces them instead of
    refusing what the original already does. A page writing its examples in <pre> keeps that form
    for 2-D data too (H009), though the original's generated example may hide the data's rank; so
    does one writing 1-D data as one-row bmatrices (kept as the page's text, its `display`)."""
    from generator.challenge.page import example_forms, multi_row_matrix, read_page
    from generator.checks.registry import ERROR

    found = {f.code for f in read.findings if f.severity == ERROR and not f.code.startswith("G")}
    parsed = read_page(page_text)
    forms = example_forms(parsed)
    example = read.run.example.values if read.run.example is not None else {}
    ranks = [v.ndim for v in example.values() if isinstance(v, torch.Tensor)]
    two_d = 2 in ranks
    if "pre" in forms and "bmatrix" not in forms and two_d:
        found.add("H009")
    flat_only = ranks and max(ranks) <= 1 and not multi_row_matrix(parsed)
    if "bmatrix" in forms and "pre" not in forms and flat_only:
        found.add("H009")
    if extra:
        found.add(extra)
    codes = sorted(found)
    if codes:
        report.note(
            f"the original breaks rule(s) {', '.join(codes)}; the spec tolerates them "
            "(tolerated_rules), so generation keeps those forms"
        )
    return codes


def _jax_reference_findings(directory: Path) -> List[Any]:
    """D008 on the original: its reference_impl_jax against its reference_impl on every case, on
    JAX's CPU backend, as `chgen check --deep` runs it. Here, in the import worker (its own
    sandboxed process), where the challenge's code already runs; JAX is imported only for a
    challenge that has the method."""
    from generator.challenge.pyfile import read_challenge_py
    from generator.checks import deep
    from generator.checks.report import Report as CheckReport
    from generator.checks.source import ChallengeDir

    ch = ChallengeDir(directory, str(directory))
    report = CheckReport(Options(deep=True, select=("D008",)))
    source = ch.file("challenge.py")
    if source is not None:
        deep.check_here([ch], {ch.path: read_challenge_py(source.text, source.display)}, report)
    return report.findings


def _read(directory: Path, seed: int, report: Report) -> _Read:
    """Source, a loaded instance and its traced cases, the signature and its shapes."""
    try:
        source = pyast.read_source((directory / "challenge.py").read_text(encoding="utf-8"))
    except pyast.SourceError as exc:
        raise ImportFailure(str(exc)) from None
    try:
        instance = load_challenge(directory / "challenge.py", _base_file(directory))
        run = run_cases(instance, seed, record=True)
    except ChallengeLoadError as exc:
        raise ImportFailure(str(exc)) from None
    params = infer.read_signature(source, instance, run, report)
    names, notes = infer.name_cases(source.functional, run.functional)
    labelled = [("example", run.example), *zip(names, run.functional)]
    labelled.append(("performance", run.performance))
    infer.infer_shapes(params, labelled, source.reference.shape_hints)
    known = {p.name for p in params}
    for label, case in labelled:
        extra = sorted(set(case.values) - known)
        if extra:
            report.note(
                f"case {label} passes {', '.join(extra)}, which solve does not take; dropped"
            )
    used = {
        n
        for p in params
        if p.is_tensor
        for shape in [p.shape, *p.case_shapes.values()]
        for d in shape
        for n in shape_exprs.names(shape_exprs.dimension(d))
    }
    sizes = [p.name for p in params if not p.is_tensor and p.name in used]
    findings = run_checks([directory], Options()).findings
    if source.reference_jax is not None:
        findings += _jax_reference_findings(directory)
    return _Read(directory, source, instance, run, params, names, notes, sizes, seed, findings)


@dataclass
class _Cases:
    functional: List[_Case]
    performance: _Case
    defaults: Dict[str, Any]
    prefill: Start  # the spec-wide output start (the example's)


def _cases(read: _Read, report: Report) -> _Cases:
    """Functional cases, the performance case, the defaults they share and the spec's prefill."""
    params = read.params
    cases = []
    for label, case, note in zip(read.names, read.run.functional, read.notes):
        inputs = {} if case.from_example else _inputs(params, case, label, report)
        scalars = _scalars(params, case, label)
        cases.append(_case_form_of(_Case(label, scalars, inputs, case.from_example, note), case))
    perf = read.run.performance
    perf_case = _Case(
        "performance",
        _scalars(params, perf, "performance"),
        _inputs(params, perf, "performance", report),
        False,
        None,
    )
    _case_form_of(perf_case, perf)
    for label, case in [*zip(read.names, read.run.functional), ("performance", perf)]:
        _report_mixed_descriptors(params, case, label, report)
    for case, traced in [*zip(cases, read.run.functional), (perf_case, perf)]:
        case.start = _case_start(traced, params, case.label, report)
    _report_unplaced_seeds(read.run, report)
    defaults = _defaults(cases, params, read.sizes)
    _fill_unknown_performance(perf_case, perf, params, defaults, report)
    example_start = _case_start(read.run.example, params, "example", report)
    prefill = _prefill(example_start, [c for c in cases if not c.from_example])
    return _Cases(cases, perf_case, defaults, prefill)


def _case_form_of(case: _Case, traced: Traced) -> _Case:
    """The seed placed before the case, and whether it is written with descriptors."""
    case.seed = traced.seed
    tensors = [k for k, v in traced.values.items() if isinstance(v, torch.Tensor)]
    case.descriptors = bool(tensors) and set(tensors) <= set(traced.described)
    return case


def _report_mixed_descriptors(
    params: List[ParamInfo], traced: Traced, label: str, report: Report
) -> None:
    tensors = [p.name for p in params if p.is_tensor]
    described = [n for n in tensors if n in traced.described]
    if described and len(described) < len(tensors):
        report.note(
            f"case {label}: {', '.join(described)} given as descriptors, the other tensors as "
            "tensors; a spec case is written all one way: with torch calls (not representable)"
        )


def _examples(
    read: _Read,
    reference: str,
    page: page_reader.Page,
    attrs: Dict[str, Any],
    prefill: Start,
    report: Report,
) -> List[Dict[str, Any]]:
    """The first example from generate_example_test, the others from the page's values; each
    keeps the page's title, explanation and whether it lists the sizes. Every example's
    outputs start as the spec's prefill says."""
    example = read.run.example
    scalars = _scalars(read.params, example, "example")
    if _too_large_for_literals(read.params, example):
        first = _drawn_example(read, scalars, report)
    else:
        inputs = _example_inputs(read.params, example, read.seed, report)
        computed = _reference_outputs(
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
        first = {"scalars": scalars, "inputs": inputs, "outputs": outputs}
    found = [first]
    for number, later in enumerate(page.examples[1:], start=2):
        found.append(_page_example(read, reference, later, number, attrs, prefill, report))
    titles = example_titles([None] * len(found))
    for entry, written, default in zip(found, page.examples, titles):
        if written.title != default:
            entry["title"] = written.title
        if entry.get("outputs", REFERENCE_OUTPUTS) == REFERENCE_OUTPUTS:
            continue  # drawn (its page lists shapes), or the page's text alone
        if written.explanation:  # several lines: a literal block, as the page writes them
            multiline = "\n" in written.explanation
            entry["explanation"] = written.explanation + "\n" * multiline
        if not page.matrix and set(written.labels) & set(read.sizes) and _in_pre(entry):
            entry["show_sizes"] = True
        hidden = _hidden_scalars(read, written)
        if hidden:
            entry["hide"] = hidden
        numbers = page_reader.example_numbers(*_number_pairs(entry, written.shown))
        if numbers:
            entry["numbers"] = numbers
    return found


def _in_pre(entry: Dict[str, Any]) -> bool:
    """chgen writes the example's data in <pre> (its sizes then listed with show_sizes); 2-D data
    it writes as matrices, and a page that shows them in <pre> keeps its block as `display`."""
    tensors = [
        (name, literal_dims(value), value)
        for part in ("inputs", "outputs")
        if isinstance(entry.get(part), dict)
        for name, value in entry[part].items()
        if isinstance(value, list)
    ]
    return example_form(tensors) == "pre"


def _hidden_scalars(read: _Read, written: page_reader.PageExample) -> List[str]:
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


def _number_pairs(entry: Dict[str, Any], shown: Any) -> Tuple[List[Any], List[Any]]:
    """(spec value, text on the page) of every number the page writes for the example's Input
    part and its Output part, where the page writes a value of the spec's size."""
    parts: Tuple[List[Any], List[Any]] = ([], [])
    given = {**entry["scalars"], **entry["inputs"]}
    for is_output, values in ((False, given), (True, entry["outputs"])):
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
    read: _Read,
    reference: str,
    written: page_reader.PageExample,
    number: int,
    attrs: Dict[str, Any],
    prefill: Start,
    report: Report,
) -> Optional[Dict[str, Any]]:
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
        computed = _reference_outputs(
            params, reference, scalars, inputs, read.instance, None, prefill, helpers
        )
    except ImportFailure as exc:
        return _text_only(written, number, str(exc), report)
    outputs = _example_outputs(
        params, computed, _shown_outputs(params, written.shown), True, attrs, report, number
    )
    return {"scalars": scalars, "inputs": inputs, "outputs": outputs}


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
) -> Dict[str, Any]:
    """An example whose values the page does not give readably: kept as the page's text alone
    (`display`, no values to verify), so that nothing the author wrote is lost."""
    report.note(
        f"challenge.html: example {number}: {why}; the spec keeps it as the page's text alone "
        "(display, no values: chgen cannot verify it)"
    )
    display, explanation = _split_explanation(written.block, written.explanation)
    entry: Dict[str, Any] = {"display": display + "\n"}
    if explanation:
        entry["explanation"] = explanation + "\n" * ("\n" in explanation)
    return entry


def _split_explanation(block: str, explanation: Optional[str]) -> Tuple[str, Optional[str]]:
    """(the data block, the explanation) of a section's written block: the explanation apart
    where it is the block's end, else inside the block."""
    text = (explanation or "").strip()
    if text and block.endswith("\n" + text):
        return block[: -len(text)].rstrip("\n"), explanation
    return block, None


def _keep_written_examples(
    page_text: str,
    data: Dict[str, Any],
    spec_name: str,
    svg_name: Optional[str],
    svg_text: Optional[str],
) -> List[str]:
    """Give every example whose section the spec does not render as the page writes it the
    page's data block as its `display` (the explanation too where it is not the block's end);
    the report's note for each one kept."""
    notes: List[str] = []
    examples = data["examples"] or [data["example"]]
    try:
        rendered = render_page(built_spec(data, spec_name, svg_name, svg_text))
    except Exception:  # noqa: BLE001 - the main pass reports why the spec fails
        return notes
    if rendered == page_text:
        return notes
    written = read_page_facts(page_text)
    ours = read_page_facts(rendered)
    theirs = list(written.examples())
    for number, (entry, section) in enumerate(zip(examples, ours.examples()), start=1):
        match = next((e for e in theirs if e.title == section.title), None)
        if match is None:
            continue
        theirs.remove(match)
        body, mine = written.body(match.heading), ours.body(section.heading)
        if "outputs" not in entry or body.strip("\n") == mine.strip("\n"):
            continue  # the page's text alone already, or rendered as the page writes it
        block, explanation = _split_explanation(
            page_reader.written_block(body), entry.get("explanation")
        )
        if explanation is None:
            entry.pop("explanation", None)
        entry["display"] = block + "\n"
        entry.pop("numbers", None)
        notes.append(
            f"challenge.html: example {number}'s data is kept as the page writes it (display); "
            "chgen does not render it from the values"
        )
    return notes


def _page_contradicts_example(
    data: Dict[str, Any], spec_name: str, svg_name: Optional[str], svg_text: Optional[str]
) -> Optional[str]:
    """D001's message when the page, with the examples' `display`, shows values the challenge's
    generate_example_test or reference does not produce (the page's own mistake, which
    `chgen generate` would refuse), else None. Runs the challenge's code, as the import worker
    (a process of its own, in the spec-code sandbox) already does."""
    from generator.checks import challenge_py, deep
    from generator.checks.report import Options
    from generator.checks.report import Report as CheckReport
    from generator.checks.source import ChallengeDir, Tree

    with tempfile.TemporaryDirectory(prefix="chgen-import-display-") as tmp:
        root = Path(tmp)
        try:
            loaded = built_spec(data, spec_name, svg_name, svg_text)
            files = render_challenge(loaded)
        except Exception:  # noqa: BLE001 - the main pass reports why the spec fails
            return None
        name = _write_tree(root / "tree", loaded, files)
        found = CheckReport(Options(select=("D001",)))
        challenge = ChallengeDir(root / "tree" / name, name, Tree(root / "tree", ""))
        model = challenge_py.check(challenge, found)
        deep.check_here([challenge], {challenge.path: model}, found)
        return next((f.message for f in found.sorted() if f.code == "D001"), None)


def _check_performance_bullet(
    params: List[ParamInfo], perf_case: _Case, page: page_reader.Page, report: Report
) -> None:
    shown = {p.name: perf_case.scalars[p.name] for p in params if is_size(p)}
    if page.performance and page.performance != shown:
        report.note(
            f"challenge.html measures performance at {page.performance}, the test at "
            f"{shown}; the page is regenerated from the test"
        )


def _page_form(
    page: page_reader.Page, examples: int, requirements: int, report: Report
) -> Optional[Dict[str, Any]]:
    """The page's layout choices; its blank lines between sections only while every example
    section is kept (one left out changes the count), its items' indentations only while every
    item is kept."""
    form = dict(page.form)
    indents = form.get("item_indents")
    if indents is not None and len(indents) != requirements + len(page.constraints):
        del form["item_indents"]
        report.note("challenge.html: the items' indentations are chgen's (an item is not kept)")
    gaps = form.get("section_gaps")
    if gaps is not None and len(gaps) != examples + 2:
        del form["section_gaps"]
        report.note(
            "challenge.html: the blank lines between sections are chgen's (an example is left out)"
        )
    return form or None


def _items(requirements: Any) -> int:
    """How many list items the requirements are (none where they are the section's HTML)."""
    return len(requirements) if isinstance(requirements, list) else 0


def _written_bullet(
    params: List[ParamInfo],
    perf_case: _Case,
    page: page_reader.Page,
    performance: Dict[str, Any],
    report: Report,
) -> Tuple[List[str], Optional[str]]:
    """The constraints, with the page's performance bullet kept as its last item (`bullet:
    false`) where chgen would write it otherwise (other numbers, other words), so that the
    page's text is not lost; and the rule its kept numbers break (D002), if they are not the
    test's."""
    constraints = list(page.constraints)
    if page.bullet is None:
        return constraints, None
    names = performance.get("shown") or [p.name for p in params if is_size(p)]
    sizes = [(name, int(perf_case.scalars[name])) for name in names if name in perf_case.scalars]
    ours = performance_bullet(sizes)
    if " ".join(page.bullet.split()) == ours:
        return constraints, None
    performance["bullet"] = False
    performance.pop("blank_line", None)
    report.note(
        "challenge.html: the performance bullet is kept as the page writes it (performance."
        f"bullet: false); chgen would write {ours!r}"
    )
    values = {name: value for name, value in sizes if name in page.performance}
    wrong = values != {name: page.performance[name] for name in values}
    return constraints + [page.bullet], "D002" if wrong else None


def _bullet_layout(params: List[ParamInfo], text: str, page: page_reader.Page) -> Dict[str, Any]:
    """`shown` when the bullet names other scalars than every int size; `blank_line: false` when
    no blank line stands before it (chgen's default has one); `bullet: false` when the page's
    bullet is kept as its last constraint (written over several lines)."""
    layout: Dict[str, Any] = {}
    every = [p.name for p in params if not p.is_tensor and p.dtype == "int32"]
    shown = [name for name in page.performance if name in {p.name for p in params}]
    if page.performance and shown == list(page.performance) and shown != every:
        layout["shown"] = shown
    last = " ".join(page.constraints[-1].split()) if page.constraints else ""
    if page.performance and last.lower().startswith(BULLET.lower()):
        layout["bullet"] = False  # the page's own, broken over lines: kept as its last item
    elif page.performance and not blank_before_bullet(text):
        layout["blank_line"] = False
    return layout


def _scaffold(
    difficulty: str, slug: str, texts: Dict[str, Optional[str]], sizes: List[str], report: Report
) -> Optional[Dict[str, Any]]:
    if difficulty != "easy":
        return None
    scaffold, notes = starters.scaffold(texts["starter.cu"], sizes)
    for note in notes:
        report.note(note)
    if scaffold is None:
        scaffold = {"kernel": f"{slug}_kernel", "grid": sizes[:1]}
        report.note(f"easy starters get chgen's scaffold: kernel {scaffold['kernel']}")
    return scaffold


def _starter_scaffolds(
    scaffold: Optional[Dict[str, Any]],
    texts: Dict[str, Optional[str]],
    params: List[ParamInfo],
    report: Report,
) -> None:
    """`scaffold.starters`: where a Python easy starter's stub and launch depart from chgen's."""
    if scaffold is None:
        return
    sig = [SigParam.make(p.name, p.dtype, p.direction, p.is_tensor) for p in params]
    found = {}
    for lang in LANGUAGES:
        if not lang.scaffolded or lang.starter_syntax != "python":
            continue
        default = lang.kernel_parameter_names(sig, scaffold["grid"])
        variant = starters.python_scaffold(
            texts.get(lang.starter_name),
            scaffold["kernel"],
            default,
            scaffold["grid"],
            [p.name for p in params if is_size(p)],
        )
        if variant:
            found[lang.key] = variant
    if found:
        scaffold["starters"] = found
        report.note(f"scaffold.starters: the {', '.join(found)} stub and launch as written")


def _exploded_solve(texts: Dict[str, Optional[str]], report: Report) -> List[str]:
    found = [
        lang.key
        for lang in LANGUAGES
        if lang.starter_syntax == "python" and starters.exploded_solve(texts.get(lang.starter_name))
    ]
    if found:
        report.note(f"exploded_solve: solve lists one parameter per line in {', '.join(found)}")
    return found


def _starter_helpers(
    texts: Dict[str, Optional[str]], scaffold: Optional[Dict[str, Any]], report: Report
) -> Dict[str, str]:
    """Code the starters ship besides solve and the kernel stub, per language key."""
    found = {}
    for lang in LANGUAGES:
        kernel = scaffold["kernel"] if scaffold else None
        variant = scaffold.get("starters", {}).get(lang.key, {}) if scaffold else {}
        kernel = variant.get("kernel", kernel)
        code = starters.helpers(texts.get(lang.starter_name), kernel)
        if code is not None:
            found[lang.key] = lang.current_helper(code)
    if found:
        report.note(f"starter helpers carried over for {', '.join(found)} (starter_helpers)")
    return found


def _signature(params: List[ParamInfo], latex: Dict[str, str]) -> List[Dict[str, Any]]:
    entries = []
    for p in params:
        entry: Dict[str, Any] = {"name": p.name, "dtype": p.dtype}
        if p.is_tensor:
            entry["direction"] = p.direction
            entry["shape"] = p.shape
        if p.name in latex:
            entry["latex"] = latex[p.name]
        entries.append(entry)
    return entries


def _fill_unknown_performance(perf_case, perf, params, defaults, report) -> None:
    """Inputs of a meta-device performance case whose recipe is unknown take the default form."""
    for p in params:
        if p.name in perf_case.inputs and not perf_case.inputs[p.name]:
            fallback = defaults.get("inputs", {}).get(p.name)
            kind = lookup(p.dtype).kind
            if fallback is None:
                fallback = {"uniform": [-1.0, 1.0]} if kind == "float" else {"randint": [0, 2]}
            perf_case.inputs[p.name] = fallback
            made, _ = infer.unwrap(perf.recipes[p.name])
            reason = made.why or made.kind
            report.approximate(
                "performance",
                f"case performance: input {p.name} drawn by code chgen cannot express ({reason}); "
                f"approximated by {infer.describe(fallback)}",
            )


def _finish(
    read: _Read,
    data: Dict[str, Any],
    spec_name: str,
    svg_name: Optional[str],
    svg_text: Optional[str],
    page_text: Optional[str],
    report: Report,
) -> _Finished:
    """Load and render the spec like any other; keep the original starters that differ where
    no rule objects (and render again); compare everything with the originals. With
    `page_text`, the page it renders must show every word that page shows (else the challenge
    is refused, naming what would be lost)."""
    with tempfile.TemporaryDirectory(prefix="chgen-import-") as tmp:
        root = Path(tmp)
        loaded, files = _load_and_render(data, spec_name, svg_name, svg_text)
        outcomes = _kept_starters(read, files, challenge_dir(loaded.spec), report)
        kept = {key: o.text for key, o in outcomes.items() if o.text is not None}
        if kept:
            data["kept_starters"] = kept
            loaded, files = _load_and_render(data, spec_name, svg_name, svg_text)
        generate_errors: List[str] = []
        # Here, in the import worker (generator/importer/isolated.py: its own process, killed past
        # its time limit), the challenge's own code has already run; its example is verified in
        # the same process rather than in one more torch-loading child per challenge.
        try:
            verify_example(loaded)
        except SpecErrors as exc:
            for error in exc.errors:
                generate_errors.append(error.text)
                report.note(
                    f"chgen generate refuses this spec until it is fixed by hand: {error.text}"
                )
        rendered_dir = _write_tree(root / "tree", loaded, files)
        if page_text is not None:
            _refuse_lost_text(page_text, files[f"{rendered_dir}/challenge.html"])
        identical = _compare_files(read.directory, files, rendered_dir)
        py_changes = account(
            (read.directory / "challenge.py").read_text(encoding="utf-8"),
            files[f"{rendered_dir}/challenge.py"],
        )
        if not py_changes.identical:
            report.note(py_changes.summary())
            for line in py_changes.lines():
                report.note(line)
        try:
            generated = load_challenge(
                root / "tree" / rendered_dir / "challenge.py", root / "tree" / CORE_BASE
            )
            equivalence = compare(read.instance, generated, read.names, read.seed, read.run)
        except ChallengeLoadError as exc:
            equivalence = Equivalence([f"the regenerated challenge.py fails: {exc}"], [])
    _report_equivalence(equivalence, report)
    origin = f"{loaded.spec.difficulty}/{read.directory.name}"
    header = [MODELINE[2:], f"{loaded.spec.name}: imported by `chgen import` from {origin}."]
    header += [f"chgen import: {line}" for line in report.lines()]
    return _Finished(
        ImportResult(
            spec_name,
            dump_spec(data, header),
            svg_name,
            svg_text,
            report,
            identical,
            equivalence,
            read.names,
            generate_errors,
            page_parts(data),
            py_changes,
            {o.name: o.status for o in outcomes.values()},
        ),
        files,
    )


def _load_and_render(
    data: Dict[str, Any],
    spec_name: str,
    svg_name: Optional[str],
    svg_text: Optional[str],
) -> Tuple[Any, Dict[str, str]]:
    """The spec built in memory, validated and rendered as `chgen generate` would."""
    try:
        loaded = built_spec(data, spec_name, svg_name, svg_text)
    except SpecErrors as exc:
        raise ImportFailure(
            "the spec written does not load (not representable):\n"
            + "\n".join(e.render() for e in exc.errors)
        ) from None
    try:
        return loaded, render_challenge(loaded)
    except Exception as exc:  # a spec chgen loads but cannot render is a chgen gap
        raise ImportFailure(
            f"chgen cannot render the spec: {type(exc).__name__}: {exc} (not representable)"
        ) from None


def _kept_starters(
    read: _Read, files: Dict[str, str], rendered_dir: str, report: Report
) -> Dict[str, starters.Kept]:
    """Per language key, what becomes of each original starter (see starters.keep_or_rewrite):
    kept as written where its `text` is set; every starter that differs from chgen's is
    reported, kept or not."""
    from generator.checks.registry import ERROR

    directions = {p.name: p.direction for p in read.params if p.is_tensor}
    outcomes: Dict[str, starters.Kept] = {}
    for lang in LANGUAGES:
        name = f"starter/{lang.starter_name}"
        original = read.directory / name
        generated = files.get(f"{rendered_dir}/{name}")
        if generated is None or not original.is_file():
            if generated is not None and lang.starter_name not in OPTIONAL_STARTERS:
                why = starters.difference(name, None, generated)
                report.note(why)
                outcomes[lang.key] = starters.Kept(name, None, why, "added")
            continue
        old = original.read_text(encoding="utf-8")
        if old == generated:
            outcomes[lang.key] = starters.Kept(name, None, "", "identical")
            continue
        flagged = [
            (f.code, f.message)
            for f in read.findings
            if f.severity == ERROR and f.path == str(original)
        ]
        outcome = starters.keep_or_rewrite(lang, old, generated, flagged, directions)
        report.note(outcome.why)
        outcomes[lang.key] = outcome
    return outcomes


def _refuse_lost_text(original: str, rendered: str) -> None:
    """Refuse a challenge whose page the spec renders without text the original shows."""
    losses = text_losses(original, rendered)
    if losses:
        raise ImportFailure(
            f"challenge.html: the spec would not show all of the page's text: "
            f"{describe_losses(losses)} (page part not representable: {losses[0].kind})"
        )


def page_parts(data: Dict[str, Any]) -> Dict[str, Dict[str, int]]:
    """What the spec keeps of the page, per kind of part: as values (chgen renders it from
    them) or as the author's text; `text_only` counts the examples kept without values."""
    examples = data["examples"] or [data["example"]]
    written = [e for e in examples if "display" in e]
    bullet = data["performance"].get("bullet", True)
    requirements = data["requirements"]
    return {
        "example": {
            "values": len(examples) - len(written),
            "text": len(written),
            "text_only": sum("outputs" not in e for e in written),
        },
        "performance bullet": {"values": int(bullet), "text": int(not bullet)},
        "own section": {"text": len(data["sections"] or [])},
        "list item": {"text": _items(requirements) + len(data["constraints"])},
        "section HTML": {"text": int(isinstance(requirements, str))},
        "description": {"text": 1 + bool(data["svg"]) + bool(data["after_svg"])},
    }


def _write_tree(tree: Path, loaded: Any, files: Dict[str, str]) -> str:
    """The rendered challenge and the base class under `tree`; the challenge's folder in it."""
    for path, text in {**render_core(), **files}.items():
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return f"challenges/{loaded.spec.difficulty}/{loaded.spec.dir_name}"


def _compare_files(directory: Path, files: Dict[str, str], rendered_dir: str) -> Dict[str, bool]:
    """Which rendered files equal their originals."""
    identical: Dict[str, bool] = {}
    for name in ("challenge.py", "challenge.html") + tuple(f"starter/{s}" for s in STARTERS):
        original = directory / name
        generated = files[f"{rendered_dir}/{name}"]
        old = original.read_text(encoding="utf-8") if original.is_file() else None
        if old is None and name.removeprefix("starter/") in OPTIONAL_STARTERS:
            continue
        identical[name] = old == generated
    return identical


def _report_equivalence(equivalence: Equivalence, report: Report) -> None:
    for problem in equivalence.signature:
        report.note(f"not equivalent: {problem}")
    for case in equivalence.cases:
        for problem in case.problems:
            report.note(f"not equivalent: case {case.label}: {problem}")
        for problem in case.reference:
            report.note(f"not equivalent: case {case.label}: {problem}")
        if case.differing and case.label not in report.approximated:
            report.approximate(
                case.label,
                f"case {case.label}: {', '.join(case.differing)} drawn from the same distribution "
                "but not the same values for a fixed seed (the original draws in another order "
                "or with other calls)",
            )
