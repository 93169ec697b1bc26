from max.gpu import barrier, block_idx, grid_dim, thread_idx
from max.gpu.host import DeviceAttribute, DeviceBuffer, DeviceContext
from max.gpu.host._nvidia_cuda import CUDA
from std.ffi import OwnedDLHandle, _get_global
from max.gpu.primitives.warp import shuffle_xor
from std.math import ceildiv
from std.memory import AddressSpace, Layout, alloc, unsafe_stack_allocation
from std.sys import llvm_intrinsic

comptime BLOCK = 256
comptime WARPS = BLOCK // 32
# Float4 chunks of a row per thread on the register path: up to BLOCK * 4 * MAX_CHUNKS columns
# (bounded by the 48 KB static shared memory of the weight and dweight slots).
comptime MAX_CHUNKS = 4
# Column-partials reduction: FIN_COLS columns per block, FIN_ROWS threads per column.
comptime FIN_COLS = 32
comptime FIN_ROWS = 32
comptime FIN_UNROLL = 8

comptime F4 = SIMD[DType.float32, 4]


@always_inline
def sqrt_rn(v: Float32) -> Float32:
    # IEEE round-to-nearest square root (std.math.sqrt lowers to an approximation on NVIDIA).
    return llvm_intrinsic["llvm.nvvm.sqrt.rn.f", Float32](v)


@always_inline
def warp_sum(v: Float32) -> Float32:
    # Butterfly: every lane ends with the same, identically rounded total.
    var s = v
    comptime for k in range(5):
        s += shuffle_xor(s, UInt32(16 >> k))
    return s


# Persistent row kernel for C % 4 == 0 and C <= BLOCK * 4 * K. Block b handles rows b, b + G,
# b + 2G, ... Thread t owns the float4 chunks t + k * BLOCK (k < K) of every row. The row's x
# and dy stay in registers between the reduction and the dx write, and the next row is loaded
# before the current row's (single, fused) block reduction, so loads are always in flight.
# The thread's weight chunks and dweight partials live in its own shared-memory slots (fewer
# registers, more resident blocks); the partials go to row b of the G x C scratch at the end.
def rows_in_registers_kernel[
    K: Int
](
    x: Pointer[Float32, ImmUntrackedOrigin],
    dy: Pointer[Float32, ImmUntrackedOrigin],
    weight: Pointer[Float32, ImmUntrackedOrigin],
    dx: Pointer[Float32, MutUntrackedOrigin],
    partial: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
    C: Int32,
    eps: Float32,
):
    # Two buffers (alternating rows) of [sum x^2 per warp | sum g*x per warp].
    var red = unsafe_stack_allocation[4 * WARPS, Float32, address_space=AddressSpace.SHARED]()
    var w_s = unsafe_stack_allocation[
        4 * K * BLOCK, Float32, alignment=16, address_space=AddressSpace.SHARED
    ]()
    var acc_s = unsafe_stack_allocation[
        4 * K * BLOCK, Float32, alignment=16, address_space=AddressSpace.SHARED
    ]()
    var tid = Int(thread_idx.x)
    var lane = tid % 32
    var warp = tid // 32
    var n = Int(N)
    var c = Int(C)
    var nv = c // 4
    var stride = Int(grid_dim.x)
    var cf = Float32(c)

    # Slot of chunk k of this thread: 4 * (k * BLOCK + tid) (conflict-free float4 accesses).
    comptime for k in range(K):
        var v = tid + k * BLOCK
        var wv = F4(0.0)
        if v < nv:
            wv = weight.unsafe_load[width=4, alignment=16](4 * v)
        w_s.unsafe_store[alignment=16](4 * (k * BLOCK + tid), wv)
        acc_s.unsafe_store[alignment=16](4 * (k * BLOCK + tid), F4(0.0))

    var cur_x = Array[F4, K](fill=F4(0.0))
    var cur_dy = Array[F4, K](fill=F4(0.0))
    var row = Int(block_idx.x)
    if row < n:
        comptime for k in range(K):
            var v = tid + k * BLOCK
            if v < nv:
                cur_x[k] = x.unsafe_load[width=4, alignment=16](row * c + 4 * v)
                cur_dy[k] = dy.unsafe_load[width=4, alignment=16](row * c + 4 * v)

    var buf = 0
    while row < n:
        var next = row + stride
        var sq = F4(0.0)
        var gx = F4(0.0)
        comptime for k in range(K):
            var wv = w_s.unsafe_load[width=4, alignment=16](4 * (k * BLOCK + tid))
            sq += cur_x[k] * cur_x[k]
            gx += cur_dy[k] * wv * cur_x[k]

        # Prefetch the next row while this one is reduced and written.
        var nxt_x = Array[F4, K](fill=F4(0.0))
        var nxt_dy = Array[F4, K](fill=F4(0.0))
        if next < n:
            comptime for k in range(K):
                var v = tid + k * BLOCK
                if v < nv:
                    nxt_x[k] = x.unsafe_load[width=4, alignment=16](next * c + 4 * v)
                    nxt_dy[k] = dy.unsafe_load[width=4, alignment=16](next * c + 4 * v)

        var sq_w = warp_sum(sq.reduce_add())
        var gx_w = warp_sum(gx.reduce_add())
        var off = buf * 2 * WARPS
        if lane == 0:
            red[unsafe_offset=off + warp] = sq_w
            red[unsafe_offset=off + WARPS + warp] = gx_w
        barrier()
        var sum_sq: Float32 = 0.0
        var sum_gx: Float32 = 0.0
        comptime for i in range(WARPS):
            sum_sq += red[unsafe_offset=off + i]
            sum_gx += red[unsafe_offset=off + WARPS + i]

        var r = Float32(1.0) / sqrt_rn(sum_sq / cf + eps)
        var coef = r * r * r * sum_gx / cf
        comptime for k in range(K):
            var v = tid + k * BLOCK
            if v < nv:
                var slot = 4 * (k * BLOCK + tid)
                var wv = w_s.unsafe_load[width=4, alignment=16](slot)
                var out = r * (cur_dy[k] * wv) - cur_x[k] * coef
                dx.unsafe_store[alignment=16](row * c + 4 * v, out)
                var a = acc_s.unsafe_load[width=4, alignment=16](slot)
                acc_s.unsafe_store[alignment=16](slot, a + cur_dy[k] * cur_x[k] * r)

        cur_x = nxt_x^
        cur_dy = nxt_dy^
        row = next
        buf ^= 1

    var prow = Int(block_idx.x) * c
    comptime for k in range(K):
        var v = tid + k * BLOCK
        if v < nv:
            var a = acc_s.unsafe_load[width=4, alignment=16](4 * (k * BLOCK + tid))
            partial.unsafe_store[alignment=16](prow + 4 * v, a)


# Persistent row kernel for any C (VW = 4 needs C % 4 == 0): same schedule, but the row is
# re-read (from L1/L2) for the dx pass and each thread keeps its dweight partials directly in
# its own columns of scratch row b (no other thread touches them, so no atomics).
def rows_streaming_kernel[
    VW: Int
](
    x: Pointer[Float32, ImmUntrackedOrigin],
    dy: Pointer[Float32, ImmUntrackedOrigin],
    weight: Pointer[Float32, ImmUntrackedOrigin],
    dx: Pointer[Float32, MutUntrackedOrigin],
    partial: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
    C: Int32,
    eps: Float32,
):
    comptime V = SIMD[DType.float32, VW]
    comptime A = 4 * VW
    var red = unsafe_stack_allocation[4 * WARPS, Float32, address_space=AddressSpace.SHARED]()
    var tid = Int(thread_idx.x)
    var lane = tid % 32
    var warp = tid // 32
    var n = Int(N)
    var c = Int(C)
    var nv = c // VW
    var stride = Int(grid_dim.x)
    var cf = Float32(c)
    var prow = Int(block_idx.x) * c

    var v = tid
    while v < nv:
        partial.unsafe_store[alignment=A](prow + VW * v, V(0.0))
        v += BLOCK

    var row = Int(block_idx.x)
    var buf = 0
    while row < n:
        var base = row * c
        var sq = V(0.0)
        var gx = V(0.0)
        v = tid
        while v < nv:
            var xv = x.unsafe_load[width=VW, alignment=A](base + VW * v)
            var dv = dy.unsafe_load[width=VW, alignment=A](base + VW * v)
            var wv = weight.unsafe_load[width=VW, alignment=A](VW * v)
            sq += xv * xv
            gx += dv * wv * xv
            v += BLOCK

        var sq_w = warp_sum(sq.reduce_add())
        var gx_w = warp_sum(gx.reduce_add())
        var off = buf * 2 * WARPS
        if lane == 0:
            red[unsafe_offset=off + warp] = sq_w
            red[unsafe_offset=off + WARPS + warp] = gx_w
        barrier()
        var sum_sq: Float32 = 0.0
        var sum_gx: Float32 = 0.0
        comptime for i in range(WARPS):
            sum_sq += red[unsafe_offset=off + i]
            sum_gx += red[unsafe_offset=off + WARPS + i]

        var r = Float32(1.0) / sqrt_rn(sum_sq / cf + eps)
        var coef = r * r * r * sum_gx / cf
        v = tid
        while v < nv:
            var xv = x.unsafe_load[width=VW, alignment=A](base + VW * v)
            var dv = dy.unsafe_load[width=VW, alignment=A](base + VW * v)
            var wv = weight.unsafe_load[width=VW, alignment=A](VW * v)
            dx.unsafe_store[alignment=A](base + VW * v, r * (dv * wv) - xv * coef)
            var p = partial.unsafe_load[width=VW, alignment=A](prow + VW * v)
            partial.unsafe_store[alignment=A](prow + VW * v, p + dv * xv * r)
            v += BLOCK

        row += stride
        buf ^= 1


# dweight[j] = sum over the G scratch rows of partial[g, j]. A block covers FIN_COLS columns
# with FIN_ROWS threads per column; each thread keeps FIN_UNROLL independent loads in flight
# (separate accumulators), then the FIN_ROWS per-thread totals are summed through shared
# memory. Every column is written (overwritten) exactly once.
def reduce_partials_kernel(
    partial: Pointer[Float32, MutUntrackedOrigin],
    dweight: Pointer[Float32, MutUntrackedOrigin],
    G: Int32,
    C: Int32,
):
    var red = unsafe_stack_allocation[
        FIN_ROWS * FIN_COLS, Float32, address_space=AddressSpace.SHARED
    ]()
    var tid = Int(thread_idx.x)
    var tx = tid % FIN_COLS
    var ty = tid // FIN_COLS
    var col = Int(block_idx.x) * FIN_COLS + tx
    var g_rows = Int(G)
    var c = Int(C)

    var acc = SIMD[DType.float32, FIN_UNROLL](0.0)
    if col < c:
        var g = ty
        while g < g_rows:
            comptime for u in range(FIN_UNROLL):
                var gu = g + u * FIN_ROWS
                if gu < g_rows:
                    acc[u] += partial[unsafe_offset=gu * c + col]
            g += FIN_UNROLL * FIN_ROWS
    red[unsafe_offset=tid] = acc.reduce_add()
    barrier()

    if ty == 0 and col < c:
        var s: Float32 = 0.0
        comptime for i in range(FIN_ROWS):
            s += red[unsafe_offset=i * FIN_COLS + tx]
        dweight[unsafe_offset=col] = s


# The compiled kernels, as the types compile_function returns (type_of evaluates nothing).
comptime RegistersK1 = type_of(DeviceContext().compile_function[rows_in_registers_kernel[1]]())
comptime RegistersK2 = type_of(DeviceContext().compile_function[rows_in_registers_kernel[2]]())
comptime RegistersKMax = type_of(
    DeviceContext().compile_function[rows_in_registers_kernel[MAX_CHUNKS]]()
)
comptime StreamingV4 = type_of(DeviceContext().compile_function[rows_streaming_kernel[4]]())
comptime StreamingV1 = type_of(DeviceContext().compile_function[rows_streaming_kernel[1]]())
comptime Finish = type_of(DeviceContext().compile_function[reduce_partials_kernel]())


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


# Everything a call needs besides its arguments, made once per process: the DeviceContext (a
# context per call, with its stream and its kernel modules loaded again, costs more than 10% of
# this kernel), its order against the default stream, each row kernel compiled on first use with
# its persistent grid size, and the dweight partials' scratch, grown when a call needs more (never
# shrunk; calls are ordered on one stream, so a call never overwrites scratch another still reads).
struct BackwardState(Movable):
    var ctx: DeviceContext
    # None for a context of one call, or where the driver's event calls are out of reach: then
    # every call synchronises.
    var order: Optional[DefaultStreamOrder]
    var sms: Int
    var registers_k1: Optional[RegistersK1]
    var registers_k2: Optional[RegistersK2]
    var registers_kmax: Optional[RegistersKMax]
    var streaming_v4: Optional[StreamingV4]
    var streaming_v1: Optional[StreamingV1]
    var finish: Optional[Finish]
    # Resident blocks per SM of each row kernel (0: not compiled yet), in the order above.
    var occupancy: Array[Int, 5]
    var partial: Optional[DeviceBuffer[DType.float32]]
    var partial_len: Int

    def __init__(out self, var ctx: DeviceContext, ordered: Bool) raises:
        self.sms = ctx.get_attribute(DeviceAttribute.MULTIPROCESSOR_COUNT)
        self.order = None
        if ordered:
            try:
                self.order = DefaultStreamOrder(ctx)
            except:
                pass
        self.ctx = ctx^
        self.registers_k1 = None
        self.registers_k2 = None
        self.registers_kmax = None
        self.streaming_v4 = None
        self.streaming_v1 = None
        self.finish = None
        self.occupancy = Array[Int, 5](fill=0)
        self.partial = None
        self.partial_len = 0

    def grid(self, slot: Int, n: Int) -> Int:
        return max(1, min(n, self.sms * max(self.occupancy[slot], 1)))

    def begin(self) raises:
        if self.order:
            self.order.value().wait_for_default()

    def end(self) raises:
        if self.order:
            self.order.value().make_default_wait()
        else:
            # The results are read on another stream as soon as solve returns.
            self.ctx.synchronize()

    def scratch(mut self, count: Int) raises -> Pointer[Float32, MutUntrackedOrigin]:
        # A smaller buffer is only read by earlier calls' kernels, queued before on this stream,
        # and the new one is allocated in stream order after them.
        if count > self.partial_len:
            self.partial = self.ctx.enqueue_create_buffer[DType.float32](count)
            self.partial_len = count
        return self.partial.value().unsafe_ptr().unsafe_origin_cast[MutUntrackedOrigin]()

    def reduce(
        mut self,
        partial: Pointer[Float32, MutUntrackedOrigin],
        dweight: Pointer[Float32, MutUntrackedOrigin],
        g: Int,
        C: Int32,
    ) raises:
        if not self.finish:
            self.finish = self.ctx.compile_function[reduce_partials_kernel]()
        self.ctx.enqueue_function(
            self.finish.value(),
            partial,
            dweight,
            Int32(g),
            C,
            grid_dim=ceildiv(Int(C), FIN_COLS),
            block_dim=FIN_ROWS * FIN_COLS,
        )


def create_state() -> Optional[Pointer[NoneType, MutUntrackedOrigin]]:
    try:
        var state = alloc(Layout[BackwardState](count=1)).unsafe_leak()
        state.unsafe_write(BackwardState(DeviceContext(), ordered=True))
        return state.unsafe_bitcast[NoneType]()
    except:
        # No state now: every call makes its own (and reports why it cannot).
        return None


def keep_state(state: Optional[Pointer[NoneType, MutUntrackedOrigin]]):
    # Kept until the process exits: the driver releases the context and its memory then.
    pass


def backward(
    mut state: BackwardState,
    x: Pointer[Float32, ImmUntrackedOrigin],
    dy: Pointer[Float32, ImmUntrackedOrigin],
    weight: Pointer[Float32, ImmUntrackedOrigin],
    dx: Pointer[Float32, MutUntrackedOrigin],
    dweight: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
    C: Int32,
    eps: Float32,
) raises:
    var n = Int(N)
    var c = Int(C)
    var aligned = (Int(x) | Int(dy) | Int(weight) | Int(dx)) % 16 == 0
    var vec = c % 4 == 0 and aligned
    var chunks = ceildiv(c // 4, BLOCK)
    var g: Int
    var partial: Pointer[Float32, MutUntrackedOrigin]
    state.begin()
    # Each branch: compile on first use (and read the kernel's occupancy), size the grid, take
    # the G x C scratch, launch. The kernel objects differ in type, hence one branch each.
    if vec and chunks <= 1:
        if not state.registers_k1:
            state.registers_k1 = state.ctx.compile_function[rows_in_registers_kernel[1]]()
            state.occupancy[
                0
            ] = state.registers_k1.value().occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0)
        g = state.grid(0, n)
        partial = state.scratch(g * c)
        state.ctx.enqueue_function(
            state.registers_k1.value(),
            x,
            dy,
            weight,
            dx,
            partial,
            N,
            C,
            eps,
            grid_dim=g,
            block_dim=BLOCK,
        )
    elif vec and chunks <= 2:
        if not state.registers_k2:
            state.registers_k2 = state.ctx.compile_function[rows_in_registers_kernel[2]]()
            state.occupancy[
                1
            ] = state.registers_k2.value().occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0)
        g = state.grid(1, n)
        partial = state.scratch(g * c)
        state.ctx.enqueue_function(
            state.registers_k2.value(),
            x,
            dy,
            weight,
            dx,
            partial,
            N,
            C,
            eps,
            grid_dim=g,
            block_dim=BLOCK,
        )
    elif vec and chunks <= MAX_CHUNKS:
        if not state.registers_kmax:
            state.registers_kmax = state.ctx.compile_function[
                rows_in_registers_kernel[MAX_CHUNKS]
            ]()
            state.occupancy[
                2
            ] = state.registers_kmax.value().occupancy_max_active_blocks_per_multiprocessor(
                BLOCK, 0
            )
        g = state.grid(2, n)
        partial = state.scratch(g * c)
        state.ctx.enqueue_function(
            state.registers_kmax.value(),
            x,
            dy,
            weight,
            dx,
            partial,
            N,
            C,
            eps,
            grid_dim=g,
            block_dim=BLOCK,
        )
    elif vec:
        if not state.streaming_v4:
            state.streaming_v4 = state.ctx.compile_function[rows_streaming_kernel[4]]()
            state.occupancy[
                3
            ] = state.streaming_v4.value().occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0)
        g = state.grid(3, n)
        partial = state.scratch(g * c)
        state.ctx.enqueue_function(
            state.streaming_v4.value(),
            x,
            dy,
            weight,
            dx,
            partial,
            N,
            C,
            eps,
            grid_dim=g,
            block_dim=BLOCK,
        )
    else:
        if not state.streaming_v1:
            state.streaming_v1 = state.ctx.compile_function[rows_streaming_kernel[1]]()
            state.occupancy[
                4
            ] = state.streaming_v1.value().occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0)
        g = state.grid(4, n)
        partial = state.scratch(g * c)
        state.ctx.enqueue_function(
            state.streaming_v1.value(),
            x,
            dy,
            weight,
            dx,
            partial,
            N,
            C,
            eps,
            grid_dim=g,
            block_dim=BLOCK,
        )
    state.reduce(partial, dweight, g, C)
    state.end()


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
        if Int(C) > 0:
            # The global is keyed by name in the Mojo runtime, which every Mojo library of the
            # process shares, so the name is this solution's own.
            var cached = _get_global[
                "chgen.142_rms_norm_backward.state", create_state, keep_state
            ]()
            if cached:
                backward(
                    cached.value().unsafe_bitcast[BackwardState]()[],
                    x,
                    dy,
                    weight,
                    dx,
                    dweight,
                    N,
                    C,
                    eps,
                )
            else:
                # A context for this call only: it synchronises before it is released.
                var state = BackwardState(DeviceContext(), ordered=False)
                backward(state, x, dy, weight, dx, dweight, N, C, eps)
    except e:
        print(e)
