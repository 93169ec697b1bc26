"""challenge.py read statically: the Challenge class, its methods and its solve signature.

Several areas need the same facts (the signature drives the starter, HTML and deep rules), so they
are extracted once here from the AST, without importing the file.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from generator.checks.source import SourceFile
from generator.dtypes import DTYPES, DType, by_ctypes_tensor
from generator.languages import SigParam

REQUIRED_METHODS = (
    "reference_impl",
    "get_solve_signature",
    "generate_example_test",
    "generate_functional_test",
    "generate_performance_test",
)
ATTRIBUTES = ("name", "atol", "rtol", "num_gpus", "access_tier")
DIRECTIONS = ("in", "out", "inout")

#: ctypes names for the same C type as a dtype-table spelling
CTYPES_ALIASES = {
    "ctypes.c_int32": "ctypes.c_int",
    "ctypes.c_uint": "ctypes.c_uint32",
    "ctypes.c_ubyte": "ctypes.c_uint8",
    "ctypes.c_byte": "ctypes.c_int8",
    "ctypes.c_longlong": "ctypes.c_int64",
}
#: conventions: sizes are int even where c_size_t is written; the unsigned spelling is faithful too
SIZE_T = "ctypes.c_size_t"
SIZE_T_DTYPES = ("int32", "uint32")

_BARE_CTYPES = re.compile(r"(?<![\w.])(c_\w+|POINTER)\b")
_POINTER = re.compile(r"^ctypes\.POINTER\((ctypes\.c_\w+)\)$")


def normalize_ctype(spelling: str) -> str:
    """'POINTER(c_int32)' / 'ctypes.POINTER(ctypes.c_int32)' -> 'ctypes.POINTER(ctypes.c_int)'."""
    text = _BARE_CTYPES.sub(r"ctypes.\1", spelling.replace(" ", ""))
    pointer = _POINTER.match(text)
    if pointer:
        inner = CTYPES_ALIASES.get(pointer.group(1), pointer.group(1))
        return f"ctypes.POINTER({inner})"
    return CTYPES_ALIASES.get(text, text)


def dtypes_for(ctype: str) -> Tuple[bool, List[DType]]:
    """(is_tensor, the dtype-table rows this ctypes spelling can stand for)."""
    if ctype.startswith("ctypes.POINTER("):
        return True, by_ctypes_tensor(ctype)
    if ctype == SIZE_T:
        return False, [DTYPES[name] for name in SIZE_T_DTYPES]
    return False, [row for row in DTYPES.values() if row.ctypes_scalar == ctype]


@dataclass
class SigEntry:
    """One entry of get_solve_signature."""

    name: str
    ctype: str  # normalized spelling
    written: str  # as written
    direction: str
    is_tensor: bool
    dtypes: List[DType]
    line: int
    col: int

    def sig_param(self) -> SigParam:
        dtype = self.dtypes[0] if self.dtypes else DTYPES["float32"]
        return SigParam(self.name, dtype, self.direction, self.is_tensor)


@dataclass
class ChallengeModel:
    source: SourceFile
    module: ast.Module
    cls: Optional[ast.ClassDef] = None
    base_ok: bool = False
    methods: Dict[str, ast.FunctionDef] = field(default_factory=dict)
    functions: Dict[str, ast.FunctionDef] = field(default_factory=dict)  # module level
    attributes: Dict[str, ast.stmt] = field(default_factory=dict)
    signature: Optional[List[SigEntry]] = None
    signature_issues: List[Tuple[ast.AST, str]] = field(default_factory=list)

    @property
    def tensors(self) -> List[SigEntry]:
        return [e for e in self.signature or [] if e.is_tensor]

    def sig_params(self) -> List[SigParam]:
        return [e.sig_param() for e in self.signature or []]

    def attribute_value(self, name: str) -> Optional[ast.expr]:
        node = self.attributes.get(name)
        return getattr(node, "value", None)


_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def index_tree(module: ast.Module) -> None:
    """One depth-first pass; afterwards walk() of any scope is a slice of it, not a new walk."""
    order: List[ast.AST] = []
    node_type = ast.AST

    def visit(node: ast.AST) -> None:
        start = len(order)
        order.append(node)
        for name in node._fields:
            if name == "ctx":  # Load/Store markers
                continue
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        visit(item)
            elif isinstance(value, node_type):
                visit(value)
        if isinstance(node, _SCOPES):
            node._chgen_span = (order, start, len(order))  # type: ignore[attr-defined]

    visit(module)


def walk(node: ast.AST) -> List[ast.AST]:
    """The node and everything below it (source order for indexed scopes)."""
    span = getattr(node, "_chgen_span", None)
    if span is None:
        return list(ast.walk(node))
    order, start, end = span
    return order[start:end]


def build_model(source: SourceFile) -> Optional[ChallengeModel]:
    tree = source.python()
    if tree is None:
        return None
    if not hasattr(tree, "_chgen_span"):
        index_tree(tree)
    model = ChallengeModel(source, tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            model.functions[node.name] = node
        if isinstance(node, ast.ClassDef) and node.name == "Challenge":
            model.cls = node
            model.base_ok = any(
                (isinstance(b, ast.Name) and b.id == "ChallengeBase")
                or (isinstance(b, ast.Attribute) and b.attr == "ChallengeBase")
                for b in node.bases
            )
    if model.cls is None:
        return model
    for node in model.cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            model.methods.setdefault(node.name, node)
        targets: List[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id in ATTRIBUTES:
                model.attributes.setdefault(target.id, node)
    _read_signature(model)
    return model


def _read_signature(model: ChallengeModel) -> None:
    method = model.methods.get("get_solve_signature")
    if method is None:
        return
    returns = [n for n in walk(method) if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Dict):
        model.signature_issues.append((method, "get_solve_signature must return one dict literal"))
        return
    entries: List[SigEntry] = []
    seen = set()
    for key, value in zip(returns[0].value.keys, returns[0].value.values):
        where = key if key is not None else value
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            model.signature_issues.append((where, "signature keys must be string literals"))
            return
        if key.value in seen:
            model.signature_issues.append((key, f"parameter {key.value!r} appears twice"))
        seen.add(key.value)
        if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
            model.signature_issues.append(
                (value, f"{key.value!r} must map to a (ctypes type, direction) tuple")
            )
            return
        type_node, direction_node = value.elts
        direction = getattr(direction_node, "value", None)
        if direction not in DIRECTIONS:
            model.signature_issues.append(
                (direction_node, f"direction of {key.value!r} must be 'in', 'out' or 'inout'")
            )
            return
        written = ast.unparse(type_node)
        ctype = normalize_ctype(written)
        is_tensor, dtypes = dtypes_for(ctype)
        if not ctype.startswith("ctypes."):
            model.signature_issues.append(
                (type_node, f"{written} (for {key.value!r}) is not a ctypes type")
            )
        elif not dtypes:
            model.signature_issues.append(
                (type_node, f"{written} (for {key.value!r}) has no row in the dtype table")
            )
        elif not is_tensor and direction != "in":
            model.signature_issues.append(
                (direction_node, f"scalar {key.value!r} can only be 'in'")
            )
        entries.append(
            SigEntry(
                key.value,
                ctype,
                written,
                direction,
                is_tensor,
                dtypes,
                key.lineno,
                key.col_offset + 1,
            )
        )
    model.signature = entries


# ------------------------------------------------------------------------------ expressions


def call_name(node: ast.AST) -> Optional[str]:
    """'torch.zeros' for torch.zeros(...), 'x.normal_' -> '.normal_' for method calls."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name):
            return f"{func.value.id}.{func.attr}"
        return f".{func.attr}"
    if isinstance(func, ast.Name):
        return func.id
    return None


def literal_depth(node: ast.AST) -> Optional[int]:
    """Nesting depth of a list/tuple literal of numbers: 0 for a number, 2 for [[1, 2]]."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts:
            return 1
        inner = literal_depth(node.elts[0])
        return None if inner is None else inner + 1
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return 0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return literal_depth(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        # [0.0] * 16 is a 1-D list
        for side in (node.left, node.right):
            if isinstance(side, (ast.List, ast.Tuple)):
                return literal_depth(side)
    return None


SHAPE_FIRST = ("empty", "zeros", "ones", "rand", "randn", "full")


def assignments(function: ast.FunctionDef) -> Dict[str, ast.expr]:
    """name -> last value assigned to it in the function (tuple unpacking included)."""
    env: Dict[str, ast.expr] = {}
    for node in walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    env[target.id] = node.value
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name):
                            env[t.id] = v
    return env


def tensor_rank(node: ast.AST, env: Dict[str, ast.expr], depth: int = 0) -> Optional[int]:
    """The number of dimensions of the tensor an expression builds, when it is evident."""
    if depth > 8:
        return None
    if isinstance(node, ast.Name) and node.id in env:
        return tensor_rank(env[node.id], env, depth + 1)
    if isinstance(node, ast.BinOp):
        ranks = [tensor_rank(side, env, depth + 1) for side in (node.left, node.right)]
        known = [r for r in ranks if r is not None]
        return max(known) if known else None
    if not isinstance(node, ast.Call):
        return None
    name = call_name(node) or ""
    if name in ("torch.tensor", "torch.as_tensor") and node.args:
        data = node.args[0]
        if isinstance(data, ast.Name) and data.id in env:
            data = env[data.id]
        return literal_depth(data)
    short = name.split(".")[-1]
    if name.startswith("torch.") and short in SHAPE_FIRST and node.args:
        first = node.args[0]
        if isinstance(first, (ast.Tuple, ast.List)):
            return len(first.elts)
        if short == "full":
            return None
        return len(node.args)
    if name == "torch.randint":
        size = node.args[2] if len(node.args) > 2 else _keyword(node, "size")
        if isinstance(size, (ast.Tuple, ast.List)):
            return len(size.elts)
        return None
    if name in ("torch.arange", "torch.linspace"):
        return 1
    receiver_is_module = isinstance(node.func, ast.Attribute) and (
        isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "F", "math")
    )
    if isinstance(node.func, ast.Attribute) and not receiver_is_module:
        method = node.func.attr
        if method in ("reshape", "view"):
            if len(node.args) == 1 and isinstance(node.args[0], (ast.Tuple, ast.List)):
                return len(node.args[0].elts)
            return len(node.args) or None
        if method == "unsqueeze":
            inner = tensor_rank(node.func.value, env, depth + 1)
            return None if inner is None else inner + 1
        if method in ("flatten", "ravel"):
            return 1 if not node.args else None
        return tensor_rank(node.func.value, env, depth + 1)
    return None


def _keyword(node: ast.Call, name: str) -> Optional[ast.expr]:
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def case_values(
    model: ChallengeModel, method_name: str
) -> Tuple[Optional[Dict[str, ast.expr]], Dict[str, ast.expr]]:
    """The expressions a one-case generator returns per parameter, and the scope they live in.

    Follows one call of a private builder method (`return self._make(x, N)`) to its dict literal.
    """
    method = model.methods.get(method_name)
    if method is None:
        return None, {}
    env = assignments(method)
    returns = [n for n in walk(method) if isinstance(n, ast.Return) and n.value is not None]
    if len(returns) != 1:
        return None, env
    value = returns[0].value
    if isinstance(value, ast.Name) and value.id in env:
        value = env[value.id]
    if isinstance(value, ast.Dict):
        return _dict_items(value), env
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == "self"
    ):
        builder = model.methods.get(value.func.attr)
        if builder is None:
            return None, env
        builder_returns = [n for n in walk(builder) if isinstance(n, ast.Return)]
        if len(builder_returns) != 1 or not isinstance(builder_returns[0].value, ast.Dict):
            return None, env
        params = [a.arg for a in builder.args.args[1:]]
        bound: Dict[str, ast.expr] = dict(zip(params, value.args))
        for keyword in value.keywords:
            if keyword.arg:
                bound[keyword.arg] = keyword.value
        builder_env = assignments(builder)
        merged = {**env, **builder_env}
        items = {}
        for key, expr in (_dict_items(builder_returns[0].value) or {}).items():
            if isinstance(expr, ast.Name) and expr.id in bound:
                items[key] = bound[expr.id]
            else:
                items[key] = expr
        return items, merged
    return None, env


def _dict_items(node: ast.Dict) -> Optional[Dict[str, ast.expr]]:
    items = {}
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        items[key.value] = value
    return items


def example_ranks(model: ChallengeModel) -> Dict[str, int]:
    """Tensor parameter -> rank of the example data, for the tensors whose rank is evident."""
    items, env = case_values(model, "generate_example_test")
    ranks: Dict[str, int] = {}
    if items is None:
        return ranks
    for entry in model.tensors:
        expr = items.get(entry.name)
        if expr is not None:
            rank = tensor_rank(expr, env)
            if rank is not None:
                ranks[entry.name] = rank
    return ranks


# ------------------------------------------------------------------------ functional cases


def functional_count(model: ChallengeModel) -> Optional[int]:
    """How many cases generate_functional_test returns, when the code makes it evident."""
    method = model.methods.get("generate_functional_test")
    if method is None:
        return None
    returns = [n for n in walk(method) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    value = returns[0].value
    if isinstance(value, ast.List):
        return len(value.elts)
    if not isinstance(value, ast.Name):
        return None
    counter = _CaseCounter(value.id, assignments(method))
    total = counter.count(method.body)
    return total


class _CaseCounter:
    def __init__(self, name: str, env: Dict[str, ast.expr]):
        self.name = name
        self.env = env

    def count(self, body: List[ast.stmt]) -> Optional[int]:
        total = 0
        for stmt in body:
            n = self.statement(stmt)
            if n is None:
                return None
            total += n
        return total

    def _is_list(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == self.name

    def statement(self, stmt: ast.stmt) -> Optional[int]:
        if isinstance(stmt, ast.Assign):
            if any(self._is_list(t) for t in stmt.targets):
                return len(stmt.value.elts) if isinstance(stmt.value, ast.List) else None
            return 0 if not self._mentions(stmt) else None
        if isinstance(stmt, ast.AugAssign) and self._is_list(stmt.target):
            return len(stmt.value.elts) if isinstance(stmt.value, ast.List) else None
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if isinstance(func, ast.Attribute) and self._is_list(func.value):
                if func.attr == "append":
                    return 1
                if func.attr == "extend" and stmt.value.args:
                    arg = stmt.value.args[0]
                    return len(arg.elts) if isinstance(arg, (ast.List, ast.Tuple)) else None
                return None
            return 0 if not self._mentions(stmt) else None
        if isinstance(stmt, ast.For):
            inner = self.count(stmt.body)
            if inner == 0 and not stmt.orelse:
                return 0
            length = self._iter_length(stmt.iter)
            if inner is None or length is None or stmt.orelse:
                return None
            return length * inner
        if isinstance(stmt, ast.Return):
            return 0
        if isinstance(stmt, (ast.If, ast.While, ast.With, ast.Try)):
            return None if self._mentions(stmt) else 0
        return 0 if not self._mentions(stmt) else None

    def _mentions(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == self.name for n in ast.walk(node))

    def _iter_length(self, node: ast.expr) -> Optional[int]:
        if isinstance(node, ast.Name) and node.id in self.env:
            node = self.env[node.id]
        if isinstance(node, (ast.List, ast.Tuple)):
            return len(node.elts)
        if call_name(node) == "range" and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, int):
                return arg.value
        if call_name(node) == "enumerate" and node.args:
            return self._iter_length(node.args[0])
        return None
