"""Tensor dimensions as arithmetic over the int sizes: `N`, `2 * N`, `(K + 1) // 2`, `h * w * 4`.

A dimension is parsed once with Python's `ast` into a small tree of integer literals, size names and
+ - * // % (never `eval`); the tree evaluates for a case's sizes and writes itself back in one
canonical spelling (the one black keeps), used in challenge.py's assertions and tensor creation.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple, Union

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


Expr = Union[Literal, Size, BinOp]
_PRECEDENCE = {symbol: rank for symbol, rank in _OPERATORS.values()}


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


def evaluate(expr: Expr, sizes: Mapping[str, Any]) -> int:
    """The dimension's value; ShapeError on a missing size or a division by zero."""
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Size):
        value = sizes.get(expr.name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ShapeError(f"no integer value for size {expr.name!r}")
        return value
    left, right = evaluate(expr.left, sizes), evaluate(expr.right, sizes)
    if expr.op in ("//", "%") and right == 0:
        raise ShapeError("division by zero")
    return {
        "+": lambda: left + right,
        "-": lambda: left - right,
        "*": lambda: left * right,
        "//": lambda: left // right,
        "%": lambda: left % right,
    }[expr.op]()


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
