"""Triton design variants of challenges 142 (RMSNorm backward) and 143 (row inverse RMS).

Each `*_runner(**cfg)` returns a solve-like callable with the challenge's signature, so the sweep
times exactly what a solution would do on the host (launches, scratch buffers) and on the device.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# ----------------------------------------------------------------------------------------- 142


@triton.jit
def _add_pair(a0, a1, b0, b1):
    return a0 + b0, a1 + b1


@triton.jit
def _bwd_row(x, dy, w, C, eps, dx_ptrs, cmask, acc, EVICT: tl.constexpr):
    # One row held in registers: both sums in one reduction, dx written once, dweight partial
    # accumulated in the program's registers.
    g = dy * w
    sum_sq, proj = tl.reduce((x * x, g * x), 0, _add_pair)
    rstd = 1.0 / tl.sqrt(sum_sq / C + eps)
    coef = rstd * rstd * rstd * proj / C
    out = rstd * g - x * coef
    if EVICT >= 2:
        tl.store(dx_ptrs, out, mask=cmask, eviction_policy="evict_first")
    else:
        tl.store(dx_ptrs, out, mask=cmask)
    return acc + dy * x * rstd


@triton.jit
def _ld(ptrs, mask, EVICT: tl.constexpr):
    if EVICT % 2 == 1:
        v = tl.load(ptrs, mask=mask, other=0.0, eviction_policy="evict_first")
    else:
        v = tl.load(ptrs, mask=mask, other=0.0)
    return v


@triton.jit(do_not_specialize=["N"])
def rms_bwd_rows(
    x_ptr,
    dy_ptr,
    w_ptr,
    dx_ptr,
    part_ptr,
    N,
    C,
    eps,
    BLOCK_C: tl.constexpr,
    STAGES: tl.constexpr,
    PREFETCH: tl.constexpr,
    EVICT: tl.constexpr,
    ATOMIC: tl.constexpr,
):
    # Persistent program over rows pid, pid + G, ...; STAGES > 1 lets Triton pipeline the x / dy
    # loads through shared memory (cp.async); PREFETCH loads the next row into registers by hand.
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_C)
    cmask = cols < C
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    if PREFETCH:
        rmask = cmask & (pid < N)
        base = tl.cast(pid, tl.int64) * C
        xn = _ld(x_ptr + base + cols, rmask, EVICT)
        dyn = _ld(dy_ptr + base + cols, rmask, EVICT)
        for row in range(pid, N, G):
            x = xn
            dy = dyn
            nrow = row + G
            nbase = tl.cast(nrow, tl.int64) * C
            nmask = cmask & (nrow < N)
            xn = _ld(x_ptr + nbase + cols, nmask, EVICT)
            dyn = _ld(dy_ptr + nbase + cols, nmask, EVICT)
            base = tl.cast(row, tl.int64) * C
            acc = _bwd_row(x, dy, w, C, eps, dx_ptr + base + cols, cmask, acc, EVICT)
    elif STAGES > 1:
        for row in tl.range(pid, N, G, num_stages=STAGES):
            base = tl.cast(row, tl.int64) * C
            x = _ld(x_ptr + base + cols, cmask, EVICT)
            dy = _ld(dy_ptr + base + cols, cmask, EVICT)
            acc = _bwd_row(x, dy, w, C, eps, dx_ptr + base + cols, cmask, acc, EVICT)
    else:
        for row in range(pid, N, G):
            base = tl.cast(row, tl.int64) * C
            x = _ld(x_ptr + base + cols, cmask, EVICT)
            dy = _ld(dy_ptr + base + cols, cmask, EVICT)
            acc = _bwd_row(x, dy, w, C, eps, dx_ptr + base + cols, cmask, acc, EVICT)
    if ATOMIC:
        tl.atomic_add(part_ptr + cols, acc, mask=cmask, sem="relaxed")
    else:
        tl.store(part_ptr + tl.cast(pid, tl.int64) * C + cols, acc, mask=cmask)


@triton.jit(do_not_specialize=["N"])
def rms_bwd_rows2(
    x_ptr,
    dy_ptr,
    w_ptr,
    dx_ptr,
    part_ptr,
    N,
    C,
    eps,
    BLOCK_C: tl.constexpr,
    STAGES: tl.constexpr,
    EVICT: tl.constexpr,
):
    # Two rows per step as one [2, BLOCK_C] tile: twice the bytes in flight per program.
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_C)
    cmask = cols < C
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    two = tl.arange(0, 2)
    npairs = tl.cdiv(N, 2)
    for pair in tl.range(pid, npairs, G, num_stages=STAGES):
        rows = pair * 2 + two
        mask = (rows < N)[:, None] & cmask[None, :]
        offs = rows.to(tl.int64)[:, None] * C + cols[None, :]
        x = _ld(x_ptr + offs, mask, EVICT)
        dy = _ld(dy_ptr + offs, mask, EVICT)
        g = dy * w[None, :]
        sum_sq, proj = tl.reduce((x * x, g * x), 1, _add_pair)
        rstd = 1.0 / tl.sqrt(sum_sq / C + eps)
        coef = rstd * rstd * rstd * proj / C
        out = rstd[:, None] * g - x * coef[:, None]
        if EVICT >= 2:
            tl.store(dx_ptr + offs, out, mask=mask, eviction_policy="evict_first")
        else:
            tl.store(dx_ptr + offs, out, mask=mask)
        acc += tl.sum(dy * x * rstd[:, None], axis=0)
    tl.store(part_ptr + tl.cast(pid, tl.int64) * C + cols, acc, mask=cmask)


@triton.jit
def sum_partials(part_ptr, dw_ptr, G, C, BLOCK_G: tl.constexpr, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = cols < C
    acc = tl.zeros([BLOCK_G, BLOCK_C], dtype=tl.float32)
    for start in range(0, G, BLOCK_G):
        rows = start + tl.arange(0, BLOCK_G)
        mask = (rows < G)[:, None] & cmask[None, :]
        acc += tl.load(part_ptr + rows.to(tl.int64)[:, None] * C + cols[None, :], mask=mask)
    tl.store(dw_ptr + cols, tl.sum(acc, axis=0), mask=cmask)


def _sms(device) -> int:
    if device.type != "cuda":
        return 2
    return torch.cuda.get_device_properties(device).multi_processor_count


def occupancy(kernel, args, meta, num_warps, device) -> dict:
    """Resident programs per SM of a compiled specialisation (registers, shared memory)."""
    if device.type != "cuda":
        return {}
    try:
        compiled = kernel.warmup(*args, grid=(1,), num_warps=num_warps, **meta)
        compiled._init_handles()
        props = torch.cuda.get_device_properties(device)
        regs_sm = getattr(props, "regs_per_multiprocessor", 65536)
        threads_sm = getattr(props, "max_threads_per_multi_processor", 2048)
        smem_sm = getattr(props, "shared_memory_per_multiprocessor", 228 * 1024)
        regs = compiled.n_regs
        smem = compiled.metadata.shared
        regs_warp = (regs * 32 + 255) // 256 * 256  # allocated per warp in units of 256
        occ = min(regs_sm // max(1, regs_warp * num_warps), threads_sm // (32 * num_warps))
        if smem:
            occ = min(occ, smem_sm // (smem + 1024))  # 1 KB per block reserved
        return {"regs": regs, "smem": smem, "occ": occ}
    except Exception as exc:  # keep the requested residency
        return {"occ_error": f"{type(exc).__name__}: {exc}"[:120]}


def _persistent_grid(info: dict, per_sm: int, device, work: int) -> int:
    occ = info.get("occ")
    eff = min(per_sm, occ) if occ else per_sm
    info["per_sm"] = eff
    return max(1, min(_sms(device) * eff, work))


def rms_bwd_runner(
    num_warps=16, per_sm=2, stages=3, prefetch=0, evict=0, rows=1, atomic=0, red_cols=32
):
    """Solve-like callable for 142 with one Triton configuration."""
    cache = {}
    info: dict = {}

    def launch_args(x, dy, weight, dx, dweight, part, N, C, eps):
        block_c = triton.next_power_of_2(C)
        if rows == 2:
            meta = dict(BLOCK_C=block_c, STAGES=stages, EVICT=evict)
            return rms_bwd_rows2, (x, dy, weight, dx, part, N, C, eps), meta
        meta = dict(BLOCK_C=block_c, STAGES=stages, PREFETCH=prefetch, EVICT=evict, ATOMIC=atomic)
        return rms_bwd_rows, (x, dy, weight, dx, dweight if atomic else part, N, C, eps), meta

    def solve(x, dy, weight, dx, dweight, N, C, eps):
        key = (x.device, N, C)
        if key not in cache:
            kernel, args, meta = launch_args(x, dy, weight, dx, dweight, dx, N, C, eps)
            if not info:
                info.update(occupancy(kernel, args, meta, num_warps, x.device))
            grid = _persistent_grid(info, per_sm, x.device, (N + rows - 1) // rows)
            part = None if atomic else torch.empty((grid, C), dtype=torch.float32, device=x.device)
            cache[key] = (grid, part, min(64, triton.next_power_of_2(grid)))
        grid, part, block_g = cache[key]
        if atomic:
            dweight.zero_()
        kernel, args, meta = launch_args(x, dy, weight, dx, dweight, part, N, C, eps)
        kernel[(grid,)](*args, num_warps=num_warps, **meta)
        if not atomic:
            sum_partials[(triton.cdiv(C, red_cols),)](
                part, dweight, grid, C, BLOCK_G=block_g, BLOCK_C=red_cols, num_warps=4
            )

    solve.info = info
    return solve


# ----------------------------------------------------------------------------------------- 143


@triton.jit
def _ldb(ptrs, mask, EVICT: tl.constexpr):
    if EVICT:
        v = tl.load(ptrs, mask=mask, other=0.0, eviction_policy="evict_first")
    else:
        v = tl.load(ptrs, mask=mask, other=0.0)
    return v.to(tl.float32)


@triton.jit
def _finish(total, d_float, eps):
    # fp32 total finished in fp64 (mean, sqrt, reciprocal), rounded to fp32 once.
    mean = tl.cast(total, tl.float64) / tl.cast(d_float, tl.float64)
    return tl.cast(1.0 / tl.sqrt(mean + tl.cast(eps, tl.float64)), tl.float32)


@triton.jit(do_not_specialize=["T"])
def inv_rms_chunks(
    x_ptr,
    out_ptr,
    T,
    D,
    d_float,
    eps,
    BLOCK_D: tl.constexpr,
    STAGES: tl.constexpr,
    EVICT: tl.constexpr,
):
    # One program per row walking it in BLOCK_D chunks; STAGES > 1 pipelines the chunk loads.
    row = tl.program_id(0)
    base = row.to(tl.int64) * D
    offs = tl.arange(0, BLOCK_D)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    if STAGES > 1:
        for start in tl.range(0, D, BLOCK_D, num_stages=STAGES):
            cols = start + offs
            v = _ldb(x_ptr + base + cols, cols < D, EVICT)
            acc += v * v
    else:
        for start in range(0, D, BLOCK_D):
            cols = start + offs
            v = _ldb(x_ptr + base + cols, cols < D, EVICT)
            acc += v * v
    tl.store(out_ptr + row, _finish(tl.sum(acc, axis=0), d_float, eps))


@triton.jit(do_not_specialize=["T"])
def inv_rms_rows_tile(
    x_ptr,
    out_ptr,
    T,
    D,
    d_float,
    eps,
    ROWS: tl.constexpr,
    BLOCK_D: tl.constexpr,
    STAGES: tl.constexpr,
    EVICT: tl.constexpr,
):
    # ROWS rows per program as one [ROWS, BLOCK_D] tile per step.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    rmask = (rows < T)[:, None]
    base = rows.to(tl.int64)[:, None] * D
    offs = tl.arange(0, BLOCK_D)[None, :]
    acc = tl.zeros([ROWS, BLOCK_D], dtype=tl.float32)
    for start in tl.range(0, D, BLOCK_D, num_stages=STAGES):
        cols = start + offs
        v = _ldb(x_ptr + base + cols, rmask & (cols < D), EVICT)
        acc += v * v
    tl.store(out_ptr + rows, _finish(tl.sum(acc, axis=1), d_float, eps), mask=rows < T)


@triton.jit(do_not_specialize=["T"])
def inv_rms_persistent(
    x_ptr,
    out_ptr,
    T,
    D,
    d_float,
    eps,
    BLOCK_D: tl.constexpr,
    STAGES: tl.constexpr,
    EVICT: tl.constexpr,
):
    # Persistent program over rows pid, pid + G, ... with a whole row (BLOCK_D >= D) per step,
    # so Triton's pipelining of the row loop keeps STAGES - 1 rows in flight across rows.
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    offs = tl.arange(0, BLOCK_D)
    dmask = offs < D
    for row in tl.range(pid, T, G, num_stages=STAGES):
        v = _ldb(x_ptr + tl.cast(row, tl.int64) * D + offs, dmask, EVICT)
        tl.store(out_ptr + row, _finish(tl.sum(v * v, axis=0), d_float, eps))


def inv_rms_runner(kind="chunks", block_d=1024, num_warps=4, stages=1, evict=0, rows=1, per_sm=2):
    """Solve-like callable for 143 with one Triton configuration."""
    info: dict = {}
    grids = {}

    def solve(x, inv_rms, T, D, eps):
        bd = min(block_d, triton.next_power_of_2(D))
        if kind == "chunks":
            inv_rms_chunks[(T,)](
                x,
                inv_rms,
                T,
                D,
                float(D),
                eps,
                BLOCK_D=bd,
                STAGES=stages,
                EVICT=evict,
                num_warps=num_warps,
            )
        elif kind == "tile":
            inv_rms_rows_tile[(triton.cdiv(T, rows),)](
                x,
                inv_rms,
                T,
                D,
                float(D),
                eps,
                ROWS=rows,
                BLOCK_D=bd,
                STAGES=stages,
                EVICT=evict,
                num_warps=num_warps,
            )
        else:
            meta = dict(BLOCK_D=triton.next_power_of_2(D), STAGES=stages, EVICT=evict)
            args = (x, inv_rms, T, D, float(D), eps)
            key = (x.device, T, D)
            if key not in grids:
                if not info:
                    info.update(occupancy(inv_rms_persistent, args, meta, num_warps, x.device))
                grids[key] = _persistent_grid(info, per_sm, x.device, T)
            inv_rms_persistent[(grids[key],)](*args, num_warps=num_warps, **meta)

    solve.info = info
    return solve
