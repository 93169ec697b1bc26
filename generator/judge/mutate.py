"""Mistakes derived from a reference's own code: its `reference_impl` rewritten at one site.

Pure AST, no torch: the plan is made here, on the machine that builds, and each mutated method
travels as text in the derived solution file (generator/judge/derived.py). Every operator lists
its sites in the method's source order, skipping what cannot change a result (assertions,
`raise`, f-strings); a site's mutation is one rewritten method. `choose` picks a bounded number of
them, the same ones on every run (a seed of the challenge's name), one operator after another so
that a cap still covers every kind of mistake.

The operators: an arithmetic or comparison operator swapped (`+`/`-`, `*`/`/`, `<`/`<=`, max/min),
an additive term dropped, a reduction over the wrong dimension, a slice end (or range stop) off by
one, a transposed index (`x[i, j]` read as `x[j, i]`, or a transpose left out), and a sum, product
or softmax accumulated in float16 or bfloat16 (`LOW_PRECISION`, a helper the derived solution
provides).

`precision_variant` is the other rewrite: the same method with every floating dtype it names
(`torch.float32`, `.float()`, ...) turned into another one, so that the tolerance audit can run
the reference in float64 and in half precision on inputs of that dtype (generator/judge/audit.py).
"""

from __future__ import annotations

import ast
import copy
import random
import textwrap
import zlib
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

#: the name under which a derived solution provides the low-precision helper to mutated code:
#: LOW_PRECISION(function, "float16")(*args) runs `function` on float16 copies of its tensors
LOW_PRECISION = "_chgen_low_precision"
#: the same for a method: LOW_PRECISION_METHOD(x, "sum", "float16")(*args) is x.half().sum(...)
LOW_PRECISION_METHOD = "_chgen_low_precision_method"

SWAPPED_BINOPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Pow: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
SWAPPED_COMPARISONS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
SWAPPED_CALLS = {
    "max": "min",
    "min": "max",
    "amax": "amin",
    "amin": "amax",
    "maximum": "minimum",
    "minimum": "maximum",
    "argmax": "argmin",
    "argmin": "argmax",
}
#: calls that reduce over a dimension given as `dim=` (or their first argument after the tensor)
REDUCTIONS = {
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "softmax",
    "log_softmax", "cumsum", "cumprod", "logsumexp", "norm", "var", "std", "all", "any",
    "median", "cummax", "cummin", "topk", "sort", "argsort", "nansum", "count_nonzero",
}  # fmt: skip
#: calls whose result accumulates many products or terms (what a low-precision solution
#: computes worse)
ACCUMULATING = {
    "sum", "mean", "cumsum", "prod", "matmul", "mm", "bmm", "einsum", "dot", "mv", "var",
    "std", "norm", "logsumexp", "softmax", "log_softmax", "addmm", "baddbmm", "tensordot",
    "linear", "conv1d", "conv2d", "conv3d", "layer_norm", "rms_norm", "nansum",
}  # fmt: skip
TRANSPOSES = {"t", "transpose", "mT", "T", "permute"}
LOW_DTYPES = ("float16", "bfloat16")
FLOAT_NAMES = {"float32", "float", "float16", "half", "bfloat16", "float64", "double"}
CAST_METHODS = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64"}


@dataclass(frozen=True)
class Mutation:
    """One mistake: `operator` at `line` of challenge.py, and the rewritten method. The name is
    `<operator>_l<line>` (`_2`, `_3` for further sites of one operator on one line)."""

    name: str
    operator: str
    line: int
    mistake: str  # in words, with the code before and after (never shown in committed results)
    method: str  # the rewritten reference_impl, as source


class _Sites(ast.NodeVisitor):
    """Every node of the method body in source order, below nothing that cannot matter."""

    def __init__(self) -> None:
        self.nodes: List[ast.AST] = []

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, (ast.Assert, ast.Raise, ast.JoinedStr)):
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a docstring
        self.nodes.append(node)
        super().generic_visit(node)


def _nodes(function: ast.FunctionDef) -> List[ast.AST]:
    sites = _Sites()
    for statement in function.body:
        sites.visit(statement)
    return sites.nodes


def _call_name(node: ast.AST) -> Optional[str]:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def _is_method_call(node: ast.Call) -> bool:
    """`x.sum()` rather than `torch.sum(x)` / `F.softmax(x)` / `sum(x)`."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    return not (isinstance(owner, ast.Name) and owner.id in ("torch", "F", "math", "nn"))


def _int_value(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _int_node(value: int) -> ast.AST:
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def _dim_argument(node: ast.Call) -> Optional[tuple]:
    """Where a reduction's dimension is written: ("keyword", index) or ("arg", index)."""
    for index, keyword in enumerate(node.keywords):
        if keyword.arg in ("dim", "axis") and _int_value(keyword.value) is not None:
            return ("keyword", index)
    position = 0 if _is_method_call(node) else 1
    if len(node.args) > position and _int_value(node.args[position]) is not None:
        return ("arg", position)
    return None


def _wrong_dim(dim: int) -> int:
    """Another dimension that exists whenever `dim` does: 0 <-> -1, else one nearer to 0."""
    if dim == 0:
        return -1
    if dim == -1:
        return 0
    return dim - 1 if dim > 0 else dim + 1


# --------------------------------------------------------------------------------- operators
# Each operator: sites(nodes) -> the nodes it can change; mutate(node) -> (replacement, words),
# the replacement being a new node put where the old one was (or the same node changed).


def _swap_sites(nodes: List[ast.AST]) -> List[ast.AST]:
    found = []
    for node in nodes:
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in SWAPPED_BINOPS:
            found.append(node)
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if type(node.ops[0]) in SWAPPED_COMPARISONS:
                found.append(node)
        elif _call_name(node) in SWAPPED_CALLS:
            found.append(node)
    return found


def _swap(node: ast.AST) -> ast.AST:
    if isinstance(node, (ast.BinOp, ast.AugAssign)):
        node.op = SWAPPED_BINOPS[type(node.op)]()
    elif isinstance(node, ast.Compare):
        node.ops = [SWAPPED_COMPARISONS[type(node.ops[0])]()]
    else:
        func = node.func
        if isinstance(func, ast.Attribute):
            func.attr = SWAPPED_CALLS[func.attr]
        else:
            func.id = SWAPPED_CALLS[func.id]
    return node


def _drop_sites(nodes: List[ast.AST]) -> List[ast.AST]:
    return [n for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub))]


def _drop(node: ast.BinOp) -> ast.AST:
    return node.left


def _dim_sites(nodes: List[ast.AST]) -> List[ast.AST]:
    return [n for n in nodes if _call_name(n) in REDUCTIONS and _dim_argument(n) is not None]


def _dim(node: ast.Call) -> ast.AST:
    kind, index = _dim_argument(node)
    if kind == "keyword":
        keyword = node.keywords[index]
        keyword.value = _int_node(_wrong_dim(_int_value(keyword.value)))
    else:
        node.args[index] = _int_node(_wrong_dim(_int_value(node.args[index])))
    return node


def _is_range(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and 1 <= len(node.args) <= 3
    )


def _slice_sites(nodes: List[ast.AST]) -> List[ast.AST]:
    return [
        n
        for n in nodes
        if (isinstance(n, ast.Slice) and n.upper is not None and n.step is None) or _is_range(n)
    ]


def _slice(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Slice):
        node.upper = ast.BinOp(node.upper, ast.Sub(), ast.Constant(1))
    else:
        stop = 0 if len(node.args) == 1 else 1
        node.args[stop] = ast.BinOp(node.args[stop], ast.Sub(), ast.Constant(1))
    return node


def _transpose_sites(nodes: List[ast.AST]) -> List[ast.AST]:
    found = []
    for node in nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
            first, second = (node.slice.elts + [None, None])[:2]
            if second is not None and ast.dump(first) != ast.dump(second):
                found.append(node)
        elif isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            found.append(node)
        elif _call_name(node) in TRANSPOSES and _is_method_call(node):
            found.append(node)
    return found


def _transpose(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Subscript):
        elts = node.slice.elts
        elts[0], elts[1] = elts[1], elts[0]
        return node
    if isinstance(node, ast.Attribute):
        return node.value  # x.T read as x
    return node.func.value  # x.t() / x.transpose(a, b) / x.permute(...) read as x


def _low_sites(nodes: List[ast.AST]) -> List[ast.AST]:
    return [
        n
        for n in nodes
        if _call_name(n) in ACCUMULATING
        or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult))
    ]


def _low(dtype: str) -> Callable[[ast.AST], ast.AST]:
    def mutate(node: ast.AST) -> ast.AST:
        if isinstance(node, ast.BinOp):  # a @ b
            helper = ast.Call(
                ast.Name(LOW_PRECISION_METHOD, ast.Load()),
                [node.left, ast.Constant("__matmul__"), ast.Constant(dtype)],
                [],
            )
            return ast.Call(helper, [node.right], [])
        if _is_method_call(node):
            helper = ast.Call(
                ast.Name(LOW_PRECISION_METHOD, ast.Load()),
                [node.func.value, ast.Constant(node.func.attr), ast.Constant(dtype)],
                [],
            )
        else:
            helper = ast.Call(
                ast.Name(LOW_PRECISION, ast.Load()), [node.func, ast.Constant(dtype)], []
            )
        return ast.Call(helper, node.args, node.keywords)

    return mutate


@dataclass(frozen=True)
class Operator:
    name: str
    words: str
    sites: Callable[[List[ast.AST]], List[ast.AST]]
    mutate: Callable[[ast.AST], ast.AST]


OPERATORS = (
    Operator("swap_operator", "an operator swapped", _swap_sites, _swap),
    Operator("drop_term", "a term dropped", _drop_sites, _drop),
    Operator("reduce_wrong_dim", "a reduction over the wrong dimension", _dim_sites, _dim),
    Operator("slice_end_off_by_one", "a slice end off by one", _slice_sites, _slice),
    Operator("transpose_index", "a transposed index", _transpose_sites, _transpose),
    Operator("accumulate_float16", "accumulated in float16", _low_sites, _low("float16")),
    Operator("accumulate_bfloat16", "accumulated in bfloat16", _low_sites, _low("bfloat16")),
)


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST):
        self.target, self.replacement = target, replacement

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return self.replacement
        return super().visit(node)


def _parse_method(source: str) -> ast.FunctionDef:
    module = ast.parse(textwrap.dedent(source))
    function = module.body[0]
    if not isinstance(function, ast.FunctionDef):
        raise ValueError("not a function definition")
    return function


def _short(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 70 else text[:67] + "..."


def mutations(method_source: str, first_line: int = 1) -> List[Mutation]:
    """Every mutation of the method (its source as challenge.py writes it, the `def` at
    `first_line`), operator by operator, each in source order."""
    found: List[tuple] = []
    original = _parse_method(method_source)
    for operator in OPERATORS:
        count = len(operator.sites(_nodes(original)))
        for index in range(count):
            function = _parse_method(method_source)  # a fresh tree per mutation
            node = operator.sites(_nodes(function))[index]
            line = first_line + getattr(node, "lineno", 1) - 1
            before = _short(node)
            replacement = operator.mutate(copy.deepcopy(node))
            after = _short(replacement)
            if before == after:
                continue
            function = _Replace(node, replacement).visit(function)
            ast.fix_missing_locations(function)
            mistake = f"{operator.words} at line {line}: {before} -> {after}"
            found.append((operator.name, line, mistake, ast.unparse(function)))
    return _unique_names(found)


def _unique_names(found: List[tuple]) -> List[Mutation]:
    seen: Dict[str, int] = {}
    named = []
    for operator, line, mistake, method in found:
        name = f"{operator}_l{line}"
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}_{seen[name]}"
        named.append(Mutation(name, operator, line, mistake, method))
    return named


def choose(found: List[Mutation], limit: int, seed_text: str) -> List[Mutation]:
    """At most `limit` mutations, the same on every run: each operator's sites shuffled with a
    seed of `seed_text`, then one site of each operator in turn."""
    rng = random.Random(zlib.crc32(seed_text.encode()))
    queues: Dict[str, List[Mutation]] = {}
    for mutation in found:
        queues.setdefault(mutation.operator, []).append(mutation)
    for queue in queues.values():
        rng.shuffle(queue)
    picked: List[Mutation] = []
    order = [op.name for op in OPERATORS if op.name in queues]
    while len(picked) < limit and any(queues[name] for name in order):
        for name in order:
            if queues[name] and len(picked) < limit:
                picked.append(queues[name].pop(0))
    return picked


# ------------------------------------------------------------------------------- precision
class _Precision(ast.NodeTransformer):
    """Every floating dtype the code names becomes `dtype`: `torch.float32` -> `torch.float64`,
    `x.float()` -> `x.to(torch.float64)`."""

    def __init__(self, dtype: str):
        self.dtype = dtype

    def _dtype_node(self) -> ast.AST:
        return ast.Attribute(ast.Name("torch", ast.Load()), self.dtype, ast.Load())

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id == "torch" and node.attr in FLOAT_NAMES:
            return ast.copy_location(self._dtype_node(), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in CAST_METHODS
            and not node.args
            and not node.keywords
            and _is_method_call(node)
        ):
            call = ast.Call(ast.Attribute(func.value, "to", ast.Load()), [self._dtype_node()], [])
            return ast.copy_location(call, node)
        return node


def precision_variant(method_source: str, dtype: str) -> str:
    """The method with every floating dtype it names turned into `dtype` (a torch dtype name)."""
    function = _parse_method(method_source)
    function = _Precision(dtype).visit(function)
    ast.fix_missing_locations(function)
    return ast.unparse(function)
