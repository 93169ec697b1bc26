import tilelang
import tilelang.language as T
import torch

# Elements a thread block reads per step: 256 threads x 8 bf16 (one 16-byte vector each).
_STEP_ELEMENTS = 2048
_THREADS = 256
# Narrowest row tile: 8 bf16, one vector, so short rows still load 16 bytes at a time.
_MIN_TILE = 8


def _next_power_of_2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


@tilelang.jit
def _inv_rms_kernel(rows: int, cols: int, rows_per_block: int, tile: int):
    """rows_per_block rows per thread block, each walked tile columns at a time: every step is
    one 16-byte bf16 vector per thread, squared and summed in fp32 registers; one reduction per
    row, then the mean, the square root and the reciprocal in fp64, rounded to fp32 once."""

    @T.prim_func
    def kernel(
        x: T.Tensor((rows, cols), T.bfloat16),
        inv_rms: T.Tensor((rows,), T.float32),
        eps: T.float32,
    ):
        with T.Kernel(T.ceildiv(rows, rows_per_block), threads=_THREADS) as block:
            partial = T.alloc_fragment((rows_per_block, tile), "float32")
            total = T.alloc_fragment((rows_per_block,), "float32")
            T.clear(partial)
            for step in T.serial(T.ceildiv(cols, tile)):
                for r, j in T.Parallel(rows_per_block, tile):
                    row = block * rows_per_block + r
                    col = step * tile + j
                    value = T.if_then_else(
                        row < rows,
                        T.if_then_else(col < cols, T.cast(x[row, col], "float32"), 0.0),
                        0.0,
                    )
                    partial[r, j] += value * value
            T.reduce_sum(partial, total, dim=1)
            for r in T.Parallel(rows_per_block):
                row = block * rows_per_block + r
                if row < rows:
                    mean = T.cast(total[r], "float64") / T.cast(cols, "float64")
                    inv_rms[row] = T.cast(1.0 / T.sqrt(mean + T.cast(eps, "float64")), "float32")

    return kernel


def solve(x: torch.Tensor, inv_rms: torch.Tensor, T: int, D: int, eps: float):
    tile = min(_STEP_ELEMENTS, max(_MIN_TILE, _next_power_of_2(D)))
    _inv_rms_kernel(T, D, _STEP_ELEMENTS // tile, tile)(x, inv_rms, eps)
