import cutlass
import cutlass.cute as cute

# Persistent row kernel: each block walks rows with a stride of the grid size, keeps its share of
# the current row of x and dy in registers (float4 per chunk), does one fused block reduction for
# sum(x^2) and sum(dy * w * x), writes dx, and accumulates a per-block dweight partial.
#
# There is no scratch buffer in the signature, so the first G rows of dx serve as the G x C
# scratch for the per-block partials: block b processes row b first but does not write dx for it,
# and at the end stores its dweight partial into dx row b. A column-sum kernel then reduces the G
# partials into dweight, and a last launch recomputes dx for rows 0..G-1. No atomics are used and
# the result is deterministic.

THREADS = 256
WARPS = THREADS // 32
VEC = 4
KMAX = 4  # float4 chunks per thread per row: the register path covers C <= THREADS * VEC * KMAX
NUM_SMS = 132
BLOCKS_PER_SM = 2
COL_TILE = 32
ROW_SPLIT = 32
COL_UNROLL = 8


def _vec_view(t: cute.Tensor, n_vec):
    # View of a contiguous fp32 buffer as n_vec float4 chunks (16-byte aligned base).
    ptr = cute.make_ptr(
        cutlass.Float32, t.iterator.toint(), cute.AddressSpace.gmem, assumed_align=16
    )
    return cute.make_tensor(ptr, cute.make_layout((VEC, n_vec), stride=(1, VEC)))


@cute.jit
def _block_sum2(s1, s2, red: cute.Tensor, slot, lane, warp):
    # Sum two values over the block. red has two slots so consecutive rows need one barrier each.
    s1 = cute.arch.warp_reduction(s1, lambda a, b: a + b)
    s2 = cute.arch.warp_reduction(s2, lambda a, b: a + b)
    if lane == 0:
        red[slot, 0, warp] = s1
        red[slot, 1, warp] = s2
    cute.arch.barrier()
    t1 = red[slot, 0, 0]
    t2 = red[slot, 1, 0]
    for i in cutlass.range_constexpr(1, WARPS):
        t1 += red[slot, 0, i]
        t2 += red[slot, 1, i]
    return t1, t2


@cute.kernel
def _rows_kernel(
    x: cute.Tensor,
    dy: cute.Tensor,
    w: cute.Tensor,
    dx: cute.Tensor,
    n_rows: cutlass.Int32,
    n_cols: cutlass.Int32,
    eps: cutlass.Float32,
    fixup: cutlass.Constexpr,
):
    # fixup == False: rows bid, bid + G, ... of all n_rows; dx row bid receives the partial.
    # fixup == True: launched with n_rows == G, so block bid only writes dx for row bid.
    tid, _, _ = cute.arch.thread_idx()
    bid, _, _ = cute.arch.block_idx()
    nblk, _, _ = cute.arch.grid_dim()
    lane = tid % 32
    warp = tid // 32
    inv_c = cutlass.Float32(1.0) / n_cols.to(cutlass.Float32)

    smem = cutlass.memory.SmemAllocator()
    red = smem.allocate_tensor(cutlass.Float32, cute.make_layout((2, 2, WARPS)), 16)
    # Per-thread copies of its weight chunks and dweight partial chunks (only touched by the
    # owning thread, so no barrier is needed around them).
    w_s = smem.allocate_tensor(cutlass.Float32, cute.make_layout((VEC, KMAX * THREADS)), 16)
    p_s = smem.allocate_tensor(cutlass.Float32, cute.make_layout((VEC, KMAX * THREADS)), 16)

    if n_cols % VEC == 0 and n_cols <= THREADS * VEC * KMAX:
        c4 = n_cols // VEC
        x_v = _vec_view(x, n_rows * c4)
        dy_v = _vec_view(dy, n_rows * c4)
        dx_v = _vec_view(dx, n_rows * c4)
        w_v = _vec_view(w, c4)
        # x_a/dy_a hold the row being processed, x_b/dy_b the prefetched next row of this block.
        x_a = cute.make_rmem_tensor((VEC, KMAX), cutlass.Float32)
        dy_a = cute.make_rmem_tensor((VEC, KMAX), cutlass.Float32)
        x_b = cute.make_rmem_tensor((VEC, KMAX), cutlass.Float32)
        dy_b = cute.make_rmem_tensor((VEC, KMAX), cutlass.Float32)
        w_r = cute.make_rmem_tensor((VEC,), cutlass.Float32)
        p_r = cute.make_rmem_tensor((VEC,), cutlass.Float32)
        o_r = cute.make_rmem_tensor((VEC,), cutlass.Float32)
        x_a.fill(0.0)
        dy_a.fill(0.0)
        x_b.fill(0.0)
        dy_b.fill(0.0)
        p_r.fill(0.0)
        # Issue the loads of the first row (bid < n_rows because the grid never exceeds n_rows)
        # and of the weights (staged through x_b) before any of them is consumed.
        for k in cutlass.range_constexpr(KMAX):
            col = k * THREADS + tid
            if col < c4:
                x_a[None, k].store(x_v[None, bid * c4 + col].load())
                dy_a[None, k].store(dy_v[None, bid * c4 + col].load())
                x_b[None, k].store(w_v[None, col].load())
        for k in cutlass.range_constexpr(KMAX):
            col = k * THREADS + tid
            if col < c4:
                w_s[None, col].store(x_b[None, k].load())
                if cutlass.const_expr(not fixup):
                    p_s[None, col].store(p_r.load())

        slot = cutlass.Int32(0)
        for row in cutlass.range(bid, n_rows, nblk):
            base = row * c4
            nxt = row + nblk
            if nxt < n_rows:
                for k in cutlass.range_constexpr(KMAX):
                    col = k * THREADS + tid
                    if col < c4:
                        x_b[None, k].store(x_v[None, nxt * c4 + col].load())
                        dy_b[None, k].store(dy_v[None, nxt * c4 + col].load())
            s1 = cutlass.Float32(0.0)
            s2 = cutlass.Float32(0.0)
            for k in cutlass.range_constexpr(KMAX):
                col = k * THREADS + tid
                if col < c4:
                    w_r.store(w_s[None, col].load())
                    for v in cutlass.range_constexpr(VEC):
                        s1 += x_a[v, k] * x_a[v, k]
                        s2 += dy_a[v, k] * w_r[v] * x_a[v, k]
            t1, t2 = _block_sum2(s1, s2, red, slot, lane, warp)
            slot = 1 - slot
            rstd = cutlass.Float32(1.0) / cute.math.sqrt(t1 * inv_c + eps)
            coef = rstd * rstd * rstd * t2 * inv_c
            for k in cutlass.range_constexpr(KMAX):
                col = k * THREADS + tid
                if col < c4:
                    w_r.store(w_s[None, col].load())
                    for v in cutlass.range_constexpr(VEC):
                        o_r[v] = rstd * dy_a[v, k] * w_r[v] - x_a[v, k] * coef
                    if cutlass.const_expr(fixup):
                        dx_v[None, base + col].store(o_r.load())
                    else:
                        p_r.store(p_s[None, col].load())
                        for v in cutlass.range_constexpr(VEC):
                            p_r[v] = p_r[v] + dy_a[v, k] * x_a[v, k] * rstd
                        p_s[None, col].store(p_r.load())
                        if row != bid:
                            dx_v[None, base + col].store(o_r.load())
            x_a.store(x_b.load())
            dy_a.store(dy_b.load())

        if cutlass.const_expr(not fixup):
            for k in cutlass.range_constexpr(KMAX):
                col = k * THREADS + tid
                if col < c4:
                    dx_v[None, bid * c4 + col].store(p_s[None, col].load())
    else:
        # Scalar path for any C: two passes over the row (the second mostly hits cache). The
        # partial lives in dx row bid; column j is always handled by the same thread.
        slot = cutlass.Int32(0)
        for row in cutlass.range(bid, n_rows, nblk):
            s1 = cutlass.Float32(0.0)
            s2 = cutlass.Float32(0.0)
            for j in cutlass.range(tid, n_cols, THREADS):
                xj = x[row, j]
                s1 += xj * xj
                s2 += dy[row, j] * w[j] * xj
            t1, t2 = _block_sum2(s1, s2, red, slot, lane, warp)
            slot = 1 - slot
            rstd = cutlass.Float32(1.0) / cute.math.sqrt(t1 * inv_c + eps)
            coef = rstd * rstd * rstd * t2 * inv_c
            for j in cutlass.range(tid, n_cols, THREADS):
                xj = x[row, j]
                dj = dy[row, j]
                val = rstd * dj * w[j] - xj * coef
                if cutlass.const_expr(fixup):
                    dx[row, j] = val
                else:
                    contrib = dj * xj * rstd
                    if row == bid:
                        dx[bid, j] = contrib
                    else:
                        dx[row, j] = val
                        dx[bid, j] = dx[bid, j] + contrib


@cute.kernel
def _colsum_kernel(
    dx: cute.Tensor, dweight: cute.Tensor, n_part: cutlass.Int32, n_cols: cutlass.Int32
):
    # dweight[j] = sum of the n_part partial rows stored in dx[0:n_part, j]. A block covers
    # COL_TILE columns; its ROW_SPLIT thread rows split the partial rows, with COL_UNROLL loads in
    # flight per thread, and the ROW_SPLIT sums are combined through shared memory.
    tid, _, _ = cute.arch.thread_idx()
    bid, _, _ = cute.arch.block_idx()
    tx = tid % COL_TILE
    ty = tid // COL_TILE
    smem = cutlass.memory.SmemAllocator()
    red = smem.allocate_tensor(cutlass.Float32, cute.make_layout((COL_TILE, ROW_SPLIT)), 16)
    vals = cute.make_rmem_tensor((COL_UNROLL,), cutlass.Float32)
    loaded = cute.make_rmem_tensor((COL_UNROLL,), cutlass.Float32)
    vals.fill(0.0)
    j = bid * COL_TILE + tx
    if j < n_cols:
        for start in cutlass.range(0, n_part, ROW_SPLIT * COL_UNROLL):
            loaded.fill(0.0)
            for u in cutlass.range_constexpr(COL_UNROLL):
                b = start + u * ROW_SPLIT + ty
                if b < n_part:
                    loaded[u] = dx[b, j]
            for u in cutlass.range_constexpr(COL_UNROLL):
                vals[u] = vals[u] + loaded[u]
    s = vals[0]
    for u in cutlass.range_constexpr(1, COL_UNROLL):
        s += vals[u]
    red[tx, ty] = s
    cute.arch.barrier()
    if ty == 0 and j < n_cols:
        t = red[tx, 0]
        for i in cutlass.range_constexpr(1, ROW_SPLIT):
            t += red[tx, i]
        dweight[j] = t


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
    # Grid size G: at most BLOCKS_PER_SM blocks per SM, and the smallest grid that keeps
    # ceil(N / (NUM_SMS * BLOCKS_PER_SM)) rows per block. G <= N, so every block owns a scratch row.
    max_blocks = NUM_SMS * BLOCKS_PER_SM
    rows_per_block = (N + max_blocks - 1) // max_blocks
    n_part = (N + rows_per_block - 1) // rows_per_block
    _rows_kernel(x, dy, weight, dx, N, C, eps, False).launch(
        grid=[n_part, 1, 1],
        block=[THREADS, 1, 1],
        min_blocks_per_mp=BLOCKS_PER_SM,
        preferred_smem_carveout=50,
    )
    _colsum_kernel(dx, dweight, n_part, C).launch(
        grid=[(C + COL_TILE - 1) // COL_TILE, 1, 1], block=[COL_TILE * ROW_SPLIT, 1, 1]
    )
    _rows_kernel(x, dy, weight, dx, n_part, C, eps, True).launch(
        grid=[n_part, 1, 1],
        block=[THREADS, 1, 1],
        min_blocks_per_mp=BLOCKS_PER_SM,
        preferred_smem_carveout=50,
    )
