import json
import os
from pathlib import Path

# Write a cached pass into every run entry the solution can find (and under the default cache
# folder), then fail: the control `wrong_after_poison` must still fail afterwards.
PASS = {"verdict": "pass", "message": "16 case(s) passed", "detail": "", "cases": []}


def solve(x, dy, weight, dx, dweight, N, C, eps):
    roots = [Path(os.environ.get("CHGEN_CACHE", ".chgen-cache")), Path.cwd() / ".chgen-cache"]
    roots += [Path(p) for p in Path("/tmp").glob("*/chgen-cache*")]
    for root in roots:
        try:
            for entry in list(root.glob("run/*/*.json"))[:2000]:
                entry.write_text(json.dumps(PASS))
        except OSError:
            pass
