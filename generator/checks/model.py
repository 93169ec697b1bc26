"""What the challenge.py rules compute from the reader's facts (generator/challenge/pyfile.py).

The file is read once by the reader; this module adds the analyses only the checks need: the rank
of the example tensors, the number of functional cases, the values a generator returns.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from generator.challenge.pyfile import ChallengePy, walk

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
    model: ChallengePy, method_name: str
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


def example_ranks(model: ChallengePy) -> Dict[str, int]:
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


def functional_count(model: ChallengePy) -> Optional[int]:
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
