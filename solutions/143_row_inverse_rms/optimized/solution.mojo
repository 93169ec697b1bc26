from max.gpu import barrier, block_idx, thread_idx
from max.gpu.host import DeviceContext
from std.ffi import _get_global
from std.memory import Layout, alloc
from max.gpu.primitives.warp import shuffle_xor
from std.memory import AddressSpace, unsafe_stack_allocation
from std.sys import llvm_intrinsic

comptime BLOCK = 256
comptime WARPS = BLOCK // 32
# Independent loads each thread keeps in flight per batch.
comptime UNROLL = 8


@always_inline
def inv_rms_of(total: Float32, d: Int, eps: Float32) -> Float32:
    # The fp32 sum is finished in fp64: mean, IEEE round-to-nearest square root and reciprocal
    # are evaluated there and rounded to fp32 once.
    var mean = total.cast[DType.float64]() / Float64(d)
    var root = llvm_intrinsic["llvm.nvvm.sqrt.rn.d", Float64](mean + eps.cast[DType.float64]())
    return (Float64(1.0) / root).cast[DType.float32]()


@always_inline
def warp_sum(v: Float32) -> Float32:
    # Butterfly tree: every lane ends with the same, identically rounded total.
    var s = v
    comptime for k in range(5):
        s += shuffle_xor(s, UInt32(16 >> k))
    return s


# One block per row. VW bf16 values per load (8 = one 16-byte load). Each thread issues
# UNROLL independent loads per batch, squares them in fp32 into VW separate lane sums, then
# the lane sums, the warp butterfly and the per-warp totals form the reduction tree.
def row_inverse_rms_kernel[
    VW: Int
](
    x: Pointer[BFloat16, ImmUntrackedOrigin],
    inv_rms: Pointer[Float32, MutUntrackedOrigin],
    D: Int32,
    eps: Float32,
):
    var warp_totals = unsafe_stack_allocation[WARPS, Float32, address_space=AddressSpace.SHARED]()
    var tid = Int(thread_idx.x)
    var row = Int(block_idx.x)
    var d = Int(D)
    var nvec = d // VW
    var row_ptr = x.unsafe_offset(row * d)

    var acc = SIMD[DType.float32, VW](0.0)
    var i = tid
    while i < nvec:
        var vals = Array[SIMD[DType.bfloat16, VW], UNROLL](fill=SIMD[DType.bfloat16, VW](0.0))
        comptime for u in range(UNROLL):
            var j = i + u * BLOCK
            if j < nvec:
                vals[u] = row_ptr.unsafe_load[width=VW, alignment=2 * VW](j * VW)
        comptime for u in range(UNROLL):
            var f = vals[u].cast[DType.float32]()
            acc += f * f
        i += UNROLL * BLOCK

    var total = warp_sum(acc.reduce_add())
    var lane = tid % 32
    var warp = tid // 32
    if lane == 0:
        warp_totals[unsafe_offset=warp] = total
    barrier()

    if tid == 0:
        var s: Float32 = 0.0
        comptime for w in range(WARPS):
            s += warp_totals[unsafe_offset=w]
        inv_rms[unsafe_offset=row] = inv_rms_of(s, d, eps)


# One DeviceContext for the life of the process, made on the first call: creating a context per
# call (a stream, the kernel modules loaded again) costs more than this kernel's 60 us. The global
# is keyed by name in the Mojo runtime, which every Mojo library of the process shares, so the name
# is this solution's own.
struct CachedContext(Movable):
    var ctx: DeviceContext

    def __init__(out self, var ctx: DeviceContext):
        self.ctx = ctx^


def create_context() -> Optional[Pointer[NoneType, MutUntrackedOrigin]]:
    try:
        var state = alloc(Layout[CachedContext](count=1)).unsafe_leak()
        state.unsafe_write(CachedContext(DeviceContext()))
        return state.unsafe_bitcast[NoneType]()
    except:
        # No context now: every call makes its own (and reports why it cannot).
        return None


def keep_context(state: Optional[Pointer[NoneType, MutUntrackedOrigin]]):
    # Kept until the process exits: the driver releases the context and its stream then.
    pass


def device_context() raises -> DeviceContext:
    var state = _get_global["chgen.143_row_inverse_rms.context", create_context, keep_context]()
    if state:
        return state.value().unsafe_bitcast[CachedContext]()[].ctx
    return DeviceContext()


@export
def solve(
    x: Pointer[BFloat16, ImmUntrackedOrigin],
    inv_rms: Pointer[Float32, MutUntrackedOrigin],
    T: Int32,
    D: Int32,
    eps: Float32,
) abi("C"):
    try:
        var ctx = device_context()
        if T > 0:
            # 16-byte loads need every row start 16-byte aligned.
            if Int(D) % 8 == 0 and Int(x) % 16 == 0:
                ctx.enqueue_function[row_inverse_rms_kernel[8]](
                    x, inv_rms, D, eps, grid_dim=Int(T), block_dim=BLOCK
                )
            else:
                ctx.enqueue_function[row_inverse_rms_kernel[1]](
                    x, inv_rms, D, eps, grid_dim=Int(T), block_dim=BLOCK
                )
        # The results are read on another stream as soon as solve returns.
        ctx.synchronize()
    except e:
        print(e)
