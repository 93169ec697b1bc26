"""What every language adapter provides.

An adapter knows one language's file name, starter template, type spellings (from the dtype
table), formatter, and — for the judge — how to build a source file and call the result. Adding
a language is one subclass, one template under templates/starter/ and one column in
generator/dtypes.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Dict, List, Optional, Sequence

from generator.dtypes import DType, lookup


@dataclass(frozen=True)
class SigParam:
    """A solve parameter as the generator and the judge see it (spec-free, so any tree works)."""

    name: str
    dtype: DType
    direction: str  # in / out / inout
    is_tensor: bool

    @classmethod
    def make(cls, name: str, dtype: str, direction: str, is_tensor: bool) -> "SigParam":
        return cls(name, lookup(dtype), direction, is_tensor)


@dataclass(frozen=True)
class StarterParam:
    """One parameter as a starter spells it."""

    name: str
    annotation: str  # the full declaration for C-like languages, the annotation for the others


class Language:
    """Base class: subclasses set the class attributes and override the spellings."""

    key: ClassVar[str]  # short id used on the command line and in reports
    title: ClassVar[str]
    suffix: ClassVar[str]  # starter.<suffix> / solution.<suffix>
    template: ClassVar[str]  # under templates/
    comment_prefix: ClassVar[str] = "#"
    noun: ClassVar[tuple] = ("tensor on the GPU", "tensors on the GPU")
    #: added to the comment for easy challenges: (after one name, after several)
    easy_suffix: ClassVar[tuple] = ("", "")
    formatter: ClassVar[str]  # name of a function in generator.formatting
    drops_outputs: ClassVar[bool] = False  # JAX returns outputs instead of writing them

    @property
    def starter_name(self) -> str:
        return f"starter{self.suffix}"

    @property
    def solution_name(self) -> str:
        return f"solution{self.suffix}"

    # ------------------------------------------------------------------ rendering
    def tensor_type(self, p: SigParam) -> str:
        raise NotImplementedError

    def scalar_type(self, p: SigParam) -> str:
        raise NotImplementedError

    def visible(self, params: Sequence[SigParam]) -> List[SigParam]:
        """The parameters this language's solve takes."""
        if self.drops_outputs:
            return [p for p in params if p.direction != "out"]
        return list(params)

    def starter_params(self, params: Sequence[SigParam]) -> List[StarterParam]:
        return [
            StarterParam(p.name, self.tensor_type(p) if p.is_tensor else self.scalar_type(p))
            for p in self.visible(params)
        ]

    def comment(self, params: Sequence[SigParam], easy: bool) -> str:
        """The one comment above solve, e.g. '// a, b are device pointers'."""
        names = [p.name for p in self.visible(params) if p.is_tensor and self.names_tensor(p)]
        singular, plural = self.noun
        if len(names) == 1:
            text = f"{names[0]} is a {singular}"
        else:
            text = f"{', '.join(names)} are {plural}"
        if easy:
            text += self.easy_suffix[0 if len(names) == 1 else 1]
        return f"{self.comment_prefix} {text}"

    def names_tensor(self, p: SigParam) -> bool:
        """JAX names only the tensors it receives; everyone else names every tensor."""
        return True

    def extra_context(self, params: Sequence[SigParam]) -> Dict[str, Any]:
        return {}

    # ------------------------------------------------------------------ judging
    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """Turn a source file into something `load` accepts; raise BuildError on failure."""
        raise NotImplementedError

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        raise NotImplementedError

    def call(self, solve: Any, params: Sequence[SigParam], values: Dict[str, Any]) -> None:
        """Run a loaded solution once on `values` (tensors and scalars by name); outputs end up in
        the output tensors of `values` whatever the language's calling convention."""
        bound = solve.bind(params, values)
        bound.run()
        bound.finish()


class BuildError(Exception):
    """A toolchain rejected the source; the message is the toolchain's own output."""
