from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


def mix_round(v: Int32) -> Int32:
    return ((v ^ (v >> 7)) * 31) & 0xFFFF


def mix_kernel(
    x: Pointer[Int32, ImmUntrackedOrigin],
    out_: Pointer[Int32, MutUntrackedOrigin],
    N: UInt64,
    R: Int32,
):
    pass


# x, out_ are device pointers (i.e. pointers to memory on the GPU)
@export
def solve(
    x: Pointer[Int32, ImmUntrackedOrigin],
    out_: Pointer[Int32, MutUntrackedOrigin],
    N: UInt64,
    R: Int32,
) abi("C"):
    comptime BLOCK_SIZE = 256
    try:
        var ctx = DeviceContext()
        var num_blocks = ceildiv(Int(N), BLOCK_SIZE)
        ctx.enqueue_function[mix_kernel](x, out_, N, R, grid_dim=num_blocks, block_dim=BLOCK_SIZE)
        ctx.synchronize()
    except e:
        print(e)
