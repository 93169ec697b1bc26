"""Fixture trees for the `chgen check` tests: small copies of generated/ (and of the golden tree for
easy and fp16 challenges) in tmp_path, which a test mutates to plant one violation."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from generator.checks.registry import Finding
from generator.checks.report import Options
from generator.checks.runner import run

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "generated"
GOLDEN = ROOT / "tests" / "golden" / "tree"
MEDIUM = (GENERATED, "medium/142_rms_norm_backward")
EASY = (GOLDEN, "easy/1_vector_add")
FP16 = (GOLDEN, "medium/58_fp16_dot_product")
#: a challenge with a reference_impl_jax
JAX_REF = (GENERATED, "medium/143_row_inverse_rms")


@dataclass
class Fixture:
    """A tree root holding core/ and one challenge; `edit` paths are relative to the challenge."""

    root: Path
    challenge: Path

    def path(self, relative: str) -> Path:
        return self.challenge / relative

    def read(self, relative: str) -> str:
        return self.path(relative).read_text()

    def write(self, relative: str, text: str) -> None:
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def edit(self, relative: str, old: str, new: str) -> None:
        text = self.read(relative)
        assert old in text, f"fixture text {old!r} not found in {relative}"
        self.write(relative, text.replace(old, new, 1))

    def run(
        self, select: Optional[List[str]] = None, target: Optional[Path] = None, **options
    ) -> List[Finding]:
        opts = Options(select=tuple(select or ()), **options)
        return run([target or self.root], opts).findings


def make_fixture(base: Path, source: tuple) -> Fixture:
    tree, relative = source
    root = base / "tree"
    shutil.copytree(tree / "challenges" / "core", root / "challenges" / "core")
    shutil.copytree(tree / "challenges" / relative, root / "challenges" / relative)
    return Fixture(root, root / "challenges" / relative)
