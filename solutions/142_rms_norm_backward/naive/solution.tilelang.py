import tilelang
import tilelang.language as T
import torch

# Columns per step of the row kernel, and its threads.
_BLOCK = 256
_THREADS = 128
# The dweight kernel's tile: rows per step, columns per thread block.
_BLOCK_R = 32
_BLOCK_C = 64


@tilelang.jit
def _row_kernel(N: int, C: int):
    """One thread block per row, two passes over its columns: the sums, then dx. The row's
    factor r is kept for the dweight kernel."""

    @T.prim_func
    def kernel(
        x: T.Tensor((N, C), T.float32),
        dy: T.Tensor((N, C), T.float32),
        weight: T.Tensor((C,), T.float32),
        dx: T.Tensor((N, C), T.float32),
        rstd: T.Tensor((N,), T.float32),
        eps: T.float32,
    ):
        with T.Kernel(N, threads=_THREADS) as row:
            sq = T.alloc_fragment((_BLOCK,), "float32")
            proj = T.alloc_fragment((_BLOCK,), "float32")
            sum_sq = T.alloc_fragment((1,), "float32")
            sum_proj = T.alloc_fragment((1,), "float32")
            T.clear(sq)
            T.clear(proj)
            for step in T.serial(T.ceildiv(C, _BLOCK)):
                for j in T.Parallel(_BLOCK):
                    col = step * _BLOCK + j
                    xv = T.if_then_else(col < C, x[row, col], 0.0)
                    gv = T.if_then_else(col < C, dy[row, col] * weight[col], 0.0)
                    sq[j] += xv * xv
                    proj[j] += gv * xv
            T.reduce_sum(sq, sum_sq, dim=0)
            T.reduce_sum(proj, sum_proj, dim=0)
            r = 1.0 / T.sqrt(sum_sq[0] / C + eps)
            coef = r * r * r * sum_proj[0] / C
            rstd[row] = r
            for step in T.serial(T.ceildiv(C, _BLOCK)):
                for j in T.Parallel(_BLOCK):
                    col = step * _BLOCK + j
                    if col < C:
                        dx[row, col] = r * dy[row, col] * weight[col] - x[row, col] * coef

    return kernel


@tilelang.jit
def _dweight_kernel(N: int, C: int):
    """One thread block per block of columns, walking all rows _BLOCK_R at a time."""

    @T.prim_func
    def kernel(
        x: T.Tensor((N, C), T.float32),
        dy: T.Tensor((N, C), T.float32),
        rstd: T.Tensor((N,), T.float32),
        dweight: T.Tensor((C,), T.float32),
    ):
        with T.Kernel(T.ceildiv(C, _BLOCK_C), threads=_THREADS) as block:
            acc = T.alloc_fragment((_BLOCK_R, _BLOCK_C), "float32")
            total = T.alloc_fragment((_BLOCK_C,), "float32")
            T.clear(acc)
            for step in T.serial(T.ceildiv(N, _BLOCK_R)):
                for i, j in T.Parallel(_BLOCK_R, _BLOCK_C):
                    row = step * _BLOCK_R + i
                    col = block * _BLOCK_C + j
                    acc[i, j] += T.if_then_else(
                        row < N,
                        T.if_then_else(col < C, dy[row, col] * x[row, col] * rstd[row], 0.0),
                        0.0,
                    )
            T.reduce_sum(acc, total, dim=0)
            # Plain store: dweight is overwritten, never accumulated onto its old contents.
            for j in T.Parallel(_BLOCK_C):
                if block * _BLOCK_C + j < C:
                    dweight[block * _BLOCK_C + j] = total[j]

    return kernel


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    rstd = torch.empty(N, dtype=torch.float32, device=x.device)
    _row_kernel(N, C)(x, dy, weight, dx, rstd, eps)
    _dweight_kernel(N, C)(x, dy, rstd, dweight)
