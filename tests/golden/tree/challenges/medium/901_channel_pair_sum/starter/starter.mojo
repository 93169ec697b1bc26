from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


# x, y, total are device pointers
@export
def solve(
    x: Pointer[Float32, ImmUntrackedOrigin],
    y: Pointer[Float32, MutUntrackedOrigin],
    total: Pointer[Float32, MutUntrackedOrigin],
    B: Int32,
    C: Int32,
    L: Int32,
) abi("C"):
    pass
