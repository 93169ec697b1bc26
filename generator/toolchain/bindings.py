"""Loaded solutions and how one call is bound to a case's tensors.

`bind` does all per-case preparation (ctypes arguments, DLPack views, CuTe compilation) and returns
a `Bound` whose `run` is only the solution's own work, which is what the timing harness times, and
whose `finish` maps returned arrays onto the output tensors (JAX only) and whose `prepare`, before
each timed call, lets go of the arrays the last call returned (JAX only). A JAX binding imports
the judge's buffers once, at bind (`JaxSolve`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import itertools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence

from generator.toolchain.errors import BuildError, CannotJudge, ReturnMismatch
from generator.toolchain.tools import MOJO_RUNTIME_LIBS, find_mojo_runtime

if TYPE_CHECKING:
    from generator.languages.base import SigParam

_modules = itertools.count()


def require_module(name: str, hint: str) -> None:
    """Fail early, and as the judge's problem, when a language's framework is not installed."""
    if importlib.util.find_spec(name) is None:
        raise CannotJudge(f"{name} is not installed here ({hint})")


@dataclass
class Bound:
    run: Callable[[], Any]
    finish: Callable[[], None] = lambda: None
    #: before each timed call, off the clock and in a request of its own (generator/judge/
    #: rounds.py): lets go of what the last call left (JAX's returned arrays, once mapped), so
    #: that freeing them is neither timed nor in the round trip the judge's clock bound reads
    prepare: Callable[[], None] = lambda: None
    #: a language that returns its outputs: the tensors the last call's returned arrays were
    #: exchanged into on the current stream (what the stream-order check reads), or None
    returned: Optional[Callable[[], List[Any]]] = None
    #: JAX only: how its buffers meet the judge's (`BOUND`: imported once; `PER_CALL`: at each call)
    exchange: Optional[str] = None


def import_file(path: Path) -> Any:
    """Import a solution file as a fresh module (no bytecode written next to it)."""
    sys.dont_write_bytecode = True
    name = f"chgen_solution_{next(_modules)}"
    spec = importlib.util.spec_from_file_location(name, str(path))
    if spec is None or spec.loader is None:
        raise BuildError(f"{path}: not importable")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def solve_of(module: Any, path: Path, entry: str = "solve") -> Callable[..., Any]:
    solve = getattr(module, entry, None)
    if not callable(solve):
        raise BuildError(f"{path.name} defines no function '{entry}'")
    return solve


def check_python_source(source: Path) -> Path:
    """The build step of the Python languages: the file must at least parse."""
    try:
        compile(source.read_text(encoding="utf-8"), str(source), "exec")
    except SyntaxError as exc:
        raise BuildError(f"{source.name}:{exc.lineno}:{exc.offset}: {exc.msg}") from None
    except ValueError as exc:  # includes UnicodeDecodeError
        raise BuildError(f"{source.name}: {exc}") from None
    return source


def reject_objects(params: Sequence[SigParam]) -> None:
    """Challenges that pass an nn.Module (public #41) can only be solved in PyTorch or Triton."""
    opaque = [p.name for p in params if not p.is_tensor and p.dtype.name == "object"]
    if opaque:
        raise CannotJudge(
            f"{', '.join(opaque)}: Python object(s), which only PyTorch and Triton solutions take"
        )


def _scalar_ctype(p: SigParam) -> Any:
    declared = getattr(p, "ctype", None)
    if declared is not None:
        return declared
    return {"float32": ctypes.c_float, "int32": ctypes.c_int32, "int64": ctypes.c_int64}.get(
        p.dtype.name, ctypes.c_int32
    )


class PythonSolve:
    """PyTorch and Triton: solve(*tensors_and_scalars) in signature order, outputs in place."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn

    def bind(self, params: Sequence[SigParam], values: Dict[str, Any]) -> Bound:
        args = [values[p.name] for p in params]
        return Bound(lambda: self.fn(*args))


class NativeSolve:
    """CUDA and Mojo shared libraries: an exported C `solve` called through ctypes."""

    def __init__(self, artifact: Path, params: Sequence[SigParam]):
        self.library = ctypes.CDLL(str(artifact))
        try:
            self.fn = self.library.solve
        except AttributeError:
            raise BuildError(
                f"{artifact.name} exports no symbol 'solve' (declare it extern \"C\" / @export)"
            ) from None
        reject_objects(params)
        self.fn.argtypes = [ctypes.c_void_p if p.is_tensor else _scalar_ctype(p) for p in params]
        self.fn.restype = None

    def bind(self, params: Sequence[SigParam], values: Dict[str, Any]) -> Bound:
        args = [
            ctypes.c_void_p(values[p.name].data_ptr()) if p.is_tensor else values[p.name]
            for p in params
        ]
        return Bound(lambda: self.fn(*args))


#: How a JAX call meets the judge's buffers on a GPU (`JaxSolve`): imported once, at bind, with
#: JAX's compute stream made to wait for the current stream at each call (BOUND), or imported
#: and exported at every call (PER_CALL: the fallback, and the former binding, which
#: benchmarks/harness_check.py measures beside it).
BOUND, PER_CALL = "bound", "per_call"


class JaxSolve:
    """JAX: in/inout arrays and scalars in, the out/inout arrays returned in signature order.

    The buffers are imported through DLPack once, at bind (`_Arguments`): the arrays are views of
    the judge's buffers, which it rewrites in place between calls, so each call reads that call's
    inputs; a view JAX could not alias (it copied on import) or that a call deleted (donated) is
    imported again at each call. On a GPU each call's work is ordered with the current stream, as
    a CUDA kernel's is, by two events and no host wait: before the call JAX's compute stream
    (found once per process through a buffer callback, `compute_stream`) waits for the current
    stream, and after it the current stream waits for the compute stream. So the call is timed as
    its device work, its dispatch queued behind the stream's cover like any launch
    (generator/judge/timing.py), and no buffer crosses DLPack on its clock. (Exporting the results
    in the call instead, as this binding once did, holds the host until JAX's work is done: in one
    A/B run on an H200 a timed call of 142's optimized JAX spent 0.29 ms on the host that way,
    0.19 ms this way.) The
    events cover the call's work only if JAX has queued it on the compute stream when the call
    returns, as PJRT's GPU client does (on an H200 the events read 0.215 ms around 0.213 ms of
    kernels); `stream_ordered` cannot see that (reading a returned array waits for it), but the
    judge's clock bounds every call by the round trip the worker saw, the device synchronised
    (generator/judge/rounds.py): a JAX that queued later would be retimed, not undercounted.
    Where the compute stream cannot be found (`exchange` PER_CALL), every call imports its
    buffers on the current stream and exports its results. On the CPU the call waits for its
    result."""

    def __init__(self, fn: Callable[..., Any], exchange: str = BOUND):
        self.fn = fn
        self.exchange = exchange

    def bind(self, params: Sequence[SigParam], values: Dict[str, Any]) -> Bound:
        import jax

        reject_objects(params)
        taken = [p for p in params if p.direction != "out"]
        outputs = [p for p in params if p.is_tensor and p.direction != "in"]
        state: Dict[str, Any] = {}

        def finish() -> None:
            _map_returned(state.get("result"), outputs, values)

        def prepare() -> None:
            state.pop("result", None)
            state.pop("views", None)

        on_gpu = any(p.is_tensor and values[p.name].is_cuda for p in params)
        if not on_gpu:
            arguments = _Arguments(taken, values, every_call=self.exchange == PER_CALL)

            def run() -> None:
                state["result"] = jax.block_until_ready(self.fn(*arguments.get()))

            return Bound(run, finish, prepare, exchange=BOUND if arguments.once() else PER_CALL)

        import torch

        order = _StreamOrder.of(params, values) if self.exchange == BOUND else None
        arguments = _Arguments(taken, values, every_call=order is None)

        def run_on_stream() -> None:
            if order is not None:
                order.wait_for_current()
            result = self.fn(*arguments.get())
            state["result"] = result
            if order is not None:
                order.current_waits()
            else:  # exported on the current stream, which then waits for JAX's work
                state["views"] = [torch.from_dlpack(a) for a in _returned_arrays(result)]

        def returned() -> List[Any]:
            if "views" not in state:  # exported when asked, after the clock
                state["views"] = [torch.from_dlpack(a) for a in _returned_arrays(state["result"])]
            return list(state["views"])

        return Bound(
            run_on_stream,
            finish,
            prepare,
            returned=returned,
            exchange=PER_CALL if order is None else BOUND,
        )


class _Arguments:
    """A JAX call's arguments in signature order: the tensors as DLPack views of the judge's
    buffers, made once; those JAX did not alias (`aliases`) or that a call deleted (donated),
    made again for each call (`every_call`: all of them, the former binding)."""

    def __init__(self, taken: Sequence[SigParam], values: Dict[str, Any], every_call: bool = False):
        self.args: List[Any] = [None if p.is_tensor else values[p.name] for p in taken]
        self.tensors = {i: values[p.name] for i, p in enumerate(taken) if p.is_tensor}
        self.again = set(self.tensors) if every_call else set()
        for i, tensor in self.tensors.items():
            if i not in self.again:
                self.args[i] = _import(tensor)
                if not aliases(self.args[i], tensor):
                    self.again.add(i)

    def once(self) -> bool:
        """Whether every tensor is imported once only (none again at each call)."""
        return not self.again

    def get(self) -> List[Any]:
        for i, tensor in self.tensors.items():
            if i in self.again or self.args[i].is_deleted():
                self.args[i] = _import(tensor)
        return list(self.args)


def _import(tensor: Any) -> Any:
    import jax.dlpack

    return jax.dlpack.from_dlpack(tensor)


def aliases(array: Any, tensor: Any) -> bool:
    """Whether a JAX array imported from `tensor` reads the tensor's own memory (JAX copies on
    import what it cannot alias, e.g. int64 data without x64)."""
    if tensor.numel() == 0:
        return True
    try:
        return int(array.unsafe_buffer_pointer()) == int(tensor.data_ptr())
    except Exception:  # noqa: BLE001 - unknown: imported again at each call
        return False


#: JAX's compute stream per device (a CUDA stream handle), found once per process.
_COMPUTE_STREAMS: Dict[Any, Optional[int]] = {}


def compute_stream(device: Any) -> Optional[int]:
    """The CUDA stream JAX runs its computations on for `device` (a jax Device), as a buffer
    callback sees it (`ExecutionContext.stream`); None where there is none (the CPU) or this JAX
    cannot say."""
    if device in _COMPUTE_STREAMS:
        return _COMPUTE_STREAMS[device]
    import jax
    import jax.numpy as jnp

    seen: List[int] = []

    def note(ctx: Any, out: Any, x: Any) -> None:
        seen.append(int(ctx.stream))

    try:
        from jax.experimental.buffer_callback import buffer_callback

        probe = jax.jit(
            buffer_callback(note, jax.ShapeDtypeStruct((1,), jnp.float32), has_side_effect=True)
        )
        jax.block_until_ready(probe(jax.device_put(jnp.zeros((1,), jnp.float32), device)))
    except Exception:  # noqa: BLE001 - no buffer callback or no stream: the per-call exchange
        seen.clear()
    found = seen[-1] if seen and seen[-1] else None
    _COMPUTE_STREAMS[device] = found
    return found


class _StreamOrder:
    """Makes JAX's compute stream wait for the current stream (an event recorded there), so that
    JAX's next work runs after what the stream has queued (the judge's inputs, the cover), with
    no host wait and no JAX call."""

    def __init__(self, stream: Any, device: Any):
        import torch

        self.stream, self.device = stream, device
        self.event = torch.cuda.Event(enable_timing=False)
        self.done = torch.cuda.Event(enable_timing=False)
        self.current = torch.cuda.current_stream

    @classmethod
    def of(cls, params: Sequence[SigParam], values: Dict[str, Any]) -> Optional["_StreamOrder"]:
        import torch

        tensor = next(values[p.name] for p in params if p.is_tensor and values[p.name].is_cuda)
        handle = compute_stream(next(iter(_import(tensor).devices())))
        if handle is None:
            return None
        return cls(torch.cuda.ExternalStream(handle, device=tensor.device), tensor.device)

    def wait_for_current(self) -> None:
        self.event.record(self.current(self.device))
        self.stream.wait_event(self.event)

    def current_waits(self) -> None:
        """The current stream waits for what JAX has queued on its compute stream (its call's
        kernels, queued before the call returns)."""
        self.done.record(self.stream)
        self.current(self.device).wait_event(self.done)


def _returned_arrays(result: Any) -> List[Any]:
    """The arrays a JAX solve returned, in order (one array, or a tuple or list of them); what is
    not an array is left for `_map_returned` to refuse after the clock."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    return [a for a in items if hasattr(a, "__dlpack__")]


def _map_returned(result: Any, outputs: List[SigParam], values: Dict[str, Any]) -> None:
    import jax.numpy as jnp
    import torch

    names = ", ".join(p.name for p in outputs)
    if result is None:
        raise ReturnMismatch(f"solve returned None; expected {len(outputs)} array(s) ({names})")
    arrays = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(arrays) != len(outputs):
        raise ReturnMismatch(
            f"solve returned {len(arrays)} array(s); expected {len(outputs)} ({names})"
        )
    for p, array in zip(outputs, arrays):
        target = values[p.name]
        try:
            got = torch.from_dlpack(jnp.asarray(array))
        except Exception as exc:
            raise ReturnMismatch(f"{p.name}: returned {type(array).__name__}: {exc}") from None
        if tuple(got.shape) != tuple(target.shape):
            raise ReturnMismatch(
                f"{p.name}: returned shape {tuple(got.shape)}, expected {tuple(target.shape)}"
            )
        target.copy_(got.to(target.device))


class CuteSolve:
    """CuTe DSL: cute.compile(solve, *args) once per argument signature, then compiled(*args).

    Tensors are DLPack views with a dynamic, row-major layout (16-byte aligned: the guarded
    buffers are), so one compilation serves every case of the same dtypes and ranks. Scalars are
    wrapped in the cutlass type the solve annotation names, else the one of the declared dtype."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.compiled: Dict[tuple, Any] = {}

    def _annotation(self, name: str) -> Optional[type]:
        import inspect

        import cutlass

        try:
            annotation = inspect.signature(self.fn).parameters[name].annotation
        except (KeyError, TypeError, ValueError):
            return None
        if isinstance(annotation, type) and issubclass(annotation, cutlass.Numeric):
            return annotation
        return None

    def bind(self, params: Sequence[SigParam], values: Dict[str, Any]) -> Bound:
        import cutlass
        import cutlass.cute as cute
        from cutlass.cute.runtime import from_dlpack

        reject_objects(params)
        args, key = [], []
        for p in params:
            value = values[p.name]
            if p.is_tensor:
                view = from_dlpack(value, assumed_align=16)
                if value.dim() > 0:
                    view = view.mark_layout_dynamic(leading_dim=value.dim() - 1)
                args.append(view)
                key.append((str(value.dtype), value.dim()))
            else:
                cls = self._annotation(p.name) or getattr(
                    cutlass, p.dtype.cute_element.split(".")[1]
                )
                args.append(cls(value))
                key.append(cls.__name__)
        signature = tuple(key)
        compiled = self.compiled.get(signature)
        if compiled is None:
            try:
                compiled = cute.compile(self.fn, *args)
            except Exception as exc:
                raise BuildError(f"cute.compile failed: {type(exc).__name__}: {exc}") from exc
            self.compiled[signature] = compiled
        return Bound(lambda: compiled(*args))


def preload_mojo_runtime(directory: Optional[Path]) -> Path:
    """Load the Mojo runtime globally so a .so built elsewhere finds it by soname."""
    found = directory or find_mojo_runtime()
    if found is None:
        raise CannotJudge(
            "Mojo runtime libraries not found: install mojo/max-core or set CHGEN_MOJO_RUNTIME"
        )
    for name in MOJO_RUNTIME_LIBS:
        ctypes.CDLL(str(found / name), mode=ctypes.RTLD_GLOBAL)
    return found


def mojo_runtime_from_env() -> Optional[Path]:
    value = os.environ.get("CHGEN_MOJO_RUNTIME")
    return Path(value) if value else None
