"""Do two `chgen test` reports of the same jobs agree? (a local run and a `--ray` run, say)

    python benchmarks/report_diff.py LOCAL.json OTHER.json

Prints how many rows each holds and every field where they differ, leaving out what two runs may
differ in (`generator.judge.report.RUN_FIELDS`: when, how long, where); exits 1 when they differ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.judge.report import report_differences  # noqa: E402


def main(argv: list) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    one, other = (json.loads(Path(p).read_text()) for p in argv)
    found = report_differences(one, other)
    rows = [len(r.get("rows", [])) for r in (one, other)]
    verdicts = sorted({row.get("verdict") for row in one.get("rows", [])}, key=str)
    print(f"{argv[0]}: {rows[0]} rows; {argv[1]}: {rows[1]} rows; verdicts {verdicts}")
    for line in found[:50]:
        print(f"  differs: {line}")
    print(
        "the same report, but for when, how long and where"
        if not found
        else f"{len(found)} differences"
    )
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
