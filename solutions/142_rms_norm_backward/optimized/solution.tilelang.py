import tilelang
import tilelang.language as T
import torch

# RMSNorm backward in one pass over x and dy and one write of dx, as the CUDA solution does it.
#
# Rows live in registers: a block of `threads` threads owns one row per step, 8 elements per
# thread (two 16-byte vectors of x and two of dy; 512 threads for C = 4096). A persistent grid of
# 1024 resident threads per SM (two 512-thread blocks) walks the rows with a grid stride; the
# kernel is compiled with __launch_bounds__(threads, 2) (T.annotate_min_blocks_per_sm), which
# holds it to 64 registers so that both blocks are resident: without it the compiler took 72,
# one block fitted per SM, the second half of the grid ran as a second wave and the kernel
# reached about two thirds of the copy bandwidth. The two blocks of an SM overlap one's loads
# with the other's reductions and stores.
# Per row: the loads (the row index clamped to N - 1, so that the four vector loads carry no
# predicate and issue back to back; a row past N is read but neither stored nor summed), the two
# row sums sum(x^2) and sum(g * x), then dx computed and stored straight from the registers.
# The weight and the block's dweight partial sums of its columns stay in registers for the whole
# kernel; each block stores its partial row once, and a second small kernel folds the partial
# rows into dweight (plain stores, no atomics: deterministic).

# Widest tile of a row; a wider row is held as several tiles (more registers per thread, so
# fewer resident blocks, but still one read of x and dy).
_MAX_TILE = 8192
# Row elements per thread in the register path: 8, so x and dy arrive as two 16-byte vectors
# each and a 4096-column row takes a 512-thread block.
_ELEMS_PER_THREAD = 8
_MIN_THREADS, _MAX_THREADS = 128, 512
# Resident threads per SM the persistent grid fills (all its blocks at once, so no second wave),
# and the SM count assumed where no GPU is visible (an H200's).
_THREADS_PER_SM = 1024
_DEFAULT_SMS = 132
# Partial-sum tile of the dweight fold: partial rows per step, columns per thread block.
_RED_ROWS = 32
_RED_COLS = 32


def _next_power_of_2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


@tilelang.jit
def _rows_kernel(N: int, C: int, programs: int, tile: int, threads: int, resident: int):
    """Persistent blocks, `resident` per SM: block p handles rows p, p + programs, ..., each row
    read once and held in registers; both row sums, then dx written once. The block's share of
    dweight stays in registers across its rows and is stored once, as its row of `partials`."""
    steps = (N + programs - 1) // programs
    chunks = (C + tile - 1) // tile  # 1 in the register path

    @T.prim_func
    def kernel(
        x: T.Tensor((N, C), T.float32),
        dy: T.Tensor((N, C), T.float32),
        weight: T.Tensor((C,), T.float32),
        dx: T.Tensor((N, C), T.float32),
        partials: T.Tensor((programs, C), T.float32),
        eps: T.float32,
    ):
        with T.Kernel(programs, threads=threads) as pid:
            T.annotate_min_blocks_per_sm(resident)
            xs = T.alloc_fragment((chunks, tile), "float32")
            ds = T.alloc_fragment((chunks, tile), "float32")
            w = T.alloc_fragment((chunks, tile), "float32")
            acc = T.alloc_fragment((chunks, tile), "float32")
            sq = T.alloc_fragment((chunks, tile), "float32")
            proj = T.alloc_fragment((chunks, tile), "float32")
            sq_rows = T.alloc_fragment((chunks,), "float32")
            proj_rows = T.alloc_fragment((chunks,), "float32")
            # The weight is the same for every row: loaded once, kept in registers.
            for k, j in T.Parallel(chunks, tile):
                w[k, j] = T.if_then_else(k * tile + j < C, weight[k * tile + j], 0.0)
            T.clear(acc)
            for step in T.serial(steps):
                # A row past N (the last step of some blocks) reads row N - 1 and stores nothing.
                row = step * programs + pid
                src = T.min(row, N - 1)
                for k, j in T.Parallel(chunks, tile):
                    col = k * tile + j
                    xs[k, j] = T.if_then_else(col < C, x[src, col], 0.0)
                    ds[k, j] = T.if_then_else(col < C, dy[src, col], 0.0)
                    sq[k, j] = xs[k, j] * xs[k, j]
                    proj[k, j] = ds[k, j] * w[k, j] * xs[k, j]
                T.reduce_sum(sq, sq_rows, dim=1)
                T.reduce_sum(proj, proj_rows, dim=1)
                sum_sq = T.alloc_var("float32")
                sum_proj = T.alloc_var("float32")
                sum_sq = 0.0
                sum_proj = 0.0
                for k in T.serial(chunks):
                    sum_sq += sq_rows[k]
                    sum_proj += proj_rows[k]
                rstd = 1.0 / T.sqrt(sum_sq / C + eps)
                coef = rstd * rstd * rstd * sum_proj / C
                summed = T.if_then_else(row < N, rstd, 0.0)  # a row past N adds nothing
                for k, j in T.Parallel(chunks, tile):
                    col = k * tile + j
                    if row < N:
                        if col < C:
                            dx[row, col] = rstd * ds[k, j] * w[k, j] - xs[k, j] * coef
                    acc[k, j] += ds[k, j] * xs[k, j] * summed
            for k, j in T.Parallel(chunks, tile):
                if k * tile + j < C:
                    partials[pid, k * tile + j] = acc[k, j]

    return kernel


@tilelang.jit
def _sum_partials_kernel(programs: int, C: int):
    """One thread block per block of columns folds all partial rows into dweight."""

    @T.prim_func
    def kernel(partials: T.Tensor((programs, C), T.float32), dweight: T.Tensor((C,), T.float32)):
        with T.Kernel(T.ceildiv(C, _RED_COLS), threads=128) as block:
            acc = T.alloc_fragment((_RED_ROWS, _RED_COLS), "float32")
            total = T.alloc_fragment((_RED_COLS,), "float32")
            T.clear(acc)
            for step in T.serial(T.ceildiv(programs, _RED_ROWS)):
                for i, j in T.Parallel(_RED_ROWS, _RED_COLS):
                    row = step * _RED_ROWS + i
                    col = block * _RED_COLS + j
                    acc[i, j] += T.if_then_else(
                        row < programs, T.if_then_else(col < C, partials[row, col], 0.0), 0.0
                    )
            T.reduce_sum(acc, total, dim=0)
            # Plain store: dweight is overwritten, never accumulated onto its old contents.
            for j in T.Parallel(_RED_COLS):
                if block * _RED_COLS + j < C:
                    dweight[block * _RED_COLS + j] = total[j]

    return kernel


# Launch plan per (device, N, C): the compiled kernels and the scratch buffer, so a repeated call
# does nothing on the host but two launches.
_PLANS = {}


def _plan(x: torch.Tensor, N: int, C: int):
    key = (x.device, N, C)
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    tile = min(_MAX_TILE, _next_power_of_2(C))
    threads = min(_MAX_THREADS, max(_MIN_THREADS, tile // _ELEMS_PER_THREAD))
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else None
    # Two 512-thread blocks per SM at 8 elements a thread; a wider row's block holds more
    # registers a thread and stays alone on its SM.
    fits = tile // threads <= _ELEMS_PER_THREAD
    resident = max(1, _THREADS_PER_SM // threads) if fits else 1
    programs = max(1, min(N, (sms or _DEFAULT_SMS) * resident))
    # One fp32 partial dweight row per block; every row is fully written by its block.
    partials = torch.empty((programs, C), dtype=torch.float32, device=x.device)
    rows = _rows_kernel(N, C, programs, tile, threads, resident)
    fold = _sum_partials_kernel(programs, C)
    plan = (rows, fold, partials)
    _PLANS[key] = plan
    return plan


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    rows, fold, partials = _plan(x, N, C)
    rows(x, dy, weight, dx, partials, eps)
    fold(partials, dweight)
