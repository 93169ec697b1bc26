"""JAX: `@jax.jit def solve(...)` that takes in/inout arrays and returns the outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from generator.languages.base import Language, SigParam

#: The buffer of JAX's least call (`Jax.trivial_call`), which the dispatch floor is measured on too
#: (benchmarks/harness_check.py).
TRIVIAL_SHAPE = (8, 128)


def _plus_zero(x: Any) -> Any:
    return x + 0


class Jax(Language):
    key = "jax"
    title = "JAX"
    suffix = ".jax.py"
    template = "starter/jax.py.j2"
    noun = ("tensor on device", "tensors on device")
    formatter = "python_format"
    drops_outputs = True
    # the public set writes the singular even for several outputs
    return_comment = "# return output tensor directly"
    tab_order = 3
    runs_on_cpu = True
    own_streams = True
    # a call dispatches and exports its results on the host before its work is queued (its
    # buffers are imported once, at bind; with the per-call exchange, the fallback, 0.3-1 ms
    # were measured on an H200): the stream is held busy for about 0.5 ms meanwhile. Not sized
    # from the host time seen at warm-up: host work the cover hides is not timed, so a longer
    # cover would let a solution compute on the host for free, and the empty calls among the
    # timed ones, behind the same cover, would outgrow the clock bound's trust (rounds.py)
    launch_cover_cycles = 1_000_000
    packages = ("jax", "jaxlib")
    distributed_refusal = "a jitted solve that returns its outputs cannot join a process group"

    def tensor_type(self, p: SigParam) -> str:
        return "jax.Array"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.python_scalar

    def names_tensor(self, p: SigParam) -> bool:
        return p.direction != "out"

    def return_annotation(self, params: Sequence[SigParam]) -> Optional[str]:
        returned = [p for p in params if p.is_tensor and p.direction != "in"]
        if len(returned) == 1:
            return "jax.Array"
        return f"tuple[{', '.join('jax.Array' for _ in returned)}]"

    def extra_context(self, params: Sequence[SigParam], ranks: bool = False) -> Dict[str, Any]:
        return {
            "return_annotation": self.return_annotation(params),
            "return_comment": self.return_comment,
        }

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        from generator.toolchain.bindings import check_python_source

        return check_python_source(source)

    def trivial_call(self, device: str) -> Optional[Any]:
        # a JAX call leaves work of its own after what the current stream waits for: the device
        # synchronisation ending each timed round waited 0.08-0.1 ms more after 142's and 143's
        # optimized JAX calls than after an empty call, whatever their size, against 0.01 ms
        # for CUDA's (an H200, 2026-12-03, benchmarks/results/jax-timing-h200-2026-12-03-round-
        # split.md); the clock bound would count it as the solution's work
        from generator.toolchain.bindings import JaxSolve, require_module

        require_module("jax", "pip install jax")
        import jax
        import torch

        params = [
            SigParam.make("x", "float32", "in", True),
            SigParam.make("y", "float32", "out", True),
        ]
        values = {
            "x": torch.zeros(TRIVIAL_SHAPE, dtype=torch.float32, device=device),
            "y": torch.empty(TRIVIAL_SHAPE, dtype=torch.float32, device=device),
        }
        bound = JaxSolve(jax.jit(_plus_zero)).bind(params, values)
        bound.run()  # compiled here, not in a timed call
        bound.prepare()
        return bound

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        from generator.toolchain.bindings import JaxSolve, import_file, require_module, solve_of

        require_module("jax", "pip install jax")
        return JaxSolve(solve_of(import_file(artifact), artifact))
