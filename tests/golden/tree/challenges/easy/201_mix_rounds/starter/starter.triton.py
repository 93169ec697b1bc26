import torch
import triton
import triton.language as tl


@triton.jit
def mix_round(v):
    return ((v ^ (v >> 7)) * 31) & 0xFFFF


@triton.jit
def mix_kernel(x, out, n_elements, R, BLOCK_SIZE: tl.constexpr):
    pass


# x, out are tensors on the GPU
def solve(x: torch.Tensor, out: torch.Tensor, N: int, R: int):
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(N, BLOCK_SIZE),)
    mix_kernel[grid](x, out, N, R, BLOCK_SIZE)
