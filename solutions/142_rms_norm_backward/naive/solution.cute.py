import cutlass
import cutlass.cute as cute

# Three simple kernels:
#   1. one block per row computes rstd and parks it in dx[row, 0] (dx is overwritten later),
#   2. per column, dy * x * rstd is summed over all rows into dweight (threads of a block split
#      the rows of a 32-column tile),
#   3. one block per row recomputes both row sums and writes the whole dx row.

THREADS = 256
WARPS = THREADS // 32
COL_TILE = 32
ROW_SPLIT = 8


@cute.jit
def _block_sum(val, red: cute.Tensor, slot, lane, warp):
    val = cute.arch.warp_reduction(val, lambda a, b: a + b)
    if lane == 0:
        red[slot, warp] = val
    cute.arch.barrier()
    total = red[slot, 0]
    for i in cutlass.range_constexpr(1, WARPS):
        total += red[slot, i]
    return total


@cute.kernel
def _rstd_kernel(x: cute.Tensor, dx: cute.Tensor, n_cols: cutlass.Int32, eps: cutlass.Float32):
    tid, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    smem = cutlass.memory.SmemAllocator()
    red = smem.allocate_tensor(cutlass.Float32, cute.make_layout((1, WARPS)), 16)
    s = cutlass.Float32(0.0)
    for j in cutlass.range(tid, n_cols, THREADS):
        xj = x[row, j]
        s += xj * xj
    total = _block_sum(s, red, 0, tid % 32, tid // 32)
    if tid == 0:
        dx[row, 0] = cutlass.Float32(1.0) / cute.math.sqrt(total / n_cols.to(cutlass.Float32) + eps)


@cute.kernel
def _dweight_kernel(
    x: cute.Tensor,
    dy: cute.Tensor,
    dx: cute.Tensor,
    dweight: cute.Tensor,
    n_rows: cutlass.Int32,
    n_cols: cutlass.Int32,
):
    # A block covers COL_TILE columns; its ROW_SPLIT thread rows take every ROW_SPLIT-th row and
    # their sums are added up in shared memory.
    tid, _, _ = cute.arch.thread_idx()
    bid, _, _ = cute.arch.block_idx()
    tx = tid % COL_TILE
    ty = tid // COL_TILE
    smem = cutlass.memory.SmemAllocator()
    red = smem.allocate_tensor(cutlass.Float32, cute.make_layout((COL_TILE, ROW_SPLIT)), 16)
    j = bid * COL_TILE + tx
    s = cutlass.Float32(0.0)
    if j < n_cols:
        for i in cutlass.range(ty, n_rows, ROW_SPLIT, unroll=4):
            s += dy[i, j] * x[i, j] * dx[i, 0]
    red[tx, ty] = s
    cute.arch.barrier()
    if ty == 0 and j < n_cols:
        total = red[tx, 0]
        for k in cutlass.range_constexpr(1, ROW_SPLIT):
            total += red[tx, k]
        dweight[j] = total


@cute.kernel
def _dx_kernel(
    x: cute.Tensor,
    dy: cute.Tensor,
    w: cute.Tensor,
    dx: cute.Tensor,
    n_cols: cutlass.Int32,
    eps: cutlass.Float32,
):
    tid, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    smem = cutlass.memory.SmemAllocator()
    red = smem.allocate_tensor(cutlass.Float32, cute.make_layout((2, WARPS)), 16)
    s1 = cutlass.Float32(0.0)
    s2 = cutlass.Float32(0.0)
    for j in cutlass.range(tid, n_cols, THREADS):
        xj = x[row, j]
        s1 += xj * xj
        s2 += dy[row, j] * w[j] * xj
    t1 = _block_sum(s1, red, 0, tid % 32, tid // 32)
    t2 = _block_sum(s2, red, 1, tid % 32, tid // 32)
    c = n_cols.to(cutlass.Float32)
    rstd = cutlass.Float32(1.0) / cute.math.sqrt(t1 / c + eps)
    coef = rstd * rstd * rstd * t2 / c
    for j in cutlass.range(tid, n_cols, THREADS):
        dx[row, j] = rstd * dy[row, j] * w[j] - x[row, j] * coef


@cute.jit
def solve(
    x: cute.Tensor,
    dy: cute.Tensor,
    weight: cute.Tensor,
    dx: cute.Tensor,
    dweight: cute.Tensor,
    N: cute.Int32,
    C: cute.Int32,
    eps: cute.Float32,
):
    _rstd_kernel(x, dx, C, eps).launch(grid=[N, 1, 1], block=[THREADS, 1, 1])
    _dweight_kernel(x, dy, dx, dweight, N, C).launch(
        grid=[(C + COL_TILE - 1) // COL_TILE, 1, 1], block=[COL_TILE * ROW_SPLIT, 1, 1]
    )
    _dx_kernel(x, dy, weight, dx, C, eps).launch(grid=[N, 1, 1], block=[THREADS, 1, 1])
