import sys

import torch

CHUNK = "x" * (1 << 20) + "\n"


def solve(x, dy, weight, dx, dweight, N, C, eps):
    # 128 MiB of output per call, then a correct answer.
    for _ in range(128):
        sys.stdout.write(CHUNK)
    sys.stdout.flush()
    rstd = torch.rsqrt(x.square().mean(dim=1, keepdim=True) + eps)
    g = dy * weight
    dx.copy_(rstd * g - x * rstd.pow(3) * (g * x).sum(dim=1, keepdim=True) / C)
    dweight.copy_((dy * x * rstd).sum(dim=0))
