import torch


def _inv_rms_eager(x, inv_rms, eps: float):
    mean_sq = x.float().square().mean(dim=-1)
    # One value per row: finish in float64 and round once.
    inv_rms.copy_(torch.rsqrt(mean_sq.double() + eps))


# Compiled, the upcast and the square are fused into the row reduction, so neither an fp32 copy
# nor a squared copy of x is ever written to memory.
_inv_rms_fused = torch.compile(_inv_rms_eager, dynamic=False)


def solve(x, inv_rms, T: int, D: int, eps: float):
    if x.is_cuda:
        _inv_rms_fused(x, inv_rms, eps)
    else:
        # The CPU code generator sums long rows in one running sum per vector lane, which loses
        # accuracy at D = 16384; ATen's CPU reduction is a cascade sum, so stay eager there.
        _inv_rms_eager(x, inv_rms, eps)
