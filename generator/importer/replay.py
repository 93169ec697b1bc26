"""A traced case -> the torch code that makes its inputs as the original did (`{code: ...}`).

The trace (trace.py) recorded every torch call of a test method, with its arguments and result.
The calls a case needs are those that make its input tensors (and every change made to them
afterwards, through views too), and every random draw made while the case was being built, used
or not: the random stream then advances exactly as in the original, so the same seed gives the
same values. They are written back as Python in the order they were made: a result used once is
written inside the call that uses it (`torch.empty(...).uniform_(-1, 1) * mask`) when that keeps
the order of evaluation; otherwise it gets a name. Sizes in shape arguments are written by name.

A scalar the case takes out of its drawn data (`nnz = int(mask.sum().item())`) is computed by the
code as the original computes it, for every seed and device. Another value taken out of drawn data
into Python (an index) is written as the number it was, which is right only where those draws are
the same on every device and every seed: drawn on the CPU after the method seeds the stream
itself. Taken out of data drawn on `self.device` (a GPU draws other values than the CPU) or drawn
before the method's own seed (other seeds draw other values), the case is refused. What cannot
be written back (its own torch.Generator, an object that is not a tensor, number or torch
constant, a draw shared with an earlier case, Python-made data of more than 4096 numbers) is a
ReplayError, which refuses the case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import torch

from generator.importer.replay_writer import ReplayError, Statement, Writer
from generator.importer.torch_calls import (
    RANDOM,
    extracts_values,
    is_random,
    mutated,
    reads,
    root,
    tensors_in,
)
from generator.importer.trace import Call

__all__ = ["RANDOM", "Chunk", "ReplayError", "Replayed", "replay_case", "window_end"]


@dataclass
class Chunk:
    """The code of one input (`owner`) and of the inputs made together with it."""

    owner: str
    made: List[str]  # every input the chunk binds, the owner first
    lines: List[str]
    expression: Optional[str] = None  # the owner's value, when its code is one expression

    @property
    def code(self) -> str:
        return self.expression if self.expression is not None else "\n".join(self.lines) + "\n"


@dataclass
class Replayed:
    chunks: List[Chunk]
    seed: Optional[int]  # torch.manual_seed before the case's first call (the case's `seed`)
    computed: List[str] = field(default_factory=list)  # scalars the code computes
    draws: bool = False  # the code draws random data


def window_end(calls: Sequence[Call], objects: Sequence[torch.Tensor]) -> int:
    """The last call that makes or changes one of `objects` (or a tensor they are made of)."""
    live = _live(calls, 0, len(calls) - 1, objects, with_random=False)
    return max(live) if live else -1


def _live(
    calls: Sequence[Call], start: int, end: int, objects: Sequence[torch.Tensor], with_random=True
) -> Set[int]:
    """The calls up to `end` that `objects` need: their makers, every change to their data, the
    makers of what those read; and (`with_random`) every draw from `start` on, with what it reads.
    """
    needed_ids = {id(t) for t in objects}
    needed_roots = {root(t) for t in objects}
    live: Set[int] = set()
    for call in reversed(calls[: end + 1]):
        target = mutated(call)
        outs = list(tensors_in(call.out)) if target is None else []
        keep = (
            (with_random and call.index >= start and is_random(call))
            or (target is not None and root(target) in needed_roots)
            or any(id(o) in needed_ids for o in outs)
        )
        if not keep:
            continue
        live.add(call.index)
        for tensor in list(tensors_in(call.args)) + list(tensors_in(call.kwargs)):
            needed_ids.add(id(tensor))
            needed_roots.add(root(tensor))
    return live


def _drawn_objects(calls: Sequence[Call], upto: int) -> Set[int]:
    """ids of the tensors whose values depend on a draw, among the calls before `upto`."""
    drawn: Set[int] = set()
    for call in calls[:upto]:
        read = {id(t) for t in reads(call)}
        if is_random(call) or read & drawn:
            target = mutated(call)
            for t in [target] if target is not None else tensors_in(call.out):
                drawn.add(id(t))
    return drawn


def replay_case(
    calls: Sequence[Call],
    start: int,
    end: int,
    inputs: Dict[str, torch.Tensor],
    shapes: Dict[Tuple[int, ...], List[str]],
    device: str,
    taken: Set[str],
    extract_seed: bool = True,
    scalars: Optional[Dict[str, Any]] = None,
) -> Replayed:
    """The code that makes `inputs` (name -> the tensor the case holds, in signature order)
    from the calls start..end of a traced method (its window: after the case before it);
    `shapes`: each input's shape in this case -> its dimensions as the signature writes them;
    `extract_seed`: a torch.manual_seed before every other call is the case's `seed`, not code;
    `scalars`: the case's scalars that are no sizes, by name: one the case takes out of data
    it draws (a count of nonzeros) is computed by the code as the original computes it."""
    computed = _computed(calls, start, end, inputs, scalars or {})
    objects = list(inputs.values()) + [t for i in computed for t in reads(calls[i])]
    last = max([end] + list(computed))
    live = sorted(_live(calls, start, last, objects) | set(computed))
    drawn = _drawn_objects(calls, start)
    for index in live:
        if index < start and (
            is_random(calls[index]) or any(id(t) in drawn for t in reads(calls[index]))
        ):
            raise ReplayError("reads a tensor drawn for an earlier case")
    seed = None
    if extract_seed and live and calls[live[0]].func is None and live[0] >= start:
        seed = int(calls[live[0]].args[0])
        live = live[1:]
    # draws made before the last seed of the window affect nothing
    seeds = [i for i in live if calls[i].func is None]
    if seeds:
        reads_later = {id(t) for i in live if i > seeds[-1] for t in reads(calls[i])}
        live = [
            i
            for i in live
            if i >= seeds[-1]
            or not is_random(calls[i])
            or any(id(t) in reads_later for t in tensors_in(calls[i].out))
        ]
    _refuse_fixed_values(calls, start, end, device, set(computed))
    writer = Writer(calls, live, inputs, shapes, device, taken, computed)
    statements = writer.write(inputs)
    for name, tensor in inputs.items():
        if writer.names[id(tensor)] != name:
            statements.append(Statement(f"{name} = {writer.names[id(tensor)]}"))
        elif id(tensor) not in writer.bound:
            text = f"{name} = {writer._literal_tensor(tensor)}"
            statements.append(Statement(text, {id(tensor)}, {root(tensor)}))
            writer.bound.add(id(tensor))
    made = [name for name, _ in computed.values()]
    draws = any(calls[i].func is not None and is_random(calls[i]) for i in live)
    return Replayed(_chunks(statements, inputs, calls), seed, made, draws)


def _case_data(calls: Sequence[Call], start: int, end: int) -> Set[int]:
    """ids of the tensors made from the draws of the calls start..end, at any later call."""
    found: Set[int] = set()
    for call in calls[max(start, 0) :]:
        read = reads(call)
        if (start <= call.index <= end and is_random(call)) or any(id(t) in found for t in read):
            target = mutated(call)
            for t in [target] if target is not None else tensors_in(call.out):
                found.add(id(t))
    return found


def _computed(
    calls: Sequence[Call],
    start: int,
    end: int,
    inputs: Dict[str, torch.Tensor],
    scalars: Dict[str, Any],
) -> Dict[int, Tuple[str, str]]:
    """The calls that take a scalar of the case out of the data it draws (`mask.sum().item()`
    for `nnz`), each -> (the scalar, the Python type it is written through)."""
    data = _case_data(calls, start, end)
    found: Dict[int, Tuple[str, str]] = {}
    for name, value in scalars.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        matching = [
            c.index
            for c in calls[max(start, 0) :]
            if extracts_values(c)
            and isinstance(c.out, (int, float))
            and not isinstance(c.out, bool)
            and c.out == value
            and any(id(t) in data for t in reads(c))
        ]
        if len(matching) == 1 and matching[0] not in found:
            found[matching[0]] = (name, "int" if isinstance(value, int) else "float")
    return found


def _refuse_fixed_values(
    calls: Sequence[Call], start: int, end: int, device: str, computed: Set[int]
) -> None:
    """A ReplayError where Python takes values (an index, a count the case does not pass) out of
    the case's drawn data that the code would write as numbers but that are not the same on every
    run: data drawn on `device` (`self.device`: a GPU draws other values than the CPU), or drawn
    before the method seeds the stream itself (other seeds, other values)."""
    seeds = [c.index for c in calls if c.func is None]
    first_seed = seeds[0] if seeds else len(calls)
    on_device: Set[int] = set()
    drawn: Set[int] = set()  # on the device
    unseeded: Set[int] = set()  # by the judge's seed
    case = _case_data(calls, start, end)
    for call in calls:
        ids = {id(t) for t in reads(call)}
        if call.index > start and call.index not in computed and extracts_values(call):
            if ids & unseeded & case:
                raise ReplayError(
                    f"takes values out of data drawn without a seed into Python ({call.name}): "
                    "written as numbers, they would hold for one seed only"
                )
            if ids & drawn & case:
                raise ReplayError(
                    f"takes values out of data drawn on self.device into Python ({call.name}): "
                    "written as numbers, they would hold on the CPU only (a GPU draws others)"
                )
        given = any(a is device for a in call.args) or call.kwargs.get("device") is device
        placed = given or bool(ids & on_device)
        random = is_random(call) and call.func is not None
        target = mutated(call)
        for t in [target] if target is not None else list(tensors_in(call.out)):
            if placed:
                on_device.add(id(t))
            if (random and placed) or ids & drawn:
                drawn.add(id(t))
            if (random and call.index < first_seed) or ids & unseeded:
                unseeded.add(id(t))


def _chunks(
    statements: List[Statement],
    inputs: Dict[str, torch.Tensor],
    calls: Sequence[Call],
) -> List[Chunk]:
    """The statements cut into one piece per input, in signature order, where each input's
    statements come after those of the inputs before it; inputs that cannot be cut apart (made
    together, or made in another order) share the piece of the first of them. The statements are
    first put in the order that does so wherever the work they depend on allows (_scheduled)."""
    names = list(inputs)
    statements = _scheduled(statements, calls, inputs)

    def touches(k: int, name: str) -> bool:
        tensor = inputs[name]
        return id(tensor) in statements[k].binds or root(tensor) in statements[k].touches

    ends = [max([k for k in range(len(statements)) if touches(k, n)], default=-1) for n in names]
    groups: List[Tuple[List[str], List[int]]] = []
    begin, group = 0, []
    for i, name in enumerate(names):
        group.append(name)
        upto = max(ends[: i + 1])
        later = [k for k in range(upto + 1) for other in names[i + 1 :] if touches(k, other)]
        if later and i + 1 < len(names):
            continue
        stop = len(statements) if i + 1 == len(names) else upto + 1
        groups.append((list(group), list(range(begin, stop))))
        begin, group = stop, []
    chunks = []
    for made, indices in groups:
        body = _loops([statements[k].text for k in indices])
        chunk = Chunk(made[0], made, body)
        single = body[0] if len(body) == 1 and len(made) == 1 else ""
        if single.startswith(f"{chunk.owner} = "):
            chunk.expression = single[len(chunk.owner) + 3 :]
        chunks.append(chunk)
    return chunks


def _scheduled(
    statements: List[Statement], calls: Sequence[Call], inputs: Dict[str, torch.Tensor]
) -> List[Statement]:
    """The statements in an order that keeps every dependence (what one makes before what reads
    it or changes it, the draws and seeds among themselves as made) and otherwise writes each
    input's statements before those of the inputs after it in signature order."""
    count = len(statements)

    def read_by(statement: Statement) -> Set[Tuple[str, int]]:
        return {root(t) for i in statement.calls for t in reads(calls[i])}

    read = [read_by(st) for st in statements]
    made = [st.touches for st in statements]
    fixed = [
        not st.calls or any(calls[i].func is None or is_random(calls[i]) for i in st.calls)
        for st in statements
    ]
    after: List[Set[int]] = [set() for _ in range(count)]
    for j in range(count):
        for k in range(j):
            if read[j] & made[k] or made[j] & (read[k] | made[k]) or (fixed[j] and fixed[k]):
                after[j].add(k)
    # the first input (in signature order) whose values each statement's work reaches, or that
    # waits for it (a draw made before that input's draws)
    places = list(inputs.values())
    first = [math.inf] * count
    for k in reversed(range(count)):
        own = [
            i
            for i, tensor in enumerate(places)
            if id(tensor) in statements[k].binds or root(tensor) in made[k]
        ]
        needed = [first[j] for j in range(k + 1, count) if k in after[j]]
        first[k] = min(own + needed, default=math.inf)
    done: Set[int] = set()
    order: List[int] = []
    while len(order) < count:
        ready = [k for k in range(count) if k not in done and after[k] <= done]
        k = min(ready, key=lambda k: (first[k], k))
        order.append(k)
        done.add(k)
    return [statements[k] for k in order]


def _loops(lines: List[str]) -> List[str]:
    """A draw repeated n times in a row, its result unread, as a loop."""
    out: List[str] = []
    k = 0
    while k < len(lines):
        n = 1
        while k + n < len(lines) and lines[k + n] == lines[k]:
            n += 1
        if n >= 3 and "\n" not in lines[k]:
            out += [f"for _ in range({n}):", f"    {lines[k]}"]
        else:
            out += lines[k : k + n]
        k += n
    return out
