from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


# x, dy, weight, dx, dweight are device pointers
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
    pass
