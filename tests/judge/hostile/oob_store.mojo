from max.gpu import thread_idx
from max.gpu.host import DeviceContext


# Writes four floats just past the end of dx (a classic missing tail check).
def past_the_end(dx: Pointer[Float32, MutUntrackedOrigin], N: Int32, C: Int32):
    var i = Int(thread_idx.x)
    if i < 4:
        dx[unsafe_offset=Int(N) * Int(C) + i] = 0.0


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
        var ctx = DeviceContext()
        ctx.enqueue_function[past_the_end](dx, N, C, grid_dim=1, block_dim=32)
        ctx.synchronize()
    except e:
        print(e)
