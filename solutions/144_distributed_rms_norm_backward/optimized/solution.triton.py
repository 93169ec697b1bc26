import torch
import torch.distributed as dist
import triton
import triton.language as tl

# Widest row kept entirely in registers; wider rows take the chunked kernel.
_MAX_TILE = 8192
# Row elements per thread in the register kernel: 4 (one 16-byte vector of x and one of dy), so a
# 4096-column row takes 32 warps, the largest program, one per SM. Measured on an H200 at C = 4096,
# this 1024-thread program with two rows in flight was the fastest of the layouts tried (16 warps x
# 2 programs per SM, 8 warps, 3-5 stages, a register prefetch of the next row, two rows per step).
_ELEMS_PER_THREAD = 4
_MAX_WARPS = 32
# Software-pipelining depth of the row loop: the next STAGES - 1 rows of x and dy are copied
# asynchronously into shared memory while the current one is processed, so every program keeps
# loads in flight through its reduction and store phases.
_STAGES = 3
# Partial-sum tile used when folding the per-program dweight rows.
_RED_ROWS = 64
_RED_COLS = 32


@triton.jit
def _add_pair(a0, a1, b0, b1):
    return a0 + b0, a1 + b1


@triton.jit
def _rows_tile_kernel(
    x_ptr, dy_ptr, w_ptr, dx_ptr, part_ptr, N, C, eps, BLOCK_C: tl.constexpr, STAGES: tl.constexpr
):
    # Persistent program: rows pid, pid + G, pid + 2G, ..., each handled whole in one step, so x
    # and dy are read exactly once and dx is written exactly once.
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_C)
    mask = cols < C
    # The weight is the same for every row: loaded once, kept in registers (inside the loop it
    # would be pipelined through shared memory like x and dy, a third stream for nothing).
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    for row in tl.range(pid, N, nprog, num_stages=STAGES):
        base = tl.cast(row, tl.int64) * C
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0)
        g = dy * w
        # Both row sums in a single reduction (one round of shuffles and barriers).
        sum_sq, proj = tl.reduce((x * x, g * x), 0, _add_pair)
        rstd = 1.0 / tl.sqrt(sum_sq / C + eps)
        coef = rstd * rstd * rstd * proj / C
        tl.store(dx_ptr + base + cols, rstd * g - x * coef, mask=mask)
        acc += dy * x * rstd
    tl.store(part_ptr + tl.cast(pid, tl.int64) * C + cols, acc, mask=mask)


@triton.jit
def _rows_chunked_kernel(x_ptr, dy_ptr, w_ptr, dx_ptr, part_ptr, N, C, eps, BLOCK_C: tl.constexpr):
    # Same persistent scheme for rows too wide for registers: a sums pass and a dx pass per row
    # (the second read mostly hits L2), with the dweight partial kept in this program's own row
    # of the scratch buffer.
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK_C)
    part_row = part_ptr + tl.cast(pid, tl.int64) * C
    for start in range(0, C, BLOCK_C):
        cols = start + offs
        tl.store(part_row + cols, tl.zeros([BLOCK_C], dtype=tl.float32), mask=cols < C)
    for row in range(pid, N, nprog):
        base = tl.cast(row, tl.int64) * C
        sq_acc = tl.zeros([BLOCK_C], dtype=tl.float32)
        proj_acc = tl.zeros([BLOCK_C], dtype=tl.float32)
        for start in range(0, C, BLOCK_C):
            cols = start + offs
            mask = cols < C
            x = tl.load(x_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_last")
            dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_last")
            w = tl.load(w_ptr + cols, mask=mask, other=0.0)
            sq_acc += x * x
            proj_acc += dy * w * x
        sum_sq, proj = tl.reduce((sq_acc, proj_acc), 0, _add_pair)
        rstd = 1.0 / tl.sqrt(sum_sq / C + eps)
        coef = rstd * rstd * rstd * proj / C
        for start in range(0, C, BLOCK_C):
            cols = start + offs
            mask = cols < C
            x = tl.load(x_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_first")
            dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_first")
            w = tl.load(w_ptr + cols, mask=mask, other=0.0)
            tl.store(dx_ptr + base + cols, rstd * dy * w - x * coef, mask=mask)
            # Same layout as the zeroing store above, so each element stays with one thread.
            p = tl.load(part_row + cols, mask=mask, other=0.0)
            tl.store(part_row + cols, p + dy * x * rstd, mask=mask)


@triton.jit
def _sum_partials_kernel(part_ptr, dw_ptr, G, C, BLOCK_G: tl.constexpr, BLOCK_C: tl.constexpr):
    # Column-block program folding all G partial rows.
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < C
    acc = tl.zeros([BLOCK_G, BLOCK_C], dtype=tl.float32)
    for start in range(0, G, BLOCK_G):
        rows = start + tl.arange(0, BLOCK_G)
        mask = (rows < G)[:, None] & cmask[None, :]
        offs = rows.to(tl.int64)[:, None] * C + cols[None, :]
        acc += tl.load(part_ptr + offs, mask=mask, other=0.0)
    # Plain store: dweight is overwritten, never accumulated onto its old contents.
    tl.store(dw_ptr + cols, tl.sum(acc, axis=0), mask=cmask)


def _programs_per_sm(kernel, args, meta, num_warps, device):
    # Persistent programs must all be resident at once, otherwise late programs start only after
    # early ones finish and the tail doubles. Derive residency from the compiled kernel's
    # register and shared-memory use.
    try:
        compiled = kernel.warmup(*args, grid=(1,), num_warps=num_warps, **meta)
        compiled._init_handles()
        props = torch.cuda.get_device_properties(device)
        regs_sm = getattr(props, "regs_per_multiprocessor", 65536)
        threads_sm = getattr(props, "max_threads_per_multi_processor", 2048)
        smem_sm = getattr(props, "shared_memory_per_multiprocessor", 228 * 1024)
        # Registers are handed out per warp in units of 256.
        regs_warp = (compiled.n_regs * 32 + 255) // 256 * 256
        occ = regs_sm // max(1, regs_warp * num_warps)
        occ = min(occ, threads_sm // (32 * num_warps))
        smem = compiled.metadata.shared
        if smem:
            # 1 KiB per block is reserved by the driver.
            occ = min(occ, smem_sm // (smem + 1024))
        return max(1, min(occ, 8))
    except Exception:
        return 2


# Launch plan per (device, N, C): grid, kernel choice and the scratch buffer, so a repeated call
# does nothing on the host but two launches.
_PLANS = {}


def _plan(x, dy, weight, dx, N, C, eps):
    key = (x.device, N, C)
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    block_c = triton.next_power_of_2(C)
    if block_c <= _MAX_TILE:
        kernel = _rows_tile_kernel
        num_warps = min(_MAX_WARPS, max(1, block_c // (32 * _ELEMS_PER_THREAD)))
        meta = {"BLOCK_C": block_c, "STAGES": _STAGES}
    else:
        kernel = _rows_chunked_kernel
        num_warps = 8
        meta = {"BLOCK_C": 4096}
    if x.is_cuda:
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        # Arguments of the real launch so the warmed-up specialisation matches it.
        args = (x, dy, weight, dx, dx, N, C, eps)
        grid = sms * _programs_per_sm(kernel, args, meta, num_warps, x.device)
    else:
        grid = 4
    grid = max(1, min(grid, N))
    # One fp32 partial dweight row per program; every row is fully written by its program.
    partials = torch.empty((grid, C), dtype=torch.float32, device=x.device)
    block_g = min(_RED_ROWS, triton.next_power_of_2(grid))
    plan = (kernel, grid, num_warps, meta, partials, block_g)
    _PLANS[key] = plan
    return plan


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    # This rank's rows as in the single-GPU kernel, then the partial dweight summed over every
    # rank (a rank without rows contributes zeros).
    if N == 0:
        dweight.zero_()
    else:
        kernel, grid, num_warps, meta, partials, block_g = _plan(x, dy, weight, dx, N, C, eps)
        kernel[(grid,)](x, dy, weight, dx, partials, N, C, eps, num_warps=num_warps, **meta)
        _sum_partials_kernel[(triton.cdiv(C, _RED_COLS),)](
            partials, dweight, grid, C, BLOCK_G=block_g, BLOCK_C=_RED_COLS, num_warps=4
        )
    dist.all_reduce(dweight, op=dist.ReduceOp.SUM)
