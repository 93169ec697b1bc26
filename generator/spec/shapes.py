"""The spec's one arithmetic evaluator: tensor dimensions over the int sizes (`N`, `2 * N`,
`(K + 1) // 2`, `h * w * 4`) and the performance case's `min_bytes` over its scalars.

Text is parsed once with Python's `ast` into a small tree of literals, names and operators (never
`eval`). A dimension uses integers and + - * // % only; the tree evaluates for a case's sizes and
writes itself back in one canonical spelling (the one black keeps), used in challenge.py's
assertions and tensor creation. `min_bytes` may also use numbers, / ** and a leading minus.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

#: (symbol, precedence) of each operator a dimension may use
_OPERATORS = {
    ast.Add: ("+", 1),
    ast.Sub: ("-", 1),
    ast.Mult: ("*", 2),
    ast.FloorDiv: ("//", 2),
    ast.Mod: ("%", 2),
}


class ShapeError(ValueError):
    """A dimension that does not parse, names an unknown size, or fails for a case's sizes."""


@dataclass(frozen=True)
class Literal:
    value: int


@dataclass(frozen=True)
class Size:
    name: str


@dataclass(frozen=True)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Neg:
    operand: "Expr"


Expr = Union[Literal, Size, BinOp, Neg]
_PRECEDENCE = {symbol: rank for symbol, rank in _OPERATORS.values()}
#: the operators `min_bytes` may use beside a dimension's: it counts bytes, it is no dimension
_ARITHMETIC_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Pow: "**",
}
_ARITHMETIC_ONLY = "only numbers, scalar names and + - * / // ** are allowed"
_APPLY = {
    "+": lambda left, right: left + right,
    "-": lambda left, right: left - right,
    "*": lambda left, right: left * right,
    "/": lambda left, right: left / right,
    "//": lambda left, right: left // right,
    "%": lambda left, right: left % right,
    "**": lambda left, right: left**right,
}


def _build(node: ast.AST) -> Expr:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Literal(node.value)
    if isinstance(node, ast.Name):
        return Size(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return BinOp(_OPERATORS[type(node.op)][0], _build(node.left), _build(node.right))
    if isinstance(node, ast.Constant):
        raise ShapeError(f"{node.value!r} is not an integer")
    raise ShapeError("a dimension uses integers, size names, + - * // % and parentheses only")


@functools.lru_cache(maxsize=1024)
def parse(text: str) -> Expr:
    """The expression tree of one dimension's text; ShapeError when it is not one."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ShapeError(f"{text!r} is not an arithmetic expression of sizes") from None
    return _build(tree.body)


def dimension(dim: Union[str, int]) -> Expr:
    return Literal(dim) if isinstance(dim, int) else parse(dim)


def names(expr: Expr) -> Tuple[str, ...]:
    """Size names in order of first appearance."""
    if isinstance(expr, Size):
        return (expr.name,)
    if isinstance(expr, BinOp):
        seen = names(expr.left) + names(expr.right)
        return tuple(dict.fromkeys(seen))
    return ()


def _compute(expr: Expr, value_of: Callable[[str], Any]) -> Any:
    """The tree's value, each name's from `value_of`; ShapeError on a division by zero or an
    exponent past 64."""
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Size):
        return value_of(expr.name)
    if isinstance(expr, Neg):
        return -_compute(expr.operand, value_of)
    left, right = _compute(expr.left, value_of), _compute(expr.right, value_of)
    if expr.op == "**" and abs(right) > 64:
        raise ShapeError("exponent too large")
    try:
        return _APPLY[expr.op](left, right)
    except ZeroDivisionError:
        raise ShapeError("division by zero") from None


def evaluate(expr: Expr, sizes: Mapping[str, Any]) -> int:
    """The dimension's value; ShapeError on a missing size or a division by zero."""

    def size(name: str) -> int:
        value = sizes.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ShapeError(f"no integer value for size {name!r}")
        return value

    return _compute(expr, size)


def _build_arithmetic(node: ast.AST) -> Expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return Literal(node.value)
    if isinstance(node, ast.Name):
        return Size(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC_OPERATORS:
        op = _ARITHMETIC_OPERATORS[type(node.op)]
        return BinOp(op, _build_arithmetic(node.left), _build_arithmetic(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return Neg(_build_arithmetic(node.operand))
    raise ShapeError(_ARITHMETIC_ONLY)


def evaluate_arithmetic(text: str, scalars: Mapping[str, Any]) -> float:
    """Arithmetic over scalar names (`min_bytes`: '3 * N * C * 4'); anything else is refused with
    a ShapeError (a ValueError) that says why."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ShapeError("not an arithmetic expression") from None

    def scalar(name: str) -> Any:
        if name not in scalars:
            raise ShapeError(f"unknown name {name!r}")
        return scalars[name]

    return _compute(_build_arithmetic(tree.body), scalar)


def spelled(expr: Expr, parent: int = 0, right_side: bool = False) -> str:
    """Canonical text: single spaces around operators, parentheses only where needed."""
    if isinstance(expr, Literal):
        return str(expr.value)
    if isinstance(expr, Size):
        return expr.name
    rank = _PRECEDENCE[expr.op]
    text = f"{spelled(expr.left, rank)} {expr.op} {spelled(expr.right, rank, True)}"
    needs = rank < parent or (rank == parent and right_side)
    return f"({text})" if needs else text


def spell(dim: Union[str, int]) -> str:
    return str(dim) if isinstance(dim, int) else spelled(parse(dim))


def resolve(shape: Optional[Any], sizes: Mapping[str, Any]) -> Optional[Tuple[int, ...]]:
    """Concrete dims for the given sizes, or None when a size is missing or a dim fails."""
    if shape is None:
        return None
    try:
        return tuple(evaluate(dimension(d), sizes) for d in shape)
    except ShapeError:
        return None


def check_dims(shape: Any, sizes: Dict[str, Any]) -> Optional[Tuple[int, str]]:
    """(index, problem) of the first dim that fails or is negative for these sizes, else None."""
    for j, dim in enumerate(shape):
        try:
            value = evaluate(dimension(dim), sizes)
        except ShapeError as exc:
            return j, str(exc)
        if value < 0:
            return j, f"is {value}, a negative dimension"
    return None
