"""Starter rules: each starter's solve matches get_solve_signature, carries the one comment in the
exact wording, is empty or scaffolded as the difficulty asks, and (Mojo) is on the current API.

Expected spellings come from the language adapters and the dtype table; the parsers below read
only as much of each language as these rules need.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from generator.challenge.ctypes_table import SIZE_T
from generator.challenge.pyfile import ChallengePy as ChallengeModel
from generator.challenge.pyfile import SigEntry
from generator.checks.report import Report
from generator.checks.source import ChallengeDir, SourceFile
from generator.dtypes import DType
from generator.languages import LANGUAGES, Language, SigParam

#: decorators that mark a kernel in any Python starter
KERNEL_DECORATORS = frozenset(d for lang in LANGUAGES for d in lang.kernel_decorators)
#: C spellings of one type (the dtype table holds the first of each)
CUDA_SYNONYMS = {
    "__half": "half",
    "nv_bfloat16": "__nv_bfloat16",
    "int32_t": "int",
    "signed int": "int",
    "signed": "int",
    "uint32_t": "unsigned int",
    "unsigned": "unsigned int",
    "unsigned char": "uint8_t",
    "signed char": "int8_t",
    "int64_t": "long long",
    "long long int": "long long",
}
CUDA_QUALIFIERS = {"__restrict__", "__restrict", "restrict"}
#: Mojo origins that compile with Mojo 1.2 / MAX 26.7 without warnings
MOJO_ORIGINS = {"MutUntrackedOrigin", "ImmUntrackedOrigin", "MutAnyOrigin", "ImmutAnyOrigin"}
MOJO_IMMUTABLE_ORIGINS = {"ImmUntrackedOrigin", "ImmutAnyOrigin"}


@dataclass
class Comment:
    line: int
    col: int
    text: str


@dataclass
class Param:
    name: str
    annotation: Optional[str]
    line: int
    col: int


@dataclass
class Parsed:
    """What the rules need from one starter, whatever its language."""

    params: List[Param] = field(default_factory=list)
    solve_line: int = 1
    solve_col: int = 1
    anchor_line: int = 1  # first line of solve's decorators, or of solve itself
    body_start: int = 1
    body_end: int = 1
    body_empty: bool = True
    return_annotation: Optional[str] = None
    decorators: List[str] = field(default_factory=list)
    comments: List[Comment] = field(default_factory=list)
    extras: List[Tuple[int, int, str]] = field(default_factory=list)  # other definitions
    kernels: List[str] = field(default_factory=list)
    launches: bool = False
    effects: str = ""  # Mojo: what follows the parameter list (raises, abi("C"), -> T)


class StarterSyntaxError(Exception):
    def __init__(self, line: int, col: int, message: str):
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


# ---------------------------------------------------------------------------------- parsing


def parse_python(source: SourceFile) -> Parsed:
    tree = source.python()
    if tree is None:
        err = source.syntax_error
        raise StarterSyntaxError(
            (err.lineno or 1) if err else 1, (err.offset or 1) if err else 1, "syntax error"
        )
    parsed = Parsed()
    solve = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "solve" and solve is None:
            solve = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        else:
            name = getattr(node, "name", None) or ast.unparse(node).split("\n")[0][:40]
            parsed.extras.append((node.lineno, node.col_offset + 1, name))
            if isinstance(node, ast.FunctionDef) and any(
                ast.unparse(d).split("(")[0] in KERNEL_DECORATORS for d in node.decorator_list
            ):
                parsed.kernels.append(node.name)
    if solve is None:
        raise StarterSyntaxError(1, 1, "no module-level `def solve(...)`")
    args = solve.args
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else None
        parsed.params.append(Param(arg.arg, annotation, arg.lineno, arg.col_offset + 1))
    parsed.solve_line, parsed.solve_col = solve.lineno, solve.col_offset + 1
    parsed.anchor_line = min([d.lineno for d in solve.decorator_list] + [solve.lineno])
    parsed.decorators = [ast.unparse(d) for d in solve.decorator_list]
    parsed.return_annotation = ast.unparse(solve.returns) if solve.returns else None
    parsed.body_start = solve.body[0].lineno
    parsed.body_end = solve.end_lineno or solve.lineno
    # a docstring (a multi-GPU starter's: what this rank holds) leaves the body empty
    body = solve.body[1:] if ast.get_docstring(solve) is not None else solve.body
    parsed.body_empty = all(isinstance(stmt, ast.Pass) for stmt in body)
    for node in ast.walk(solve):
        # kernel[grid](...) (Triton), or a call of a kernel or of what it returns (TileLang)
        if isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Subscript) or _called_name(node.func) in parsed.kernels
        ):
            parsed.launches = True
    parsed.comments = _python_comments(source.text)
    return parsed


def _called_name(func: ast.expr) -> Optional[str]:
    """`k` for `k(...)` and for `k(N)(...)`."""
    while isinstance(func, ast.Call):
        func = func.func
    return func.id if isinstance(func, ast.Name) else None


def _python_comments(text: str) -> List[Comment]:
    lines = text.split("\n")
    mixed = any("#" in line and ("'" in line or '"' in line) for line in lines)
    if not mixed and '"""' not in text and "'''" not in text:
        # no line mixes '#' and quotes, so every '#' starts a comment
        return [
            Comment(number, line.index("#") + 1, line[line.index("#") :].rstrip())
            for number, line in enumerate(lines, 1)
            if "#" in line
        ]
    comments = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                comments.append(Comment(tok.start[0], tok.start[1] + 1, tok.string.rstrip()))
    except (tokenize.TokenError, SyntaxError):
        pass
    return comments


def _blank_comments_c(text: str) -> Tuple[str, List[Tuple[int, str]]]:
    """C/CUDA text with comments replaced by spaces (offsets kept), and the comments found."""
    out = list(text)
    comments: List[Tuple[int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.append((i, text[i:j].rstrip()))
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            comments.append((i, text[i:j]))
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        i += 1
    return "".join(out), comments


def _matching(text: str, start: int, open_: str, close: str) -> int:
    """Index of the bracket closing the one at `start` (brackets of other kinds nest too)."""
    depth = 0
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: List[str] = []
    for i in range(start, len(text)):
        c = text[i]
        if c in pairs:
            stack.append(pairs[c])
            depth += 1
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return -1
            depth -= 1
            if depth == 0:
                return i if c == close else -1
    return -1


def _split_top(text: str) -> List[Tuple[int, str]]:
    """Split at commas outside brackets; (offset, piece) pairs."""
    pieces, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            pieces.append((start, text[start:i]))
            start = i + 1
    if text[start:].strip():
        pieces.append((start, text[start:]))
    return pieces


_CUDA_SOLVE = re.compile(r'extern\s+"C"\s+(?:__host__\s+)?void\s+solve\s*\(')
#: a function definition or declaration starting at column 0 (extern "C" solve does not match)
_C_FUNCTION = re.compile(r"^(?:[A-Za-z_][\w:<>,\*&]*[ \t]+)+\**([A-Za-z_]\w*)[ \t]*\(", re.M)


def parse_cuda(source: SourceFile) -> Parsed:
    text = source.text
    code, raw_comments = _blank_comments_c(text)
    parsed = Parsed()
    parsed.comments = [Comment(*source.position(o), t) for o, t in raw_comments]
    match = _CUDA_SOLVE.search(code)
    if not match:
        raise StarterSyntaxError(1, 1, 'no `extern "C" void solve(...)`')
    open_paren = match.end() - 1
    close_paren = _matching(code, open_paren, "(", ")")
    if close_paren < 0:
        raise StarterSyntaxError(*source.position(open_paren), "unbalanced parentheses")
    parsed.solve_line, parsed.solve_col = source.position(match.start())
    parsed.anchor_line = parsed.solve_line
    for offset, piece in _split_top(code[open_paren + 1 : close_paren]):
        decl = " ".join(piece.split())
        if not decl or decl == "void":
            continue
        name_match = re.search(r"(\w+)\s*(\[\s*\])?$", decl)
        if not name_match:
            raise StarterSyntaxError(*source.position(open_paren + 1 + offset), "bad parameter")
        name = name_match.group(1)
        indent = len(piece) - len(piece.lstrip())
        start = open_paren + 1 + offset + indent
        parsed.params.append(
            Param(name, decl[: name_match.start()].strip(), *source.position(start))
        )
    brace = re.compile(r"\s*\{").match(code, close_paren + 1)
    if not brace:
        raise StarterSyntaxError(*source.position(close_paren), "solve has no body")
    open_brace = brace.end() - 1
    close_brace = _matching(code, open_brace, "{", "}")
    if close_brace < 0:
        raise StarterSyntaxError(*source.position(open_brace), "unbalanced braces")
    body = code[open_brace + 1 : close_brace]
    parsed.body_start = source.position(open_brace)[0]
    parsed.body_end = source.position(close_brace)[0]
    parsed.body_empty = not body.strip()
    parsed.launches = "<<<" in body
    for function in _C_FUNCTION.finditer(code):
        name = function.group(1)
        if "__global__" in function.group(0):
            parsed.kernels.append(name)
        parsed.extras.append((*source.position(function.start()), name))
    return parsed


def _mojo_comments(text: str) -> List[Comment]:
    comments = []
    for number, line in enumerate(text.split("\n"), 1):
        if "#" not in line:
            continue
        if "'" not in line and '"' not in line:
            comments.append(Comment(number, line.index("#") + 1, line[line.index("#") :].rstrip()))
            continue
        quote = None
        i = 0
        while i < len(line):
            c = line[i]
            if quote:
                if c == "\\":
                    i += 2
                    continue
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#":
                comments.append(Comment(number, i + 1, line[i:].rstrip()))
                break
            i += 1
    return comments


_MOJO_DEF = re.compile(r"^(def|fn)\s+(\w+)\s*[\[(]", re.M)
_MOJO_STRUCT = re.compile(r"^(struct|trait|alias|comptime|var)\s+(\w+)", re.M)


def mojo_code(text: str, comments: List[Comment]) -> str:
    """The text with comments blanked, so that brackets and words inside them do not count."""
    by_line = {c.line: c for c in comments}
    lines = []
    for number, line in enumerate(text.split("\n"), 1):
        c = by_line.get(number)
        lines.append(line[: c.col - 1] + " " * (len(line) - c.col + 1) if c else line)
    return "\n".join(lines)


def parse_mojo(source: SourceFile) -> Parsed:
    text = source.text
    parsed = Parsed()
    parsed.comments = _mojo_comments(text)
    code = mojo_code(text, parsed.comments)
    solve = None
    for match in _MOJO_DEF.finditer(code):
        if match.group(2) == "solve" and solve is None:
            solve = match
        else:
            parsed.kernels.append(match.group(2))
            parsed.extras.append((*source.position(match.start()), match.group(2)))
    for match in _MOJO_STRUCT.finditer(code):
        parsed.extras.append((*source.position(match.start()), match.group(2)))
    if solve is None:
        raise StarterSyntaxError(1, 1, "no top-level `def solve(...)`")
    parsed.solve_line, parsed.solve_col = source.position(solve.start())
    lines = code.split("\n")
    anchor = parsed.solve_line
    while anchor > 1 and lines[anchor - 2].startswith("@"):
        anchor -= 1
        parsed.decorators.insert(0, lines[anchor - 1].strip())
    parsed.anchor_line = anchor
    open_paren = code.index("(", solve.start())
    close_paren = _matching(code, open_paren, "(", ")")
    if close_paren < 0:
        raise StarterSyntaxError(*source.position(open_paren), "unbalanced parentheses")
    for offset, piece in _split_top(code[open_paren + 1 : close_paren]):
        decl = piece.strip()
        if not decl:
            continue
        indent = len(piece) - len(piece.lstrip())
        line, col = source.position(open_paren + 1 + offset + indent)
        name, _, annotation = decl.partition(":")
        words = name.split()
        parsed.params.append(
            Param(words[-1] if words else name, annotation.strip() or None, line, col)
        )
    colon = re.compile(r":[ \t]*(\n|$)").search(code, close_paren)
    end_of_header = colon.start() if colon else len(code)
    parsed.effects = " ".join(code[close_paren + 1 : end_of_header].split())
    if "->" in parsed.effects:
        parsed.return_annotation = parsed.effects.split("->", 1)[1].strip()
    header_end_line = source.position(end_of_header)[0]
    body_lines = []
    number = header_end_line
    while number < len(lines):
        line = lines[number]
        if line.strip() and not line.startswith((" ", "\t")):
            break
        body_lines.append((number + 1, line))
        number += 1
    while body_lines and not body_lines[-1][1].strip():
        body_lines.pop()
    parsed.body_start = body_lines[0][0] if body_lines else header_end_line
    parsed.body_end = body_lines[-1][0] if body_lines else header_end_line
    statements = [line.strip() for _, line in body_lines if line.strip()]
    parsed.body_empty = statements == ["pass"]
    parsed.launches = any("enqueue_function" in s for s in statements)
    return parsed


#: a language's `starter_syntax` -> the parser that reads its starters
PARSERS = {"c": parse_cuda, "mojo": parse_mojo, "python": parse_python}


def syntax_rules() -> Dict[str, Dict[str, tuple]]:
    """The rules only one syntax has: on the source text, on the parsed starter, and the one
    that reads a parameter's declared type (it returns whether it judged that parameter)."""
    return {
        "text": {"mojo": (_mojo_api,)},
        "parsed": {"mojo": (_mojo_solve,), "c": (_cuda_headers,)},
        "type": {"mojo": (_mojo_pointer,), "c": (_cuda_param,)},
    }


# ---------------------------------------------------------------------------------- checking


def check(ch: ChallengeDir, model: Optional[ChallengeModel], report: Report) -> None:
    signature = model.signature if model is not None else None
    num_gpus = model.literal("num_gpus", 1) if model is not None else 1
    ranks = isinstance(num_gpus, int) and num_gpus > 1
    rules = syntax_rules()
    for lang in LANGUAGES:
        source = ch.file(f"starter/{lang.starter_name}")
        if source is None:
            continue
        syntax = lang.starter_syntax
        for rule in rules["text"].get(syntax, ()):
            rule(source, report)
        try:
            parsed = PARSERS[syntax](source)
        except StarterSyntaxError as exc:
            report.add("S001", source.display, exc.line, exc.col, exc.message)
            continue
        for rule in rules["parsed"].get(syntax, ()):
            rule(parsed, source, signature, report)
        _shape(lang, parsed, source, ch.easy, report)
        if signature is None:
            continue
        complete = all(entry.dtypes for entry in signature)
        _params(lang, parsed, source, signature, complete, report, ranks)
        if complete:  # without the types, which parameters are tensors is unknown
            _comments(lang, parsed, source, model, ch.easy, report, ranks)


def _shape(lang: Language, parsed: Parsed, source: SourceFile, easy: bool, report: Report) -> None:
    where = source.display
    if easy and lang.scaffolded:
        missing = []
        if not parsed.kernels:
            missing.append("a kernel stub")
        if not parsed.launches:
            missing.append("the launch code in solve")
        if missing:
            report.add(
                "S011",
                where,
                parsed.solve_line,
                parsed.solve_col,
                f"easy {lang.title} starter lacks {' and '.join(missing)}",
            )
        return
    what = "a medium/hard starter" if not easy else f"an easy {lang.title} starter"
    for line, col, name in _stub_definitions(parsed):
        report.add("S010", where, line, col, f"`{name}` is defined, but {what} holds only solve")
    if not parsed.body_empty:
        report.add(
            "S010",
            where,
            parsed.body_start,
            1,
            f"solve's body is not empty, but {what} leaves it empty",
            f"leave only `{lang.empty_body}`",
        )


def _stub_definitions(parsed: Parsed) -> List[Tuple[int, int, str]]:
    """The definitions S010 flags where a starter holds only solve: a kernel stub, anything after
    solve; a helper shipped before solve (a hash the solver uses, as public 24 has) is not one."""
    return [
        (line, col, name)
        for line, col, name in parsed.extras
        if not (line < parsed.solve_line and name not in parsed.kernels)
    ]


def stub_definitions(
    lang: Language, text: str, easy: bool
) -> Tuple[List[int], List[Tuple[int, str]]]:
    """Where S010 would flag a definition in this starter's text (the importer's original): the
    first line of each top-level definition (and of solve), and (line, name) of those it flags.
    None flagged for an easy scaffolded starter (its kernel stub is the scaffold) or a text that
    does not parse."""
    try:
        parsed = PARSERS[lang.starter_syntax](SourceFile.of_text(text, lang.starter_name))
    except StarterSyntaxError:
        return [], []
    starts = sorted({line for line, _, _ in parsed.extras} | {parsed.anchor_line})
    if easy and lang.scaffolded:
        return starts, []
    return starts, [(line, name) for line, _, name in _stub_definitions(parsed)]


# ---------------------------------------------------------------------------- parameter types


def _expected_scalar(lang: Language, entry: SigEntry) -> Set[str]:
    accepted: Set[str] = set()
    for row in entry.dtypes:
        accepted |= lang.accepted_scalar_types(SigParam(entry.name, row, entry.direction, False))
    return {a for a in accepted if a}


def _expected_c_scalar(entry: SigEntry) -> Set[str]:
    """C spellings of a scalar, synonyms folded; size_t where the signature says c_size_t."""
    accepted = {_cuda_base(row.cuda) for row in entry.dtypes}
    if entry.ctype == SIZE_T:
        accepted.add("size_t")
    return {a for a in accepted if a}


def _cuda_base(text: str) -> str:
    words = [w for w in text.replace("*", " ").split() if w not in CUDA_QUALIFIERS | {"const"}]
    base = " ".join(words)
    return CUDA_SYNONYMS.get(base, base)


def _params(
    lang: Language,
    parsed: Parsed,
    source: SourceFile,
    signature: List[SigEntry],
    complete: bool,
    report: Report,
    ranks: bool = False,
) -> None:
    """solve's parameters: the signature's, in its order (then, in a multi-GPU challenge, the
    communicator, rank and world size of a language that takes them)."""
    where = source.display
    params = [e.sig_param() for e in signature]
    visible = {p.name for p in lang.visible(params)}
    expected = [e for e in signature if e.name in visible]
    got = [p.name for p in parsed.params]
    for param in parsed.params:
        if param.name in lang.keywords:
            report.add(
                "S015",
                where,
                param.line,
                param.col,
                f"parameter '{param.name}' is a {lang.title} keyword",
                f"write {lang.spelled(param.name)!r}, as chgen does",
            )
    spelled = {p.name: s.name for p, s in zip(lang.visible(params), lang.spelled_params(params))}
    wanted = [spelled[e.name] for e in expected] + [p.name for p in lang.rank_params() if ranks]
    if got != wanted:
        detail = ""
        if lang.drops_outputs:
            dropped_inout = [
                e.name for e in signature if e.direction == "inout" and e.name not in got
            ]
            kept_out = [e.name for e in signature if e.direction == "out" and e.name in got]
            if dropped_inout:
                detail = f"; {lang.title} keeps inout parameters ({', '.join(dropped_inout)})"
            elif kept_out:
                detail = f"; {lang.title} drops out parameters ({', '.join(kept_out)})"
        report.add(
            "S002",
            where,
            parsed.solve_line,
            parsed.solve_col,
            f"solve takes ({', '.join(got)}); the signature gives ({', '.join(wanted)}){detail}",
        )
        return
    if not complete:
        return
    for entry, param in zip(expected, parsed.params):
        _param_type(lang, entry, param, where, report)
    if lang.return_annotation(params) is not None:
        _jax_return(lang, parsed, where, params, report)


def _param_type(lang: Language, entry: SigEntry, param: Param, where: str, report: Report) -> None:
    if not entry.dtypes:
        return  # P009 already reports a type the dtype table lacks
    written = param.annotation
    if written is None:
        report.add("S003", where, param.line, param.col, f"'{param.name}' has no type annotation")
        return
    normalized = " ".join(written.split())
    for rule in syntax_rules()["type"].get(lang.starter_syntax, ()):
        if rule(lang, entry, param, normalized, where, report):
            return
    if entry.is_tensor:
        accepted = {lang.tensor_type(entry.sig_param())}
    else:
        accepted = _expected_scalar(lang, entry)
    if normalized not in accepted:
        report.add(
            "S003",
            where,
            param.line,
            param.col,
            f"'{param.name}' is {normalized}; {entry.written} is {_one_of(accepted)} in "
            f"{lang.title}",
            f"write {_one_of(accepted)}",
        )


def _one_of(options: Set[str]) -> str:
    ordered = sorted(options)
    return ordered[0] if len(ordered) == 1 else "one of " + ", ".join(ordered)


def _cuda_param(
    lang: Language, entry: SigEntry, param: Param, written: str, where: str, report: Report
) -> bool:
    """Every CUDA parameter: pointer, base type and const; scalars by their C spelling."""
    pointer = "*" in written or written.endswith("]")
    base = _cuda_base(written)
    const = "const" in written.replace("*", " ").split()
    if entry.is_tensor:
        accepted = {_cuda_base(row.cuda) for row in entry.dtypes}
        expected = f"{'const ' if entry.direction == 'in' else ''}{sorted(accepted)[0]}*"
        if not pointer or base not in accepted:
            report.add(
                "S003",
                where,
                param.line,
                param.col,
                f"'{param.name}' is `{written}`; {entry.written} ({entry.direction}) is "
                f"`{expected}` in {lang.title}",
                f"write `{expected} {param.name}`",
            )
        elif const != (entry.direction == "in"):
            report.add(
                "S004",
                where,
                param.line,
                param.col,
                f"'{param.name}' is {entry.direction} but `{written}` "
                + ("lacks const" if entry.direction == "in" else "is const"),
                f"write `{expected} {param.name}`",
            )
        return True
    accepted = _expected_c_scalar(entry)
    if pointer or base not in accepted:
        report.add(
            "S003",
            where,
            param.line,
            param.col,
            f"'{param.name}' is `{written}`; {entry.written} is {_one_of(accepted)} in "
            f"{lang.title}",
            f"write `{sorted(accepted)[0]} {param.name}`",
        )
    return True


_MOJO_POINTER = re.compile(r"^(\w+)\[(.*)\]$")


def mojo_pointer_parts(annotation: str) -> Optional[Tuple[str, List[str]]]:
    match = _MOJO_POINTER.match(annotation)
    if not match:
        return None
    args = [piece.strip() for _, piece in _split_top(match.group(2))]
    return match.group(1), [a for a in args if "=" not in a]


def _mojo_pointer(
    lang: Language, entry: SigEntry, param: Param, written: str, where: str, report: Report
) -> bool:
    """Mojo tensors: a Pointer of the element type with a mutable origin for outputs (scalars
    are left to the common rule)."""
    if not entry.is_tensor:
        return False
    expected = lang.tensor_type(entry.sig_param())
    parts = mojo_pointer_parts(written)
    elements = {row.mojo for row in entry.dtypes}
    if parts is None or not parts[0].endswith("Pointer") or not parts[1]:
        report.add(
            "S003",
            where,
            param.line,
            param.col,
            f"'{param.name}' is `{written}`; a pointer parameter is `{expected}`",
            f"write `{expected}`",
        )
        return True
    kind, args = parts
    if args[0] not in elements:
        report.add(
            "S003",
            where,
            param.line,
            param.col,
            f"'{param.name}' points to {args[0]}; {entry.written} is {_one_of(elements)} in "
            f"{lang.title}",
            f"write `{expected}`",
        )
    elif len(args) > 1 and args[1] in MOJO_IMMUTABLE_ORIGINS and entry.direction != "in":
        report.add(
            "S004",
            where,
            param.line,
            param.col,
            f"'{param.name}' is {entry.direction} but its origin {args[1]} is immutable",
            f"write `{expected}`",
        )
    return True


def _jax_return(lang: Language, parsed: Parsed, where: str, params: list, report: Report) -> None:
    expected = lang.return_annotation(params)
    written = parsed.return_annotation
    normalized = None
    if written is not None:
        normalized = written.replace("Tuple[", "tuple[").replace("typing.", "")
    if normalized != expected:
        report.add(
            "S005",
            where,
            parsed.solve_line,
            parsed.solve_col,
            f"solve returns {written or 'no annotation'}; the outputs make it {expected}",
            f"annotate `-> {expected}`",
        )


# ---------------------------------------------------------------------------------- comments


def _singular_variant(lang: Language, expected: str, names: int) -> Optional[str]:
    """After a single name the set writes both '(i.e. pointer ...)' and the plural; accept both."""
    singular, plural = lang.easy_suffix
    if names == 1 and singular and expected.endswith(singular):
        return expected[: -len(singular)] + plural
    return None


def _comments(
    lang: Language,
    parsed: Parsed,
    source: SourceFile,
    model: ChallengeModel,
    easy: bool,
    report: Report,
    ranks: bool = False,
) -> None:
    where = source.display
    params = model.sig_params()
    expected = lang.comment(params, easy)
    named = [p for p in lang.visible(params) if p.is_tensor and lang.names_tensor(p)]
    accepted = {expected, _singular_variant(lang, expected, len(named))} - {None}
    comments = list(parsed.comments)
    if lang.return_comment:
        inside = [
            c
            for c in comments
            if c.text == lang.return_comment and parsed.solve_line < c.line <= parsed.body_end
        ]
        if inside:
            comments.remove(inside[0])
        else:
            report.add(
                "S009",
                where,
                parsed.body_start,
                1,
                f"solve's body lacks `{lang.return_comment}`",
            )
    blocks = _comment_blocks(comments)
    slot = parsed.anchor_line - 1
    above = next((b for b in blocks if b[-1].line == slot), None)
    chosen = above
    if above is None:
        matching = next((b for b in blocks if _joined(b, lang) in accepted), None)
        if matching is not None:
            chosen = matching
            report.add(
                "S008",
                where,
                matching[0].line,
                matching[0].col,
                "the parameter comment is not on the line directly above solve",
            )
        else:
            report.add(
                "S008",
                where,
                parsed.anchor_line,
                1,
                f"no parameter comment above solve; expected `{expected}`",
                "add it on the line directly above solve (or above its decorator)",
            )
    elif _joined(above, lang) not in accepted:
        report.add(
            "S007",
            where,
            above[0].line,
            above[0].col,
            f"comment reads `{_joined(above, lang)}`; expected `{expected}`",
        )
    for block in blocks:
        if block is chosen:
            continue
        if ranks and lang.rank_params() and chosen and block[-1].line < chosen[0].line:
            continue  # a multi-GPU starter's note on its ranks, above the parameter comment
        for comment in block:
            report.add(
                "S006",
                where,
                comment.line,
                comment.col,
                f"extra comment `{comment.text[:50]}`",
            )


def _comment_blocks(comments: List[Comment]) -> List[List[Comment]]:
    """Full-line comments on consecutive lines form one block (a formatter may wrap a long one);
    a comment after code stands alone."""
    blocks: List[List[Comment]] = []
    for comment in sorted(comments, key=lambda c: (c.line, c.col)):
        previous = blocks[-1][-1] if blocks else None
        if (
            previous is not None
            and comment.col == 1
            and previous.col == 1
            and comment.line == previous.line + 1
        ):
            blocks[-1].append(comment)
        else:
            blocks.append([comment])
    return blocks


def _joined(block: List[Comment], lang: Language) -> str:
    """The block as one line: '// a, b are' + '// pointers' -> '// a, b are pointers'."""
    prefix = lang.comment_prefix
    text = block[0].text
    for comment in block[1:]:
        rest = comment.text[len(prefix) :] if comment.text.startswith(prefix) else comment.text
        text += " " + rest.strip()
    return text


# -------------------------------------------------------------------------------------- CUDA


def _cuda_headers(
    parsed: Parsed, source: SourceFile, signature: Optional[List[SigEntry]], report: Report
) -> None:
    if not signature:
        return
    included = set(re.findall(r"#\s*include\s*[<\"]([^>\"]+)[>\"]", source.text))
    needed: Dict[str, DType] = {}
    by_base = {}
    for entry in signature:
        for row in entry.dtypes:
            by_base[_cuda_base(row.cuda)] = row
    for param in parsed.params:
        row = by_base.get(_cuda_base(param.annotation or ""))
        if row is not None and row.cuda_include and row.cuda_include not in included:
            needed.setdefault(row.cuda_include, row)
    for header, row in needed.items():
        report.add(
            "S016",
            source.display,
            1,
            1,
            f"`{row.cuda}` needs #include <{header}>",
            f"add `#include <{header}>` before <cuda_runtime.h>",
        )


# -------------------------------------------------------------------------------------- Mojo

_MOJO_OLD_IMPORT = re.compile(r"^\s*(from|import)\s+((?:std\.)?gpu\b[\w.]*)", re.M)
_REMOVED_ORIGINS = re.compile(
    r"\b(MutExternalOrigin|ImmutExternalOrigin|MutableAnyOrigin|ImmutableAnyOrigin)\b"
)
_MOJO_REMOVED = [
    (re.compile(r"\bUnsafePointer\b"), "`UnsafePointer` is deprecated", "use `Pointer[T, origin]`"),
    (
        _REMOVED_ORIGINS,
        "origin `{0}` no longer exists",
        "use MutUntrackedOrigin (outputs) / ImmUntrackedOrigin (inputs)",
    ),
    (re.compile(r"^\s*fn\s+\w+", re.M), "`fn` has been removed", "use `def`"),
    (re.compile(r"^\s*alias\s+\w+", re.M), "`alias` has been removed", "use `comptime NAME = ...`"),
    (
        re.compile(r"\bcompile_function\s*\["),
        "`ctx.compile_function[...]` is the old launch API",
        "launch with `ctx.enqueue_function[kernel](args..., grid_dim=..., block_dim=...)`",
    ),
]


def _mojo_api(source: SourceFile, report: Report) -> None:
    code = mojo_code(source.text, _mojo_comments(source.text))
    for match in _MOJO_OLD_IMPORT.finditer(code):
        module = match.group(2)
        current = "max.gpu.host" if module.endswith(".host") else "max.gpu"
        line, col = source.position(match.start(2))
        report.add(
            "S012",
            source.display,
            line,
            col,
            f"module `{module}` no longer exists",
            f"import from `{current}`",
        )
    for pattern, message, fix in _MOJO_REMOVED:
        matches = list(pattern.finditer(code))
        if not matches:
            continue
        first = matches[0]
        name = first.group(1) if first.groups() else first.group(0).strip()
        skip = len(first.group(0)) - len(first.group(0).lstrip())
        line, col = source.position(first.start() + skip)
        more = f" ({len(matches)} places)" if len(matches) > 1 else ""
        report.add("S014", source.display, line, col, message.format(name) + more, fix)
    for match in re.finditer(r"\bPointer\[\s*\w+\s*,\s*(\w+)\s*\]", code):
        origin = match.group(1)
        if origin not in MOJO_ORIGINS and not _REMOVED_ORIGINS.match(origin):
            line, col = source.position(match.start(1))
            report.add(
                "S014",
                source.display,
                line,
                col,
                f"origin `{origin}` is not one of {', '.join(sorted(MOJO_ORIGINS))}",
            )


def _mojo_solve(
    parsed: Parsed, source: SourceFile, signature: Optional[List[SigEntry]], report: Report
) -> None:
    where = source.display
    problems = []
    if "@export" not in parsed.decorators:
        problems.append("lacks @export")
    if "raises" in parsed.effects.split():
        problems.append("is marked `raises`")
    if 'abi("C")' not in parsed.effects.replace(" ", ""):
        problems.append('lacks `abi("C")`')
    if problems:
        report.add(
            "S013",
            where,
            parsed.solve_line,
            parsed.solve_col,
            f"exported solve {', '.join(problems)}",
        )
