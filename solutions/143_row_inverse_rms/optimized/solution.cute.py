import cutlass
import cutlass.cute as cute

# One block per row. When D % 8 == 0 every thread issues UNROLL independent 128-bit loads (8 bf16
# each) before using any of them; the squares go into 8 fp32 accumulators (one per vector lane),
# which are then combined pairwise, across the warp with butterfly shuffles, and across warps as a
# pairwise tree; mean, sqrt and reciprocal are evaluated in fp64 and rounded once to fp32.
# Other D use a scalar path with VEC independent loads and accumulators per step.

THREADS = 256
WARPS = THREADS // 32
VEC = 8
UNROLL = 8


@cute.jit
def _pairwise_sum(vals: cute.Tensor, n: cutlass.Constexpr):
    # In-place pairwise tree over a static number of register values.
    width = n
    while cutlass.const_expr(width > 1):
        half = width // 2
        for i in cutlass.range_constexpr(half):
            vals[i] = vals[i] + vals[i + half]
        if cutlass.const_expr(width % 2 == 1):
            vals[0] = vals[0] + vals[width - 1]
        width = half
    return vals[0]


@cute.kernel
def _inv_rms_kernel(
    x: cute.Tensor,
    inv_rms: cute.Tensor,
    n_rows: cutlass.Int32,
    n_cols: cutlass.Int32,
    eps: cutlass.Float32,
):
    tid, _, _ = cute.arch.thread_idx()
    row, _, _ = cute.arch.block_idx()
    smem = cutlass.memory.SmemAllocator()
    red = smem.allocate_tensor(cutlass.Float32, cute.make_layout((WARPS,)), 16)
    acc = cute.make_rmem_tensor((VEC,), cutlass.Float32)
    acc.fill(0.0)

    if n_cols % VEC == 0:
        n_vec = n_cols // VEC
        ptr = cute.make_ptr(
            cutlass.BFloat16, x.iterator.toint(), cute.AddressSpace.gmem, assumed_align=16
        )
        x_v = cute.make_tensor(ptr, cute.make_layout((VEC, n_rows * n_vec), stride=(1, VEC)))
        base = row * n_vec
        frag = cute.make_rmem_tensor((VEC, UNROLL), cutlass.BFloat16)
        for start in cutlass.range(0, n_vec, THREADS * UNROLL):
            frag.fill(0.0)
            for u in cutlass.range_constexpr(UNROLL):
                idx = start + u * THREADS + tid
                if idx < n_vec:
                    frag[None, u].store(x_v[None, base + idx].load())
            for u in cutlass.range_constexpr(UNROLL):
                for v in cutlass.range_constexpr(VEC):
                    f = frag[v, u].to(cutlass.Float32)
                    acc[v] = acc[v] + f * f
    else:
        vals = cute.make_rmem_tensor((VEC,), cutlass.BFloat16)
        for start in cutlass.range(0, n_cols, THREADS * VEC):
            vals.fill(0.0)
            for u in cutlass.range_constexpr(VEC):
                j = start + u * THREADS + tid
                if j < n_cols:
                    vals[u] = x[row, j]
            for u in cutlass.range_constexpr(VEC):
                f = vals[u].to(cutlass.Float32)
                acc[u] = acc[u] + f * f

    s = _pairwise_sum(acc, VEC)
    s = cute.arch.warp_reduction(s, lambda a, b: a + b)
    if tid % 32 == 0:
        red[tid // 32] = s
    cute.arch.barrier()
    if tid == 0:
        part = cute.make_rmem_tensor((WARPS,), cutlass.Float32)
        for i in cutlass.range_constexpr(WARPS):
            part[i] = red[i]
        total = _pairwise_sum(part, WARPS)
        # The fp32 sum is finished in fp64 so that only the final conversion rounds.
        mean = total.to(cutlass.Float64) / n_cols.to(cutlass.Float64)
        inv = cutlass.Float64(1.0) / cute.math.sqrt(mean + eps.to(cutlass.Float64))
        inv_rms[row] = inv.to(cutlass.Float32)


@cute.jit
def solve(x: cute.Tensor, inv_rms: cute.Tensor, T: cute.Int32, D: cute.Int32, eps: cute.Float32):
    _inv_rms_kernel(x, inv_rms, T, D, eps).launch(grid=[T, 1, 1], block=[THREADS, 1, 1])
