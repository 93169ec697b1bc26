"""Every rule `chgen check` knows: code, severity, tier, one-line summary and the usual fix.

Codes are grouped by area: L layout, P challenge.py, S starters, H challenge.html, D deep (imports
and runs challenge.py on the CPU), G specs, F formatting. A finding carries its own message; the
rule's `fix` is appended when the finding does not say how to fix it more precisely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Tuple

from generator.diagnostic import ERROR, WARNING, Diagnostic

#: static runs by default, formatters with --formatters, deep with --deep, specs for spec files
STATIC = "static"
FORMATTERS = "formatters"
DEEP = "deep"
SPECS = "specs"


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str
    tier: str
    summary: str
    fix: str


#: a finding is the diagnostic every spec error is too (generator/diagnostic.py)
Finding = Diagnostic


_E, _W = ERROR, WARNING
_TABLE: Sequence[Tuple[str, str, str, str, str]] = [
    # ---------------------------------------------------------------- layout
    ("L001", _E, STATIC, "challenge directory is not named <id>_<slug> in lowercase",
     "rename it to <id>_<lowercase_words_joined_by_underscores>"),
    ("L002", _E, STATIC, "challenge directory is not under challenges/easy, medium or hard",
     "move it under challenges/<easy|medium|hard>/"),
    ("L003", _E, STATIC, "challenge id is used twice in the tree",
     "give one of them the next free id"),
    ("L004", _E, STATIC, "challenge id is already taken in the --against tree",
     "pick an id the other tree does not use"),
    ("L005", _E, STATIC, "challenge.py or challenge.html is missing", "add the file"),
    ("L006", _E, STATIC, "a starter file is missing",
     "add all six: starter.cu, .cute.py, .jax.py, .mojo, .pytorch.py, .triton.py"),
    ("L007", _E, STATIC, "unknown file in starter/", "remove it; starter/ holds the six starters"),
    ("L008", _E, STATIC, "the tree has no challenges/core/challenge_base.py",
     "add the base class every challenge.py imports"),
    ("L009", _W, STATIC, "unexpected file in the challenge directory",
     "remove it (solutions and scratch files are not committed)"),
    # ---------------------------------------------------------------- challenge.py
    ("P001", _E, STATIC, "challenge.py does not parse", "fix the syntax error"),
    ("P002", _E, STATIC, "no `class Challenge(ChallengeBase)`",
     "define `class Challenge(ChallengeBase)` with ChallengeBase from core.challenge_base"),
    ("P003", _E, STATIC, "class attribute missing or invalid",
     "set name (str), atol and rtol (numbers >= 0), num_gpus (int >= 1), access_tier "
     "('free' or 'premium') as plain class attributes"),
    ("P004", _W, STATIC, "class attributes out of order",
     "order them name, atol, rtol, num_gpus, access_tier"),
    ("P005", _E, STATIC, "`name` is not URL-friendly",
     "use words of letters and digits separated by spaces or '-', words may stand in parentheses"),
    ("P006", _E, STATIC, "Challenge defines __init__",
     "remove it; ChallengeBase.__init__ takes the device"),
    ("P007", _E, STATIC, "a required method is missing",
     "define reference_impl, get_solve_signature, generate_example_test, "
     "generate_functional_test and generate_performance_test"),
    ("P008", _E, STATIC, "reference_impl parameters differ from get_solve_signature",
     "take exactly the signature's parameters, in order, after self"),
    ("P009", _E, STATIC, "get_solve_signature is not a literal {name: (ctypes type, direction)}",
     "return a dict literal of (ctypes type, 'in'|'out'|'inout') tuples in solve order"),
    ("P010", _E, STATIC, "import not allowed in challenge.py",
     "import only ctypes, typing, math, torch (and torch.nn / torch.nn.functional) and "
     "core.challenge_base"),
    ("P011", _E, STATIC, "code runs at import time",
     "keep module and class level to imports, definitions and constant assignments"),
    ("P012", _E, STATIC, "reference_impl does not assert a tensor parameter's shape",
     "add `assert X.shape == (...)`"),
    ("P013", _E, STATIC, "reference_impl does not assert a tensor parameter's dtype",
     "add `assert X.dtype == torch.<dtype>`"),
    ("P014", _E, STATIC, "reference_impl asserts on devices",
     "remove device assertions; the runner targets several accelerators"),
    ("P015", _E, STATIC, "reference_impl uses a CUDA-only API",
     "use standard torch ops only (no torch.cuda, .is_cuda, .device.type, .cuda())"),
    ("P016", _E, STATIC, "tensor created without device=self.device",
     "pass device=self.device to every tensor constructor"),
    # the range is the public set's (4 to 15 cases, median 8: report.DEFAULT_CASES)
    ("P017", _W, STATIC, "number of functional cases outside the expected range",
     "cover edge, power-of-two, non-power-of-two and realistic sizes; a spec that needs more "
     "states `expected_cases: [MIN, MAX]`"),
    ("P018", _E, STATIC, "generate_example_test draws random data",
     "use literal values so that challenge.html can show them"),
    ("P019", _E, STATIC, "reference_impl_jax does not take the inputs and scalars in solve order",
     "take (self, the in/inout tensors and the scalars, in solve order), unannotated"),
    # ---------------------------------------------------------------- starters
    ("S001", _E, STATIC, "starter has no parsable solve", "fix the syntax; define solve"),
    ("S002", _E, STATIC, "solve parameters differ from get_solve_signature",
     "use the signature's names in its order"),
    ("S003", _E, STATIC, "parameter type does not match the signature's ctypes type",
     "spell the type from the dtype table"),
    ("S004", _E, STATIC, "input/output mutability differs from the signature",
     "inputs are const (CUDA) / Imm origins (Mojo); outputs are not"),
    ("S005", _E, STATIC, "JAX return annotation does not match the outputs",
     "return jax.Array for one output, tuple[jax.Array, ...] for several"),
    ("S006", _E, STATIC, "comment other than the parameter comment",
     "remove it; starters carry exactly one comment"),
    ("S007", _E, STATIC, "parameter comment wording differs", "write the expected comment exactly"),
    ("S008", _E, STATIC, "parameter comment is not directly above solve",
     "put it on the line directly above solve (or above its decorator)"),
    ("S009", _E, STATIC, "JAX starter lacks `# return output tensor directly` in solve",
     "add the comment as the first line of solve's body"),
    ("S010", _E, STATIC, "starter is not an empty solve",
     "medium/hard starters (and easy PyTorch/JAX/CuTe ones) hold only imports, helpers before "
     "solve and an empty solve"),
    ("S011", _E, STATIC, "easy starter lacks the kernel scaffold",
     "easy CUDA/Mojo/Triton starters carry a kernel stub and the launch code"),
    ("S012", _E, STATIC, "Mojo starter imports from a removed module",
     "use `from max.gpu import ...` and `from max.gpu.host import DeviceContext`"),
    ("S013", _E, STATIC, "Mojo solve is not exported with the C ABI",
     "write `@export` then `def solve(...) abi(\"C\"):`, no `raises` (catch errors inside)"),
    ("S014", _E, STATIC, "Mojo starter uses a removed or deprecated construct",
     "use Pointer[T, MutUntrackedOrigin] / Pointer[T, ImmUntrackedOrigin], def, comptime and "
     "ctx.enqueue_function[kernel](...)"),
    ("S015", _E, STATIC, "parameter name is a keyword of the starter's language (Mojo's out)",
     "escape it in that starter as chgen does (out_): the C ABI passes arguments by position"),
    ("S016", _E, STATIC, "CUDA starter lacks the header for one of its types",
     "include the header before cuda_runtime.h"),
    # ---------------------------------------------------------------- challenge.html
    ("H001", _E, STATIC, "challenge.html does not start with <p>",
     "open with the problem description in <p>"),
    ("H002", _E, STATIC, "required <h2> sections missing or out of order",
     "use <h2> Implementation Requirements, Example(s), Constraints in this order"),
    ("H003", _E, STATIC, "heading other than a closed <h2>", "use <h2>...</h2> only"),
    ("H004", _E, STATIC, "<svg> without viewBox", "add viewBox=\"0 0 W H\""),
    ("H005", _E, STATIC, "<svg> without the #222 background",
     "start the SVG with a full-size <rect ... fill=\"#222\"/>"),
    ("H006", _E, STATIC, "LaTeX does not parse", "fix the formula"),
    ("H007", _E, STATIC, "\\_ inside \\text{}", "write a plain _ inside \\text{}"),
    ("H008", _E, STATIC, "examples mix <pre> and bmatrix",
     "use one form in every example of a challenge"),
    ("H009", _E, STATIC, "example form does not fit the data",
     "1-D data goes in <pre>, 2-D data in \\begin{bmatrix}"),
    ("H010", _E, STATIC, "no performance bullet in Constraints",
     "add <li>Performance is measured with <code>N</code> = 1,000</li>"),
    ("H011", _E, STATIC, "performance bullet names the wrong parameters or order",
     "name the performance case's scalar parameters in signature order"),
    ("H012", _E, STATIC, "performance bullet value is not comma-grouped",
     "write thousands with commas, e.g. 16,384"),
    ("H013", _W, STATIC, "raw math character in HTML text", "use &le;, &ge;, &times;"),
    # ---------------------------------------------------------------- deep
    ("D001", _E, DEEP, "first example differs from generate_example_test",
     "make the HTML show generate_example_test's inputs and the reference's outputs"),
    ("D002", _E, DEEP, "performance bullet differs from generate_performance_test",
     "copy the values generate_performance_test uses"),
    ("D003", _E, DEEP, "performance case does not fit 5x in 16 GB",
     "keep all its tensors together at or below 3.2 GB"),
    ("D004", _W, DEEP, "outputs are not pre-filled",
     "fill out tensors with a sentinel (e.g. torch.full(..., 123.0)) so unwritten elements fail"),
    ("D005", _E, DEEP, "reference_impl fails on the CPU", "use ops that run on every device"),
    ("D006", _E, DEEP, "challenge.py fails to import or a generator fails on the CPU",
     "fix the exception"),
    ("D007", _E, DEEP, "a test case does not match get_solve_signature",
     "give every parameter, with the signature's dtype"),
    ("D008", _E, DEEP, "reference_impl_jax fails or disagrees with reference_impl on the CPU",
     "make it return what reference_impl writes (one array, or a tuple in signature order)"),
    # ---------------------------------------------------------------- specs
    ("G001", _E, SPECS, "spec error", "fix the spec"),
    ("G002", _E, SPECS, "generated tree is out of date",
     "run 'chgen generate'; where a file was edited by hand, move the edit into the spec first, "
     "or run 'chgen generate --force' to overwrite it"),
    # ---------------------------------------------------------------- formatting
    ("F001", _E, FORMATTERS, "black/isort would change the file", "run black and isort (line 100)"),
    ("F002", _E, FORMATTERS, "flake8 reports a problem",
     "change the code until flake8 passes (line length 100)"),
    ("F003", _E, FORMATTERS, "clang-format would change the file",
     "run clang-format with the set's style"),
    ("F004", _E, FORMATTERS, "mojo format would change the file", "run mojo format -l 100"),
    ("F005", _E, STATIC, "trailing whitespace or final newline",
     "strip trailing whitespace; end the file with exactly one newline"),
]  # fmt: skip

RULES: Dict[str, Rule] = {row[0]: Rule(*row) for row in _TABLE}


def parse_codes(values: Iterable[str]) -> List[str]:
    """'S,P01' / ['S001', 'h'] -> ['S', 'P01', 'S001', 'H']: code prefixes, comma lists allowed."""
    codes: List[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip().upper()
            if part:
                codes.append(part)
    return codes


def unknown_codes(prefixes: Iterable[str]) -> List[str]:
    return [p for p in prefixes if not any(code.startswith(p) for code in RULES)]


def enabled(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool:
    """A code runs when some --select prefix matches (or none is given) and no --ignore does."""
    if select and not any(code.startswith(p) for p in select):
        return False
    return not any(code.startswith(p) for p in ignore)
