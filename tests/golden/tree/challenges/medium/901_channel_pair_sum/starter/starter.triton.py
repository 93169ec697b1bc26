import torch
import triton
import triton.language as tl


# x, y, total are tensors on the GPU
def solve(x: torch.Tensor, y: torch.Tensor, total: torch.Tensor, B: int, C: int, L: int):
    pass
