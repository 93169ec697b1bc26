"""challenge.py run on the CPU, with every tensor's recipe recorded.

The test methods of public challenges build their cases in loops, extra methods and dict literals;
rather than reading all those forms, chgen runs them (seeded as the judge seeds them) under a
TorchFunctionMode that remembers how each tensor was made: `torch.empty(...).uniform_(a, b)`,
`torch.zeros`, `torch.tensor([...])`, `0.5 * x + noise`, ... A recipe that is not one of those is
`opaque`, and the importer says so. Performance cases run on the meta device: shapes and recipes
only, no memory.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

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


@dataclass
class Traced:
    """One case as the challenge returned it, with the recipe of every tensor."""

    values: Dict[str, Any]
    recipes: Dict[str, Recipe]
    from_example: bool = False
    extra_keys: List[str] = field(default_factory=list)


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
_LITERAL_MAX = 4096  # torch.tensor data kept verbatim only when it is this small


class Tracer(TorchFunctionMode):
    """Records a Recipe on every tensor a torch call returns (see module docstring)."""

    def __init__(self, code: Optional[types.CodeType] = None):
        super().__init__()
        self.code = code

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
        try:
            recipe = self._follow(name, args, kwargs, out)
        except Exception:  # recording must never change what the challenge computes
            recipe = Recipe("opaque", why=name)
        if recipe is not None:
            if recipe.line is None:
                recipe.line = self._line()
            _set(out, recipe)
        return out

    def _follow(self, name: str, args: tuple, kwargs: dict, out: Any) -> Optional[Recipe]:
        if not isinstance(out, torch.Tensor):
            return None
        own_generator = kwargs.get("generator") is not None
        this = args[0] if args and isinstance(args[0], torch.Tensor) else None
        base = _recipe(this)
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
            return self._in_place(name, args, kwargs, base)
        if name == "__setitem__" and this is not None:
            _set(this, Recipe("opaque", why="item assignment"))
            return None
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
        if kind == "RandTensor":
            return Recipe("uniform", (value.low, value.high))
        if kind == "RandnTensor":
            return Recipe("normal", (value.mean, value.std))
        if kind == "RandIntTensor":
            return Recipe("randint", (value.low, value.high))
        if kind == "FullTensor":
            return Recipe("constant", (value.value,))
        return Recipe("out")
    recipe = _recipe(value)
    return recipe if recipe is not None else Recipe("opaque", why="made outside torch")


def _descriptor_tensor(value: Any) -> Any:
    """A descriptor stands for a tensor of its shape and dtype (meta: no memory, no draws)."""
    dtype = value.dtype if isinstance(value.dtype, torch.dtype) else getattr(torch, value.dtype)
    return torch.empty(tuple(int(d) for d in value.shape), dtype=dtype, device="meta")


def _traced(raw: Dict[str, Any], example_ids: set) -> Traced:
    values, recipes = {}, {}
    for key, value in raw.items():
        recipes[key] = recipe_of(value)
        if type(value).__name__ in DESCRIPTORS:
            value = _descriptor_tensor(value)
        values[key] = value
    return Traced(values, recipes, from_example=id(raw) in example_ids)


@dataclass
class Run:
    """Every case of one challenge, as traced."""

    example: Traced
    functional: List[Traced]
    performance: Traced
    performance_device: str


def _seeded(instance: Any, method: str, seed: int, device: str) -> Tuple[Any, Optional[str]]:
    instance.device = device
    torch.manual_seed(seed)
    code = getattr(type(instance), method).__code__
    with Tracer(code):
        try:
            return getattr(instance, method)(), None
        except Exception as exc:
            return None, f"{type(exc).__name__}: {exc}"


def run_cases(instance: Any, seed: int = 0) -> Run:
    """The example, functional and performance cases, seeded as the judge seeds them.

    The caller's random state is left as it was."""
    state = torch.random.get_rng_state()
    try:
        return _run_cases(instance, seed)
    finally:
        torch.random.set_rng_state(state)


def _run_cases(instance: Any, seed: int) -> Run:
    raw, error = _seeded(instance, "generate_example_test", seed, "cpu")
    if error:
        raise ChallengeLoadError(f"generate_example_test failed on the CPU: {error}")
    if isinstance(raw, list):
        raw = raw[0]
    example = _traced(raw, set())

    example_ids: set = set()
    original = instance.generate_example_test

    def tagged():
        result = original()
        example_ids.add(id(result[0] if isinstance(result, list) else result))
        return result

    instance.generate_example_test = tagged
    try:
        raw_list, error = _seeded(instance, "generate_functional_test", seed + 1, "cpu")
    finally:
        del instance.generate_example_test
    if error:
        raise ChallengeLoadError(f"generate_functional_test failed on the CPU: {error}")
    functional = [
        _traced(item[0] if isinstance(item, list) else item, example_ids) for item in raw_list
    ]

    device = "meta"
    raw, error = _seeded(instance, "generate_performance_test", seed + 2, "meta")
    if error:
        device = "cpu"
        raw, error = _seeded(instance, "generate_performance_test", seed + 2, "cpu")
    if error:
        raise ChallengeLoadError(f"generate_performance_test failed: {error}")
    if isinstance(raw, list):
        raw = raw[0]
    instance.device = "cpu"
    return Run(example, functional, _traced(raw, set()), device)
