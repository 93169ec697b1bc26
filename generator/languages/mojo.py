"""Mojo (1.2, MAX 26.7): `@export def solve(...) abi("C")` over untracked-origin pointers."""

from __future__ import annotations

from generator.languages.base import Language, SigParam


class Mojo(Language):
    key = "mojo"
    title = "Mojo"
    suffix = ".mojo"
    template = "starter/mojo.mojo.j2"
    noun = ("device pointer", "device pointers")
    easy_suffix = " (i.e. pointers to memory on the GPU)"
    formatter = "mojo_format"

    def tensor_type(self, p: SigParam) -> str:
        # Untracked origins are the ones documented for memory the caller owns; Imm for inputs
        # mirrors `const` in CUDA.
        origin = "ImmUntrackedOrigin" if p.direction == "in" else "MutUntrackedOrigin"
        return f"Pointer[{p.dtype.mojo}, {origin}]"

    def scalar_type(self, p: SigParam) -> str:
        return p.dtype.mojo
