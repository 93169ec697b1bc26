"""challenge.py run on the CPU, with every tensor's recipe recorded.

The test methods of public challenges build their cases in loops, extra methods and dict literals;
rather than reading all those forms, chgen runs them (seeded as the judge seeds them) under a
TorchFunctionMode that remembers how each tensor was made: `torch.empty(...).uniform_(a, b)`,
`torch.zeros`, `torch.tensor([...])`, `0.5 * x + noise`, ... A recipe that is not one of those is
`opaque`, and the importer says so. Performance cases run on the meta device: shapes and recipes
only, no memory.
"""

from __future__ import annotations

import math
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import torch
from torch.overrides import TorchFunctionMode

from generator.loading import ChallengeLoadError, load_challenge_class

DESCRIPTORS = {"RandTensor", "RandnTensor", "RandIntTensor", "FullTensor", "OutTensor"}


@dataclass
class Recipe:
    """How one tensor was made; `source` is the tensor a scaled copy was taken of."""

    kind: str  # literal empty constant uniform normal randint scaled sum cast view opaque out
    args: Tuple[Any, ...] = ()
    parts: Tuple["Recipe", ...] = ()
    source: Any = None
    line: Optional[int] = None  # line of the traced method that was running when it was made
    why: str = ""  # for opaque recipes: the operation chgen did not follow
    made_by: str = ""  # the torch function that returned it (zeros and full(0) both give 0)
    serial: int = -1  # order of making within one traced method (places torch.manual_seed calls)


@dataclass
class Call:
    """One torch call of a traced method, as made: what replaying the method needs (replay.py).
    `func` is None for torch.manual_seed, whose value is args[0]."""

    index: int
    func: Any
    name: str
    args: Tuple[Any, ...]
    kwargs: Dict[str, Any]
    out: Any


def _snapshot(value: Any) -> Any:
    """Containers copied (the method may change a list after passing it), their items kept."""
    if isinstance(value, list):
        return [_snapshot(v) for v in value]
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_snapshot(v) for v in value)
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    return value


@dataclass
class Traced:
    """One case as the challenge returned it, with the recipe of every tensor."""

    values: Dict[str, Any]
    recipes: Dict[str, Recipe]
    from_example: bool = False
    extra_keys: List[str] = field(default_factory=list)
    described: List[str] = field(default_factory=list)  # keys given as RandTensor, OutTensor, ...
    seed: Optional[int] = None  # torch.manual_seed called right before this case was made


def load_challenge(challenge_py: Path, base_file: Path) -> Any:
    """An instance of the Challenge class of `challenge_py`, on the CPU."""
    cls = load_challenge_class(challenge_py, base_file)
    try:
        return cls(device="cpu")
    except TypeError:
        instance = cls()
        instance.device = "cpu"
        return instance


def _number(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.numel() == 1 and value.device.type != "meta":
        return value.item()
    return value


def _recipe(t: Any) -> Optional[Recipe]:
    return getattr(t, "_chgen_recipe", None) if isinstance(t, torch.Tensor) else None


def _set(t: Any, recipe: Recipe) -> None:
    if isinstance(t, torch.Tensor):
        try:
            t._chgen_recipe = recipe
        except (AttributeError, RuntimeError):
            pass


def _arg(args: tuple, kwargs: dict, index: int, name: str, default: Any) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else default


_FACTORIES_CONSTANT = {"zeros": 0, "ones": 1, "zeros_like": 0, "ones_like": 1}
_VIEWS = {"reshape", "view", "contiguous", "clone", "detach", "flatten", "view_as", "reshape_as"}
_CASTS = {"to", "half", "float", "bfloat16", "int", "long", "type"}
_DRAWS = ("uniform", "normal", "randint")
_LITERAL_MAX = 4096  # torch.tensor data kept verbatim only when it is this small


class Tracer(TorchFunctionMode):
    """Records a Recipe on every tensor a torch call returns (see module docstring)."""

    def __init__(self, code: Optional[types.CodeType] = None, record: bool = False):
        super().__init__()
        self.code = code
        self.made = 0  # tensors recorded so far
        self.seeds: List[Tuple[int, int]] = []  # (tensors made before it, value) per manual_seed
        self.record = record
        self.calls: List[Call] = []  # every torch call, in order, when recording

    def _line(self) -> Optional[int]:
        if self.code is None:
            return None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code is self.code:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def __torch_function__(self, func: Callable, types_: Any, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        out = _meta_shortcut(name, args)
        if out is None:
            out = func(*args, **kwargs)
        if self.record:
            call = Call(len(self.calls), func, name, _snapshot(args), _snapshot(kwargs), out)
            self.calls.append(call)
        try:
            recipe = self._follow(name, args, kwargs, out)
        except Exception:  # recording must never change what the challenge computes
            recipe = Recipe("opaque", why=name)
        if recipe is not None:
            if recipe.line is None:
                recipe.line = self._line()
            recipe.made_by = recipe.made_by or name
            recipe.serial = self.made
            self.made += 1
            _set(out, recipe)
        return out

    def manual_seed(self, real: Callable) -> Callable:
        """torch.manual_seed as the traced method sees it: seeds, and remembers where."""

        def seeded(value):
            self.seeds.append((self.made, int(value)))
            if self.record:
                self.calls.append(
                    Call(len(self.calls), None, "manual_seed", (int(value),), {}, None)
                )
            return real(value)

        return seeded

    def _follow(self, name: str, args: tuple, kwargs: dict, out: Any) -> Optional[Recipe]:
        this = args[0] if args and isinstance(args[0], torch.Tensor) else None
        base = _recipe(this)
        if name == "__setitem__" and this is not None:
            # returns None: the tensor assigned into no longer holds what its recipe says
            # (`flags = torch.zeros(N); flags[starts] = 1`)
            assigned = self._assigned(base)
            if assigned is not None:
                _set(this, assigned)
            self._through_view(this, "item assignment")
            return None
        if not isinstance(out, torch.Tensor):
            return None
        own_generator = kwargs.get("generator") is not None
        if name == "tensor":
            data = args[0] if args else kwargs.get("data")
            literal = data if isinstance(data, (list, tuple, int, float)) else None
            if literal is not None and out.numel() > _LITERAL_MAX:
                literal = None
            return Recipe("literal", (literal,))
        if name in ("empty", "empty_like", "empty_strided"):
            return Recipe("empty")
        if name in _FACTORIES_CONSTANT:
            return Recipe("constant", (_FACTORIES_CONSTANT[name],))
        if name in ("full", "full_like"):
            return Recipe("constant", (_number(_arg(args, kwargs, 1, "fill_value", None)),))
        if own_generator and name in ("rand", "randn", "randint", "uniform_", "normal_"):
            return Recipe("opaque", why=f"{name} with its own torch.Generator")
        if name in ("rand", "rand_like"):
            return Recipe("uniform", (0.0, 1.0))
        if name in ("randn", "randn_like"):
            return Recipe("normal", (0.0, 1.0))
        if name == "randint":
            numbers = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
            if len(numbers) >= 2:
                return Recipe("randint", (numbers[0], numbers[1]))
            if len(numbers) == 1:
                return Recipe("randint", (kwargs.get("low", 0), numbers[0]))
            return Recipe("randint", (kwargs.get("low", 0), kwargs.get("high")))
        if this is not None and out is this and name.endswith("_"):
            self._through_view(this, name)
            return self._in_place(name, args, kwargs, base)
        if name in _VIEWS and base is not None:
            if out.numel() == this.numel():
                return Recipe("view", parts=(base,))
        if name in _CASTS and base is not None and out.dtype != this.dtype:
            return Recipe("cast", (str(out.dtype),), parts=(base,))
        if name in _CASTS and base is not None:
            return Recipe("view", parts=(base,))
        if name in ("mul", "__mul__", "__rmul__"):
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            numbers = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
            if len(tensors) == 1 and len(numbers) == 1 and _recipe(tensors[0]) is not None:
                return Recipe("scaled", (numbers[0],), source=tensors[0])
        if name in ("add", "__add__", "__radd__") and len(args) == 2 and "alpha" not in kwargs:
            left, right = (_recipe(a) for a in args)
            if left is not None and right is not None:
                return Recipe("sum", parts=(left, right))
        return Recipe("opaque", why=name)

    def _through_view(self, view: torch.Tensor, why: str) -> None:
        """A change made through a view (`A.view(-1)[idx] = v`) changes the tensor it views,
        which then no longer holds what its recipe says."""
        viewed = view._base
        made = _recipe(viewed) if viewed is not None else None
        if made is not None and made.kind != "opaque":
            _set(viewed, Recipe("opaque", why=why, parts=(made,), line=made.line,
                                made_by=made.made_by, serial=made.serial))  # fmt: skip

    def _assigned(self, base: Optional[Recipe]) -> Optional[Recipe]:
        """The recipe of a tensor after item assignment: a draw keeps its own (its distribution
        is still the best account of the values, which then differ; the import says so), a fill
        or uninitialised memory becomes opaque, made when it was made: its data is what was
        assigned."""
        made = base
        while made is not None and made.kind in ("view", "cast") and made.parts:
            made = made.parts[0]
        if made is not None and made.kind in _DRAWS:
            return None
        if base is None:
            return Recipe("opaque", why="item assignment", line=self._line())
        return Recipe(
            "opaque",
            why="item assignment",
            parts=(base,),
            line=base.line,
            made_by=base.made_by,
            serial=base.serial,
        )

    @staticmethod
    def _in_place(name: str, args: tuple, kwargs: dict, base: Optional[Recipe]) -> Recipe:
        fresh = base is not None and base.kind in ("empty", "constant")
        if name == "uniform_" and fresh:
            low = _arg(args, kwargs, 1, "from", 0.0)
            high = _arg(args, kwargs, 2, "to", 1.0)
            return Recipe("uniform", (_number(low), _number(high)))
        if name == "normal_" and fresh:
            mean = _arg(args, kwargs, 1, "mean", 0.0)
            std = _arg(args, kwargs, 2, "std", 1.0)
            return Recipe("normal", (_number(mean), _number(std)))
        if name == "fill_":
            return Recipe("constant", (_number(_arg(args, kwargs, 1, "value", None)),))
        if name == "zero_":
            return Recipe("constant", (0,))
        if name == "random_" and fresh:
            numbers = [a for a in args[1:] if isinstance(a, int)]
            if len(numbers) == 2:
                return Recipe("randint", tuple(numbers))
        return Recipe("opaque", why=name)


_META_FILLS = {"uniform_", "normal_", "random_", "fill_", "zero_"}
_META_ARITHMETIC = {"mul", "__mul__", "__rmul__", "add", "__add__", "__radd__"}


def _meta_shortcut(name: str, args: tuple) -> Optional[torch.Tensor]:
    """The result of a fill or of elementwise arithmetic on meta tensors, without running it.

    torch runs these through Python decompositions whose first use imports torch._dynamo (seconds);
    a meta tensor has no values, so its shape and dtype are all there is to compute."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if not tensors or any(t.device.type != "meta" for t in tensors):
        return None
    if name in _META_FILLS and args[0] is tensors[0]:
        return tensors[0]
    if name in _META_ARITHMETIC and len(args) == 2:
        a, b = args
        if not all(isinstance(v, (torch.Tensor, int, float)) for v in (a, b)):
            return None
        shapes = [t.shape for t in tensors]
        dtype = torch.result_type(a, b)
        return torch.empty(torch.broadcast_shapes(*shapes), dtype=dtype, device="meta")
    return None


def recipe_of(value: Any) -> Recipe:
    """The recorded recipe, or a descriptor's, or opaque."""
    kind = type(value).__name__
    if kind in DESCRIPTORS:
        line = getattr(value, "_chgen_line", None)
        if kind == "RandTensor":
            return Recipe("uniform", (value.low, value.high), line=line)
        if kind == "RandnTensor":
            return Recipe("normal", (value.mean, value.std), line=line)
        if kind == "RandIntTensor":
            return Recipe("randint", (value.low, value.high), line=line)
        if kind == "FullTensor":
            return Recipe("constant", (value.value,), line=line)
        return Recipe("out", line=line)
    recipe = _recipe(value)
    return recipe if recipe is not None else Recipe("opaque", why="made outside torch")


def _descriptor_tensor(value: Any) -> Any:
    """A descriptor stands for a tensor of its shape and dtype (meta: no memory, no draws)."""
    dtype = value.dtype if isinstance(value.dtype, torch.dtype) else getattr(torch, value.dtype)
    return torch.empty(tuple(int(d) for d in value.shape), dtype=dtype, device="meta")


def _traced(raw: Dict[str, Any], example_ids: set) -> Traced:
    values, recipes, described = {}, {}, []
    for key, value in raw.items():
        recipes[key] = recipe_of(value)
        if type(value).__name__ in DESCRIPTORS:
            value = _descriptor_tensor(value)
            described.append(key)
        values[key] = value
    return Traced(values, recipes, from_example=id(raw) in example_ids, described=described)


def _serials(recipe: Recipe) -> List[int]:
    """When the tensor and everything it was made from were made."""
    found = [recipe.serial] if recipe.serial >= 0 else []
    source = _recipe(recipe.source)
    for part in recipe.parts + ((source,) if source is not None else ()):
        found.extend(_serials(part))
    return found


def place_seeds(cases: List[Traced], seeds: List[Tuple[int, int]]) -> List[int]:
    """Give each case the last torch.manual_seed called after the case before it was made and
    before it was begun (a seed before the example, which draws nothing, goes to the case after).
    Returns the seeds no case can hold: called while a case was made, or after the last one."""
    unplaced: List[int] = []
    end = -1  # the last tensor of the cases passed so far
    pending: Optional[int] = None
    for case in cases:
        serials = [s for r in case.recipes.values() for s in _serials(r)]
        if not serials:
            continue
        start, last = min(serials), max(serials)
        before = [value for made, value in seeds if end < made <= start]
        if before:
            pending = before[-1]
        unplaced += [value for made, value in seeds if start < made <= last]
        if pending is not None and not case.from_example:
            case.seed, pending = pending, None
        end = max(end, last)
    unplaced += [value for made, value in seeds if made > end]
    return unplaced + ([pending] if pending is not None else [])


@dataclass
class Run:
    """Every case of one challenge, as traced."""

    example: Traced
    functional: List[Traced]
    performance: Traced
    performance_device: str
    #: torch.manual_seed values no case holds (see place_seeds), per traced method
    unplaced_seeds: Dict[str, List[int]] = field(default_factory=dict)
    #: every torch call of each traced method, in order (when recorded)
    calls: Dict[str, List[Call]] = field(default_factory=dict)
    #: the `self.device` object each method ran with (its identity marks the device it passes)
    devices: Dict[str, str] = field(default_factory=dict)


@dataclass
class _Call:
    result: Any
    error: Optional[str]
    seeds: List[Tuple[int, int]]
    calls: List[Call] = field(default_factory=list)
    device: str = "cpu"


def own_device(name: str) -> str:
    """`name` as a string object of its own: where a traced call passes this very object, the
    method passed `self.device` (a literal "cpu" is another object)."""
    return "".join([name[:1], name[1:]])


@contextmanager
def _descriptor_lines(method: Callable, tracer: Tracer) -> Iterator[None]:
    """Descriptors made meanwhile remember the line of the traced method (names their case)."""
    names = getattr(method, "__globals__", {})
    classes = [v for v in names.values() if isinstance(v, type) and v.__name__ in DESCRIPTORS]
    own = {cls: cls.__dict__.get("__init__") for cls in classes}
    for cls in classes:

        def init(self, *args, _real=cls.__init__, **kwargs):
            _real(self, *args, **kwargs)
            self._chgen_line = tracer._line()

        cls.__init__ = init
    try:
        yield
    finally:
        for cls, init in own.items():
            if init is None:
                del cls.__init__
            else:
                cls.__init__ = init


def _seeded(instance: Any, method: str, seed: int, device: str, record: bool = False) -> _Call:
    instance.device = own_device(device)
    torch.manual_seed(seed)
    function = getattr(type(instance), method)
    tracer = Tracer(function.__code__, record)
    real = torch.manual_seed
    torch.manual_seed = tracer.manual_seed(real)
    try:
        with tracer, _descriptor_lines(function, tracer):
            try:
                result = getattr(instance, method)()
                return _Call(result, None, tracer.seeds, tracer.calls, instance.device)
            except Exception as exc:
                return _Call(None, f"{type(exc).__name__}: {exc}", tracer.seeds)
    finally:
        torch.manual_seed = real


def performance_case(instance: Any, seed: int, device: str) -> Optional[Traced]:
    """The performance case alone, seeded as the judge seeds it (`seed + 2`), on `device`; None
    where it fails there. The caller's random state is left as it was."""
    state = torch.random.get_rng_state()
    try:
        call = _seeded(instance, "generate_performance_test", seed + 2, device)
    finally:
        torch.random.set_rng_state(state)
        instance.device = "cpu"
    if call.error:
        return None
    return _traced(call.result[0] if isinstance(call.result, list) else call.result, set())


def run_cases(instance: Any, seed: int = 0, record: bool = False) -> Run:
    """The example, functional and performance cases, seeded as the judge seeds them; `record`
    keeps every torch call (Run.calls), which replaying a case needs.

    The caller's random state is left as it was."""
    state = torch.random.get_rng_state()
    try:
        return _run_cases(instance, seed, record)
    finally:
        torch.random.set_rng_state(state)


def _run_cases(instance: Any, seed: int, record: bool = False) -> Run:
    calls: Dict[str, List[Call]] = {}
    devices: Dict[str, str] = {}
    call = _seeded(instance, "generate_example_test", seed, "cpu", record)
    calls["generate_example_test"], devices["generate_example_test"] = call.calls, call.device
    if call.error:
        raise ChallengeLoadError(f"generate_example_test failed on the CPU: {call.error}")
    raw = call.result[0] if isinstance(call.result, list) else call.result
    example = _traced(raw, set())
    place_seeds([example], call.seeds)  # the seed a drawn example keeps (a literal one drops it)

    example_ids: set = set()
    original = instance.generate_example_test

    def tagged():
        result = original()
        example_ids.add(id(result[0] if isinstance(result, list) else result))
        return result

    instance.generate_example_test = tagged
    try:
        call = _seeded(instance, "generate_functional_test", seed + 1, "cpu", record)
    finally:
        del instance.generate_example_test
    calls["generate_functional_test"] = call.calls
    devices["generate_functional_test"] = call.device
    if call.error:
        raise ChallengeLoadError(f"generate_functional_test failed on the CPU: {call.error}")
    functional = [
        _traced(item[0] if isinstance(item, list) else item, example_ids) for item in call.result
    ]
    unplaced = {"generate_functional_test": place_seeds(functional, call.seeds)}

    device = "meta"
    call = _seeded(instance, "generate_performance_test", seed + 2, "meta", record)
    if call.error:
        device = "cpu"
        call = _seeded(instance, "generate_performance_test", seed + 2, "cpu", record)
    if call.error:
        raise ChallengeLoadError(f"generate_performance_test failed: {call.error}")
    calls["generate_performance_test"] = call.calls
    devices["generate_performance_test"] = call.device
    raw = call.result[0] if isinstance(call.result, list) else call.result
    instance.device = "cpu"
    performance = _traced(raw, set())
    unplaced["generate_performance_test"] = place_seeds([performance], call.seeds)
    return Run(example, functional, performance, device, unplaced, calls, devices)


#: how an output starts before solve: "empty", "zeros" or the number it is filled with
Start = Union[str, float]
_ZEROS = {"zeros", "zeros_like", "zero_"}


def output_start(recipe: Recipe) -> Optional[Start]:
    """How a traced output tensor starts, in the spec's prefill words; None when unknown."""
    while recipe.kind in ("view", "cast") and recipe.parts:
        recipe = recipe.parts[0]
    if recipe.kind in ("empty", "out"):
        return "empty"
    if recipe.kind == "constant" and isinstance(recipe.args[0], (int, float)):
        value = recipe.args[0]
        return "zeros" if value == 0 and recipe.made_by in _ZEROS else float(value)
    return None


def same_start(a: Optional[Start], b: Optional[Start]) -> bool:
    """zeros and a fill with 0 start the same; an unknown start is not compared."""
    if a is None or b is None:
        return True
    return (0.0 if a == "zeros" else a) == (0.0 if b == "zeros" else b) or (
        isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    )
