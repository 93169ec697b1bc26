import torch


def mix_round(v: torch.Tensor) -> torch.Tensor:
    return ((v ^ (v >> 7)) * 31) & 0xFFFF


# x, out are tensors on the GPU
def solve(x: torch.Tensor, out: torch.Tensor, N: int, R: int):
    pass
