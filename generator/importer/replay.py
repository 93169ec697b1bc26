"""A traced case -> the torch code that makes its inputs as the original did (`{code: ...}`).

The trace (trace.py) recorded every torch call of a test method, with its arguments and result.
The calls a case needs are those that make its input tensors (and every change made to them
afterwards, through views too), and every random draw made while the case was being built, used
or not: the random stream then advances exactly as in the original, so the same seed gives the
same values. They are written back as Python in the order they were made: a result used once is
written inside the call that uses it (`torch.empty(...).uniform_(-1, 1) * mask`) when that keeps
the order of evaluation; otherwise it gets a name. Sizes in shape arguments are written by name.

Where the case takes values out of data drawn on `self.device` into Python (`int(mask.sum())`
for a count), the code draws on the CPU and moves the inputs to `self.device` at the end: the
count it fixes is then right on every device (and the values on the CPU the original's).
What cannot be written back (its own torch.Generator, an object that is not a tensor, number or
torch constant, a draw shared with an earlier case) is a ReplayError, which refuses the case.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import torch

from generator.importer.trace import Call

#: calls that draw from torch's default generator (an in-place draw's tensor is its first argument)
RANDOM = frozenset(
    {
        "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
        "normal", "bernoulli", "multinomial", "poisson", "uniform_", "normal_", "random_",
        "bernoulli_", "exponential_", "cauchy_", "geometric_", "log_normal_", "dropout",
        "dropout_", "rrelu", "rrelu_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
        "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
    }
)  # fmt: skip
#: calls that give Python values that depend on a tensor's shape or type only, not its data
SHAPE_ONLY = frozenset(
    {
        "shape", "size", "dim", "ndim", "ndimension", "numel", "nelement", "dtype", "device",
        "__len__", "stride", "is_contiguous", "element_size", "is_floating_point", "layout",
        "requires_grad", "storage_offset", "is_cuda", "is_complex", "names", "__repr__",
        "__format__", "__str__", "__hash__", "data_ptr",
    }
)  # fmt: skip
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
class Chunk:
    """The code of one input (`owner`) and of the inputs made together with it."""

    owner: str
    made: List[str]  # every input the chunk binds, the owner first
    lines: List[str]
    expression: Optional[str] = None  # the owner's value, when its code is one expression

    @property
    def code(self) -> str:
        return self.expression if self.expression is not None else "\n".join(self.lines) + "\n"


@dataclass
class Replayed:
    chunks: List[Chunk]
    seed: Optional[int]  # torch.manual_seed before the case's first call (the case's `seed`)
    on_cpu: bool  # drawn on the CPU, then moved (see the module docstring)
    computed: List[str] = field(default_factory=list)  # scalars the code computes


# ---------------------------------------------------------------------------------- spelling


@functools.lru_cache(maxsize=1)
def _public_functions() -> Dict[int, str]:
    """id of every public torch function -> how Python names it (`torch.nn.functional.softmax`)."""
    import torch.nn.functional as F

    found: Dict[int, str] = {}
    spaces = (
        ("torch", torch),
        ("torch.nn.functional", F),
        ("torch.linalg", torch.linalg),
        ("torch.fft", torch.fft),
        ("torch.special", torch.special),
        ("torch.nn.init", torch.nn.init),
    )
    for prefix, module in spaces:
        for name in dir(module):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except Exception:  # noqa: BLE001 - a lazy attribute that fails is no function
                continue
            if callable(value) and not isinstance(value, type):
                found.setdefault(id(value), f"{prefix}.{name}")
    return found


def _method_name(call: Call) -> Optional[str]:
    """The Tensor method or attribute a call is (`uniform_`, `shape`), else None."""
    func = call.func
    if call.name == "__get__":
        owner = getattr(func, "__self__", None)
        return getattr(owner, "__name__", None)
    qualified = getattr(func, "__qualname__", "") or ""
    if qualified.split(".")[0] in ("TensorBase", "Tensor", "_TensorBase") and call.args:
        if isinstance(call.args[0], torch.Tensor):
            return call.name
    return None


def _is_attribute(call: Call) -> bool:
    return call.name == "__get__"


def _mutated(call: Call) -> Optional[torch.Tensor]:
    """The tensor a call changes in place (its first argument, or `out=`), if any."""
    method = _method_name(call)
    first = call.args[0] if call.args and isinstance(call.args[0], torch.Tensor) else None
    if method is not None and first is not None:
        if method == "__setitem__" or (
            method.endswith("_") and not method.endswith("__") and call.out is first
        ):
            return first
        if method.startswith("__i") and method.endswith("__") and call.out is first:
            return first  # __iadd__ and the like
    out = call.kwargs.get("out")
    if isinstance(out, torch.Tensor):
        return out
    name = _public_functions().get(id(call.func), "")
    if name.startswith("torch.nn.init.") and first is not None:
        return first
    return None


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def _root(t: torch.Tensor) -> Tuple[str, int]:
    """What a tensor shares its data with: its base's storage (a view writes through to it)."""
    while t._base is not None:
        t = t._base
    if t.device.type != "meta":
        try:
            pointer = t.untyped_storage().data_ptr()
        except Exception:  # noqa: BLE001 - a tensor without storage shares nothing
            pointer = 0
        if pointer:
            return ("storage", pointer)
    return ("object", id(t))


def _is_random(call: Call) -> bool:
    return call.name in RANDOM or call.name == "manual_seed"


def _extracts_values(call: Call) -> bool:
    """A call that takes a tensor's data into Python (`.item()`, `int(t)`, `t.tolist()`)."""
    if _is_attribute(call) or call.func is None:
        return False
    name = _method_name(call) or call.name
    if name in SHAPE_ONLY or call.out is None or _mutated(call) is not None:
        return False
    outs = call.out if isinstance(call.out, (list, tuple)) else [call.out]
    return not any(isinstance(o, torch.Tensor) for o in outs) and _has_tensor(call.args)


# ---------------------------------------------------------------------------------- analysis


def window_end(calls: Sequence[Call], objects: Sequence[torch.Tensor]) -> int:
    """The last call that makes or changes one of `objects` (or a tensor they are made of)."""
    live = _live(calls, 0, len(calls) - 1, objects, with_random=False)
    return max(live) if live else -1


def _live(
    calls: Sequence[Call], start: int, end: int, objects: Sequence[torch.Tensor], with_random=True
) -> Set[int]:
    """The calls up to `end` that `objects` need: their makers, every change to their data, the
    makers of what those read; and (`with_random`) every draw from `start` on, with what it reads.
    """
    needed_ids = {id(t) for t in objects}
    needed_roots = {_root(t) for t in objects}
    live: Set[int] = set()
    for call in reversed(calls[: end + 1]):
        target = _mutated(call)
        outs = list(_tensors(call.out)) if target is None else []
        keep = (
            (with_random and call.index >= start and _is_random(call))
            or (target is not None and _root(target) in needed_roots)
            or any(id(o) in needed_ids for o in outs)
        )
        if not keep:
            continue
        live.add(call.index)
        for tensor in list(_tensors(call.args)) + list(_tensors(call.kwargs)):
            needed_ids.add(id(tensor))
            needed_roots.add(_root(tensor))
    return live


def _drawn_objects(calls: Sequence[Call], upto: int) -> Set[int]:
    """ids of the tensors whose values depend on a draw, among the calls before `upto`."""
    drawn: Set[int] = set()
    for call in calls[:upto]:
        reads = {id(t) for t in _tensors(call.args)} | {id(t) for t in _tensors(call.kwargs)}
        if _is_random(call) or reads & drawn:
            target = _mutated(call)
            for t in [target] if target is not None else _tensors(call.out):
                drawn.add(id(t))
    return drawn


# ---------------------------------------------------------------------------------- writing


@dataclass
class _Item:
    """A value made but not yet written as a statement: written inside the call that reads it."""

    expr: str
    atomic: bool
    obj: int
    index: int
    calls: List[int] = field(default_factory=list)  # the calls written in it


@dataclass
class _Statement:
    text: str
    binds: Set[int] = field(default_factory=set)  # objects it gives their names
    touches: Set[Tuple[str, int]] = field(default_factory=set)  # data it makes or changes
    calls: List[int] = field(default_factory=list)  # the calls written in it


class _Writer:
    """Writes live calls back as statements (see the module docstring)."""

    def __init__(
        self,
        calls: Sequence[Call],
        live: List[int],
        inputs: Dict[str, torch.Tensor],
        shapes: Dict[Tuple[int, ...], List[str]],
        device: str,
        on_cpu: bool,
        taken: Set[str],
        computed: Optional[Dict[int, Tuple[str, str]]] = None,
    ):
        self.calls = calls
        self.computed = computed or {}  # call -> (the scalar it computes, its Python type)
        self.live = live
        self.shapes = shapes
        self.device = device
        self.on_cpu = on_cpu
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
        self.statements: List[_Statement] = []
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
            for tensor in _reads(call):
                read(tensor)
            target = _mutated(call)
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
        return {_root(t) for t in _tensors(self.tensors.get(obj))}

    def _emit(self, text: str, binds: Sequence[int] = (), touches=(), calls=None) -> None:
        made = list(self.now if calls is None else calls)
        self.statements.append(_Statement(text, set(binds), set(touches), made))
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

    def write(self, inputs: Dict[str, torch.Tensor]) -> List[_Statement]:
        for index in self.live:
            self._call(self.calls[index])
        for name, tensor in inputs.items():
            if id(tensor) in self.elements and id(tensor) not in self.bound:
                self._element(name, tensor)  # `A, _ = torch.sort(...)`: the input is A
        self._flush()
        return self.statements

    def _element(self, name: str, tensor: torch.Tensor) -> None:
        while True:
            consumed: List[_Item] = []
            text = self._ref(tensor, consumed, operand=False)
            newest = self.pending[len(self.pending) - len(consumed) :] if consumed else []
            if [id(i) for i in newest] == [id(i) for i in consumed]:
                break
            self._flush(1)
        for item in consumed:
            self.pending.remove(item)
            self.current.pop(item.obj, None)
        self._flush()
        made = [i for item in consumed for i in item.calls]
        self._emit(f"{name} = {text}", [id(tensor)], {_root(tensor)}, made)

    def _call(self, call: Call) -> None:
        if call.func is None:  # torch.manual_seed
            self._flush()
            self._emit(f"torch.manual_seed({int(call.args[0])})", calls=[call.index])
            return
        receiver = call.args[0] if call.args and isinstance(call.args[0], torch.Tensor) else None
        if (_method_name(call) == "__setitem__" and receiver is not None
                and id(receiver) in self.current and self._read_later(id(receiver))):  # fmt: skip
            # assigned into, then read again: it needs a name first
            self._flush(self.pending.index(self.current[id(receiver)]) + 1)
        while True:
            consumed: List[_Item] = []
            text, atomic = self._spell_call(call, consumed)
            newest = self.pending[len(self.pending) - len(consumed) :] if consumed else []
            if [id(i) for i in newest] == [id(i) for i in consumed]:
                break
            # written inside this call they would be evaluated in another order than made:
            # the oldest gets a name of its own
            self._flush(1)
        for item in consumed:
            self.pending.remove(item)
            self.current.pop(item.obj, None)
        # the calls the statement or value made now holds (flushes above wrote theirs)
        self.now = [i for item in consumed for i in item.calls] + [call.index]
        target = _mutated(call)
        method = _method_name(call) or ""
        if target is not None:
            obj = id(target)
            self.tensors[obj] = target
            self.version[obj] = self.version.get(obj, 0) + 1
            if method == "__setitem__" or obj in self.bound or self._uses(obj) == 0:
                self._flush()
                self._emit(text, touches={_root(target)})  # a change made in place
            else:
                self._settle(obj, call.index, text, atomic, mutating=True)
            return
        outs = call.out
        if isinstance(outs, torch.Tensor) or (
            isinstance(outs, (list, tuple)) and _has_tensor(outs)
        ):
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
            self._emit(f"{name} = {text}[{i}]", [id(tensor)], {_root(tensor)})
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
        device = "" if self.on_cpu else ", device=self.device"
        return f"torch.tensor({data}, dtype={tensor.dtype}{device})"

    def _spell_call(self, call: Call, consumed: List[_Item]) -> Tuple[str, bool]:
        method = _method_name(call)
        shaped = _makes_tensor_of_shape(call, method)
        if method is None:
            name = _public_functions().get(id(call.func))
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
        if _is_attribute(call):
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
            if key == "device" and value is self.device and self.on_cpu:
                continue  # drawn on the CPU (the default device)
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
            return '"cpu"' if self.on_cpu else "self.device"
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
                return '"cpu"' if self.on_cpu else "self.device"
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
            if len(items) >= 3 and len(set(items)) == 1 and _has_tensor(value):
                # the same call made n times in a row
                inner = f"[{items[0]} for _ in range({len(items)})]"
                return inner if isinstance(value, list) else f"tuple({inner})"
            if isinstance(value, list):
                return "[" + ", ".join(items) + "]"
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        raise ReplayError(f"passes a {type(value).__name__} to a torch call")


def _reads(call: Call) -> List[torch.Tensor]:
    return list(_tensors(call.args)) + list(_tensors(call.kwargs))


def _makes_tensor_of_shape(call: Call, method: Optional[str]) -> bool:
    """A factory (`torch.empty(M, N)`, `torch.rand((M, N))`) or a method (`x.view(M, N)`) whose
    shape argument, where it is an input's shape, is written as the signature writes it."""
    if method is not None:
        return method in SHAPED_METHODS
    name = _public_functions().get(id(call.func), "")
    return name.startswith("torch.") and name.split(".")[-1] in SHAPED_FACTORIES


def _all_ints(value: Any) -> bool:
    return bool(value) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def _number(value: float) -> str:
    if not math.isfinite(value):
        return f'float("{value!r}")'
    return repr(value)


# ---------------------------------------------------------------------------------- a case


def replay_case(
    calls: Sequence[Call],
    start: int,
    end: int,
    inputs: Dict[str, torch.Tensor],
    shapes: Dict[Tuple[int, ...], List[str]],
    device: str,
    taken: Set[str],
    extract_seed: bool = True,
    scalars: Optional[Dict[str, Any]] = None,
) -> Replayed:
    """The code that makes `inputs` (name -> the tensor the case holds, in signature order)
    from the calls start..end of a traced method (its window: after the case before it);
    `shapes`: each input's shape in this case -> its dimensions as the signature writes them;
    `extract_seed`: a torch.manual_seed before every other call is the case's `seed`, not code;
    `scalars`: the case's scalars that are no sizes, by name: one the case takes out of data
    it draws (a count of nonzeros) is computed by the code as the original computes it."""
    computed = _computed(calls, start, end, inputs, scalars or {})
    objects = list(inputs.values()) + [t for i in computed for t in _reads(calls[i])]
    last = max([end] + list(computed))
    live = sorted(_live(calls, start, last, objects) | set(computed))
    drawn = _drawn_objects(calls, start)
    for index in live:
        if index < start and (
            _is_random(calls[index]) or any(id(t) in drawn for t in _reads(calls[index]))
        ):
            raise ReplayError("reads a tensor drawn for an earlier case")
    seed = None
    if extract_seed and live and calls[live[0]].func is None and live[0] >= start:
        seed = int(calls[live[0]].args[0])
        live = live[1:]
    # draws made before the last seed of the window affect nothing
    seeds = [i for i in live if calls[i].func is None]
    if seeds:
        reads_later = {id(t) for i in live if i > seeds[-1] for t in _reads(calls[i])}
        live = [
            i
            for i in live
            if i >= seeds[-1]
            or not _is_random(calls[i])
            or any(id(t) in reads_later for t in _tensors(calls[i].out))
        ]
    on_cpu = _python_values(calls, start, end, device, set(computed))
    writer = _Writer(calls, live, inputs, shapes, device, on_cpu, taken, computed)
    statements = writer.write(inputs)
    for name, tensor in inputs.items():
        if writer.names[id(tensor)] != name:
            statements.append(_Statement(f"{name} = {writer.names[id(tensor)]}"))
        elif id(tensor) not in writer.bound:
            text = f"{name} = {writer._literal_tensor(tensor)}"
            statements.append(_Statement(text, {id(tensor)}, {_root(tensor)}))
            writer.bound.add(id(tensor))
    made = [name for name, _ in computed.values()]
    return Replayed(_chunks(statements, inputs, on_cpu, calls), seed, on_cpu, made)


def _case_data(calls: Sequence[Call], start: int, end: int) -> Set[int]:
    """ids of the tensors made from the draws of the calls start..end, at any later call."""
    found: Set[int] = set()
    for call in calls[max(start, 0) :]:
        reads = _reads(call)
        if (start <= call.index <= end and _is_random(call)) or any(id(t) in found for t in reads):
            target = _mutated(call)
            for t in [target] if target is not None else _tensors(call.out):
                found.add(id(t))
    return found


def _computed(
    calls: Sequence[Call],
    start: int,
    end: int,
    inputs: Dict[str, torch.Tensor],
    scalars: Dict[str, Any],
) -> Dict[int, Tuple[str, str]]:
    """The calls that take a scalar of the case out of the data it draws (`mask.sum().item()`
    for `nnz`), each -> (the scalar, the Python type it is written through)."""
    data = _case_data(calls, start, end)
    found: Dict[int, Tuple[str, str]] = {}
    for name, value in scalars.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        matching = [
            c.index
            for c in calls[max(start, 0) :]
            if _extracts_values(c)
            and isinstance(c.out, (int, float))
            and not isinstance(c.out, bool)
            and c.out == value
            and any(id(t) in data for t in _reads(c))
        ]
        if len(matching) == 1 and matching[0] not in found:
            found[matching[0]] = (name, "int" if isinstance(value, int) else "float")
    return found


def _python_values(
    calls: Sequence[Call], start: int, end: int, device: str, computed: Set[int]
) -> bool:
    """Whether the code must draw on the CPU: Python takes values (an index, a count the case does
    not pass) out of the case's data drawn on `device` (`self.device`), which the code then
    writes as numbers, right for the CPU's draws. Such values of data drawn before the method
    seeds the stream itself hold for one seed only: a ReplayError."""
    seeds = [c.index for c in calls if c.func is None]
    first_seed = seeds[0] if seeds else len(calls)
    on_device: Set[int] = set()
    drawn: Set[int] = set()  # on the device
    unseeded: Set[int] = set()  # by the judge's seed
    case = _case_data(calls, start, end)
    on_cpu = False
    for call in calls:
        reads = _reads(call)
        ids = {id(t) for t in reads}
        if call.index > start and call.index not in computed and _extracts_values(call):
            if ids & unseeded & case:
                raise ReplayError(
                    f"takes values out of data drawn without a seed into Python ({call.name}): "
                    "written as numbers, they would hold for one seed only"
                )
            on_cpu = on_cpu or bool(ids & drawn & case)
        given = any(a is device for a in call.args) or call.kwargs.get("device") is device
        placed = given or bool(ids & on_device)
        random = _is_random(call) and call.func is not None
        target = _mutated(call)
        for t in [target] if target is not None else list(_tensors(call.out)):
            if placed:
                on_device.add(id(t))
            if (random and placed) or ids & drawn:
                drawn.add(id(t))
            if (random and call.index < first_seed) or ids & unseeded:
                unseeded.add(id(t))
    return on_cpu


def _chunks(
    statements: List[_Statement],
    inputs: Dict[str, torch.Tensor],
    on_cpu: bool,
    calls: Sequence[Call],
) -> List[Chunk]:
    """The statements cut into one piece per input, in signature order, where each input's
    statements come after those of the inputs before it; inputs that cannot be cut apart (made
    together, or made in another order) share the piece of the first of them. A statement that
    draws nothing and that the rest of its piece does not need moves on to the next piece (the
    input that reads it)."""
    names = list(inputs)

    def touches(k: int, name: str) -> bool:
        tensor = inputs[name]
        return id(tensor) in statements[k].binds or _root(tensor) in statements[k].touches

    ends = [max([k for k in range(len(statements)) if touches(k, n)], default=-1) for n in names]
    groups: List[Tuple[List[str], List[int]]] = []
    begin, group = 0, []
    for i, name in enumerate(names):
        group.append(name)
        upto = max(ends[: i + 1])
        later = [k for k in range(upto + 1) for other in names[i + 1 :] if touches(k, other)]
        if later and i + 1 < len(names):
            continue
        stop = len(statements) if i + 1 == len(names) else upto + 1
        groups.append((list(group), list(range(begin, stop))))
        begin, group = stop, []
    for g in range(len(groups) - 1):
        kept, moved = _deferred(groups[g], statements, inputs, calls, touches)
        groups[g] = (groups[g][0], kept)
        groups[g + 1] = (groups[g + 1][0], moved + groups[g + 1][1])
    chunks = []
    for made, indices in groups:
        body = _loops([statements[k].text for k in indices])
        if on_cpu:
            body += [f"{n} = {n}.to(self.device)" for n in made]
        chunk = Chunk(made[0], made, body)
        single = body[0] if len(body) == 1 and len(made) == 1 else ""
        if single.startswith(f"{chunk.owner} = "):
            chunk.expression = single[len(chunk.owner) + 3 :]
        chunks.append(chunk)
    return chunks


def _deferred(group, statements, inputs, calls, touches) -> Tuple[List[int], List[int]]:
    """(the statements a piece keeps, those that move on to the next piece), each in order."""
    made, indices = group

    def reads(statement: _Statement) -> Set[Tuple[str, int]]:
        return {_root(t) for i in statement.calls for t in _reads(calls[i])}

    kept: List[int] = []
    moved: List[int] = []
    for k in reversed(indices):
        statement = statements[k]
        after = [statements[j] for j in kept]
        movable = (
            not any(_is_random(calls[i]) for i in statement.calls)
            and not any(touches(k, name) for name in made)
            and not any(reads(a) & statement.touches for a in after)
            and not any(a.touches & reads(statement) for a in after)
        )
        (moved if movable else kept).insert(0, k)
    return kept, moved


def _loops(lines: List[str]) -> List[str]:
    """A draw repeated n times in a row, its result unread, as a loop."""
    out: List[str] = []
    k = 0
    while k < len(lines):
        n = 1
        while k + n < len(lines) and lines[k + n] == lines[k]:
            n += 1
        if n >= 3 and "\n" not in lines[k]:
            out += [f"for _ in range({n}):", f"    {lines[k]}"]
        else:
            out += lines[k : k + n]
        k += n
    return out


def _count(value: Any) -> int:
    """How many numbers (and tensors) a nested list holds."""
    if isinstance(value, (list, tuple)):
        return sum(_count(v) for v in value)
    return 1


def _has_tensor(value: Any) -> bool:
    return next(_tensors(value), None) is not None
