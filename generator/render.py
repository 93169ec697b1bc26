"""Spec -> rendered, formatted files. All computing happens here; the templates only loop and
branch.

Each template gets a typed context (a frozen dataclass: StarterContext, ChallengePyContext,
ChallengeHtmlContext) whose fields are the template's top-level names; StrictUndefined turns a
name or attribute no context has into an error. `render_challenge` returns {relative path: text}
for one challenge directory; `render_core` the shared base class. Nothing is written here.
"""

from __future__ import annotations

import ast
import functools
import math
import re
import textwrap
from dataclasses import dataclass, field, fields
from typing import Any, Collection, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import jinja2

from generator import html
from generator.challenge.case_names import slugify
from generator.challenge.pyfile import WORLD_SIZE, asserted_tensors
from generator.dtypes import lookup
from generator.formatting import LINE_LENGTH, format_text
from generator.languages import LANGUAGES, SigParam, for_gpus
from generator.page import headings, lists
from generator.page.examples import example_blocks
from generator.page.matrix import MatrixLayout
from generator.page.pre import PreLayout
from generator.page.vocabulary import TITLES, example_titles
from generator.resources import template_dir
from generator.spec import code_inputs, example_page, shapes
from generator.spec.derived import computed_scalars, is_size, made_together, shape_of, size_names
from generator.spec.model import (
    Case,
    Distribution,
    Example,
    Param,
    Performance,
    Prefill,
    Spec,
    helper_functions,
    helper_preamble,
    is_method,
)
from generator.spec.read import LoadedSpec


class TemplateContext:
    """A typed template context: its fields are the template's top-level names."""

    def variables(self) -> Dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(name: str, context: Union[TemplateContext, Mapping[str, Any]]) -> str:
    variables = context.variables() if isinstance(context, TemplateContext) else dict(context)
    return environment().get_template(name).render(**variables)


def sig_params(spec: Spec) -> List[SigParam]:
    return [SigParam.make(p.name, p.dtype, p.direction, p.is_tensor) for p in spec.signature]


def challenge_dir(spec: Spec) -> str:
    return f"challenges/{spec.difficulty}/{spec.dir_name}"


# ---------------------------------------------------------------------------------- starters


@dataclass(frozen=True)
class ScaffoldContext:
    """An easy starter's kernel stub and launch: x runs over the last (fastest) dimension."""

    kernel: str
    two_d: bool
    x: str
    y: Optional[str]
    #: how the launch passes the block size (`BLOCK_SIZE` or `BLOCK_SIZE=BLOCK_SIZE`)
    block_argument: str = "BLOCK_SIZE"


@dataclass(frozen=True)
class StarterContext(TemplateContext):
    comment: str
    declarations: str
    arguments: str
    scaffold: Optional[ScaffoldContext]
    #: the kernel stub's parameter names (the adapter may spell the grid size its own way)
    kernel_parameters: str
    #: code the spec ships in this starter after the imports (device functions, ...), or ""
    helpers: str
    #: the language adapter's own names (CUDA's includes, JAX's return annotation, ...)
    language_extras: Mapping[str, Any] = field(default_factory=dict)
    #: a multi-GPU challenge: the lines of solve's docstring (what this rank holds, how it
    #: reaches its peers); empty otherwise
    docstring: List[str] = field(default_factory=list)

    def variables(self) -> Dict[str, Any]:
        common = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name != "language_extras"
        }
        clash = sorted(set(common) & set(self.language_extras))
        if clash:
            raise ValueError(f"a language adapter's context redefines {', '.join(clash)}")
        return {**common, **self.language_extras}


def scaffold_context(spec: Spec, lang: Any) -> Optional[ScaffoldContext]:
    """The scaffold as language `key` writes it (`scaffold.starters` may rename its stub, spell
    its 1-D launch count as an expression, or pass BLOCK_SIZE by keyword)."""
    if spec.scaffold is None:
        return None
    grid = spec.scaffold.grid
    two_d = len(grid) == 2
    variant = spec.scaffold.starters.get(lang.key)
    kernel = (variant.kernel if variant else None) or spec.scaffold.kernel
    x = grid[-1]
    if variant is not None and variant.grid is not None:
        x = shapes.spell(variant.grid)
        if lang.starter_syntax == "c":
            x = x.replace(" // ", " / ")  # sizes are non-negative: C's division floors them
    block = (
        "BLOCK_SIZE=BLOCK_SIZE" if variant is not None and variant.block_keyword else "BLOCK_SIZE"
    )
    # x runs over the last (fastest) dimension, as in the public 2-D starters
    return ScaffoldContext(kernel, two_d, x, grid[0] if two_d else None, block)


def _declarations(lang: Any, typed: Sequence[Any], exploded: bool) -> str:
    """solve's parameters; a trailing comma keeps black's one-per-line form."""
    text = ", ".join(lang.declaration(p) for p in typed)
    return text + "," if exploded and typed else text


def _kernel_parameters(spec: Spec, lang: Any, params: Sequence[Any], grid: List[str]) -> List[str]:
    variant = spec.scaffold.starters.get(lang.key) if spec.scaffold else None
    if variant is not None and variant.parameters is not None:
        return list(variant.parameters)
    return lang.kernel_parameter_names(params, grid)


def names_text(names: Sequence[str]) -> str:
    """`x`, `x and dy`, `x, dy and dx`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def rank_holdings(spec: Spec) -> Tuple[List[str], List[str], List[str]]:
    """A multi-GPU challenge's tensors: (split by rows, replicated inputs, replicated outputs)."""
    split = list(spec.distributed.split) if spec.distributed else []
    whole = [p for p in spec.signature if p.is_tensor and p.name not in split]
    return (
        [p.name for p in spec.signature if p.name in split],
        [p.name for p in whole if p.direction == "in"],
        [p.name for p in whole if p.direction != "in"],
    )


def rank_docstring(spec: Spec, lang: Any) -> List[str]:
    """solve's docstring in a multi-GPU starter: what this rank holds, how it reaches its peers."""
    if spec.distributed is None:
        return []
    split, inputs, outputs = rank_holdings(spec)
    rows = spec.distributed.rows
    lines = [f"One rank of several: {names_text(split)} hold this rank's {rows} rows."]
    if inputs:
        lines.append(
            f"{names_text(inputs)} {'is' if len(inputs) == 1 else 'are'} whole on every rank."
        )
    if outputs:
        lines.append(f"{names_text(outputs)} must end whole and identical on every rank.")
    return lines + [""] + list(lang.distributed_doc)


def render_starters(spec: Spec, languages: Optional[Collection[str]] = None) -> Dict[str, str]:
    """The starters of `spec`, in `languages` (keys; default every language) where the
    challenge offers them."""
    params = sig_params(spec)
    easy = spec.difficulty == "easy"
    files = {}
    ranks = spec.num_gpus > 1
    for lang in for_gpus(spec.num_gpus):  # the others are named on the page, with the reason
        if languages is not None and lang.key not in languages:
            continue
        name = f"starter/{lang.starter_name}"
        if lang.key in spec.kept_starters:
            files[name] = format_text(lang.formatter, spec.kept_starters[lang.key], name)
            continue
        typed = lang.starter_params(params) + (lang.rank_params() if ranks else [])
        grid = spec.scaffold.grid if spec.scaffold else []
        context = StarterContext(
            comment=lang.written_comment(lang.comment(params, easy)),
            declarations=_declarations(lang, typed, lang.key in spec.exploded_solve),
            arguments=", ".join(p.name for p in typed),
            scaffold=scaffold_context(spec, lang),
            kernel_parameters=", ".join(_kernel_parameters(spec, lang, params, grid)),
            helpers=textwrap.dedent(spec.starter_helpers.get(lang.key, "")).strip("\n"),
            docstring=rank_docstring(spec, lang),
            language_extras=lang.extra_context(params, ranks),
        )
        text = render_template(lang.template, context)
        files[name] = format_text(lang.formatter, text, name)
    return files


# ---------------------------------------------------------------------------- challenge.py


def py_number(value: Any) -> str:
    """A number as Python source: NaN and infinity as `float("nan")`, `float("-inf")`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not math.isfinite(value):
        return f'float("{float(value)!r}")'
    return repr(float(value))


def tolerance_literal(value: float) -> str:
    """Python's own spelling (0.001, 0.0001, 1e-05), as most of the public set writes each
    tolerance; `0` and integers without a point."""
    if float(value).is_integer():  # an integer challenge's tolerance: atol = 1, not 1.0
        return str(int(value))
    return repr(float(value))


def shape_tuple(param: Param, overrides: Optional[Dict[str, Any]] = None) -> str:
    """`(2 * N, C)`: the shape a case passes `param` with, as Python source."""
    dims = [shapes.spell(d) for d in shape_of(param, overrides or {})]
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"


def nested_literal(value: Any, dtype_kind: str) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(nested_literal(v, dtype_kind) for v in value) + "]"
    if dtype_kind == "int":
        return str(int(value))
    return py_number(float(value))


def tensor_kwargs(param: Param) -> str:
    return f"device=self.device, dtype=torch.{lookup(param.dtype).torch}"


def distribution_expr(param: Param, dist: Distribution, shape: str) -> str:
    """Python (torch) source that draws one input tensor of `shape` on self.device."""
    kwargs = tensor_kwargs(param)
    kind = dist.kind
    if kind == "uniform":
        low, high = dist.uniform
        return f"torch.empty({shape}, {kwargs}).uniform_({py_number(low)}, {py_number(high)})"
    if kind == "normal":
        mean, std = dist.normal
        return f"torch.empty({shape}, {kwargs}).normal_({py_number(mean)}, {py_number(std)})"
    if kind == "constant":
        if dist.constant == 0:
            return f"torch.zeros({shape}, {kwargs})"
        value = py_number(
            dist.constant if lookup(param.dtype).kind == "float" else int(dist.constant)
        )
        return f"torch.full({shape}, {value}, {kwargs})"
    if kind == "randint":
        low, high = dist.randint
        return f"torch.randint({low}, {high}, {shape}, {kwargs})"
    if kind == "values":
        literal = nested_literal(dist.values, lookup(param.dtype).kind)
        return f"torch.tensor({literal}, {kwargs})"
    if kind == "correlated":
        c = dist.correlated
        mean, std = c.noise
        noise = f"torch.empty({shape}, {kwargs}).normal_({py_number(mean)}, {py_number(std)})"
        return f"{py_number(c.scale)} * {c.source} + {noise}"
    raise AssertionError(kind)


def size_assignment(spec: Spec, scalars: Dict[str, Any]) -> List[str]:
    names = size_names(spec)
    if not names:
        return []
    values = ", ".join(str(scalars[n]) for n in names)
    return [f"{', '.join(names)} = {values}"]


def make_call(spec: Spec, scalars: Dict[str, Any], computed: Sequence[str] = ()) -> str:
    """`self._make(...)` of one case; `computed`: the scalars its code computes (by name)."""
    sizes = set(size_names(spec))
    args = []
    for p in spec.signature:
        if p.direction == "out":
            continue
        if p.is_tensor or p.name in sizes or p.name in computed:
            args.append(p.name)
        else:
            args.append(py_number(scalars[p.name]))
    return f"self._make({', '.join(args)})"


#: the indent of a statement in a generate_* method of challenge.py
CASE_INDENT = " " * 8


@dataclass
class CaseCode:
    comment: str
    lines: List[str]
    call: str

    @property
    def comment_lines(self) -> List[str]:
        """The case's comment wrapped to flake8's line length at the method body's indent (a long
        note or name would otherwise make challenge.py fail E501)."""
        width = LINE_LENGTH - len(CASE_INDENT) - len("# ")
        lines: List[str] = []
        for line in self.comment.split("\n") if self.comment else []:
            wrapped = textwrap.wrap(
                line, width=width, break_long_words=False, break_on_hyphens=False
            )
            lines.extend(wrapped or [line])
        return lines


#: the base class's descriptor of each distribution, and the dtype it assumes when none is given
DESCRIPTORS = {
    "uniform": ("RandTensor", "float32"),
    "normal": ("RandnTensor", "float32"),
    "randint": ("RandIntTensor", "int32"),
    "constant": ("FullTensor", "float32"),
}
OUTPUT_DESCRIPTOR = ("OutTensor", "float32")


def descriptor_expr(
    param: Param, dist: Optional[Distribution], overrides: Optional[Dict[str, Any]] = None
) -> str:
    """`RandTensor((N,), -1.0, 1.0)`: how the public performance tests describe a tensor."""
    kind, default_dtype = OUTPUT_DESCRIPTOR if dist is None else DESCRIPTORS[dist.kind]
    args = [shape_tuple(param, overrides)]
    if dist is not None and dist.kind == "normal" and list(dist.normal) != [0, 1]:
        args += [py_number(v) for v in dist.normal]
    elif dist is not None and dist.kind in ("uniform", "randint"):
        args += [py_number(v) for v in getattr(dist, dist.kind)]
    elif dist is not None and dist.kind == "constant":
        value = dist.constant if lookup(param.dtype).kind == "float" else int(dist.constant)
        args.append(py_number(value))
    if param.dtype != default_dtype:
        args.append(f'dtype="{param.dtype}"')
    return f"{kind}({', '.join(args)})"


def descriptor_used(spec: Spec) -> List[str]:
    """The descriptor classes the cases that ask for descriptors use, sorted (for the import)."""
    used = set()
    forms = [c for c in spec.functional if c.descriptors]
    forms += [spec.performance] if spec.performance.descriptors else []
    for form in forms:
        dists = {**spec.defaults.inputs, **form.inputs}
        for p in spec.signature:
            if p.is_tensor and p.direction == "out":
                used.add(OUTPUT_DESCRIPTOR[0])
            elif p.is_tensor:
                used.add(DESCRIPTORS[dists[p.name].kind][0])
    return sorted(used)


CaseForm = Union[Case, Performance]


def with_output_shapes(spec: Spec, overrides: Dict[str, Any], code: CaseCode) -> CaseCode:
    """Outputs a case passes in another shape than the signature's: `_make` builds them, the case
    then views them in its own shape (a fresh tensor's view keeps the prefill)."""
    changed = [p for p in spec.signature if p.direction == "out" and p.name in overrides]
    if not changed:
        return code
    lines = code.lines + [f"case = {code.call}"]
    for p in changed:
        lines.append(f'case["{p.name}"] = case["{p.name}"].view{shape_tuple(p, overrides)}')
    return CaseCode(code.comment, lines, "case")


def case_code(
    spec: Spec,
    scalars: Dict[str, Any],
    dists: Dict[str, Distribution],
    form: Optional[CaseForm] = None,
) -> CaseCode:
    """One case's lines and the call that returns it: seeded, outputs started as the case says,
    tensors in the case's own shapes, or written with descriptors when it asks for them."""
    overrides = form.shapes if form is not None else {}
    lines = size_assignment(spec, scalars)
    if form is not None and form.seed is not None:
        lines.append(f"torch.manual_seed({form.seed})")
    if form is not None and form.descriptors:
        sizes = set(size_names(spec))
        entries = []
        for p in spec.signature:
            if p.is_tensor:
                dist = dists[p.name] if p.direction != "out" else None
                value = descriptor_expr(p, dist, overrides)
            else:
                value = p.name if p.name in sizes else py_number(scalars[p.name])
            entries.append(f'"{p.name}": {value}')
        return CaseCode("", lines, "{" + ", ".join(entries) + "}")
    made = made_together(spec, dists)
    for p in spec.signature:
        if p.is_tensor and p.direction != "out" and p.name not in made:
            if dists[p.name].kind == "code":
                lines.extend(code_inputs.code_lines(p.name, dists[p.name].code))
                continue
            drawn = distribution_expr(p, dists[p.name], shape_tuple(p, overrides))
            lines.append(f"{p.name} = {drawn}")
    call = make_call(spec, scalars, computed_scalars(spec, dists))
    if form is not None and form.prefill is not None and form.prefill != (spec.prefill or "empty"):
        outputs = [p for p in spec.signature if p.is_tensor and p.direction == "out"]
        own = ", ".join(f'"{p.name}": {output_expr(p, form.prefill)}' for p in outputs)
        call = f"{{**{call}, {own}}}" if outputs else call
    return with_output_shapes(spec, overrides, CaseCode("", lines, call))


#: the CPU generator a drawn example's inputs come from (the same values on every device)
EXAMPLE_GENERATOR = "generator"


def example_draw_expr(param: Param, dist: Distribution, shape: str) -> str:
    """A drawn example input: drawn on the CPU generator, then moved to the device, since CPU
    and CUDA generators give different values for one seed (a constant is no draw)."""
    if dist.kind == "constant":
        return distribution_expr(param, dist, shape)
    dtype = f"dtype=torch.{lookup(param.dtype).torch}"
    drawn = f"generator={EXAMPLE_GENERATOR}"
    if dist.kind == "randint":
        low, high = dist.randint
        return f"torch.randint({low}, {high}, {shape}, {drawn}, {dtype}).to(self.device)"
    method = {"uniform": "uniform_", "normal": "normal_"}[dist.kind]
    a, b = (py_number(v) for v in getattr(dist, dist.kind))
    return f"torch.empty({shape}, {dtype}).{method}({a}, {b}, {drawn}).to(self.device)"


def example_code(spec: Spec, ex: Example) -> CaseCode:
    """One worked example's tensors, literal or drawn with its seed (generate_example_test holds
    the first)."""
    lines = size_assignment(spec, ex.scalars)
    if ex.seed is not None:
        lines.append(f"{EXAMPLE_GENERATOR} = torch.Generator().manual_seed({ex.seed})")
    made = made_together(spec, ex.drawn)
    for p in spec.signature:
        if p.name in made:
            continue
        if p.is_tensor and p.direction != "out" and p.name in ex.drawn:
            if ex.drawn[p.name].kind == "code":
                lines.extend(code_inputs.code_lines(p.name, ex.drawn[p.name].code))
                continue
            drawn = example_draw_expr(p, ex.drawn[p.name], shape_tuple(p, ex.shapes))
            lines.append(f"{p.name} = {drawn}")
        elif p.is_tensor and p.direction != "out":
            literal = nested_literal(ex.inputs[p.name], lookup(p.dtype).kind)
            lines.append(f"{p.name} = torch.tensor({literal}, {tensor_kwargs(p)})")
    code = CaseCode("", lines, make_call(spec, ex.scalars))
    return with_output_shapes(spec, ex.shapes, code)


def case_comment(case: Case) -> str:
    """`name: note`, or the note alone when the name is the note's own words (`edge: 2x2, all
    zeros` names `edge_2x2_all_zeros`), as imported cases are named from their comments."""
    if case.note and slugify(case.note) == case.name:
        return case.note
    return case.name + (f": {case.note}" if case.note else "")


def functional_code(spec: Spec, case: Case) -> CaseCode:
    comment = case_comment(case)
    if case.example_number == 1:
        return with_world_size(CaseCode(comment, [], "self.generate_example_test()"), case.gpus)
    if case.example_number > 1:
        code = example_code(spec, spec.examples[case.example_number - 1])
        return with_world_size(CaseCode(comment, code.lines, code.call), case.gpus)
    scalars = {**spec.defaults.scalars, **case.scalars}
    dists = {**spec.defaults.inputs, **case.inputs}
    code = case_code(spec, scalars, dists, case)
    code.comment = comment
    return with_world_size(code, case.gpus)


def performance_code(spec: Spec) -> CaseCode:
    """generate_performance_test's lines, after the comment its note gives (line by line)."""
    perf = spec.performance
    code = case_code(spec, perf.scalars, {**spec.defaults.inputs, **perf.inputs}, perf)
    return CaseCode(perf.note or "", code.lines, code.call)


def with_world_size(code: CaseCode, gpus: Optional[int]) -> CaseCode:
    """A multi-GPU case on fewer ranks than num_gpus says how many (the judge reads it)."""
    if gpus is None:
        return code
    return CaseCode(code.comment, code.lines, f'{{**{code.call}, "{WORLD_SIZE}": {gpus}}}')


def output_expr(p: Param, prefill: Optional[Prefill]) -> str:
    """An output tensor as it starts before solve: empty, zeros or filled with a number."""
    if prefill is None or prefill == "empty":
        return f"torch.empty({shape_tuple(p)}, {tensor_kwargs(p)})"
    if prefill == "zeros":
        return f"torch.zeros({shape_tuple(p)}, {tensor_kwargs(p)})"
    return f"torch.full({shape_tuple(p)}, {prefill_literal(p, prefill)}, {tensor_kwargs(p)})"


def prefill_literal(p: Param, prefill: float) -> str:
    """The fill value in the output's own form: -1.0 for a float tensor, -1 for an integer one."""
    return py_number(prefill if lookup(p.dtype).kind == "float" else int(prefill))


def python_annotation(p: Param) -> str:
    return "torch.Tensor" if p.is_tensor else lookup(p.dtype).python_scalar


def shape_variants(spec: Spec, p: Param) -> List[str]:
    """The shapes `p` is passed with: the signature's, then each case's override, once each."""
    every = [
        *(e.shapes for e in spec.examples),
        *(c.shapes for c in spec.functional),
        spec.performance.shapes,
    ]
    variants = [shape_tuple(p)]
    for overrides in every:
        if p.name in overrides and shape_tuple(p, overrides) not in variants:
            variants.append(shape_tuple(p, overrides))
    return variants


def assertions(spec: Spec) -> List[str]:
    """A shape and a dtype assertion for each tensor, from the signature, where the reference
    does not assert that tensor's shape (or dtype) itself (an imported challenge's own forms)."""
    shape_done, dtype_done = asserted_tensors(ast.parse(spec.reference))
    checks = []
    for p in spec.signature:
        if p.is_tensor and p.name not in shape_done:
            variants = shape_variants(spec, p)
            if len(variants) == 1:
                checks.append(f"{p.name}.shape == {variants[0]}")
            else:
                checks.append(f"{p.name}.shape in ({', '.join(variants)})")
    for p in spec.signature:
        if p.is_tensor and p.name not in dtype_done:
            checks.append(f"{p.name}.dtype == torch.{lookup(p.dtype).torch}")
    return checks


def reference_parts(reference: str) -> Tuple[List[str], bool, List[str]]:
    """The reference's lines split after its leading docstring and assertions (chgen's own
    assertions go there, so that an author's docstring stays first), whether a blank line
    follows them (chgen's assertions alone always have one), and the rest."""
    lines = textwrap.dedent(reference).strip("\n").splitlines()
    end = 0
    for index, node in enumerate(ast.parse("\n".join(lines)).body):
        docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        if not (docstring or isinstance(node, ast.Assert)):
            break
        end = node.end_lineno or node.lineno
    rest = lines[end:]
    gap = not end or (bool(rest) and not rest[0].strip())
    while rest and not rest[0].strip():
        rest = rest[1:]
    return lines[:end], gap, rest


@dataclass(frozen=True)
class SignatureEntry:
    name: str
    ctype: str
    direction: str


@dataclass(frozen=True)
class MakeEntry:
    name: str
    value: str


@dataclass(frozen=True)
class ChallengePyContext(TemplateContext):
    name: str
    atol: str
    rtol: str
    num_gpus: int
    access_tier: str
    reference_declarations: str
    #: the reference's own leading docstring and assertions, chgen's assertions after them
    reference_head: List[str]
    #: a blank line after those assertions (the author's choice where the reference has its own)
    reference_gap: bool
    assertions: List[str]
    reference_lines: List[str]
    signature: List[SignatureEntry]
    make_declarations: str
    make_entries: List[MakeEntry]
    make_doc: str
    example: CaseCode
    cases: List[CaseCode]
    performance: CaseCode
    #: what challenge.py imports from the base module: ChallengeBase and the descriptors used
    base_imports: str
    #: the reference helpers' imports and module constants, their source lines
    helper_imports: List[str]
    helper_constants: List[str]
    #: reference helpers, each its source lines: module functions and methods of Challenge
    helper_functions: List[List[str]]
    helper_methods: List[List[str]]
    #: a multi-GPU challenge: get_rank_layout's dict, as Python source; None otherwise
    rank_layout: Optional[str] = None
    #: reference_impl_jax, when the spec has a reference_jax
    reference_jax: Optional["JaxReference"] = None


@dataclass(frozen=True)
class JaxReference:
    """reference_impl_jax: its parameters (the in/inout tensors and the scalars, unannotated, as
    the public set writes them) and its body's lines."""

    declarations: str
    lines: List[str]


def jax_reference(spec: Spec) -> Optional[JaxReference]:
    if spec.reference_jax is None:
        return None
    names = ", ".join(p.name for p in spec.signature if p.direction != "out")
    # a blank first line stays (black keeps it, and public references have one)
    lines = textwrap.dedent(spec.reference_jax).rstrip().splitlines()
    return JaxReference(names + ("," if spec.exploded_reference_jax else ""), lines)


def ctype_of(p: Param) -> str:
    row = lookup(p.dtype)
    return row.ctypes_tensor if p.is_tensor else row.ctypes_scalar


def helper_sources(code: Optional[str]) -> Tuple[List[List[str]], List[List[str]]]:
    """The reference helpers' source lines (decorators and the comments right above kept),
    split into module functions and methods."""
    if code is None:
        return [], []
    lines = textwrap.dedent(code).strip("\n").splitlines()
    functions: List[List[str]] = []
    methods: List[List[str]] = []
    for node in helper_functions("\n".join(lines)):
        start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        while start > 0 and lines[start - 1].lstrip().startswith("#"):
            start -= 1
        (methods if is_method(node) else functions).append(lines[start : node.end_lineno])
    return functions, methods


def helper_preamble_lines(code: Optional[str]) -> Tuple[List[str], List[str]]:
    """The reference helpers' import lines and constant lines (the comments right above each
    constant kept), placed at module level after challenge.py's own imports."""
    if code is None:
        return [], []
    lines = textwrap.dedent(code).strip("\n").splitlines()
    imports: List[str] = []
    constants: List[str] = []
    for node in helper_preamble("\n".join(lines)):
        start = node.lineno - 1
        while start > 0 and lines[start - 1].lstrip().startswith("#"):
            start -= 1
        chosen = constants if isinstance(node, ast.Assign) else imports
        chosen.extend(lines[start : node.end_lineno])
    return imports, constants


def prefill_doc(prefill: Optional[Prefill], outputs: List[Param]) -> str:
    """How the docstring says the outputs start; a fill value is written as each output's dtype
    writes it (`-1` for int32 outputs), both forms when float and integer outputs are mixed."""
    if prefill is None or prefill == "empty":
        return ""
    if prefill == "zeros":
        return ", outputs zeroed"
    forms = list(dict.fromkeys(prefill_literal(p, prefill) for p in outputs))
    return f", outputs pre-filled with {' / '.join(forms) or py_number(prefill)}"


def challenge_py_context(spec: Spec) -> ChallengePyContext:
    make_params = [p for p in spec.signature if p.direction != "out"]
    make_doc = prefill_doc(spec.prefill, [p for p in spec.signature if p.direction == "out"])
    helper_functions_, helper_methods = helper_sources(spec.reference_helpers)
    helper_imports, helper_constants = helper_preamble_lines(spec.reference_helpers)
    reference_head, reference_gap, reference_lines = reference_parts(spec.reference)
    return ChallengePyContext(
        name=repr(spec.name).replace("'", '"'),
        atol=tolerance_literal(spec.atol),
        rtol=tolerance_literal(spec.rtol),
        num_gpus=spec.num_gpus,
        access_tier=f'"{spec.access_tier}"',
        reference_declarations=", ".join(
            f"{p.name}: {python_annotation(p)}" for p in spec.signature
        ),
        reference_head=reference_head,
        reference_gap=reference_gap,
        assertions=assertions(spec),
        reference_lines=reference_lines,
        signature=[SignatureEntry(p.name, ctype_of(p), p.direction) for p in spec.signature],
        make_declarations=", ".join(f"{p.name}: {python_annotation(p)}" for p in make_params),
        make_entries=[
            MakeEntry(p.name, output_expr(p, spec.prefill) if p.direction == "out" else p.name)
            for p in spec.signature
        ],
        make_doc=make_doc,
        example=example_code(spec, spec.example),
        cases=[functional_code(spec, case) for case in spec.functional],
        performance=performance_code(spec),
        base_imports=", ".join(["ChallengeBase"] + descriptor_used(spec)),
        helper_imports=helper_imports,
        helper_constants=helper_constants,
        helper_functions=helper_functions_,
        helper_methods=helper_methods,
        rank_layout=rank_layout_literal(spec),
        reference_jax=jax_reference(spec),
    )


def rank_layout_literal(spec: Spec) -> Optional[str]:
    """What get_rank_layout returns: the size that is split and the tensors split by it."""
    layout = spec.distributed
    if layout is None:
        return None
    split = ", ".join(f'"{name}"' for name in layout.split)
    return f'{{"rows": "{layout.rows}", "split": [{split}]}}'


# -------------------------------------------------------------------------- challenge.html


@dataclass(frozen=True)
class OwnSection:
    """One of the page's own sections: the blank lines before its <h2>, its title and HTML."""

    gap: str
    title: str
    html: str


@dataclass(frozen=True)
class OwnSections:
    """The page's own sections, grouped by the standard section each follows."""

    description: List[OwnSection] = field(default_factory=list)
    requirements: List[OwnSection] = field(default_factory=list)
    examples: List[OwnSection] = field(default_factory=list)
    constraints: List[OwnSection] = field(default_factory=list)


@dataclass(frozen=True)
class ChallengeHtmlContext(TemplateContext):
    description: str
    svg: Optional[str]
    after_svg: Optional[str]
    #: (the spaces before its <li>, its HTML) of each item
    requirements: List[Tuple[str, str]]
    #: the Implementation Requirements section's HTML as written (no list), else None
    requirements_html: Optional[str]
    constraints: List[Tuple[str, str]]
    examples: List[html.ExampleSection]
    performance_bullet: Optional[str]  # none where the last constraint is the page's own
    blank_line_before_performance: bool
    #: spaces before each structural line (<h2>, <ul>, </ul>, <pre>, </pre>)
    indent: str
    heading_gap: List[str]
    requirements_gap: str  # the blank lines before each section's <h2>
    example_gaps: List[str]
    constraints_gap: str
    requirements_end: str  # each standard section's </h2>, as the page writes it
    example_ends: List[str]
    constraints_end: str
    #: a multi-GPU challenge: the paragraphs that explain the ranks (empty otherwise)
    #: a multi-GPU challenge's setup paragraphs, each as its lines (wrapped as spec paragraphs are)
    rank_setup: List[List[str]] = field(default_factory=list)
    sections: OwnSections = field(default_factory=OwnSections)
    #: the standard sections' titles (generator/page/vocabulary.py)
    titles: Dict[str, str] = field(default_factory=lambda: dict(TITLES))


def example_section(spec: Spec, example: Example, title: str) -> html.ExampleSection:
    """One example's section: its tensors in signature order and the scalars it writes (the
    example's `shown`, else those the form lists: a matrix page never lists the sizes, its labels
    carry them; a summary always does, as the public summaries do; a <pre> page when the example
    says; spec/example_page.py)."""
    explanation = None
    if example.explanation:  # its own blank lines before it are the page's (a bmatrix's gap)
        explanation = leading_newlines(example.explanation) + example.explanation.strip()
    if example.text_only:
        return example_blocks(title, [], [], [], explanation, display=example.display)
    sizes = size_names(spec)
    tensors = [p for p in spec.signature if p.is_tensor]
    inputs = [
        (p.name, shape_of(p, example.shapes), shown_data(p, example, example.inputs))
        for p in tensors
        if p.direction != "out"
    ]
    outputs = [
        (p.name, shape_of(p, example.shapes), shown_data(p, example, example.hand_outputs))
        for p in tensors
        if p.direction != "in"
    ]
    params = {p.name: p for p in spec.signature}
    scalar_lines = [
        (name, params[name].latex, example.scalars[name])
        for name in example_page.shown_scalars(spec, example, sizes)
    ]
    pre, matrix = spec.page.pre, spec.page.matrix
    return example_blocks(
        title,
        inputs,
        outputs,
        scalar_lines,
        explanation,
        PreLayout(
            pre.tight, pre.aligned, tuple(pre.unnamed), pre.inline, pre.indent, pre.size_note
        ),
        MatrixLayout(
            matrix.strong,
            matrix.split,
            matrix.labels,
            matrix.times,
            matrix.gap,
            matrix.squeeze,
            matrix.indent,
            matrix.inline,
        ),
        [(p.name, example.scalars[p.name]) for p in spec.signature if p.name in sizes],
        number_formats(example),
        example.display,
    )


def shown_data(p: Param, example: Example, given: Mapping[str, Any]) -> Any:
    """An example tensor's literal data, or its shape (and draw) where the example draws it or
    the reference gives it."""
    if p.name in given and p.name not in example.drawn:
        return given[p.name]
    dims = shapes.resolve(shape_of(p, example.shapes), example.scalars)
    dist = example.drawn.get(p.name)
    how = None
    if dist is not None and dist.kind != "code":  # code says how in its own words
        how = html.draw_text(dist.kind, draw_args(dist))
    return html.Summarised(tuple(dims), how)


def draw_args(dist: Distribution) -> List[Any]:
    """The two numbers of a draw ([lo, hi], [mean, std]), a constant's value twice."""
    if dist.kind == "constant":
        return [dist.constant, dist.constant]
    return list(getattr(dist, dist.kind))


def number_formats(example: Example) -> Tuple[html.NumberFormat, html.NumberFormat]:
    """The number formats of an example's Input and Output parts (its `numbers`, where given)."""
    given = example.numbers
    if given is None:
        return html.PLAIN, html.PLAIN
    form = html.NumberFormat(given.decimals, given.fixed, given.digits, given.ints)
    return tuple(form if part in given.parts else html.PLAIN for part in ("input", "output"))


def performance_sizes(spec: Spec) -> List[Tuple[str, Any]]:
    """The bullet's (name, value) pairs: the scalars the spec names, else every size."""
    perf = spec.performance
    if perf.shown is not None:
        names = list(perf.shown)
    else:
        names = [p.name for p in spec.signature if is_size(p)]
    return [(name, int(perf.scalars[name])) for name in names]


def challenge_html_context(loaded: LoadedSpec) -> ChallengeHtmlContext:
    spec = loaded.spec
    examples = spec.examples
    titles = example_titles([ex.title for ex in examples])
    gaps = headings.write_gaps(spec.page, len(examples))
    ends = headings.write_ends(spec.page, len(examples))
    items = spec.requirement_items + list(spec.constraints)
    indents = lists.write(spec.page, len(items))
    split = len(spec.requirement_items)
    return ChallengeHtmlContext(
        description=spec.description.strip(),
        svg=loaded.svg,
        after_svg=spec.after_svg.strip() if spec.after_svg else None,
        requirements=list(zip(indents[:split], items[:split])),
        requirements_html=(
            own_html(spec.requirements) if isinstance(spec.requirements, str) else None
        ),
        constraints=list(zip(indents[split:], items[split:])),
        examples=[example_section(spec, ex, t) for ex, t in zip(examples, titles)],
        performance_bullet=(
            html.performance_bullet(performance_sizes(spec)) if spec.performance.bullet else None
        ),
        blank_line_before_performance=spec.performance.blank_line
        and bool(spec.constraints)
        and spec.performance.bullet,
        indent=spec.page.indent,
        heading_gap=list(spec.page.heading_gap),
        requirements_gap=gaps[0],
        example_gaps=gaps[1:-1],
        constraints_gap=gaps[-1],
        requirements_end=ends[0],
        example_ends=ends[1:-1],
        constraints_end=ends[-1],
        rank_setup=rank_setup(spec),
        sections=own_sections(spec),
    )


def leading_newlines(text: str) -> str:
    """The line breaks in the whitespace `text` starts with: the blank lines an author put before
    it, which the page keeps."""
    return "\n" * text[: len(text) - len(text.lstrip())].count("\n")


def own_html(text: str) -> str:
    """A section's HTML as the author wrote it, with the blank lines it starts with (those
    between its <h2> and it)."""
    return leading_newlines(text) + text.strip("\n")


def own_sections(spec: Spec) -> OwnSections:
    """The spec's own sections, each under the standard section it follows."""
    grouped: Dict[str, List[OwnSection]] = {}
    for section in spec.sections:
        shown = OwnSection("\n" * section.gap, section.title, own_html(section.html))
        grouped.setdefault(section.after, []).append(shown)
    return OwnSections(**grouped)


def code_names(names: Sequence[str]) -> str:
    return names_text([f"<code>{name}</code>" for name in names])


#: a generated page paragraph's line width: the template indents it two spaces, 100 in all, as
#: the specs' paragraphs are written
PARAGRAPH_WIDTH = 98
INLINE_MATH = re.compile(r"\\\(.*?\\\)")


def wrapped_paragraph(text: str) -> List[str]:
    """A generated paragraph wrapped as the description's paragraphs are (words never split)."""
    kept = INLINE_MATH.sub(lambda m: m.group(0).replace(" ", "\0"), text)  # math stays on a line
    lines = textwrap.wrap(kept, PARAGRAPH_WIDTH, break_long_words=False, break_on_hyphens=False)
    return [line.replace("\0", " ") for line in lines]


def rank_setup(spec: Spec) -> List[List[str]]:
    """The page's account of a multi-GPU challenge: G ranks, what each holds, what must be
    identical, and which languages take part (with the reason the others do not)."""
    if spec.distributed is None:
        return []
    split, inputs, outputs = rank_holdings(spec)
    rows = spec.distributed.rows
    text = (
        f"The work is spread over up to {spec.num_gpus} GPUs, one process (rank) each, started "
        f"together. Each rank holds a contiguous block of the rows of {code_names(split)}, in "
        f"rank order: with <code>G</code> ranks and {rows} rows in all, rank <code>r</code> holds "
        f"\\(\\lfloor {rows}/G \\rfloor\\) rows, one more when <code>r</code> &lt; "
        f"{rows} mod <code>G</code>, and <code>solve</code> receives that count as "
        f"<code>{rows}</code>."
    )
    if inputs:
        text += f" {code_names(inputs)} {'is' if len(inputs) == 1 else 'are'} whole on every rank."
    if outputs:
        text += (
            f" Every rank must end with the whole of {code_names(outputs)}, identical on every "
            "rank, so the ranks must exchange their partial results."
        )
    refused = [lang for lang in LANGUAGES if not lang.distributed]
    by_doc: Dict[tuple, List[str]] = {}
    for lang in LANGUAGES:
        if lang.distributed:
            by_doc.setdefault(tuple(lang.distributed_doc), []).append(lang.title)
    how = " ".join(f"{names_text(titles)}: {' '.join(doc)}" for doc, titles in by_doc.items())
    skipped = "; ".join(f"{lang.title}: {lang.distributed_refusal}" for lang in refused)
    how += f" Not offered here ({skipped})." if refused else ""
    return [wrapped_paragraph(text), wrapped_paragraph(how)]


# --------------------------------------------------------------------------------- the tree


def render_challenge(
    loaded: LoadedSpec, languages: Optional[Collection[str]] = None
) -> Dict[str, str]:
    """All files of one challenge directory, relative to the tree root, formatted; starters in
    `languages` (keys; default every language)."""
    spec = loaded.spec
    base = challenge_dir(spec)
    starters = render_starters(spec, languages)
    files = {f"{base}/{name}": text for name, text in starters.items()}
    py = render_template("challenge.py.j2", challenge_py_context(spec))
    files[f"{base}/challenge.py"] = format_text("python_format", py, f"{base}/challenge.py")
    files[f"{base}/challenge.html"] = render_page(loaded)
    return dict(sorted(files.items()))


def render_page(loaded: LoadedSpec) -> str:
    """challenge.html alone, formatted."""
    page = render_template("challenge.html.j2", challenge_html_context(loaded))
    return format_text("plain", page, f"{challenge_dir(loaded.spec)}/challenge.html")


CORE_BASE = "challenges/core/challenge_base.py"


def render_core() -> Dict[str, str]:
    text = (template_dir() / "core" / "challenge_base.py").read_text()
    return {CORE_BASE: format_text("python_format", text, CORE_BASE)}


def starter_names() -> Sequence[str]:
    return [lang.starter_name for lang in LANGUAGES]
