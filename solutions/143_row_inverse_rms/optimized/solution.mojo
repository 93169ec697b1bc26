from max.gpu import barrier, block_idx, thread_idx
from max.gpu.host import DeviceContext
from max.gpu.host._nvidia_cuda import CUDA
from std.ffi import OwnedDLHandle, _get_global
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


# CUDA driver flag of events that only order work (no timestamps: cheaper to record).
comptime CU_EVENT_DISABLE_TIMING = UInt32(2)


# Orders this context's stream against the device's default stream, where the caller queues its
# own work (as a CUDA solution's launches do): the kernels start after what was queued there
# before the call, and what is queued there after the call waits for the kernels. So solve can
# return without waiting for the GPU, and the host's launch time overlaps the caller's work.
struct DefaultStreamOrder(Movable):
    var driver: OwnedDLHandle
    var stream: Int
    var before: Int
    var after: Int

    def __init__(out self, ctx: DeviceContext) raises:
        self.driver = OwnedDLHandle("libcuda.so.1")
        self.stream = Int(CUDA(ctx.stream()).value())
        self.before = 0
        self.after = 0
        var create = self.driver.get_function[Int32]("cuEventCreate")
        self.check(create(Pointer(to=self.before), CU_EVENT_DISABLE_TIMING), "cuEventCreate")
        self.check(create(Pointer(to=self.after), CU_EVENT_DISABLE_TIMING), "cuEventCreate")

    def check(self, status: Int32, call: String) raises:
        if status != 0:
            raise Error(call + " failed with CUresult " + String(status))

    def wait_for_default(self) raises:
        # Stream 0 is the legacy default stream of the current (primary) context.
        var record = self.driver.get_function[Int32]("cuEventRecord")
        var wait = self.driver.get_function[Int32]("cuStreamWaitEvent")
        self.check(record(self.before, 0), "cuEventRecord")
        self.check(wait(self.stream, self.before, UInt32(0)), "cuStreamWaitEvent")

    def make_default_wait(self) raises:
        var record = self.driver.get_function[Int32]("cuEventRecord")
        var wait = self.driver.get_function[Int32]("cuStreamWaitEvent")
        self.check(record(self.after, self.stream), "cuEventRecord")
        self.check(wait(0, self.after, UInt32(0)), "cuStreamWaitEvent")


# One DeviceContext for the life of the process, made on the first call, with its order against
# the default stream: creating a context per call (a stream, the kernel modules loaded again)
# costs more than this kernel's 60 us, and waiting for the GPU before returning costs the launch
# latency the caller's queued work would hide. The global is keyed by name in the Mojo runtime,
# which every Mojo library of the process shares, so the name is this solution's own.
struct CachedContext(Movable):
    var ctx: DeviceContext
    # None where the driver's event calls are out of reach: then every call synchronises.
    var order: Optional[DefaultStreamOrder]

    def __init__(out self, var ctx: DeviceContext):
        self.order = None
        try:
            self.order = DefaultStreamOrder(ctx)
        except:
            pass
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


def launch(
    ctx: DeviceContext,
    x: Pointer[BFloat16, ImmUntrackedOrigin],
    inv_rms: Pointer[Float32, MutUntrackedOrigin],
    T: Int32,
    D: Int32,
    eps: Float32,
) raises:
    # 16-byte loads need every row start 16-byte aligned.
    if Int(D) % 8 == 0 and Int(x) % 16 == 0:
        ctx.enqueue_function[row_inverse_rms_kernel[8]](
            x, inv_rms, D, eps, grid_dim=Int(T), block_dim=BLOCK
        )
    else:
        ctx.enqueue_function[row_inverse_rms_kernel[1]](
            x, inv_rms, D, eps, grid_dim=Int(T), block_dim=BLOCK
        )


@export
def solve(
    x: Pointer[BFloat16, ImmUntrackedOrigin],
    inv_rms: Pointer[Float32, MutUntrackedOrigin],
    T: Int32,
    D: Int32,
    eps: Float32,
) abi("C"):
    try:
        if T <= 0:
            return
        var state = _get_global["chgen.143_row_inverse_rms.context", create_context, keep_context]()
        if state:
            ref cached = state.value().unsafe_bitcast[CachedContext]()[]
            if cached.order:
                cached.order.value().wait_for_default()
                launch(cached.ctx, x, inv_rms, T, D, eps)
                cached.order.value().make_default_wait()
                return
            launch(cached.ctx, x, inv_rms, T, D, eps)
            # The results are read on another stream as soon as solve returns.
            cached.ctx.synchronize()
            return
        var ctx = DeviceContext()
        launch(ctx, x, inv_rms, T, D, eps)
        ctx.synchronize()
    except e:
        print(e)
