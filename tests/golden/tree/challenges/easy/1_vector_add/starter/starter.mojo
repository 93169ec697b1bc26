from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


def vector_add(
    A: Pointer[Float32, ImmUntrackedOrigin],
    B: Pointer[Float32, ImmUntrackedOrigin],
    C: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
):
    pass


# A, B, C are device pointers (i.e. pointers to memory on the GPU)
@export
def solve(
    A: Pointer[Float32, ImmUntrackedOrigin],
    B: Pointer[Float32, ImmUntrackedOrigin],
    C: Pointer[Float32, MutUntrackedOrigin],
    N: Int32,
) abi("C"):
    comptime BLOCK_SIZE = 256
    try:
        var ctx = DeviceContext()
        var num_blocks = ceildiv(Int(N), BLOCK_SIZE)
        ctx.enqueue_function[vector_add](A, B, C, N, grid_dim=num_blocks, block_dim=BLOCK_SIZE)
        ctx.synchronize()
    except e:
        print(e)
