"""What the challenge.py rules compute from the reader's facts (generator/challenge/pyfile.py).

The file is read once by the reader; this module adds the analyses only the checks need: the rank
of the example tensors, the number of functional cases, the values a generator returns.
"""

from __future__ import annotations

import ast
import copy
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


def _bound_arguments(
    arguments: ast.arguments, call: ast.Call, skip_self: bool = False
) -> Dict[str, ast.expr]:
    """A call's argument expressions by parameter name, the defaults where it passes none."""
    params = [a.arg for a in arguments.args[1 if skip_self else 0 :]]
    bound: Dict[str, ast.expr] = {}
    defaults = arguments.defaults
    for name, default in zip(params[len(params) - len(defaults) :], defaults):
        bound[name] = default
    bound.update(zip(params, call.args))
    for keyword in call.keywords:
        if keyword.arg:
            bound[keyword.arg] = keyword.value
    return bound


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: Dict[str, ast.expr]):
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return copy.deepcopy(self.values[node.id]) if node.id in self.values else node


def _is_none(node: ast.expr) -> Optional[bool]:
    """Whether a bound argument is None, when its expression says so (a literal)."""
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Call, ast.BinOp)):
        return False
    return None


def _partially_evaluated(
    function: ast.FunctionDef, call: ast.Call, outer: Dict[str, ast.expr]
) -> Optional[ast.expr]:
    """What a small local helper returns for this call, its parameters replaced by the call's
    arguments: its body read as `if NAME is [not] None: return A` statements then `return B`,
    each test decided by the argument's literal; None for any other body or an undecided test."""
    args = _Substitute(outer)
    call = ast.Call(
        func=call.func,
        args=[args.visit(copy.deepcopy(a)) for a in call.args],
        keywords=[
            ast.keyword(arg=k.arg, value=args.visit(copy.deepcopy(k.value))) for k in call.keywords
        ],
    )
    bound = _bound_arguments(function.args, call)
    for statement in function.body:
        if isinstance(statement, ast.Return) and statement.value is not None:
            return _Substitute(bound).visit(copy.deepcopy(statement.value))
        test = statement.test if isinstance(statement, ast.If) else None
        if (
            not isinstance(test, ast.Compare)
            or not isinstance(test.left, ast.Name)
            or test.left.id not in bound
            or len(test.ops) != 1
            or not isinstance(test.ops[0], (ast.Is, ast.IsNot))
            or not (isinstance(test.comparators[0], ast.Constant))
            or test.comparators[0].value is not None
            or statement.orelse
            or len(statement.body) != 1
            or not isinstance(statement.body[0], ast.Return)
        ):
            return None
        none = _is_none(bound[test.left.id])
        if none is None:
            return None
        if none == isinstance(test.ops[0], ast.Is):
            value = statement.body[0].value
            return None if value is None else _Substitute(bound).visit(copy.deepcopy(value))
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
        nested = {
            id(r)
            for f in walk(builder)
            if isinstance(f, ast.FunctionDef) and f is not builder
            for r in walk(f)
        }  # a local helper's own returns are not the builder's
        builder_returns = [
            n for n in walk(builder) if isinstance(n, ast.Return) and id(n) not in nested
        ]
        if len(builder_returns) != 1 or not isinstance(builder_returns[0].value, ast.Dict):
            return None, env
        bound = _bound_arguments(builder.args, value, skip_self=True)
        builder_env = assignments(builder)
        merged = {**env, **builder_env}
        local = {
            n.name: n for n in builder.body if isinstance(n, ast.FunctionDef)
        }  # helpers the builder defines, e.g. `def tensor_or_random(values): ...`
        items = {}
        for key, expr in (_dict_items(builder_returns[0].value) or {}).items():
            if isinstance(expr, ast.Name) and expr.id in bound:
                items[key] = bound[expr.id]
            elif (
                isinstance(expr, ast.Call)
                and isinstance(expr.func, ast.Name)
                and expr.func.id in local
            ):
                items[key] = _partially_evaluated(local[expr.func.id], expr, bound) or expr
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
