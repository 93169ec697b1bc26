"""The spec model: what a challenge author writes, validated.

Field-level rules live here (pydantic); rules that span fields (every case names every size, shapes
refer to declared sizes, ...) live in `Spec.model_post_init`-style validators below, so that each
error can point at the exact YAML node.
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from typing import Annotated, Any, ClassVar, Dict, List, Literal, Optional, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from generator.dtypes import SCALAR_DTYPES, TENSOR_DTYPES
from generator.naming import (
    DIRECTORY_RE,
    IDENT_RE,
    SLUG_RE,
    URL_NAME_RE,
    URL_NAME_RULE,
    forbidden_name_reason,
)
from generator.page.vocabulary import CONSTRAINTS, EXAMPLE, REQUIREMENTS, section_of


class SpecValueError(ValueError):
    """A field's value is wrong: the message, what to do (`hint`), and optionally the sub-field
    it is about (`at`, e.g. a parameter's "dtype"), so the error points at that node."""

    def __init__(self, message: str, hint: str = "", at: Optional[str] = None):
        super().__init__(message)
        self.hint = hint
        self.at = at


def _did_you_mean(word: str, choices: Any, otherwise: str) -> str:
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean {near[0]!r}?" if near else otherwise


class Strict(BaseModel):
    """strict=True: `true` is not the integer 1, nor "3" the number 3 (an int is still a float)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False, strict=True)


Number = Union[int, float]


def _check_nested(value: Any) -> Any:
    """Literal tensor data: a number or a rectangular nested list of numbers (`.inf`, `-.inf`
    and `.nan` allowed; the loader keeps them to float tensors)."""

    def shape_of(v: Any, depth: int) -> tuple:
        if depth > 8:
            raise SpecValueError(
                "literal tensors have at most 8 dimensions",
                "write at most 8 levels of nested lists",
            )
        if isinstance(v, bool) or not isinstance(v, (int, float, list)):
            raise SpecValueError(
                f"literal tensor data holds numbers only, found {v!r}",
                "write numbers (1.0, -2, .inf), not text or true/false",
            )
        if not isinstance(v, list):
            return ()
        if not v:
            raise SpecValueError(
                "literal tensor data has an empty list", "give every list at least one number"
            )
        inner = [shape_of(item, depth + 1) for item in v]
        if any(s != inner[0] for s in inner):
            raise SpecValueError(
                "literal tensor data is ragged: rows differ in length",
                "give every row the same number of entries",
            )
        return (len(v),) + inner[0]

    shape_of(value, 0)
    return value


Nested = Annotated[Any, AfterValidator(_check_nested)]


class Param(Strict):
    """One solve parameter, in signature order."""

    name: str = Field(
        description="an identifier; Python keywords (soft keywords such as `match` and `type` "
        "too), names with a leading underscore and the names challenge.py uses itself (`self`, "
        "`torch`, `dtype`, ...) are refused. A name that is a keyword of one language only is "
        "escaped in that language's starter with a trailing `_` (Mojo `out` → `out_`, CUDA `int` "
        "→ `int_`): the C ABI passes arguments by position"
    )
    dtype: str = Field(
        description=f"tensor dtypes: {', '.join(TENSOR_DTYPES)}; scalar dtypes: "
        f"{', '.join(SCALAR_DTYPES)} (size_t is `ctypes.c_size_t`; CUDA `size_t`, Mojo `UInt64`, "
        "CuTe `cute.Uint32`, `int` in the other Python starters); sizes (names in a shape, the "
        "scaffold's grid) are int32 or size_t scalars"
    )
    direction: Literal["in", "out", "inout"] = Field(
        default="in", description="`in`, `out` or `inout`; scalars are always `in`"
    )
    shape: Optional[List[Union[str, int]]] = Field(
        default=None,
        description="tensors only, rank 0–5: `[]`, or a list whose entries are integers, size "
        "names or arithmetic of sizes with `+ - * // %` and parentheses, e.g. `[2 * N, C]`, "
        "`[H - K + 1]`, `[(K + 1) // 2]`, `[(H + 2 * P - K) // S + 1]`, `[(M + T - 1) // T]`; "
        "parsed (generator/spec/shapes.py), never evaluated as Python, and checked for every "
        "case's sizes; a size that is a whole dimension somewhere or the scaffold's grid is at "
        "least 1, one met only inside expressions (a padding) at least 0; every dimension of every "
        "case at least 1, a case whose sizes make one 0 refused at its `scalars`",
    )
    latex: Optional[str] = Field(
        default=None, description="how the example writes a scalar, e.g. `'\\varepsilon'`"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not IDENT_RE.match(v):
            raise SpecValueError(
                "must be an identifier (letters, digits, underscore)", "e.g. x, dy or n_rows"
            )
        reason = forbidden_name_reason(v)
        if reason:
            raise SpecValueError(f"{v!r} is {reason}; choose another name", "e.g. x, dy or n_rows")
        return v

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    @model_validator(mode="after")
    def _kind(self) -> "Param":
        if self.is_tensor:
            if self.dtype not in TENSOR_DTYPES:
                raise SpecValueError(
                    f"tensor dtype {self.dtype!r} is unknown; tensors are "
                    f"{', '.join(TENSOR_DTYPES)}",
                    _did_you_mean(self.dtype, TENSOR_DTYPES, "pick one of them"),
                    at="dtype",
                )
            _check_shape_entries(self.shape)
        else:
            if self.dtype not in SCALAR_DTYPES:
                raise SpecValueError(
                    f"scalar dtype {self.dtype!r} is not allowed; scalars are "
                    f"{' or '.join(SCALAR_DTYPES)}",
                    _did_you_mean(self.dtype, SCALAR_DTYPES, "or give a tensor a 'shape'"),
                    at="dtype",
                )
            if self.direction != "in":
                raise SpecValueError(
                    "scalars are always direction 'in'",
                    "drop 'direction', or give the parameter a 'shape' to make it a tensor",
                    at="direction",
                )
        return self


def _check_shape_entries(shape: List[Any]) -> None:
    """The form of each entry; what it names and evaluates to is checked against the cases."""
    if len(shape) > MAX_RANK:
        raise SpecValueError(
            f"tensors have at most {MAX_RANK} dimensions", "flatten some dimensions into one"
        )
    for dim in shape:
        if isinstance(dim, bool) or (isinstance(dim, int) and dim < 1):
            raise SpecValueError(
                "shape entries are positive integers, size names or expressions",
                "e.g. [N, 2 * C] or [(K + 1) // 2]",
            )


#: the highest tensor rank a signature, case or example may use
MAX_RANK = 5

Shape = List[Union[str, int]]


class Uniform(Strict):
    kind: ClassVar[str] = "uniform"
    uniform: List[Number] = Field(min_length=2, max_length=2, description="`[lo, hi]`")


class Normal(Strict):
    kind: ClassVar[str] = "normal"
    normal: List[Number] = Field(min_length=2, max_length=2, description="`[mean, std]`")


class Constant(Strict):
    kind: ClassVar[str] = "constant"
    constant: Number = Field(description="`v`: every element")


class RandInt(Strict):
    kind: ClassVar[str] = "randint"
    randint: List[int] = Field(
        min_length=2,
        max_length=2,
        description="`[lo, hi]`: integers in `[lo, hi)`; on a float tensor too, drawn as "
        "integers and stored as floats, e.g. for ties in an argmax, within the integers the dtype "
        "holds exactly: ±2048 for float16, ±256 for bfloat16, ±2^24 for float32",
    )


class Values(Strict):
    kind: ClassVar[str] = "values"
    values: Nested = Field(description="a nested list: the data itself")


class Correlated(Strict):
    """`scale * source + noise`: inputs that move with another input (dy = a*x + noise)."""

    kind: ClassVar[str] = "correlated"

    correlated: "CorrelatedArgs" = Field(
        description="`{source: x, scale: a, noise: [mean, std]}`: `a*x + noise`"
    )


class CorrelatedArgs(Strict):
    source: str = Field(description="the input it moves with")
    scale: Number = Field(description="`a` in `a*x + noise`")
    noise: List[Number] = Field(
        min_length=2, max_length=2, description="normal noise, `[mean, std]`"
    )


class Code(Strict):
    """An input the author's torch code makes: an expression (its value) or statements that bind
    its name (and may bind inputs after it, made together). It runs in generate_* at the input's
    turn, as written; the rules on what it may bind are in generator/spec/code_inputs.py."""

    kind: ClassVar[str] = "code"
    code: str = Field(
        min_length=1,
        description="the author's own torch code, for an input no form above draws (a sparse "
        "matrix `mask * values`, `scatter_`, RoPE `cos`/`sin` tables, item assignment), written "
        "into the generate_* method as it stands and run there at the input's turn in signature "
        "order, so it draws from the random stream exactly where it stands: an expression (the "
        'tensor, e.g. `{code: "torch.eye(N, device=self.device) * 2"}`) or statements that bind '
        "the input's name; it may use `self.device`, `torch`, `math`, the case's sizes by name "
        "(bound before the inputs), the inputs made before it and the names earlier code bound, "
        "and it may bind inputs after it as well (made together, e.g. tokens drawn from the "
        "probabilities they come with: those then have no form of their own in that case), and a "
        "scalar no shape names (e.g. `nnz = int((A != 0).sum().item())`, the count of the nonzeros "
        "drawn: the case then passes that value and gives no number for it; not in an example, "
        "whose scalars its page shows). It may not bind the sizes, earlier inputs, outputs or the "
        "names generate_* uses (`self`, `torch`, `tests`, `case`, `generator`), nor hold `return`, "
        "`yield`, `import`, `def` or `class`; it has no descriptor. In a drawn example it runs as "
        "written (the example's `seed`, when given, binds `generator`, a seeded CPU "
        "`torch.Generator` to draw from, as `P018` asks); chgen runs it when it verifies the "
        "example (in the spec-code sandbox, on the CPU) and requires a tensor of the signature's "
        "shape and dtype, and the deep checks run every case's code through the rendered "
        "challenge.py",
    )

    @field_validator("code")
    @classmethod
    def _code_parses(cls, v: str) -> str:
        return _check_python(v, "code")


DISTRIBUTION_KINDS = (
    "uniform",
    "normal",
    "constant",
    "randint",
    "values",
    "correlated",
    "code",
)


def _distribution_kind(value: Any) -> Optional[str]:
    """Pick the distribution model by its single key, so errors name one form, not six."""
    if isinstance(value, dict):
        keys = [k for k in value if k in DISTRIBUTION_KINDS]
        return keys[0] if len(keys) == 1 else None
    return getattr(value, "kind", None)


Distribution = Annotated[
    Union[
        Annotated[Uniform, Tag("uniform")],
        Annotated[Normal, Tag("normal")],
        Annotated[Constant, Tag("constant")],
        Annotated[RandInt, Tag("randint")],
        Annotated[Values, Tag("values")],
        Annotated[Correlated, Tag("correlated")],
        Annotated[Code, Tag("code")],
    ],
    Discriminator(
        _distribution_kind,
        custom_error_type="distribution",
        custom_error_message="an input is one of: "
        + ", ".join(f"{{{k}: ...}}" for k in DISTRIBUTION_KINDS),
    ),
]


#: how outputs start before solve: uninitialised, zeros, or filled with a number
Prefill = Union[Literal["empty", "zeros"], float]


class Case(Strict):
    """One functional test case: scalar values and how each input tensor is drawn."""

    name: str = Field(
        description="lowercase letters and digits in words joined by single `_`, unique"
    )
    note: Optional[str] = Field(
        default=None, description="words after the name in the case's challenge.py comment"
    )
    from_example: Union[bool, int] = Field(
        default=False,
        description="`true`: the case is the first worked example itself (`2` the second), "
        "written out in the case, without typing its data twice",
    )
    scalars: Dict[str, Number] = Field(
        default_factory=dict, description="the case's scalar values, by name"
    )
    inputs: Dict[str, Distribution] = Field(
        default_factory=dict,
        description="how each input tensor is drawn, by name: one of `{uniform: [lo, hi]}`, "
        "`{normal: [mean, std]}`, `{constant: v}`, `{randint: [lo, hi]}`, `{values: nested "
        "list}`, `{correlated: {source: x, scale: a, noise: [mean, std]}}` or `{code: ...}` (each "
        "under *Inputs* below). Every number (bounds, constants, literal values of examples and "
        "inputs, `prefill`) must fit the tensor's dtype (`generator/dtypes.py`): integers within "
        "range for integer dtypes, finite values within ±65504 for float16; NaN and infinity "
        "(`.nan`, `.inf`, `-.inf`) only in float tensors (a `prefill`, or literal `values`), "
        'written `float("nan")` in challenge.py',
    )
    seed: Optional[int] = Field(
        default=None, ge=0, lt=2**63, description="`torch.manual_seed` before the case draws"
    )
    prefill: Optional[Prefill] = Field(
        default=None, description="this case's outputs start so (default: the spec's `prefill`)"
    )
    descriptors: bool = Field(
        default=False,
        description="`true`: written with the base class's `RandTensor`, `RandnTensor`, "
        "`RandIntTensor`, `FullTensor`, `OutTensor`: uniform, normal, randint and constant inputs "
        "only, outputs empty, no seed: the runner draws and seeds them",
    )
    shapes: Dict[str, Shape] = Field(
        default_factory=dict,
        description="tensors this case passes in another shape, e.g. `shapes: {x: [N * C]}`; "
        "the reference then asserts `x.shape in ((N, C), (N * C,))` and must view it itself",
    )
    gpus: Optional[int] = Field(
        default=None,
        ge=2,
        le=8,
        description="a multi-GPU challenge's ranks for this case, 2 to `num_gpus` (the default); "
        'written as the case dict\'s `"world_size"` key',
    )

    @model_validator(mode="after")
    def _example_alone(self) -> "Case":
        if self.from_example is not False and self.from_example is not True:
            if self.from_example < 1:
                raise SpecValueError(
                    "from_example is true or an example's number (1, 2, ...)",
                    "write from_example: true (the first) or 1, 2, ...",
                )
        own = (
            self.scalars
            or self.inputs
            or self.shapes
            or self.seed is not None
            or self.prefill is not None
        )
        if self.from_example and (own or self.descriptors):
            raise SpecValueError(
                "a case with from_example takes no scalars, inputs, shapes, seed, prefill or "
                "descriptors",
                "drop those fields, or drop from_example and give the case its own data",
            )
        return self

    @property
    def example_number(self) -> int:
        """Which worked example the case is (1-based), 0 when it draws its own data."""
        return int(self.from_example) if self.from_example is not False else 0

    @field_validator("name")
    @classmethod
    def _case_name(cls, v: str) -> str:
        if not SLUG_RE.match(v):
            raise SpecValueError(
                "case names are lowercase words joined by underscores",
                "e.g. single_element or large_n",
            )
        return v


class Defaults(Strict):
    """Scalar values and input distributions that every case uses unless it says otherwise."""

    scalars: Dict[str, Number] = Field(
        default_factory=dict, description="scalar values every functional case uses"
    )
    inputs: Dict[str, Distribution] = Field(
        default_factory=dict,
        description="input distributions every functional case uses, as a case's `inputs`",
    )


class NumberForm(Strict):
    """How an example writes its floats where its page rounds them (5.67 for 5.6667); the values
    stay as given, and verification against the reference uses them."""

    decimals: Optional[int] = Field(
        default=None,
        ge=0,
        le=12,
        description="rounds to that many places (0.7311), written shortest unless `fixed`",
    )
    fixed: bool = Field(
        default=False, description="always writes `decimals` places (`5.00`; needs `decimals`)"
    )
    digits: Optional[int] = Field(
        default=None,
        ge=1,
        le=17,
        description="rounds to significant digits instead (0.36514813; not with `decimals`)",
    )
    ints: bool = Field(default=False, description="writes int-valued floats as ints (`2`)")
    parts: List[Literal["input", "output"]] = Field(
        default_factory=lambda: ["input", "output"],
        description="the parts so written: `input` (its tensors and scalars) and/or `output`",
    )

    @model_validator(mode="after")
    def _one_rounding(self) -> "NumberForm":
        if self.decimals is not None and self.digits is not None:
            raise ValueError("give decimals or digits, not both")
        if self.fixed and self.decimals is None:
            raise ValueError("fixed needs decimals (the count it writes)")
        if not self.parts or len(set(self.parts)) != len(self.parts):
            raise ValueError("parts names input and/or output, each once")
        return self


#: the draws an example input may be: drawn on the CPU generator with the example's seed, so the
#: values are the same on every device (a literal is written as the data itself)
EXAMPLE_DRAW_KINDS = ("uniform", "normal", "randint", "constant", "code")


def _example_input_kind(value: Any) -> str:
    """A mapping is a draw (`{normal: [0, 1]}`), anything else literal data."""
    return "draw" if isinstance(value, (dict, Strict)) else "literal"


ExampleInput = Annotated[
    Union[Annotated[Distribution, Tag("draw")], Annotated[Nested, Tag("literal")]],
    Discriminator(_example_input_kind),
]

#: `outputs: reference`: a drawn example's outputs are what the reference computes, verified at
#: generate time (float64 against the signature's dtypes, within atol/rtol)
REFERENCE_OUTPUTS = "reference"


class Example(Strict):
    """A worked example, shown in challenge.html: literal inputs and hand-computed outputs, or
    inputs too large to write (a seeded draw) whose outputs the reference gives."""

    scalars: Dict[str, Number] = Field(description="the example's scalar values, by name")
    inputs: Dict[str, ExampleInput] = Field(
        description="literal data, by name; an example too large to write (e.g. a transformer "
        "block's weights) gives `seed` and draws its inputs instead, each `{normal: [mean, std]}`, "
        "`{uniform: [lo, hi]}`, `{randint: [lo, hi]}` or `{constant: v}` (literal data beside "
        "them allowed), with `outputs: reference` (a `{code: ...}` input too makes an example "
        "drawn); `chgen import` writes this form for an example past 32,768 elements"
    )
    outputs: Union[Dict[str, Nested], Literal["reference"], None] = Field(
        description="the hand-computed outputs, by name; or `reference` for drawn inputs: "
        "generate_example_test draws them on the CPU generator "
        "(`torch.Generator().manual_seed(seed)`, then `.to(self.device)`, so the values are the "
        "same on every device), the page lists the shapes under a `<p>` that gives the sizes and "
        "how each input is drawn, and the outputs are verified by the reference: generation draws "
        "the inputs the same way and requires the reference to write every output element and its "
        "result in the signature's dtypes to be within `atol`/`rtol` of its float64 result"
    )
    seed: Optional[int] = Field(
        default=None,
        ge=0,
        lt=2**63,
        description="a drawn example's CPU generator seed (`torch.Generator().manual_seed(seed)`)",
    )
    shapes: Dict[str, Shape] = Field(default_factory=dict, description="as in a case")
    explanation: Optional[str] = Field(
        default=None,
        description="HTML shown under its data (a `<p>` explaining it, as some public pages "
        "have); blank lines it starts with are kept, the page's gap after a bmatrix example's "
        "last `<p>`",
    )
    title: Optional[str] = Field(
        default=None,
        description="the heading when not `Example` (one) / `Example 1:`, `Example 2:`, ... "
        "(several): `Example`, `Examples`, `Example 2` or `Example 2:`, the headings the page "
        "rules read",
    )
    show_sizes: bool = Field(
        default=False,
        description="a `<pre>` example lists the sizes too (`N = 4`), as a minority of public "
        "pages do; refused elsewhere, where it changes nothing",
    )
    hide: List[str] = Field(
        default_factory=list,
        description="the scalars the section does not write, e.g. a sparse matrix's `nnz` left "
        "to its data; `chgen import` lists each scalar the page's example does not name",
    )
    shown: Optional[List[str]] = Field(
        default=None,
        description="the scalars the section writes beside its data, in page order, sizes too: a "
        "stride or padding that only an output's shape uses, `shown: [S, P]`, in the form's own "
        "way, `<code>S</code>: 2` beside matrices, `S = 2` in `<pre>`; default: the scalars no "
        "tensor's shape names, less `hide` (generator/spec/example_page.py)",
    )
    numbers: Optional[NumberForm] = Field(
        default=None,
        description="how the page writes the example's floats, the values staying as given "
        "(default chgen's shortest form; `chgen import` picks it from the page)",
    )
    display: Optional[str] = Field(
        default=None,
        description="escape hatch: the HTML of the data block, shown instead of the values where "
        "the page's text is no function of them (`(approximately)`, derivations, comments); the "
        "values are still verified, and the numbers it shows must be the example's (D001); "
        "`chgen import` writes it, the page's block exactly as written, for each example whose "
        "block no structured setting reproduces, so the author's text is kept while the values "
        "still come from challenge.py and are verified at generate time (where that text shows "
        "values the challenge's own generate_example_test or reference does not produce, the text "
        "is kept all the same, D001 tolerated, and the import says so); `display` alone, with no "
        "`scalars`, `inputs` or `outputs`, is an example after the first kept as the page's text "
        "only: shown as written, never verified, not usable by `from_example` (`chgen import` "
        "writes it for an example whose values the page does not give readably, so that nothing "
        "the author wrote is lost); the benchmarks `benchmarks/public_set.py` and "
        "`benchmarks/public_pages.py` count pages identical through it apart",
    )

    @model_validator(mode="before")
    @classmethod
    def _text_alone(cls, data: Any) -> Any:
        """`display` with no values is an example kept as the page's text alone."""
        values = ("scalars", "inputs", "outputs")
        if isinstance(data, dict) and data.get("display") is not None:
            if not any(key in data for key in values):
                return {**data, "scalars": {}, "inputs": {}, "outputs": None}
        return data

    @model_validator(mode="after")
    def _values_or_text(self) -> "Example":
        if self.outputs is not None:
            return self
        if self.display is None:
            raise SpecValueError(
                "outputs is empty",
                "give each output's hand-computed value (or `reference` for drawn inputs)",
                at="outputs",
            )
        given = [name for name in ("scalars", "inputs", "shapes", "hide") if getattr(self, name)]
        given += [n for n in ("seed", "numbers", "shown") if getattr(self, n) is not None]
        given += ["show_sizes"] if self.show_sizes else []
        if given:
            raise SpecValueError(
                f"an example kept as the page's text alone (display, no outputs) takes no "
                f"{given[0]}",
                "drop it, or give the example's values: scalars, inputs and outputs",
                at=given[0],
            )
        return self

    @property
    def text_only(self) -> bool:
        """Kept as the page's text alone: shown as its `display`, with no values to verify."""
        return self.outputs is None

    @property
    def drawn(self) -> Dict[str, Distribution]:
        """The inputs written as draws, by name."""
        return {k: v for k, v in self.inputs.items() if _example_input_kind(v) == "draw"}

    @property
    def hand_outputs(self) -> Dict[str, Any]:
        """The hand-computed outputs; none when the reference gives them (or there are none)."""
        return {} if self.outputs in (REFERENCE_OUTPUTS, None) else self.outputs


def _spaces(value: str) -> str:
    if value.strip(" "):
        raise ValueError("an indentation is spaces only")
    return value


Spaces = Annotated[str, AfterValidator(_spaces)]


class PreForm(Strict):
    """How a <pre> example writes its lines (the defaults are the public majority)."""

    tight: bool = Field(
        default=False,
        description="puts `Input:` on the `<pre>` line and `</pre>` right after the last line",
    )
    aligned: bool = Field(
        default=True,
        description="writes `Input:  ` and `Output: ` so their values line up, else one space "
        "after either label",
    )
    unnamed: List[Literal["input", "output"]] = Field(
        default_factory=list,
        description="the parts, `input` and/or `output`, whose sole tensor is written as its "
        "value alone, without `name = `",
    )
    inline: bool = Field(
        default=False, description="writes the Input part on one line, its values joined by `, `"
    )
    indent: Spaces = Field(default="", description="spaces before every line inside the `<pre>`")
    size_note: bool = Field(
        default=False, description="ends the first Input line in the sizes, `  (N=4)`"
    )


class MatrixForm(Strict):
    """How a bmatrix example labels its parts (the defaults are the public majority)."""

    strong: bool = Field(
        default=True,
        description="writes `<strong>Input:</strong>` / `<strong>Output:</strong>`, else "
        "`Input:` / `Output:`",
    )
    split: bool = Field(
        default=True,
        description="gives the Output part a `<p>` of its own, else `Output:<br>` follows the "
        "inputs in one `<p>`",
    )
    gap: bool = Field(
        default=True, description="a blank line between the two `<p>`s of a split example"
    )
    labels: Literal["code", "latex"] = Field(
        default="code",
        description=r"`code`: `<code>A</code> (2&times;2):`; `latex`: "
        r"`Matrix \(A\) (\(2 \times 2\)):`, and `Vector \(x\):` for 1-D data",
    )
    times: Literal["&times;", "×"] = Field(
        default="&times;",
        description="the sign a `code` label writes between dimensions: the entity `&times;` "
        "or the character `×`",
    )
    squeeze: bool = Field(
        default=False,
        description="`true` shows a rank ≥ 3 tensor whose leading dimensions are 1 as the matrix "
        "of its last two (`<code>K</code> (1&times;3&times;4):` over a 3×4 bmatrix), such data "
        "then counting as 2-D in choosing the example's form; `chgen import` sets it for a page "
        "that shows a batch of one so",
    )
    indent: Spaces = Field(
        default="",
        description="spaces before every line inside the example's `<p>`s (the `<p>` tags stay "
        "at the margin)",
    )
    inline: bool = Field(
        default=False,
        description="writes the scalars on one line joined by `, `, "
        "`<code>a</code>: 1, <code>b</code>: 2`",
    )


PageSection = Literal["requirements", "examples", "constraints"]


class PageForm(Strict):
    """The layout of challenge.html where a page departs from chgen's (majority) form."""

    item_indent: Spaces = Field(
        default="  ",
        description="spaces before each `<li>` of Implementation Requirements and Constraints "
        "(two by default); an item holding line breaks is written as given, so an item broken "
        "over several lines comes back so",
    )
    item_indents: Optional[List[Spaces]] = Field(
        default=None,
        description="one indentation per item in page order, Implementation Requirements then "
        "Constraints, the performance bullet apart, for a page whose items are not indented "
        "alike; overrides `item_indent`",
    )
    indent: Spaces = Field(
        default="",
        description="spaces before every structural line chgen writes: each `<h2>`, the lists' "
        "`<ul>` and `</ul>`, a `<pre>` example's `<pre>` and `</pre>`; the performance bullet and "
        "the `</ul>` after it keep their own",
    )
    heading_gap: List[PageSection] = Field(
        default_factory=list,
        description="the sections among `requirements`, `examples`, `constraints` whose `<h2>` "
        "is followed by a blank line",
    )
    section_gaps: Optional[List[Annotated[int, Field(ge=0, le=3)]]] = Field(
        default=None,
        description="blank lines, 0–3, before each section's `<h2>` in page order: "
        "Implementation Requirements, each example, Constraints; one number per section; "
        "default one each",
    )
    heading_ends: Optional[List[Annotated[str, Field(pattern=r"^</h2[ \t]*>$")]]] = Field(
        default=None,
        description="the end tag of each section's `<h2>` in page order: Implementation "
        "Requirements, each example, Constraints; one per section, for a page that writes "
        "some otherwise (`</h2 >`); default `</h2>` each",
    )
    pre: PreForm = Field(
        default_factory=lambda: PreForm(), description="how a `<pre>` example writes its lines"
    )
    matrix: MatrixForm = Field(
        default_factory=lambda: MatrixForm(), description="how a bmatrix example labels its parts"
    )

    @field_validator("heading_gap")
    @classmethod
    def _once(cls, v: List[str]) -> List[str]:
        if len(set(v)) != len(v):
            raise ValueError("name each section once")
        return v


#: the standard section an own section follows ("description": before Implementation
#: Requirements; "examples": after the last example; "constraints": at the end of the page)
SectionPlace = Literal["description", "requirements", "examples", "constraints"]


class Section(Strict):
    """A section of the page's own (an <h2> titled `title`, then `html`), placed after a
    standard one, e.g. a "Loss Calculation" derivation or the "References"."""

    title: str = Field(
        min_length=1,
        description="the `<h2>`'s HTML, one line; not one that starts as a standard section's, "
        "`Implementation Requirements`, `Example`, `Constraints`",
    )
    html: str = Field(
        min_length=1,
        description="its content, no `<h2>`; blank lines it starts with stand between the "
        "`<h2>` and it",
    )
    after: SectionPlace = Field(
        description="the standard section it follows: `description`, before Implementation "
        "Requirements; `requirements`; `examples`, after the last one; `constraints`, at the end "
        "of the page"
    )
    gap: int = Field(default=1, ge=0, le=3, description="blank lines before its `<h2>`, 0–3")

    @field_validator("title")
    @classmethod
    def _own_title(cls, v: str) -> str:
        plain = " ".join(re.sub(r"<[^>]*>", " ", v).split())
        if section_of(plain) is not None:
            raise SpecValueError(
                f"{v!r} reads as a standard section's title (chgen import takes a section "
                f"whose title starts with {REQUIREMENTS}, {EXAMPLE} or {CONSTRAINTS} "
                "for that section)",
                "write that section's content in its own field (requirements, examples, "
                "constraints); an own section needs another title",
            )
        if "\n" in v:
            raise SpecValueError("a section title is one line", "join the title on one line")
        return v

    @field_validator("html")
    @classmethod
    def _one_section(cls, v: str) -> str:
        from generator.challenge.page import holds_section_heading

        if holds_section_heading(v):
            raise SpecValueError(
                "a section's html holds an <h2>", "give each <h2> a section of its own"
            )
        return v


class Baseline(Strict):
    """A reference point timed beside the solutions (body of a function of the solve params)."""

    name: str = Field(description="the baseline's name in the timing tables")
    code: str = Field(
        description="a PyTorch module defining `solve`, timed beside the solutions in its "
        "library's best calling form: its `solve` may return its outputs, which the judge checks "
        "after the clock, and an optional `prepare` with the same parameters runs outside the "
        "clock for each timed call's inputs, e.g. to hand a library the forward's rstd; see "
        "[docs/judge.md](judge.md#performance---perf)"
    )


class Performance(Strict):
    """The performance case; its tensors must fit five times in 16 GB."""

    scalars: Dict[str, Number] = Field(description="the case's scalar values, by name")
    inputs: Dict[str, Distribution] = Field(
        default_factory=dict, description="as a functional case takes them"
    )
    min_bytes: str = Field(
        description="the least traffic, an expression over the scalars, e.g. `3 * N * C * 4`"
    )
    baselines: List[Baseline] = Field(
        default_factory=list, description="libraries' solutions timed beside the solutions"
    )
    seed: Optional[int] = Field(
        default=None, ge=0, lt=2**63, description="as a functional case takes it"
    )
    prefill: Optional[Prefill] = Field(default=None, description="as a functional case takes it")
    descriptors: bool = Field(
        default=False,
        description="as a functional case takes it (most public performance tests write it so)",
    )
    shapes: Dict[str, Shape] = Field(
        default_factory=dict, description="as a functional case takes them"
    )
    shown: Optional[List[str]] = Field(
        default=None,
        description="the scalars the page's performance bullet names, in this order (default "
        "every size)",
    )
    blank_line: bool = Field(
        default=True,
        description="a blank line before the performance bullet, as on most public pages",
    )
    bullet: bool = Field(
        default=True,
        description="`false`: chgen writes no bullet, the last constraint being the page's own, "
        "written as given, e.g. broken over several lines; `chgen import` keeps such a bullet so",
    )
    note: Optional[str] = Field(
        default=None,
        description="the comment that opens generate_performance_test, one `#` line per line of "
        "it; `chgen import` keeps the original's",
    )


class Mutant(Strict):
    """A known mistake, as a PyTorch solve body; the functional cases must catch it."""

    name: str = Field(description="the mistake's name in the tables")
    mistake: str = Field(description="the mistake, in words")
    code: str = Field(description="a PyTorch module defining `solve`")
    caught_by: Optional[List[str]] = Field(
        default=None, description="the case names expected to catch it, checked when given"
    )


class Oracle(Strict):
    """float64 ground truth: autograd of a forward expression, or a body that returns outputs."""

    forward: Optional[str] = Field(
        default=None, description="a forward expression, differentiated with torch.autograd"
    )
    grad_output: Optional[str] = Field(
        default=None, description="the gradient fed to the forward's output"
    )
    gradients: Optional[Dict[str, str]] = Field(
        default=None, description="input parameter -> the output parameter holding its gradient"
    )
    code: Optional[str] = Field(
        default=None,
        description="instead of the three above: a body returning `{output: tensor}`",
    )

    @model_validator(mode="after")
    def _one_form(self) -> "Oracle":
        autograd = (self.forward, self.grad_output, self.gradients)
        if self.code is not None and any(v is not None for v in autograd):
            raise SpecValueError(
                "give either 'code' or 'forward'/'grad_output'/'gradients', not both",
                "keep one form (see 'oracle' in chgen's docs/spec.md)",
            )
        if self.code is None and not all(v is not None for v in autograd):
            raise SpecValueError(
                "give 'code', or all of 'forward', 'grad_output' and 'gradients'",
                "see 'oracle' in chgen's docs/spec.md",
            )
        return self


class AccuracyFloor(Strict):
    """Solutions must be within `factor` of a baseline's mean relative error against float64."""

    output: str = Field(description="the output measured")
    baseline: str = Field(
        description="an expression over the inputs, computed on the judged device"
    )
    factor: float = Field(
        gt=1.0, description="how many times the baseline's error a solution's may be"
    )
    min_elements: int = Field(default=64, ge=1, description="smaller cases are shown, not enforced")


class Distributed(Strict):
    """How a case of a multi-GPU challenge is spread over its G ranks: every tensor in `split` is
    cut along its first dimension, the size `rows`, into contiguous blocks in rank order (the first
    rows % G ranks get one row more), and the size scalar `rows` is each rank's own row count. Every
    other tensor is replicated: an input each rank gets whole, an output each rank must end with,
    identical on every rank (after a collective)."""

    rows: str = Field(
        description="the size scalar of the split dimension; `solve` gets its own row count as "
        "`rows`"
    )
    split: List[str] = Field(
        min_length=1,
        description="the tensors cut into contiguous row blocks (each one's first dimension "
        "exactly the size `rows`), in rank order, the first `rows % G` ranks one row more (a rank "
        "may hold none)",
    )


class StarterScaffold(Strict):
    """How one language's easy scaffold departs from chgen's form (as public starters do)."""

    kernel: Optional[str] = Field(default=None, description="the stub's name in this starter")
    parameters: Optional[List[str]] = Field(
        default=None,
        description="the stub's parameter names, one per solve parameter, in order",
    )
    grid: Optional[str] = Field(
        default=None,
        description="a 1-D launch's element count, an expression of the sizes such as `N // 2` "
        "(C's starter writes `/`)",
    )
    block_keyword: bool = Field(
        default=False, description="`true`: the launch passes `BLOCK_SIZE=BLOCK_SIZE`"
    )


class Scaffold(Strict):
    """Easy challenges: the kernel stub and launch code in CUDA, Mojo and Triton."""

    kernel: str = Field(description="the kernel stub's name")
    grid: List[str] = Field(
        min_length=1,
        max_length=2,
        description="size parameters: `[N]` or `[rows, cols]`; a 1-D Triton kernel stub calls "
        "its size `n_elements`, as the public easy Triton starters do",
    )
    starters: Dict[str, StarterScaffold] = Field(
        default_factory=dict,
        description="per scaffolded language key, where that starter departs from this form, "
        "e.g. `starters: {triton: {kernel: swiglu, parameters: [input, output, N], grid: N // 2, "
        "block_keyword: true}}`",
    )


class Spec(Strict):
    """A challenge: one YAML file, `specs/<id>_<slug>.yaml`."""

    id: int = Field(
        ge=1,
        le=99999,
        description="the challenge number, 1 to 99999, unique across the set (and the file "
        "name's prefix)",
    )
    slug: str = Field(
        description="words of lowercase letters and digits joined by single `_`, at most 60 "
        "characters; it may start with a digit (`2d_subarray_sum`); the directory is "
        "`<id>_<slug>`"
    )
    directory: Optional[str] = Field(
        default=None,
        description="the challenge's directory name where a tree already spells it otherwise "
        "(`39_Fast_Fourier_transform`); it starts with `<id>_`. `chgen import` writes it, so "
        "regeneration writes into the same directory",
    )
    name: str = Field(
        description="the display name, at most 80 characters: words of letters and digits "
        "separated by single spaces or `-`; a word or a run of words may stand in parentheses "
        "(`General Matrix Multiplication (GEMM)`). No other characters."
    )
    difficulty: Literal["easy", "medium", "hard"] = Field(
        description="`easy`, `medium` or `hard` (easy starters carry kernel scaffolds, see "
        "`scaffold`)"
    )
    access_tier: Literal["free", "premium"] = Field(
        default="free", description="`free` or `premium`"
    )
    num_gpus: int = Field(
        default=1,
        ge=1,
        le=8,
        description="1 to 8; 2–8 for a multi-GPU challenge, which then needs `distributed` and "
        "ships starters only in the languages whose adapter can reach the other ranks "
        "(`distributed_refusal` is None: PyTorch and Triton, through `torch.distributed`; CUDA, "
        "through the NCCL communicator the judge passes after the parameters: "
        "`solve(..., ncclComm_t comm, int rank, int world_size)`, nccl.h from the toolchains "
        "extra's `nvidia-nccl-cu13` or `CHGEN_NCCL_HOME`); the page names the others with the "
        "reason. On GPUs the judge needs `num_gpus` GPUs, one per rank, or `--ranks N` (every "
        "case on N ranks)",
    )
    atol: float = Field(
        ge=0,
        description="the absolute tolerance the tests compare with: a finite number ≥ 0 "
        "(integer outputs compare for equality; write `0`)",
    )
    rtol: float = Field(ge=0, description="the relative tolerance, as `atol`")
    signature: List[Param] = Field(
        min_length=1, description="the solve parameters in order (each under `signature[]`)"
    )
    reference: str = Field(
        description="the body of `reference_impl` in torch; chgen adds a shape and a dtype "
        "assertion from the signature for each tensor whose shape (or dtype) the body does not "
        "assert itself, after the body's own leading docstring and assertions (`chgen import` "
        "keeps the original's docstring and assertions, drops only those on devices, rule P014, "
        "with any size only they read, `blocks = (N + B - 1) // B`; generation's float64 runs of "
        "the reference leave assertions out, as `python -O` does). Write outputs in place "
        "(`dx.copy_(...)`; binding an output's name to a new tensor, `dx = ...`, is refused at "
        "its line). It may use `self.device` and the `reference_helpers` (`chgen import` puts the "
        "original's module imports of math and torch modules there, so they stay at module "
        "level)."
    )
    description: str = Field(
        description=r"HTML placed first on the page (starts with `<p>`; math in `\( \)` and "
        r"`\[ \]`)"
    )
    svg: Optional[str] = Field(
        default=None,
        description="an inline `<svg ...>` or the name of a sidecar `.svg` file next to the spec "
        "(no paths)",
    )
    after_svg: Optional[str] = Field(
        default=None,
        description="HTML placed after the SVG, for a page whose description continues below it "
        "(needs `svg`; `chgen import` keeps a page's text after its SVG here)",
    )
    requirements: Union[
        Annotated[List[str], Field(min_length=1)], Annotated[str, Field(min_length=1)]
    ] = Field(
        description="the `<li>` items of Implementation Requirements; or instead the section's "
        "HTML as written (a block of text), for a page whose Implementation Requirements are "
        "paragraphs rather than a list"
    )
    constraints: List[str] = Field(
        default_factory=list,
        description="the `<li>` items of Constraints; the performance bullet is appended from "
        "`performance`",
    )
    examples: List[Example] = Field(
        min_length=1,
        description="the worked examples, in page order (`example:` is one, the same as a list "
        "of one; each under `examples[]`). Shown on the page (bmatrix for 2-D data labelled "
        "`<code>x</code> (2&times;4):` under `<strong>Input:</strong>` / "
        "`<strong>Output:</strong>`; `<pre>` for 1-D and rank ≥ 3 data, one row per line, a "
        "`[1]` result as its number; past 4,096 elements the page lists the shapes only); the "
        "first is returned by `generate_example_test`; generation checks that the reference "
        "reproduces every example's outputs (float64, CPU; in the signature's dtypes when the "
        "reference cannot run in float64, e.g. it mixes float32 tensors of its own with its "
        "inputs, within `atol`/`rtol`), naming the example",
    )
    defaults: Defaults = Field(
        default_factory=lambda: Defaults(),
        description="`scalars` and `inputs` every functional case uses unless it overrides them",
    )
    prefill: Optional[Prefill] = Field(
        default=None,
        description="how every output starts before `solve`: `empty` (the default), `zeros`, or "
        "a number it is filled with (so every element must be written). Every example is checked "
        "with its outputs started so (`empty` as NaN): a reference that writes only part of an "
        "output needs `zeros` or a value",
    )
    functional: List[Case] = Field(
        min_length=1, description="the functional test cases (each under `functional[]`)"
    )
    expected_cases: Optional[List[int]] = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="`[MIN, MAX]`: how many functional cases this challenge needs, when not the "
        "public set's 4 to 15 (the range P017 warns outside of: the 91 public challenges whose "
        "count is evident have 4 to 15, median 8, `benchmarks/case_counts.py`); the spec is "
        "refused outside its own range, and the check of its rendered tree uses it",
    )
    tolerated_rules: List[str] = Field(
        default_factory=list,
        description="`chgen check` rule codes (`chgen check --list-rules`; not the spec rules "
        "`G...`) whose findings in the files this spec renders do not stop `chgen generate`: for "
        "a challenge that keeps a form the rules flag. `chgen import` writes the codes the "
        "original challenge already breaks (its static check), and H009 where its page shows 2-D "
        "example data in `<pre>`",
    )
    performance: Performance = Field(
        description="the performance case (under `performance` below); its tensors must fit "
        "five times in 16 GB"
    )
    page: PageForm = Field(
        default_factory=lambda: PageForm(),
        description="how `challenge.html` lays out its structural parts, where a page departs "
        "from chgen's form (every default is the public majority form; `chgen import` records "
        "the page's choices here)",
    )
    sections: List[Section] = Field(
        default_factory=list,
        description="the page's own sections, in page order (e.g. a derivation, the "
        "references), each an `<h2>` and its HTML; `chgen import` keeps every section of the "
        "page that is none of the standard ones so",
    )
    scaffold: Optional[Scaffold] = Field(
        default=None, description="easy only: the kernel stub and launch code of the starters"
    )
    distributed: Optional[Distributed] = Field(
        default=None,
        description="num_gpus > 1: `{rows: N, split: [x, dy, dx]}`, which tensors each rank "
        "holds a block of rows of. Every other tensor is replicated: an input every rank gets "
        "whole, an output every rank must end with, identical. challenge.py gets "
        "`get_rank_layout()`; the reference and the oracle see the whole batch. See "
        "[docs/judge.md](judge.md#multi-gpu-challenges)",
    )
    mutants: List[Mutant] = Field(
        default_factory=list,
        description="known mistakes; the functional cases must catch each",
    )
    oracle: Optional[Oracle] = Field(
        default=None,
        description="float64 ground truth: `forward` + `grad_output` + `gradients` "
        "(torch.autograd of a forward expression) or `code` (a body returning "
        "`{output: tensor}`); the `reference_helpers` are in reach (a method helper as "
        "`self.name(...)`). `chgen generate` measures the reference against it on every "
        "functional case (see [What runs spec code](commands.md#what-runs-spec-code))",
    )
    accuracy_floor: Optional[AccuracyFloor] = Field(
        default=None,
        description="each solution's mean relative error against the oracle must stay within "
        "`factor` of the baseline's",
    )
    seed: int = Field(
        default=0,
        description="accepted for older specs and read by nothing: each case's own `seed` "
        "seeds its draws",
    )
    reference_helpers: Optional[str] = Field(
        default=None,
        description="Python defining what `reference` uses, nothing but `def`s, module constants "
        "(`NAME = value`, one name each) and imports of `math` and `torch` modules (`import "
        "torch.nn.functional as F`): a def whose first parameter is `self` becomes a method of "
        "`Challenge` before `reference_impl` (called `self.name(...)`), any other a module "
        "function after the imports; the imports join challenge.py's own, the constants (with "
        "the comments right above them) follow the imports",
    )
    starter_helpers: Dict[str, str] = Field(
        default_factory=dict,
        description="per language key (`cuda`, `cute`, `jax`, `mojo`, `pytorch`, `tilelang`, "
        "`triton`): code shipped in that starter after its imports, before the kernel stub and "
        "`solve` (e.g. a `__device__` hash function); formatted with the starter and compiled by "
        "the starter checks",
    )
    exploded_solve: List[str] = Field(
        default_factory=list,
        description="Python starter language keys (`cute`, `jax`, `pytorch`, `tilelang`, "
        "`triton`) whose `solve` lists one parameter per line (written with black's magic "
        "trailing comma) where black would otherwise keep them on one line, e.g. `[jax]`",
    )
    kept_starters: Dict[str, str] = Field(
        default_factory=dict,
        description="per language key: a whole starter, written as given instead of chgen's "
        "(formatted with the starter, checked by the starter rules). `chgen import` keeps here "
        "each original starter that differs from chgen's form where no rule of `chgen check` "
        "objects (a launch over a local of its own, a comment wrapped over two lines), so that "
        "it comes back byte for byte; a Mojo starter on an older API is kept moved onto Mojo "
        "1.2's by that migration alone (imports, `Pointer[T, Imm/MutUntrackedOrigin]` by "
        'direction, `abi("C")` with the launch inside `try`, `enqueue_function[kernel]`). A '
        "starter a rule flags is written in chgen's form; the report says which rule",
    )
    reference_jax: Optional[str] = Field(
        default=None,
        description="the body of `reference_impl_jax` in JAX (`import jax.numpy as jnp` inside "
        "it; it may import jax modules and `math` only, and use the `reference_helpers`' "
        "constants and module functions), which the platform's runner prefers for JAX "
        "submissions. It takes the in/inout tensors and the scalars in solve order, as JAX arrays "
        "and Python numbers, and returns the outputs (the out and inout tensors' values): one "
        "array, or a tuple in signature order. `chgen generate` runs it on JAX's CPU backend on "
        "the example and every functional case (under `jax.jit`, the scalars static; op by op "
        "where it cannot be traced) and refuses it where it disagrees with `reference` beyond "
        "`atol`/`rtol` (integer outputs: exactly), naming the case and the worst element (the "
        "verdict is cached like the example's, keyed by JAX's version too): `specs/x.yaml:40:16: "
        "D008 reference_impl_jax disagrees with reference_impl on case 'large' (functional case "
        "5 of 5): y[17] = 0 but reference_impl gives 3.5 (1 of 100000 element(s) are beyond "
        "atol=1e-05, rtol=1e-05)`. `chgen import` carries a challenge's `reference_impl_jax` "
        "here, and what it reads of challenge.py's module (`import math`, a constant) into "
        "`reference_helpers`",
    )
    exploded_reference_jax: bool = Field(
        default=False,
        description="`true`: `reference_impl_jax`'s header lists one parameter per line (black's "
        "magic trailing comma), as some public challenges write it",
    )

    @model_validator(mode="before")
    @classmethod
    def _one_example_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "example" in data:
            if "examples" in data:
                raise SpecValueError(
                    "give 'example' (one) or 'examples' (a list), not both", "keep one of them"
                )
            data = {("examples" if k == "example" else k): v for k, v in data.items()}
            data["examples"] = [data["examples"]]
        return data

    @property
    def requirement_items(self) -> List[str]:
        """The Implementation Requirements as list items (none where the section is HTML)."""
        return [] if isinstance(self.requirements, str) else list(self.requirements)

    @property
    def example(self) -> Example:
        """The first worked example: what generate_example_test returns."""
        return self.examples[0]

    @field_validator("slug")
    @classmethod
    def _slug(cls, v: str) -> str:
        if not SLUG_RE.match(v) or len(v) > 60:
            raise ValueError(
                "a slug is lowercase letters and digits in words joined by single underscores "
                "(e.g. rms_norm_backward), at most 60 characters"
            )
        return v

    @model_validator(mode="after")
    def _directory_names_the_id(self) -> "Spec":
        if self.directory is None:
            return self
        if not DIRECTORY_RE.match(self.directory) or len(self.directory) > 80:
            raise SpecValueError(
                f"directory {self.directory!r} is not a challenge directory name",
                "letters, digits and underscores, starting with the id and an underscore "
                f"(e.g. {self.id}_{self.slug}), at most 80 characters",
            )
        if not self.directory.startswith(f"{self.id}_"):
            raise SpecValueError(
                f"directory {self.directory!r} does not start with the id {self.id}",
                f"start it with '{self.id}_', or drop 'directory' for {self.id}_{self.slug}",
            )
        if self.directory == f"{self.id}_{self.slug}":
            raise SpecValueError(
                f"directory {self.directory!r} is the default (<id>_<slug>)", "drop 'directory'"
            )
        return self

    @field_validator("name")
    @classmethod
    def _display_name(cls, v: str) -> str:
        if not URL_NAME_RE.match(v) or len(v) > 80:
            raise ValueError(f"the display name, at most 80 characters, is {URL_NAME_RULE}")
        return v

    @field_validator("atol", "rtol")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise SpecValueError("must be a finite number", "e.g. 1.0e-5")
        return v

    @field_validator("reference")
    @classmethod
    def _reference_parses(cls, v: str) -> str:
        return _check_python(v, "reference")

    @field_validator("reference_jax")
    @classmethod
    def _reference_jax_parses(cls, v: Optional[str]) -> Optional[str]:
        return v if v is None else _check_python(v, "reference_jax")

    @field_validator("reference_helpers")
    @classmethod
    def _helpers_are_functions(cls, v: Optional[str]) -> Optional[str]:
        if v is None:
            return v
        tree = ast.parse(_check_python(v, "reference_helpers"))
        if not tree.body:
            raise SpecValueError(
                "reference_helpers defines nothing",
                "add a def, a constant or an import, or drop reference_helpers",
            )
        for node in tree.body:
            problem = _helper_statement_problem(node)
            if problem:
                raise SpecValueError(
                    f"reference_helpers line {node.lineno}: {problem}",
                    "move that code into a function, or into 'reference'",
                )
            for name in helper_names(node):
                if name in HELPER_CLASHES or name.startswith("generate_"):
                    raise SpecValueError(
                        f"helper {name!r} would replace a name chgen writes", "rename it"
                    )
        return v

    @property
    def dir_name(self) -> str:
        """The challenge's directory: `directory` where the spec keeps a tree's own spelling."""
        return self.directory or self.owner

    @property
    def owner(self) -> str:
        """<id>_<slug>: the name of the spec file, and of the spec in a tree's manifest."""
        return f"{self.id}_{self.slug}"


def _check_python(code: str, what: str) -> str:
    try:
        ast.parse(code)
    except SyntaxError as exc:
        raise SpecValueError(
            f"{what} is not valid Python: {exc.msg} (line {exc.lineno})",
            "fix the Python at that line of the block",
        ) from None
    return code


#: names a reference helper may not take: the methods and names challenge.py already has
HELPER_CLASHES = frozenset(
    {
        "reference_impl",
        "reference_impl_jax",
        "get_solve_signature",
        "_make",
        "torch",
        "ctypes",
        "ChallengeBase",
    }
)


#: modules reference_helpers may import (what challenge.py's reference code may use)
HELPER_MODULES = ("math", "torch")


def _helper_statement_problem(node: ast.stmt) -> Optional[str]:
    """Why a top-level statement of reference_helpers is not one it may hold, else None."""
    if isinstance(node, ast.FunctionDef):
        return None
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
        for module in modules:
            if (module or "").split(".")[0] not in HELPER_MODULES:
                return f"imports {module}; helpers may import math and torch modules only"
        return None
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    ):
        return None
    return (
        "is not a def, an import or a constant (`NAME = value`); reference_helpers holds "
        "those only"
    )


def helper_names(node: ast.stmt) -> List[str]:
    """The module names one statement of reference_helpers binds."""
    if isinstance(node, ast.FunctionDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def helper_functions(code: str) -> List[ast.FunctionDef]:
    """The defs of `reference_helpers`, in order."""
    return [node for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)]


def helper_preamble(code: str) -> List[ast.stmt]:
    """The imports and constants of `reference_helpers`, in order."""
    return [node for node in ast.parse(code).body if not isinstance(node, ast.FunctionDef)]


def is_method(node: ast.FunctionDef) -> bool:
    """A helper whose first parameter is `self` is a method of Challenge."""
    args = node.args.posonlyargs + node.args.args
    return bool(args) and args[0].arg == "self"


Correlated.model_rebuild()
