import torch


def _inv_rms(x, inv_rms, eps: float):
    # Once compiled, the upcast and the square are fused into the row reduction, so neither an
    # fp32 copy nor a squared copy of x is ever written to memory.
    mean_sq = x.float().square().mean(dim=-1)
    inv_rms.copy_(1.0 / torch.sqrt(mean_sq + eps))


try:
    # division_rounding makes the mean's division and the reciprocal correctly rounded (div_rn);
    # sqrt is already emitted as a correctly rounded square root.
    _compiled = torch.compile(_inv_rms, options={"eager_numerics.division_rounding": True})
except Exception:  # torch.compile unavailable on this build: stay eager
    _compiled = None

# Eager fallback works on bounded row blocks so the fp32 temporaries stay small.
_CHUNK_ELEMS = 1 << 24


def _inv_rms_eager(x, inv_rms, eps: float):
    rows = max(1, _CHUNK_ELEMS // max(1, x.shape[-1]))
    for start in range(0, x.shape[0], rows):
        stop = min(start + rows, x.shape[0])
        mean_sq = x[start:stop].float().square().mean(dim=-1)
        inv_rms[start:stop].copy_(1.0 / torch.sqrt(mean_sq + eps))


def solve(x, inv_rms, T: int, D: int, eps: float):
    global _compiled
    if _compiled is not None:
        try:
            _compiled(x, inv_rms, eps)
            return
        except Exception:
            # No working compiler backend: the whole output is recomputed eagerly below.
            _compiled = None
    _inv_rms_eager(x, inv_rms, eps)
