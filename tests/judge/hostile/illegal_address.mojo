from max.gpu import thread_idx
from max.gpu.host import DeviceContext


# Stores 4 TiB past dx: far outside any allocation, so the GPU raises an illegal address.
def far_away(dx: Pointer[Float32, MutUntrackedOrigin]):
    dx[unsafe_offset=(1 << 40) + Int(thread_idx.x)] = 1.0


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
        ctx.enqueue_function[far_away](dx, grid_dim=1, block_dim=32)
        ctx.synchronize()
    except e:
        print(e)
