"""How many functional cases each challenge of a tree has: the figures behind P017's default range.

    python benchmarks/case_counts.py <clone of the public set>

Counts with chgen's own reader (generator/challenge/pyfile.py) and the count P017 uses
(generator/checks/model.py `functional_count`); a challenge whose count is not evident from its
code (cases built in a loop) is counted as unknown. Prints counts only.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

from generator.challenge.pyfile import read_challenge_py
from generator.checks.model import functional_count


def case_counts(tree: Path) -> tuple[Counter, int]:
    """Challenges by their functional-case count, and how many have no evident count."""
    counts: Counter = Counter()
    unknown = 0
    for path in sorted(tree.glob("challenges/*/*/challenge.py")):
        count = functional_count(read_challenge_py(path.read_text(), str(path)))
        if count is None:
            unknown += 1
        else:
            counts[count] += 1
    return counts, unknown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="a folder holding challenges/")
    args = parser.parse_args()
    counts, unknown = case_counts(args.tree)
    values = sorted(counts.elements())
    print("cases  challenges")
    for count in sorted(counts):
        print(f"{count:5}  {counts[count]}")
    if values:
        print(
            f"{len(values)} counted, {unknown} not evident; min {values[0]}, "
            f"median {statistics.median(values):g}, max {values[-1]}"
        )


if __name__ == "__main__":
    main()
