"""How many challenges of a tree `chgen import` brings back, and which case constructs it used.

Imports every challenge directory of TREE (a clone's `challenges/` folder or one holding it) in
memory and counts: imported or refused; the regenerated challenge.py equivalent to the original
(strictly, and up to the cases the import reports as approximated); challenge.py byte-identical;
and the imported specs' cases that carry a seed, an output start (prefill) or descriptors. Prints
counts only (with --names, the directory names behind each count).

    python benchmarks/import_constructs.py TREE [--names]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.importer import ImportFailure, import_challenge  # noqa: E402


def challenge_dirs(tree: Path) -> List[Path]:
    root = tree / "challenges" if (tree / "challenges").is_dir() else tree
    return sorted(d for d in root.glob("*/*") if d.is_dir() and (d / "challenge.py").is_file())


def constructs(spec_text: str) -> Counter:
    """Cases (functional and performance) that carry each construct."""
    spec = yaml.safe_load(spec_text)
    found: Counter = Counter()
    for case in spec["functional"] + [spec["performance"]]:
        for key in ("seed", "prefill", "descriptors"):
            if key in case:
                found[f"cases with {key}"] += 1
    if "prefill" in spec:
        found["specs with a spec-wide prefill"] += 1
    return found


COUNTS = [
    "imported",
    "refused",
    "challenge.py equivalent (strictly)",
    "challenge.py equivalent (up to approximated cases)",
    "challenge.py byte-identical",
    "specs with a spec-wide prefill",
    "cases with seed",
    "cases with prefill",
    "cases with descriptors",
]


def count(tree: Path) -> Dict[str, List[str]]:
    names: Dict[str, List[str]] = {key: [] for key in COUNTS}
    for directory in challenge_dirs(tree):
        label = f"{directory.parent.name}/{directory.name}"
        try:
            imported = import_challenge(directory)
        except ImportFailure:
            names["refused"].append(label)
            continue
        names["imported"].append(label)
        equivalence = imported.equivalence
        if not equivalence.problems():
            names["challenge.py equivalent (strictly)"].append(label)
        if not equivalence.problems(imported.report.approximated):
            names["challenge.py equivalent (up to approximated cases)"].append(label)
        if imported.identical.get("challenge.py"):
            names["challenge.py byte-identical"].append(label)
        for construct, n in constructs(imported.spec_text).items():
            names[construct].extend([label] * n)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--names", action="store_true", help="list the directories counted")
    args = parser.parse_args()
    dirs = challenge_dirs(args.tree)
    names = count(args.tree)
    print(f"{'challenges':<52} {len(dirs):>4}")
    for key, labels in names.items():
        print(f"{key:<52} {len(labels):>4}")
        if args.names:
            for label in sorted(set(labels)):
                print(f"    {label}")


if __name__ == "__main__":
    main()
