import torch


def _rms_norm_backward(x, dy, weight, dx, dweight, eps: float):
    # Row statistics: rstd and the projection sum(g * x) share one row reduction once compiled.
    rstd = torch.rsqrt(x.square().mean(dim=1, keepdim=True) + eps)
    g = dy * weight
    # Fold everything that is per row into one coefficient so dx is a single fused expression.
    coef = rstd.pow(3) * (g * x).sum(dim=1, keepdim=True) / x.shape[1]
    # Writing through copy_ inside the compiled graph lets the generated kernels store straight
    # into the output buffers instead of materialising temporaries and copying them afterwards.
    dx.copy_(rstd * g - x * coef)
    dweight.copy_((dy * x * rstd).sum(dim=0))


_compiled = torch.compile(_rms_norm_backward, dynamic=False)


def solve(x, dy, weight, dx, dweight, N: int, C: int, eps: float):
    _compiled(x, dy, weight, dx, dweight, eps)
