import torch
import torch.distributed as dist


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    # The partial dweight comes first, so that its all-reduce runs while dx is computed.
    rstd = torch.rsqrt(x.square().mean(dim=1, keepdim=True) + eps)
    torch.sum(dy * x * rstd, dim=0, out=dweight)
    reduce = dist.all_reduce(dweight, op=dist.ReduceOp.SUM, async_op=True)
    g = dy * weight
    # Everything per row folded into one coefficient: dx is one expression over the row.
    coef = rstd.pow(3) * (g * x).sum(dim=1, keepdim=True) / C
    torch.sub(rstd * g, x * coef, out=dx)
    reduce.wait()
