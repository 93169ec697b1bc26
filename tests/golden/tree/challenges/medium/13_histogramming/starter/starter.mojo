from max.gpu.host import DeviceContext
from max.gpu import block_dim, block_idx, thread_idx
from std.math import ceildiv


# input, histogram are device pointers
@export
def solve(
    input: Pointer[Int32, ImmUntrackedOrigin],
    histogram: Pointer[Int32, MutUntrackedOrigin],
    N: Int32,
    num_bins: Int32,
) abi("C"):
    pass
