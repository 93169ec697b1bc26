import torch

# The timing family's yardstick: the same eager computation every cheat below wraps, done honestly.


def backward(x, dy, weight, dx, dweight, C, eps):
    rstd = torch.rsqrt(x.square().mean(dim=1, keepdim=True) + eps)
    g = dy * weight
    dx.copy_(rstd * g - x * rstd.pow(3) * (g * x).sum(dim=1, keepdim=True) / C)
    dweight.copy_((dy * x * rstd).sum(dim=0))


def solve(x, dy, weight, dx, dweight, N, C, eps):
    backward(x, dy, weight, dx, dweight, C, eps)
