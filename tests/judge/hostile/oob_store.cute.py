import cutlass
import cutlass.cute as cute


# Writes four floats just past the end of dx: row N does not exist.
@cute.kernel
def past_the_end(dx: cute.Tensor, n_rows: cutlass.Int32):
    tid, _, _ = cute.arch.thread_idx()
    if tid < 4:
        dx[n_rows, tid] = cutlass.Float32(0.0)


@cute.jit
def solve(
    x: cute.Tensor,
    dy: cute.Tensor,
    weight: cute.Tensor,
    dx: cute.Tensor,
    dweight: cute.Tensor,
    N: cute.Int32,
    C: cute.Int32,
    eps: cute.Float32,
):
    past_the_end(dx, N).launch(grid=[1, 1, 1], block=[32, 1, 1])
