from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


# x, inv_rms are device pointers
@export
def solve(
    x: Pointer[BFloat16, ImmUntrackedOrigin],
    inv_rms: Pointer[Float32, MutUntrackedOrigin],
    T: Int32,
    D: Int32,
    eps: Float32,
) abi("C"):
    pass
