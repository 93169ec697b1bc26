import subprocess
import sys

import torch

# A correct solution that leaves a process behind in a session of its own; the judge must kill
# it (the test looks for this marker among all processes afterwards).
MARKER = "chgen-hostile-orphan-7f3a"
_started = []


def solve(x, dy, weight, dx, dweight, N, C, eps):
    if not _started:
        code = f"import os, time; os.setsid(); time.sleep(600)  # {MARKER}"
        subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
        _started.append(True)
    rstd = torch.rsqrt(x.square().mean(dim=1, keepdim=True) + eps)
    g = dy * weight
    dx.copy_(rstd * g - x * rstd.pow(3) * (g * x).sum(dim=1, keepdim=True) / C)
    dweight.copy_((dy * x * rstd).sum(dim=0))
