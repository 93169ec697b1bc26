"""Kept calls of a case -> Python statements, in the order they were made (see replay.py).

A result read once is written inside the call that reads it, where that keeps the order of
evaluation (Python evaluates `f(a, b)` as a then b, `a[i] = v` as v, a, i); otherwise it gets a
name. Tensor methods are written as operators where they are ones (`a.mul(b)` is `a * b`), the
shape of a factory that is an input's shape with the sizes' names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import torch

from generator.importer.torch_calls import (
    has_tensor,
    is_attribute,
    method_name,
    mutated,
    public_functions,
    reads,
    root,
    tensors_in,
)
from generator.importer.trace import Call

#: Tensor methods written as operators: `a.mul(b)` is `a * b`
BINARY = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "matmul": "@", "pow": "**", "gt": ">",
    "lt": "<", "ge": ">=", "le": "<=", "eq": "==", "ne": "!=", "__add__": "+", "__sub__": "-",
    "__mul__": "*", "__truediv__": "/", "__div__": "/", "__floordiv__": "//", "__mod__": "%",
    "__pow__": "**", "__matmul__": "@", "__and__": "&", "__or__": "|", "__xor__": "^",
    "__lshift__": "<<", "__rshift__": ">>", "__gt__": ">", "__lt__": "<", "__ge__": ">=",
    "__le__": "<=", "__eq__": "==", "__ne__": "!=",
}  # fmt: skip


#: reflected operators: `a.__rsub__(2)` is `2 - a`
REFLECTED = {
    "__radd__": "+", "__rsub__": "-", "__rmul__": "*", "__rtruediv__": "/", "__rdiv__": "/",
    "__rfloordiv__": "//", "__rmod__": "%", "__rpow__": "**", "__rmatmul__": "@",
    "__rand__": "&", "__ror__": "|", "__rxor__": "^",
}  # fmt: skip


UNARY = {"neg": "-", "__neg__": "-", "__invert__": "~", "bitwise_not": "~", "__pos__": "+"}


#: factories and methods whose shape argument is written with the sizes' names where it is the
#: shape of one of the case's inputs
SHAPED_FACTORIES = frozenset({"empty", "zeros", "ones", "rand", "randn", "full", "randint"})


SHAPED_METHODS = frozenset(
    {"view", "reshape", "expand", "repeat", "new_empty", "new_zeros", "new_ones", "new_full"}
)


#: an unknown tensor (made outside torch) is written as literal data up to this many elements
LITERAL_ELEMENTS = 4096


class ReplayError(Exception):
    """The case's inputs cannot be written back as code; the message says why."""


@dataclass
class _Item:
    """A value made but not yet written as a statement: written inside the call that reads it."""

    expr: str
    atomic: bool
    obj: int
    index: int
    calls: List[int] = field(default_factory=list)  # the calls written in it


@dataclass
class Statement:
    text: str
    binds: Set[int] = field(default_factory=set)  # objects it gives their names
    touches: Set[Tuple[str, int]] = field(default_factory=set)  # data it makes or changes
    calls: List[int] = field(default_factory=list)  # the calls written in it


class Writer:
    """Writes live calls back as statements (see the module docstring)."""

    def __init__(
        self,
        calls: Sequence[Call],
        live: List[int],
        inputs: Dict[str, torch.Tensor],
        shapes: Dict[Tuple[int, ...], List[str]],
        device: str,
        taken: Set[str],
        computed: Optional[Dict[int, Tuple[str, str]]] = None,
    ):
        self.calls = calls
        self.computed = computed or {}  # call -> (the scalar it computes, its Python type)
        self.live = live
        self.shapes = shapes
        self.device = device
        self.names: Dict[int, str] = {}  # object -> its variable
        for name, tensor in inputs.items():
            self.names.setdefault(id(tensor), name)
        self.taken = set(taken) | set(inputs)
        self.temps = 0
        self.pending: List[_Item] = []
        self.current: Dict[int, _Item] = {}  # object -> the pending value of its current version
        self.bound: Set[int] = set()  # objects a statement has given their variable
        self.elements: Dict[int, Tuple[int, int]] = {}  # tensor in a tuple result -> (tuple, i)
        self.tensors: Dict[int, Any] = {}  # object -> the tensor (or tuple) itself
        self.statements: List[Statement] = []
        self.version: Dict[int, int] = {}
        self.now: List[int] = []  # the calls of the statement being written
        #: a tuple result whose one element the case takes as an input -> (input, index, tensor)
        self.final_elements: Dict[int, Tuple[str, int, torch.Tensor]] = {}
        self.uses = self._count_uses(inputs)

    # ---- how often each value is read

    def _count_uses(self, inputs: Dict[str, torch.Tensor]) -> Dict[Tuple[int, int], int]:
        """Reads of each version of each object (a tuple result's elements read the tuple; the
        case itself reads each input once, at the end)."""
        uses: Dict[Tuple[int, int], int] = {}
        version: Dict[int, int] = {}

        def read(tensor: torch.Tensor) -> None:
            key = self._owner(tensor)
            at = (key, version.get(key, 0))
            uses[at] = uses.get(at, 0) + 1

        for index in self.live:
            call = self.calls[index]
            for tensor in reads(call):
                read(tensor)
            target = mutated(call)
            if target is not None:
                version[id(target)] = version.get(id(target), 0) + 1
            elif isinstance(call.out, (list, tuple)):
                for i, t in enumerate(call.out):
                    if isinstance(t, torch.Tensor):
                        self.elements.setdefault(id(t), (id(call.out), i))
        for name, tensor in inputs.items():
            read(tensor)
            if id(tensor) in self.elements:
                owner, i = self.elements[id(tensor)]
                self.final_elements.setdefault(owner, (name, i, tensor))
        return uses

    def _owner(self, tensor: torch.Tensor) -> int:
        return self.elements[id(tensor)][0] if id(tensor) in self.elements else id(tensor)

    def _uses(self, obj: int) -> int:
        return self.uses.get((obj, self.version.get(obj, 0)), 0)

    def _read_later(self, obj: int) -> bool:
        """Whether a version of `obj` after the current one is read."""
        now = self.version.get(obj, 0)
        return any(o == obj and v > now and n for (o, v), n in self.uses.items())

    # ---- statements

    def _name_for(self, obj: int) -> str:
        if obj not in self.names:
            while True:
                self.temps += 1
                name = f"t{self.temps}"
                if name not in self.taken:
                    break
            self.names[obj] = name
        return self.names[obj]

    def _data_of(self, obj: int) -> Set[Tuple[str, int]]:
        return {root(t) for t in tensors_in(self.tensors.get(obj))}

    def _emit(self, text: str, binds: Sequence[int] = (), touches=(), calls=None) -> None:
        made = list(self.now if calls is None else calls)
        self.statements.append(Statement(text, set(binds), set(touches), made))
        self.bound.update(binds)

    def _bind(self, obj: int, expr: str, calls=None) -> None:
        self._emit(f"{self._name_for(obj)} = {expr}", [obj], self._data_of(obj), calls)

    def _flush(self, count: Optional[int] = None) -> None:
        """Write the oldest `count` pending values (default: all) as named statements, in the
        order they were made."""
        for item in list(self.pending)[:count]:
            self.pending.remove(item)
            self.current.pop(item.obj, None)
            self._bind(item.obj, item.expr, item.calls)

    # ---- the walk

    def write(self, inputs: Dict[str, torch.Tensor]) -> List[Statement]:
        for index in self.live:
            self._call(self.calls[index])
        for name, tensor in inputs.items():
            if id(tensor) in self.elements and id(tensor) not in self.bound:
                self._element(name, tensor)  # `A, _ = torch.sort(...)`: the input is A
        self._flush()
        return self.statements

    def _spelled(self, spell: Callable[[List[_Item]], Any]) -> Tuple[Any, List[_Item]]:
        """What `spell(consumed)` writes, once the pending values it writes inside it are the
        newest ones (written inside the statement in another order than made, the oldest gets a
        name of its own first); those values then leave the pending list."""
        while True:
            consumed: List[_Item] = []
            spelled = spell(consumed)
            newest = self.pending[len(self.pending) - len(consumed) :] if consumed else []
            if [id(i) for i in newest] == [id(i) for i in consumed]:
                break
            self._flush(1)
        for item in consumed:
            self.pending.remove(item)
            self.current.pop(item.obj, None)
        return spelled, consumed

    def _element(self, name: str, tensor: torch.Tensor) -> None:
        text, consumed = self._spelled(lambda c: self._ref(tensor, c, operand=False))
        self._flush()
        made = [i for item in consumed for i in item.calls]
        self._emit(f"{name} = {text}", [id(tensor)], {root(tensor)}, made)

    def _call(self, call: Call) -> None:
        if call.func is None:  # torch.manual_seed
            self._flush()
            self._emit(f"torch.manual_seed({int(call.args[0])})", calls=[call.index])
            return
        receiver = call.args[0] if call.args and isinstance(call.args[0], torch.Tensor) else None
        if (method_name(call) == "__setitem__" and receiver is not None
                and id(receiver) in self.current and self._read_later(id(receiver))):  # fmt: skip
            # assigned into, then read again: it needs a name first
            self._flush(self.pending.index(self.current[id(receiver)]) + 1)
        (text, atomic), consumed = self._spelled(lambda c: self._spell_call(call, c))
        # the calls the statement or value made now holds (flushes above wrote theirs)
        self.now = [i for item in consumed for i in item.calls] + [call.index]
        target = mutated(call)
        method = method_name(call) or ""
        if target is not None:
            obj = id(target)
            self.tensors[obj] = target
            self.version[obj] = self.version.get(obj, 0) + 1
            if method == "__setitem__" or obj in self.bound or self._uses(obj) == 0:
                self._flush()
                self._emit(text, touches={root(target)})  # a change made in place
            else:
                self._settle(obj, call.index, text, atomic, mutating=True)
            return
        outs = call.out
        if isinstance(outs, torch.Tensor) or (isinstance(outs, (list, tuple)) and has_tensor(outs)):
            self.tensors[id(outs)] = outs
            self._settle(id(outs), call.index, text, atomic, mutating=False)
            return
        self._flush()
        if call.index in self.computed:  # a scalar the case passes: `nnz = int(...item())`
            name, kind = self.computed[call.index]
            self._emit(f"{name} = {kind}({text})")
            return
        self._emit(text)  # a draw whose result nothing reads: it advances the random stream

    def _settle(self, obj: int, index: int, text: str, atomic: bool, mutating: bool) -> None:
        uses = self._uses(obj)
        if uses == 0:
            self._flush()
            self._emit(text, touches=self._data_of(obj))
        elif uses == 1 and obj in self.final_elements:
            # `A, _ = torch.sort(x)`: the case's input is one element of the result
            name, i, tensor = self.final_elements[obj]
            self._flush()
            self._emit(f"{name} = {text}[{i}]", [id(tensor)], {root(tensor)})
        elif uses == 1:
            # a change in place stays inside the call that reads it: the tensor it changes was
            # made for it alone (read once), so nothing else reads that data meanwhile
            item = _Item(text, atomic, obj, index, list(self.now))
            self.pending.append(item)
            self.current[obj] = item
        else:
            self._flush()
            self._bind(obj, text)

    # ---- spelling calls

    def _ref(self, tensor: torch.Tensor, consumed: List[_Item], operand: bool) -> str:
        if id(tensor) in self.elements:
            owner, i = self.elements[id(tensor)]
            return f"{self._ref_object(owner, consumed, True, None)}[{i}]"
        return self._ref_object(id(tensor), consumed, operand, tensor)

    def _ref_object(self, obj: int, consumed: List[_Item], operand: bool, tensor: Any) -> str:
        item = self.current.get(obj)
        if item is not None:
            consumed.append(item)
            return f"({item.expr})" if operand and not item.atomic else item.expr
        if obj in self.bound:
            return self.names[obj]
        if tensor is not None:
            return self._literal_tensor(tensor)
        raise ReplayError("reads a result of a call chgen did not see")

    def _literal_tensor(self, tensor: torch.Tensor) -> str:
        if tensor.device.type == "meta" or tensor.numel() > LITERAL_ELEMENTS:
            raise ReplayError("reads a tensor made outside torch, too large to write as data")
        data = self._value(tensor.tolist(), [], False)
        return f"torch.tensor({data}, dtype={tensor.dtype}, device=self.device)"

    def _spell_call(self, call: Call, consumed: List[_Item]) -> Tuple[str, bool]:
        method = method_name(call)
        shaped = _makes_tensor_of_shape(call, method)
        if method is None:
            name = public_functions().get(id(call.func))
            if name is None:
                raise ReplayError(f"calls {call.name}, which chgen cannot name")
            # randint(low, high, size): its leading integers are bounds, not a shape
            varargs = not name.endswith(".randint")
            arguments = self._arguments(call.args, call.kwargs, consumed, shaped, varargs)
            return f"{name}({arguments})", True
        rest = call.args[1:]
        if not call.kwargs and len(rest) == 1 and method in REFLECTED:
            other = self._value(rest[0], consumed, True, left=True)  # evaluated first
            receiver = self._ref(call.args[0], consumed, operand=True)
            return f"{other} {REFLECTED[method]} {receiver}", False
        if method == "__setitem__":
            # Python evaluates `a[i] = v` as v, then a, then i
            value = self._value(rest[1], consumed, False)
            receiver = self._ref(call.args[0], consumed, operand=True)
            return f"{receiver}[{self._index(rest[0], consumed)}] = {value}", False
        receiver = self._ref(call.args[0], consumed, operand=True)
        if is_attribute(call):
            return f"{receiver}.{method}", True
        if method == "__getitem__":
            return f"{receiver}[{self._index(rest[0], consumed)}]", True
        if not call.kwargs and len(rest) == 1 and method in BINARY:
            return f"{receiver} {BINARY[method]} {self._value(rest[0], consumed, True)}", False
        if not call.kwargs and not rest and method in UNARY:
            return f"{UNARY[method]}{receiver}", False
        arguments = self._arguments(rest, call.kwargs, consumed, shaped)
        return f"{receiver}.{method}({arguments})", True

    def _arguments(self, args, kwargs, consumed, shaped: bool, varargs: bool = True) -> str:
        dims = [i for i, a in enumerate(args) if isinstance(a, int) and not isinstance(a, bool)]
        found = shaped and varargs and dims
        named = self.shapes.get(tuple(args[i] for i in dims)) if found else None
        if named is not None and dims != list(range(len(dims))):
            named = None  # `torch.empty(M, N, ...)`: the shape is the leading integers alone
        parts = [
            named[i] if named is not None and i < len(named) else
            self._value(value, consumed, False, shape=shaped)
            for i, value in enumerate(args)
        ]  # fmt: skip
        for key, value in kwargs.items():
            if key == "generator" and value is not None:
                raise ReplayError("draws with a torch.Generator of its own")
            parts.append(f"{key}={self._value(value, consumed, False, shape=shaped)}")
        return ", ".join(parts)

    def _index(self, index: Any, consumed: List[_Item]) -> str:
        if isinstance(index, tuple) and type(index) is tuple:
            if not index:
                return "()"
            parts = [self._slice(i, consumed) for i in index]
            return ", ".join(parts) + ("," if len(parts) == 1 else "")
        return self._slice(index, consumed)

    def _slice(self, value: Any, consumed: List[_Item]) -> str:
        if not isinstance(value, slice):
            return self._value(value, consumed, False)
        parts = ["" if v is None else self._value(v, consumed, False) for v in (
            value.start, value.stop, value.step)]  # fmt: skip
        return ":".join(parts if value.step is not None else parts[:2])

    def _value(
        self, value: Any, consumed: List[_Item], operand: bool, shape=False, left=False
    ) -> str:
        """One argument as Python source."""
        if isinstance(value, torch.Tensor):
            return self._ref(value, consumed, operand)
        if value is self.device:
            return "self.device"
        if isinstance(value, bool) or value is None:
            return repr(value)
        if isinstance(value, int):
            return f"({value})" if value < 0 and (operand or left) else str(value)
        if isinstance(value, float):
            text = _number(value)
            return f"({text})" if text.startswith(("-", "float")) and (operand or left) else text
        if isinstance(value, (str, complex)):
            return repr(value)
        if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
            return str(value)
        if isinstance(value, torch.device):
            if value.type == str(self.device).split(":")[0]:
                return "self.device"
            return repr(str(value))
        if value is Ellipsis:
            return "..."
        if isinstance(value, slice):
            parts = [self._value(v, consumed, False) for v in (value.start, value.stop, value.step)]
            return f"slice({', '.join(parts)})"
        if isinstance(value, (list, tuple)):
            if _count(value) > LITERAL_ELEMENTS:
                raise ReplayError(
                    f"passes {_count(value)} numbers made in Python to a torch call (more than "
                    f"{LITERAL_ELEMENTS} to write as data)"
                )
            named = self.shapes.get(tuple(value)) if shape and _all_ints(value) else None
            items = named or [self._value(v, consumed, False) for v in value]
            if len(items) >= 3 and len(set(items)) == 1 and has_tensor(value):
                # the same call made n times in a row
                inner = f"[{items[0]} for _ in range({len(items)})]"
                return inner if isinstance(value, list) else f"tuple({inner})"
            if isinstance(value, list):
                return "[" + ", ".join(items) + "]"
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        raise ReplayError(f"passes a {type(value).__name__} to a torch call")


def _makes_tensor_of_shape(call: Call, method: Optional[str]) -> bool:
    """A factory (`torch.empty(M, N)`, `torch.rand((M, N))`) or a method (`x.view(M, N)`) whose
    shape argument, where it is an input's shape, is written as the signature writes it."""
    if method is not None:
        return method in SHAPED_METHODS
    name = public_functions().get(id(call.func), "")
    return name.startswith("torch.") and name.split(".")[-1] in SHAPED_FACTORIES


def _all_ints(value: Any) -> bool:
    return bool(value) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def _number(value: float) -> str:
    if not math.isfinite(value):
        return f'float("{value!r}")'
    return repr(value)


def _count(value: Any) -> int:
    """How many numbers (and tensors) a nested list holds."""
    if isinstance(value, (list, tuple)):
        return sum(_count(v) for v in value)
    return 1
