from max.gpu import barrier, block_dim, block_idx, thread_idx
from max.gpu.host import DeviceContext
from std.math import ceildiv
from std.memory import AddressSpace, unsafe_stack_allocation
from std.sys import llvm_intrinsic

comptime BLOCK = 256


@always_inline
def sqrt_rn(v: Float32) -> Float32:
    # IEEE round-to-nearest square root (std.math.sqrt lowers to an approximation on NVIDIA).
    return llvm_intrinsic["llvm.nvvm.sqrt.rn.f", Float32](v)


# One block per row: reduce sum(x^2) and sum(dy * w * x) over the row, then write dx for the
# row and keep r = 1 / rms for the dweight pass.
def rms_norm_backward_dx_kernel(
    x: Pointer[Float32, ImmUntrackedOrigin],
    dy: Pointer[Float32, ImmUntrackedOrigin],
    weight: Pointer[Float32, ImmUntrackedOrigin],
    dx: Pointer[Float32, MutUntrackedOrigin],
    rstd: Pointer[Float32, MutUntrackedOrigin],
    C: Int32,
    eps: Float32,
):
    var sum_sq = unsafe_stack_allocation[BLOCK, Float32, address_space=AddressSpace.SHARED]()
    var sum_gx = unsafe_stack_allocation[BLOCK, Float32, address_space=AddressSpace.SHARED]()
    var tid = Int(thread_idx.x)
    var row = Int(block_idx.x)
    var c = Int(C)
    var base = row * c

    var sq: Float32 = 0.0
    var gx: Float32 = 0.0
    var j = tid
    while j < c:
        var xv = x[unsafe_offset=base + j]
        sq += xv * xv
        gx += dy[unsafe_offset=base + j] * weight[unsafe_offset=j] * xv
        j += BLOCK
    sum_sq[unsafe_offset=tid] = sq
    sum_gx[unsafe_offset=tid] = gx
    barrier()

    var stride = BLOCK // 2
    while stride > 0:
        if tid < stride:
            sum_sq[unsafe_offset=tid] = (
                sum_sq[unsafe_offset=tid] + sum_sq[unsafe_offset=tid + stride]
            )
            sum_gx[unsafe_offset=tid] = (
                sum_gx[unsafe_offset=tid] + sum_gx[unsafe_offset=tid + stride]
            )
        barrier()
        stride //= 2

    var r = Float32(1.0) / sqrt_rn(sum_sq[unsafe_offset=0] / Float32(c) + eps)
    var coef = r * r * r * sum_gx[unsafe_offset=0] / Float32(c)
    j = tid
    while j < c:
        var g = dy[unsafe_offset=base + j] * weight[unsafe_offset=j]
        dx[unsafe_offset=base + j] = r * g - x[unsafe_offset=base + j] * coef
        j += BLOCK
    if tid == 0:
        rstd[unsafe_offset=row] = r


# One thread per column: dweight[j] = sum_i dy[i, j] * x[i, j] * r[i].
def rms_norm_backward_dweight_kernel(
    x: Pointer[Float32, ImmUntrackedOrigin],
    dy: Pointer[Float32, ImmUntrackedOrigin],
    rstd: Pointer[Float32, MutUntrackedOrigin],
    dweight: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
    C: Int32,
):
    var c = Int(C)
    var j = Int(block_idx.x) * Int(block_dim.x) + Int(thread_idx.x)
    if j >= c:
        return
    var acc: Float32 = 0.0
    for i in range(Int(N)):
        acc += dy[unsafe_offset=i * c + j] * x[unsafe_offset=i * c + j] * rstd[unsafe_offset=i]
    dweight[unsafe_offset=j] = acc


@export
def solve(
    x: Pointer[Float32, ImmUntrackedOrigin],
    dy: Pointer[Float32, ImmUntrackedOrigin],
    weight: Pointer[Float32, ImmUntrackedOrigin],
    dx: Pointer[Float32, MutUntrackedOrigin],
    dweight: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
    C: Int32,
    eps: Float32,
) abi("C"):
    try:
        var ctx = DeviceContext()
        if C > 0:
            var rstd = ctx.enqueue_create_buffer[DType.float32](max(Int(N), 1))
            if N > 0:
                ctx.enqueue_function[rms_norm_backward_dx_kernel](
                    x, dy, weight, dx, rstd.unsafe_ptr(), C, eps, grid_dim=Int(N), block_dim=BLOCK
                )
            ctx.enqueue_function[rms_norm_backward_dweight_kernel](
                x,
                dy,
                rstd.unsafe_ptr(),
                dweight,
                N,
                C,
                grid_dim=ceildiv(Int(C), BLOCK),
                block_dim=BLOCK,
            )
            ctx.synchronize()
            # Keep the scratch buffer alive until the kernels have finished.
            _ = rstd^
    except e:
        print(e)
