"""After adopting chgen in a copy of a challenge set (`chgen import . --out specs`, then
`chgen generate --out . --force`), how its pages compare with the original's: how many lose
visible text (words and numbers a reader sees: the check `chgen generate` makes before it writes
over a page it did not write), how many changed otherwise (markup only), how many are
byte-identical; and, for every changed page, what changed.

    python benchmarks/adoption_pages.py ORIGINAL_TREE ADOPTED_TREE

Prints counts and short reasons only (the public set's licence allows no copies of its files).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import List, Tuple

from generator.challenge.page import describe_losses, text_losses


def pages(tree: Path) -> List[Path]:
    """challenge.html of every challenge under tree/challenges, relative to the tree."""
    root = tree / "challenges"
    return sorted(p.relative_to(tree) for p in root.glob("*/*/challenge.html"))


def first_change(old: str, new: str) -> str:
    """The first changed line of a markup-only change, both sides cut short."""
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith(("-", "+")) and not line.startswith(("---", "+++")):
            return line[:70]
    return "line endings or trailing whitespace"


def compare(original: Path, adopted: Path) -> Tuple[List[str], List[str], int]:
    """(pages losing text, pages changed in markup only, byte-identical count), each changed page
    as `difficulty/challenge: why`."""
    losing, markup, identical = [], [], 0
    for relative in pages(original):
        old = (original / relative).read_text(encoding="utf-8")
        target = adopted / relative
        new = target.read_text(encoding="utf-8") if target.is_file() else ""
        name = "/".join(relative.parts[1:3])
        if old == new:
            identical += 1
            continue
        losses = text_losses(old, new)
        if losses:
            losing.append(f"{name}: {describe_losses(losses, 50)}")
        else:
            markup.append(f"{name}: markup only, first change {first_change(old, new)!r}")
    return losing, markup, identical


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("original", type=Path)
    parser.add_argument("adopted", type=Path)
    args = parser.parse_args(argv)
    losing, markup, identical = compare(args.original, args.adopted)
    total = len(losing) + len(markup) + identical
    print(
        f"{total} pages: {len(losing)} lose visible text, {len(markup)} changed in markup only, "
        f"{identical} byte-identical"
    )
    for line in losing + markup:
        print(f"  {line}")
    return 1 if losing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
