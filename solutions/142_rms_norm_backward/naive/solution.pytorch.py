import torch


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    # rstd is not an input: recompute it per row, shape (N, 1) so it broadcasts over columns.
    rstd = torch.rsqrt(x.square().mean(dim=1, keepdim=True) + eps)
    g = dy * weight
    proj = (g * x).sum(dim=1, keepdim=True)
    dx.copy_(rstd * g - x * rstd.pow(3) * proj / C)
    # copy_ (not add_) so the pre-filled contents of dweight are overwritten.
    dweight.copy_((dy * x * rstd).sum(dim=0))
