import cutlass
import cutlass.cute as cute


# x, y, total are tensors on the GPU
@cute.jit
def solve(
    x: cute.Tensor, y: cute.Tensor, total: cute.Tensor, B: cute.Int32, C: cute.Int32, L: cute.Int32
):
    pass
