import tilelang
import tilelang.language as T
import torch


# x, y, total are tensors on the GPU
def solve(x: torch.Tensor, y: torch.Tensor, total: torch.Tensor, B: int, C: int, L: int):
    pass
