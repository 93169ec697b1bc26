from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


# X, y are device pointers
@export
def solve(
    X: Pointer[Float32, ImmUntrackedOrigin],
    y: Pointer[Float32, MutUntrackedOrigin],
    scale: Float32,
    M: Int32,
    K: Int32,
) abi("C"):
    pass
