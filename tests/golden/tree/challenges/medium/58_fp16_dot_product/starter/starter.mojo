from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


# A, B, result are device pointers
@export
def solve(
    A: Pointer[Float16, ImmUntrackedOrigin],
    B: Pointer[Float16, ImmUntrackedOrigin],
    result: Pointer[Float16, MutUntrackedOrigin],
    N: Int32,
) abi("C"):
    pass
