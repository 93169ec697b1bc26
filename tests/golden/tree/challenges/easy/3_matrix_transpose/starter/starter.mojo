from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


def matrix_transpose_kernel(
    input: Pointer[Float32, ImmUntrackedOrigin],
    output: Pointer[Float32, MutUntrackedOrigin],
    rows: Int32,
    cols: Int32,
):
    pass


# input, output are device pointers (i.e. pointers to memory on the GPU)
@export
def solve(
    input: Pointer[Float32, ImmUntrackedOrigin],
    output: Pointer[Float32, MutUntrackedOrigin],
    rows: Int32,
    cols: Int32,
) abi("C"):
    comptime BLOCK_SIZE = 16
    try:
        var ctx = DeviceContext()
        var grid_x = ceildiv(Int(cols), BLOCK_SIZE)
        var grid_y = ceildiv(Int(rows), BLOCK_SIZE)
        ctx.enqueue_function[matrix_transpose_kernel](
            input, output, rows, cols, grid_dim=(grid_x, grid_y), block_dim=(BLOCK_SIZE, BLOCK_SIZE)
        )
        ctx.synchronize()
    except e:
        print(e)
