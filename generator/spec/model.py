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

    name: str
    dtype: str
    direction: Literal["in", "out", "inout"] = "in"
    #: tensors only: one entry per dimension (rank 0 is `[]`), each an integer, a size name or an
    #: arithmetic expression of sizes (`2 * N`, `(K + 1) // 2`); parsed in generator/spec/shapes.py
    shape: Optional[List[Union[str, int]]] = None
    latex: Optional[str] = None  # how the HTML example writes a scalar, e.g. "\\varepsilon"

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
    uniform: List[Number] = Field(min_length=2, max_length=2)


class Normal(Strict):
    kind: ClassVar[str] = "normal"
    normal: List[Number] = Field(min_length=2, max_length=2)  # [mean, std]


class Constant(Strict):
    kind: ClassVar[str] = "constant"
    constant: Number


class RandInt(Strict):
    kind: ClassVar[str] = "randint"
    randint: List[int] = Field(min_length=2, max_length=2)  # [low, high)


class Values(Strict):
    kind: ClassVar[str] = "values"
    values: Nested


class Correlated(Strict):
    """`scale * source + noise`: inputs that move with another input (dy = a*x + noise)."""

    kind: ClassVar[str] = "correlated"

    correlated: "CorrelatedArgs"


class CorrelatedArgs(Strict):
    source: str
    scale: Number
    noise: List[Number] = Field(min_length=2, max_length=2)  # normal [mean, std]


class Code(Strict):
    """An input the author's torch code makes: an expression (its value) or statements that bind
    its name (and may bind inputs after it, made together). It runs in generate_* at the input's
    turn, as written; the rules on what it may bind are in generator/spec/code_inputs.py."""

    kind: ClassVar[str] = "code"
    code: str = Field(min_length=1)

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

    name: str
    note: Optional[str] = None
    #: a worked example itself, without typing its data twice: `true` is the first, `2` the second
    from_example: Union[bool, int] = False
    scalars: Dict[str, Number] = Field(default_factory=dict)
    inputs: Dict[str, Distribution] = Field(default_factory=dict)
    seed: Optional[int] = Field(default=None, ge=0, lt=2**63)  # torch.manual_seed before drawing
    prefill: Optional[Prefill] = None  # this case's outputs start so (default: the spec's)
    #: written with the base class's descriptors (RandTensor, OutTensor, ...), not torch calls
    descriptors: bool = False
    #: tensors this case passes with another shape (e.g. flattened: `{x: [N * C]}`)
    shapes: Dict[str, Shape] = Field(default_factory=dict)
    #: a multi-GPU challenge: the ranks this case runs on (default the spec's num_gpus)
    gpus: Optional[int] = Field(default=None, ge=2, le=8)

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

    scalars: Dict[str, Number] = Field(default_factory=dict)
    inputs: Dict[str, Distribution] = Field(default_factory=dict)


class NumberForm(Strict):
    """How an example writes its floats where its page rounds them (5.67 for 5.6667); the values
    stay as given, and verification against the reference uses them."""

    #: round to this many decimals (0.7311), written shortest unless `fixed`
    decimals: Optional[int] = Field(default=None, ge=0, le=12)
    #: always `decimals` decimals (5.00)
    fixed: bool = False
    #: round to this many significant digits instead (0.36514813)
    digits: Optional[int] = Field(default=None, ge=1, le=17)
    #: int-valued floats written as ints (2 for 2.0)
    ints: bool = False
    #: the parts written so: the Input part (its tensors and scalars), the Output part
    parts: List[Literal["input", "output"]] = Field(default_factory=lambda: ["input", "output"])

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

    scalars: Dict[str, Number]
    inputs: Dict[str, ExampleInput]
    #: None: an example after the first kept as the page's text alone (its `display`, no values)
    outputs: Union[Dict[str, Nested], Literal["reference"], None]
    #: the CPU generator's seed for the drawn inputs (torch.Generator().manual_seed(seed))
    seed: Optional[int] = Field(default=None, ge=0, lt=2**63)
    shapes: Dict[str, Shape] = Field(default_factory=dict)  # as in a functional case
    #: HTML shown under the example's data (a <p> explaining it, as some public pages have)
    explanation: Optional[str] = None
    #: the section's heading when it is not "Example" (one) / "Example 1:", "Example 2:" (several)
    title: Optional[str] = None
    #: the <pre> form lists the sizes too (`N = 4`), as a minority of public pages do
    show_sizes: bool = False
    #: scalars the section does not write (a count the page leaves to its data, e.g. `nnz`)
    hide: List[str] = Field(default_factory=list)
    #: the scalars the section writes beside its data, in page order, sizes too (a stride that
    #: only an output's shape uses); default: those no tensor's shape names (spec/example_page.py)
    shown: Optional[List[str]] = None
    #: how the page rounds the example's floats (default: chgen's shortest form)
    numbers: Optional[NumberForm] = None
    #: escape hatch: the HTML of the example's data block, shown instead of the rendered values
    #: (for a page whose text is no function of them); the values are still verified. Alone (no
    #: scalars, inputs, outputs), the example is the page's text only: shown, never verified
    display: Optional[str] = None

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

    #: `<pre>Input: ...` on the tag's own line and `</pre>` right after the last line
    tight: bool = False
    #: `Input:  ` and `Output: ` line their values up (else one space after either label)
    aligned: bool = True
    #: the parts ("input", "output") whose sole tensor is written as its value alone, without
    #: `name = `
    unnamed: List[Literal["input", "output"]] = Field(default_factory=list)
    #: the Input part on one line, its values joined by ", "
    inline: bool = False
    #: spaces before every line inside the <pre>
    indent: Spaces = ""
    #: the first Input line ends in the sizes, `  (N=4)`
    size_note: bool = False


class MatrixForm(Strict):
    """How a bmatrix example labels its parts (the defaults are the public majority)."""

    #: `<strong>Input:</strong>` / `<strong>Output:</strong>` (else plain `Input:` / `Output:`)
    strong: bool = True
    #: the Output part in a <p> of its own (else `Output:<br>` follows the inputs in one <p>)
    split: bool = True
    #: a blank line between the Input <p> and the Output <p> of a split example
    gap: bool = True
    #: "code": `<code>A</code> (2&times;2):`; "latex": `Matrix \\(A\\) (\\(2 \\times 2\\)):`
    #: and `Vector \\(x\\):` for 1-D data
    labels: Literal["code", "latex"] = "code"
    #: how a "code" label writes the size's times sign: the entity or the character itself
    times: Literal["&times;", "×"] = "&times;"
    #: a rank >= 3 tensor whose leading dimensions are 1 is shown as the matrix of its last two
    #: (`<code>K</code> (1&times;3&times;4):` over a 3x4 bmatrix), as pages showing a batch of
    #: one do; such data then counts as 2-D in choosing the example's form
    squeeze: bool = False
    #: spaces before every line inside the example's <p>s (the <p> tags stay at the margin)
    indent: Spaces = ""
    #: the scalars on one line, joined by ", " (`<code>a</code>: 1, <code>b</code>: 2`)
    inline: bool = False


PageSection = Literal["requirements", "examples", "constraints"]


class PageForm(Strict):
    """The layout of challenge.html where a page departs from chgen's (majority) form."""

    #: spaces before each <li> of Implementation Requirements and Constraints
    item_indent: Spaces = "  "
    #: one indentation per <li> in page order (requirements, then constraints), for a page whose
    #: items are not all indented alike; overrides item_indent
    item_indents: Optional[List[Spaces]] = None
    #: spaces before every structural line chgen writes: each <h2>, the lists' <ul> and </ul>,
    #: a <pre> example's <pre> and </pre> (the performance bullet's </ul> keeps its own)
    indent: Spaces = ""
    #: sections whose <h2> is followed by a blank line
    heading_gap: List[PageSection] = Field(default_factory=list)
    #: blank lines before each section's <h2> in page order (Implementation Requirements, each
    #: example, Constraints); default one each
    section_gaps: Optional[List[Annotated[int, Field(ge=0, le=3)]]] = None
    pre: PreForm = Field(default_factory=lambda: PreForm())
    matrix: MatrixForm = Field(default_factory=lambda: MatrixForm())

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

    title: str = Field(min_length=1)
    html: str = Field(min_length=1)
    after: SectionPlace
    #: blank lines before its <h2>
    gap: int = Field(default=1, ge=0, le=3)

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

    name: str
    code: str


class Performance(Strict):
    scalars: Dict[str, Number]
    inputs: Dict[str, Distribution] = Field(default_factory=dict)
    min_bytes: str  # expression over the scalars, e.g. "3 * N * C * 4"
    baselines: List[Baseline] = Field(default_factory=list)
    seed: Optional[int] = Field(default=None, ge=0, lt=2**63)
    prefill: Optional[Prefill] = None
    descriptors: bool = False  # as most public performance tests write it
    shapes: Dict[str, Shape] = Field(default_factory=dict)  # as in a functional case
    #: the scalars the page's performance bullet names, in this order (default: every int size)
    shown: Optional[List[str]] = None
    #: a blank line before the performance bullet, as most public pages have
    blank_line: bool = True
    #: chgen writes the performance bullet; false where the last constraint is the page's own,
    #: written as given (e.g. broken over several lines)
    bullet: bool = True
    #: the comment that opens generate_performance_test (its lines kept as written)
    note: Optional[str] = None


class Mutant(Strict):
    """A known mistake, as a PyTorch solve body; the functional cases must catch it."""

    name: str
    mistake: str
    code: str
    caught_by: Optional[List[str]] = None  # expected catching cases, checked when given


class Oracle(Strict):
    """float64 ground truth: autograd of a forward expression, or a body that returns outputs."""

    forward: Optional[str] = None
    grad_output: Optional[str] = None
    gradients: Optional[Dict[str, str]] = None  # input param -> output param holding its grad
    code: Optional[str] = None

    @model_validator(mode="after")
    def _one_form(self) -> "Oracle":
        autograd = (self.forward, self.grad_output, self.gradients)
        if self.code is not None and any(v is not None for v in autograd):
            raise SpecValueError(
                "give either 'code' or 'forward'/'grad_output'/'gradients', not both",
                "keep one form (see 'oracle' in the README's spec format)",
            )
        if self.code is None and not all(v is not None for v in autograd):
            raise SpecValueError(
                "give 'code', or all of 'forward', 'grad_output' and 'gradients'",
                "see 'oracle' in the README's spec format",
            )
        return self


class AccuracyFloor(Strict):
    """Solutions must be within `factor` of a baseline's mean relative error against float64."""

    output: str
    baseline: str  # expression over the inputs, computed on the judged device
    factor: float = Field(gt=1.0)
    min_elements: int = Field(default=64, ge=1)  # smaller cases are shown, not enforced


class Distributed(Strict):
    """How a case of a multi-GPU challenge is spread over its G ranks: every tensor in `split` is
    cut along its first dimension, the size `rows`, into contiguous blocks in rank order (the first
    rows % G ranks get one row more), and the size scalar `rows` is each rank's own row count. Every
    other tensor is replicated: an input each rank gets whole, an output each rank must end with,
    identical on every rank (after a collective)."""

    rows: str
    split: List[str] = Field(min_length=1)


class StarterScaffold(Strict):
    """How one language's easy scaffold departs from chgen's form (as public starters do)."""

    kernel: Optional[str] = None  # the stub's name in this starter
    parameters: Optional[List[str]] = None  # the stub's parameter names, in solve order
    grid: Optional[str] = None  # the 1-D launch's element count, an expression of the sizes
    block_keyword: bool = False  # the launch passes `BLOCK_SIZE=BLOCK_SIZE`


class Scaffold(Strict):
    """Easy challenges: the kernel stub and launch code in CUDA, Mojo and Triton."""

    kernel: str
    grid: List[str] = Field(min_length=1, max_length=2)  # size params: [N] or [rows, cols]
    #: per language key: where that starter's scaffold departs from the form above
    starters: Dict[str, StarterScaffold] = Field(default_factory=dict)


class Spec(Strict):
    id: int = Field(ge=1, le=99999)
    slug: str
    #: the challenge's directory name where a tree already spells it otherwise than <id>_<slug>
    #: (e.g. with capitals): regeneration then writes into that same directory
    directory: Optional[str] = None
    name: str
    difficulty: Literal["easy", "medium", "hard"]
    access_tier: Literal["free", "premium"] = "free"
    num_gpus: int = Field(default=1, ge=1, le=8)
    atol: float = Field(ge=0)
    rtol: float = Field(ge=0)
    signature: List[Param] = Field(min_length=1)
    reference: str
    description: str
    svg: Optional[str] = None  # inline SVG, or a file name next to the spec ending in .svg
    #: HTML placed after the SVG (the description stands before it)
    after_svg: Optional[str] = None
    #: the Implementation Requirements items; or the section's HTML as written, for a page whose
    #: requirements are paragraphs rather than a list
    requirements: Union[
        Annotated[List[str], Field(min_length=1)], Annotated[str, Field(min_length=1)]
    ]
    constraints: List[str] = Field(default_factory=list)
    #: the worked examples, in page order; `example:` (one) is read as a list of one
    examples: List[Example] = Field(min_length=1)
    defaults: Defaults = Field(default_factory=lambda: Defaults())
    prefill: Optional[Prefill] = None  # how every output starts before solve (default: empty)
    functional: List[Case] = Field(min_length=1)
    #: how many functional cases P017 expects of this challenge, [MIN, MAX] (default: the range
    #: the public set has, generator/checks/report.py DEFAULT_CASES)
    expected_cases: Optional[List[int]] = Field(default=None, min_length=2, max_length=2)
    #: check rules whose findings in what this spec renders do not stop `chgen generate` (a
    #: challenge that keeps a form the rules flag, as imported challenges keep their page's)
    tolerated_rules: List[str] = Field(default_factory=list)
    performance: Performance
    #: how challenge.html lays out its structural parts (default: the public majority form)
    page: PageForm = Field(default_factory=lambda: PageForm())
    #: the page's own sections (an <h2> and its HTML each), in page order
    sections: List[Section] = Field(default_factory=list)
    scaffold: Optional[Scaffold] = None
    #: num_gpus > 1: which tensors each rank holds a block of rows of
    distributed: Optional[Distributed] = None
    mutants: List[Mutant] = Field(default_factory=list)
    oracle: Optional[Oracle] = None
    accuracy_floor: Optional[AccuracyFloor] = None
    seed: int = 0
    #: Python defining functions `reference` may call: a def whose first parameter is `self`
    #: becomes a method of Challenge (placed before reference_impl), any other a module function
    reference_helpers: Optional[str] = None
    #: per language key: code shipped in that starter after its imports (device functions, ...)
    starter_helpers: Dict[str, str] = Field(default_factory=dict)
    #: language keys whose solve lists one parameter per line (black's magic trailing comma)
    exploded_solve: List[str] = Field(default_factory=list)
    #: per language key: the whole starter as its author wrote it, written instead of chgen's
    #: (an imported starter that differs from chgen's form where no rule of chgen check objects)
    kept_starters: Dict[str, str] = Field(default_factory=dict)
    #: the body of reference_impl_jax (jax, jnp): takes the in/inout tensors and the scalars in
    #: solve order, returns the outputs (out and inout tensors; a tuple of them when several)
    reference_jax: Optional[str] = None
    #: reference_impl_jax lists one parameter per line (black's magic trailing comma)
    exploded_reference_jax: bool = False

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
