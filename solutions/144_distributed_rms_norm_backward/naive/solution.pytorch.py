import torch
import torch.distributed as dist


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    # This rank's rows: dx locally, then the partial dweight summed over every rank.
    rstd = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + eps)
    x_hat = x * rstd
    g = dy * weight
    dx.copy_(rstd * (g - x_hat * (g * x_hat).mean(dim=1, keepdim=True)))
    dweight.copy_((dy * x_hat).sum(dim=0))
    dist.all_reduce(dweight, op=dist.ReduceOp.SUM)
