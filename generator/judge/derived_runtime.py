"""The solution side of a derived solution file: a challenge's own reference as PyTorch solutions.

A derived file (written by generator/judge/derived.py) carries challenge.py's text, the text of the
`core` modules it imports and the mutated `reference_impl` methods, and binds one `solve` per
variant to a `Derived`. It runs in the solution's process like any solution: the challenge folder
is not visible there, so nothing is read from disk; the texts are executed here, once.

Variants: `reference` (the reference itself), one per mutated method (generator/judge/mutate.py),
and the generic wrong outputs of `WRONG_OUTPUTS`, which any challenge can get wrong whatever its
reference computes.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, Dict, List, Optional, Sequence

from generator.judge.mutate import LOW_PRECISION, LOW_PRECISION_METHOD

REFERENCE = "reference"
CHALLENGE_MODULE = "chgen_derived_challenge"
#: name -> the mistake in words; what each does is `Derived.wrong_output`
WRONG_OUTPUTS = {
    "all_zeros": "every output element written as 0",
    "prefill_unwritten": "the outputs left as they were handed over (nothing written)",
    "input_copied": "an input copied into the output",
    "first_only": "only the first element (1-D) or the first row written",
    "last_row_skipped": "every row but the last written (1-D: every element but the last)",
    "last_column_skipped": "every column but the last written (outputs of rank 2 or more)",
}


def applicable(name: str, inputs: Sequence[Any], outputs: Sequence[Any]) -> bool:
    """Whether a wrong output can differ from the reference's at all, given one case's input
    and output tensors: a column to skip needs a rank-2 output, a copy needs an input."""
    if name == "last_column_skipped":
        return any(t.dim() >= 2 for t in outputs)
    if name == "input_copied":
        return bool(inputs)
    return True


def _lower(value: Any, low: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
        return value.to(low)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_lower(v, low) for v in value)
    return value


def _widest(values: Sequence[Any]) -> Any:
    import torch

    found = [v.dtype for v in values if isinstance(v, torch.Tensor) and v.dtype.is_floating_point]
    for v in values:
        if isinstance(v, (list, tuple)):
            found += [
                t.dtype for t in v if isinstance(t, torch.Tensor) and t.dtype.is_floating_point
            ]
    if not found:
        return torch.float32
    return max(found, key=lambda d: torch.finfo(d).bits)


def _restore(value: Any, wide: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(wide) if value.dtype.is_floating_point else value
    if isinstance(value, tuple):
        return type(value)(tuple(_restore(v, wide) for v in value))
    return value


def low_precision(function: Callable[..., Any], dtype: str) -> Callable[..., Any]:
    """`function` run on copies of its floating tensors in `dtype` (float16, bfloat16), its
    result brought back to the widest floating dtype it was given; an `out=` tensor is written."""
    import torch

    low = getattr(torch, dtype)

    def call(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.pop("out", None)
        wide = _widest(list(args) + list(kwargs.values()) + ([out] if out is not None else []))
        result = function(*_lower(args, low), **{k: _lower(v, low) for k, v in kwargs.items()})
        result = _restore(result, wide)
        if out is None:
            return result
        out.copy_(result)
        return out

    return call


def low_precision_method(owner: Any, name: str, dtype: str) -> Callable[..., Any]:
    """`owner.name(...)` computed as `low_precision` computes a function (owner a tensor)."""
    import torch

    if not isinstance(owner, torch.Tensor):
        return getattr(owner, name)
    return lambda *args, **kwargs: low_precision(getattr(torch.Tensor, name), dtype)(
        owner, *args, **kwargs
    )


class Derived:
    """The variants of one challenge's reference; `entry(name)` is the `solve` of one."""

    def __init__(
        self,
        core: Dict[str, str],
        challenge: str,
        params: List[str],
        inputs: List[str],
        outputs: List[str],
        methods: Dict[str, str],
    ):
        self.core = core  # module name (core.challenge_base) -> its text
        self.challenge = challenge
        self.params = params
        self.inputs = inputs  # the input tensors, in signature order
        self.outputs = outputs  # the out and inout tensors
        self.methods = methods  # variant name -> a rewritten reference_impl
        self._namespace: Optional[Dict[str, Any]] = None
        self._instances: Dict[tuple, Any] = {}

    # ------------------------------------------------------------------------- loading
    def namespace(self) -> Dict[str, Any]:
        """challenge.py's module namespace, its `core` modules installed from their texts."""
        if self._namespace is None:
            package = sys.modules.get("core") or types.ModuleType("core")
            package.__path__ = []
            sys.modules["core"] = package
            for name, text in self.core.items():
                module = types.ModuleType(name)
                sys.modules[name] = module  # before its code runs: dataclasses look it up
                exec(compile(text, f"{name.replace('.', '/')}.py", "exec"), module.__dict__)
                setattr(package, name.split(".", 1)[1], module)
            module = types.ModuleType(CHALLENGE_MODULE)
            sys.modules[CHALLENGE_MODULE] = module
            exec(compile(self.challenge, "challenge.py", "exec"), module.__dict__)
            module.__dict__[LOW_PRECISION] = low_precision
            module.__dict__[LOW_PRECISION_METHOD] = low_precision_method
            self._namespace = module.__dict__
        return self._namespace

    def instance(self, variant: str, device: str) -> Any:
        """A Challenge for `device` whose reference_impl is the variant's."""
        key = (variant, device)
        if key not in self._instances:
            namespace = self.namespace()
            cls = namespace["Challenge"]
            if variant in self.methods:
                scope = dict(namespace)
                exec(compile(self.methods[variant], f"<{variant}>", "exec"), scope)
                cls = type("Challenge", (cls,), {"reference_impl": scope["reference_impl"]})
            self._instances[key] = cls(device=device)
        return self._instances[key]

    # --------------------------------------------------------------------------- calls
    def entry(self, variant: str) -> Callable[..., None]:
        def solve(*args: Any) -> None:
            self.run(variant, dict(zip(self.params, args)))

        solve.__name__ = f"solve_{variant}"
        return solve

    def jax_entry(self, scalars: List[str]) -> Callable[..., Any]:
        """The `solve` of a JAX solution: reference_impl_jax called with `params` (the in/inout
        arrays and the scalars), compiled whole by jax.jit (the scalars static) where it can be
        traced, else run op by op as written (Python control flow on an array's values)."""
        import jax

        def call(*args: Any) -> Any:
            method = self.instance(REFERENCE, "cpu").reference_impl_jax
            return method(**dict(zip(self.params, args)))

        static = [i for i, name in enumerate(self.params) if name in scalars]
        state: Dict[str, Any] = {"traced": jax.jit(call, static_argnums=static)}

        def solve(*args: Any) -> Any:
            if state["traced"] is not None:
                try:
                    return state["traced"](*args)
                except (jax.errors.JAXTypeError, jax.errors.JAXIndexError):
                    state["traced"] = None
            return call(*args)

        return solve

    def reference(self, variant: str, values: Dict[str, Any]) -> None:
        import torch

        device = next(
            (str(v.device) for v in values.values() if isinstance(v, torch.Tensor)), "cpu"
        )
        self.instance(variant, device).reference_impl(**values)

    def run(self, variant: str, values: Dict[str, Any]) -> None:
        if variant == REFERENCE or variant in self.methods:
            self.reference(variant, values)
        else:
            self.wrong_output(variant, values)

    def wrong_output(self, variant: str, values: Dict[str, Any]) -> None:
        outputs = [values[name] for name in self.outputs]
        if variant == "prefill_unwritten":
            return
        if variant == "all_zeros":
            for out in outputs:
                out.zero_()
            return
        if variant == "input_copied":
            source = values[self.inputs[0]].reshape(-1) if self.inputs else None
            for out in outputs:
                if source is not None:
                    count = min(out.numel(), source.numel())
                    out.view(-1)[:count].copy_(source[:count])
            return
        # the rest write part of what the reference computes
        computed = {name: values[name].clone() for name in self.outputs}
        self.reference(REFERENCE, {**values, **computed})
        for name in self.outputs:
            out, full = values[name], computed[name]
            if out.dim() == 0:
                continue
            if variant == "first_only":
                out[:1].copy_(full[:1])
            elif variant == "last_row_skipped":
                out[:-1].copy_(full[:-1])
            elif variant == "last_column_skipped":
                if out.dim() >= 2:
                    out[..., :-1].copy_(full[..., :-1])
                else:
                    out.copy_(full)
            else:
                raise ValueError(f"unknown variant {variant!r}")
