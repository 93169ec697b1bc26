"""What every language adapter provides.

An adapter is the one home of every fact about its language: the spelling side (file name,
template, type spellings from the dtype table, comment, formatter, starter tab and lexer, kernel
scaffolds, the parser `chgen check` reads its starters with) and the toolchain side (build, load,
call, where it runs, its target and the tool whose version keys its builds). Everything else asks
the registry (generator/languages/__init__.py), never a language's key. Adding a language is one
subclass, one template under templates/starter/ and one column in generator/dtypes.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from generator.dtypes import DType, lookup
from generator.toolchain.errors import BuildError


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


#: a Python starter's comment longer than this puts "are ..." on a line of its own
COMMENT_WIDTH = 100


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
    #: `declarations` joins full C declarations (`const float* x`) instead of `name: type`
    c_declarations: ClassVar[bool] = False
    #: the comment inside solve's body of a language that returns its outputs
    return_comment: ClassVar[Optional[str]] = None
    #: words this language reserves that a Python identifier may be (Mojo's `out`, C's `int`): a
    #: parameter so named is escaped in this language only (see `spelled`)
    keywords: ClassVar[FrozenSet[str]] = frozenset()
    #: what escapes a keyword: appended, so the parameter keeps its place and its C ABI (native
    #: solutions are called by position)
    keyword_escape: ClassVar[str] = "_"

    # ---- the starter as `chgen check` and `chgen preview` see it
    #: the parser that reads its starters (a key of generator.checks.starters.PARSERS)
    starter_syntax: ClassVar[str] = "python"
    #: what an empty solve body holds
    empty_body: ClassVar[str] = "pass"
    #: easy starters carry a kernel stub and launch code
    scaffolded: ClassVar[bool] = False
    #: decorators that mark a kernel in a Python starter
    kernel_decorators: ClassVar[tuple] = ()
    #: a challenge tree must hold this starter (see TileLang for one that need not)
    required_in_tree: ClassVar[bool] = True
    #: the preview's tab: its place among the tabs (the platform's order) and Pygments lexer
    tab_order: ClassVar[int]
    lexer: ClassVar[str] = "python"

    # ---- the toolchain as the judge sees it
    #: built ahead into a shared library whose C `solve` is called through ctypes
    native: ClassVar[bool] = False
    #: runs on a machine without a GPU (everything else only builds or compiles there)
    runs_on_cpu: ClassVar[bool] = False
    #: on the CPU it runs through an interpreter: small cases only, and never timed
    interpreted_on_cpu: ClassVar[bool] = False
    #: on the CPU the worker compiles it for the target without running it (a compile-check)
    compiles_in_worker: ClassVar[bool] = False
    #: its work runs on streams of its own: timed with the device idle after the L2 flush
    own_streams: ClassVar[bool] = False
    #: GPU cycles the stream is held busy before a timed call, where the judge's default
    #: (generator/judge/timing.py) is too short to queue this language's call behind it
    launch_cover_cycles: ClassVar[Optional[int]] = None
    #: the architecture it is built for without a visible GPU; None: built for none
    default_target: ClassVar[Optional[str]] = None
    #: the architectures of every GPU the platform lists: each starter is also built for each
    #: (a `build` job of `chgen test`); empty: only for the target it runs on
    platform_targets: ClassVar[Tuple[str, ...]] = ()
    #: the compiler whose version keys its builds (None: the Python version does)
    build_tool: ClassVar[Optional[str]] = None
    #: distributions whose versions key its runs and head the reports
    packages: ClassVar[tuple] = ()
    #: its built libraries need a runtime of the language's own where they run (bundled)
    bundles_runtime: ClassVar[bool] = False

    # ---- multi-GPU challenges (num_gpus > 1)
    #: why a solution in this language cannot reach its peer ranks (one line, shown in the tree's
    #: page and by `chgen test`); None where it can, as `distributed_doc` says how
    distributed_refusal: ClassVar[Optional[str]] = "it has no way to reach the other ranks here"
    #: the docstring of solve in a multi-GPU starter: how this rank reaches its peers
    distributed_doc: ClassVar[tuple] = ()
    #: the process-group backend the judge starts for this language, by device kind
    distributed_backends: ClassVar[Dict[str, str]] = {}
    #: the communicator the judge makes on each rank and passes to solve after its parameters
    #: (with the rank and the world size, as `rank_params` declares them); None: none is passed
    distributed_communicator: ClassVar[Optional[str]] = None

    @property
    def distributed(self) -> bool:
        """It can take part in a multi-GPU challenge (the judge sets its process group up)."""
        return self.distributed_refusal is None

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

    def spelled(self, name: str, others: Sequence[str] = ()) -> str:
        """How this language writes a parameter name: a keyword of its own is escaped (`out` ->
        `out_`), again if that clashes with another parameter's name."""
        spelled = name
        while spelled in self.keywords or (spelled != name and spelled in others):
            spelled += self.keyword_escape
        return spelled

    def spelled_params(self, params: Sequence[SigParam]) -> List[SigParam]:
        """The visible parameters under the names this language writes them with."""
        visible = self.visible(params)
        names = [p.name for p in params]
        return [dataclasses.replace(p, name=self.spelled(p.name, names)) for p in visible]

    def starter_params(self, params: Sequence[SigParam]) -> List[StarterParam]:
        return [
            StarterParam(p.name, self.tensor_type(p) if p.is_tensor else self.scalar_type(p))
            for p in self.spelled_params(params)
        ]

    def current_helper(self, code: str) -> str:
        """A starter helper carried over from an older tree, in this language's current form."""
        return code

    def current_starter(self, text: str, directions: Dict[str, str]) -> Optional[str]:
        """A whole starter from an older tree on this language's current API, changed by the
        migration alone (unformatted); None when it holds a form the migration does not know.
        `directions`: solve's parameter names -> "in", "out" or "inout"."""
        return text

    def kernel_parameter_names(self, params: Sequence[SigParam], grid: Sequence[str]) -> List[str]:
        """The names of an easy starter's kernel stub (its launch passes the solve parameters in
        this order); `grid` holds the size parameters the launch covers."""
        return [p.name for p in self.spelled_params(params)]

    def comment(self, params: Sequence[SigParam], easy: bool) -> str:
        """The one comment above solve, e.g. '// a, b are device pointers'."""
        spelled = self.spelled_params(params)
        names = [p.name for p in spelled if p.is_tensor and self.names_tensor(p)]
        singular, plural = self.noun
        if len(names) == 1:
            text = f"{names[0]} is a {singular}"
        else:
            text = f"{', '.join(names)} are {plural}"
        if easy:
            text += self.easy_suffix[0 if len(names) == 1 else 1]
        return f"{self.comment_prefix} {text}"

    def written_comment(self, comment: str) -> str:
        """The comment as the starter writes it: a Python starter's comment past flake8's limit
        puts "are ..." on a line of its own (as the public starters wrap it); `chgen check` reads
        the lines of a comment block joined."""
        head, _, predicate = comment.rpartition(" are ")
        if self.starter_syntax == "python" and len(comment) > COMMENT_WIDTH and head:
            if len(head) <= COMMENT_WIDTH:
                return f"{head}\n{self.comment_prefix} are {predicate}"
        return comment

    def declaration(self, p: StarterParam) -> str:
        """One parameter of solve as the starter declares it."""
        if self.c_declarations:
            return p.annotation
        return f"{p.name}: {p.annotation}"

    def return_annotation(self, params: Sequence[SigParam]) -> Optional[str]:
        """What solve is annotated to return; None for languages that write outputs in place."""
        return None

    def accepted_scalar_types(self, p: SigParam) -> Set[str]:
        """The spellings `chgen check` accepts for a scalar parameter of this dtype."""
        return {self.scalar_type(p)}

    def names_tensor(self, p: SigParam) -> bool:
        """JAX names only the tensors it receives; everyone else names every tensor."""
        return True

    def rank_params(self) -> List[StarterParam]:
        """The parameters a multi-GPU starter's solve takes after the signature's (the judge's
        communicator, rank and world size); none where the language reaches its peers otherwise."""
        return []

    def extra_context(self, params: Sequence[SigParam], ranks: bool = False) -> Dict[str, Any]:
        """Template variables of this language's own; `ranks`: a multi-GPU starter."""
        return {}

    # ------------------------------------------------------------------ judging
    def target_for_gpu(self, major: int, minor: int) -> str:
        """The architecture to build for on a visible GPU of this compute capability."""
        return f"sm_{major}{minor}"

    def worker_env(self, device: str, target: Optional[str]) -> Dict[str, str]:
        """Variables the judge's worker needs before the language is imported."""
        return {}

    def prepare_worker(self) -> None:
        """Site folders the worker must add before the language is imported."""

    def trivial_call(self, device: str) -> Optional[Any]:
        """A `Bound` (generator/toolchain/bindings.py) of this language's least call, bound as
        a solution's is, which the judge's empty timed calls make (generator/judge/rounds.py):
        what every call in the language costs besides its work is then not counted against a
        solution. None: an empty function (a call of a compiled library costs nothing more)."""
        return None

    def build(self, source: Path, workdir: Path, target: Optional[str]) -> Path:
        """Turn a source file into something `load` accepts; raise BuildError on failure."""
        raise NotImplementedError

    def load(self, artifact: Path, params: Sequence[SigParam]) -> Any:
        raise NotImplementedError

    def load_entry(self, artifact: Path, params: Sequence[SigParam], entry: str) -> Any:
        """The file's function `entry` as the solution (the derived solutions of `chgen test`
        are PyTorch files with several)."""
        raise BuildError(f"{self.title} solutions have one entry point, solve")

    def call(self, solve: Any, params: Sequence[SigParam], values: Dict[str, Any]) -> None:
        """Run a loaded solution once on `values` (tensors and scalars by name); outputs end up in
        the output tensors of `values` whatever the language's calling convention."""
        bound = solve.bind(params, values)
        bound.run()
        bound.finish()

    def compile_only(self, solve: Any, params: Sequence[SigParam], values: Dict[str, Any]) -> None:
        """Compile a loaded solution for the target on `values` without running it (only for
        languages that `compiles_in_worker`); raise BuildError when it does not compile."""
        raise NotImplementedError


__all__ = ["BuildError", "Language", "SigParam", "StarterParam"]
