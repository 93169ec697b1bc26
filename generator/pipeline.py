"""The visible pipeline: spec files -> validated specs -> rendered, formatted files -> the tree.

`generate(specs, out, check=..., force=...)` is the whole stage behind `chgen generate`, `chgen
check SPEC` and the tests; it returns a GenerateResult and prints nothing. Every stage reports
errors as SpecErrors (file:line:column).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

if TYPE_CHECKING:  # the spec model (pydantic) is imported only when a spec must be parsed
    from generator.challenge.page import TextLoss
    from generator.spec import LoadedSpec

from generator import tree, tree_policy
from generator.incremental import (
    GenerateCache,
    files_on_disk,
    generator_fingerprint,
    spec_fingerprint,
)
from generator.naming import SPEC_NAME_RE, find_specs
from generator.spec.batch import load_all
from generator.spec.yamlpos import Position, SpecError, SpecErrors
from generator.tree import Change, Output

CORE_OWNER = tree_policy.CORE_OWNER


def spec_paths(specs: List[Path], specs_dir: Path) -> List[Path]:
    return specs or find_specs(specs_dir)


@dataclass(frozen=True)
class PageLoss:
    """A page on disk whose visible text the page rendered over it would not show all of."""

    path: str  # in the tree
    error: SpecError  # at the spec node that renders the part losing it, naming the words


@dataclass(frozen=True)
class GenerateResult:
    """What one generation found (and, unless `check`, did) in the tree at `out`."""

    out: Path
    specs: int  # specs asked for
    rendered: int  # specs parsed and rendered (the others were reused from the cache)
    changes: Tuple[Change, ...]  # the tree on disk -> what the specs render to
    conflicts: Tuple[str, ...]  # generated files edited by hand (nothing is written over them)
    written: bool  # the changes are on disk now
    #: pages among the conflicts whose visible text the new page would not show all of: one
    #: line each, at the spec node that renders the part that loses it (page_losses)
    losses: Tuple[PageLoss, ...] = ()

    @property
    def up_to_date(self) -> bool:
        return not self.changes

    def paths(self, kind: str) -> List[str]:
        return [change.path for change in self.changes if change.kind == kind]

    @property
    def added(self) -> List[str]:
        return self.paths("added")

    @property
    def changed(self) -> List[str]:
        return self.paths("changed")

    @property
    def removed(self) -> List[str]:
        return self.paths("removed")

    @property
    def diff(self) -> str:
        """The unified diff from the tree on disk to the rendered one."""
        return "".join(change.diff for change in self.changes)


def generate(
    specs: Sequence[Path],
    out: Path,
    *,
    check: bool = False,
    force: bool = False,
    root: Optional[Path] = None,
    cache: Optional[GenerateCache] = None,
    languages: Optional[Sequence[str]] = None,
    specs_dir: Optional[Path] = None,
) -> GenerateResult:
    """Render `specs` and compare them with the tree at `out` (`check`) or write them there.

    Starters are written in `languages` (keys), else in those `specs_dir/chgen.yaml` names, else
    in those the tree already ships, else in every language (tree_policy.choose_languages).
    Writing is atomic per challenge directory and refuses files edited by hand or not written by
    chgen (the result lists them as conflicts and nothing is written) unless `force`; a page
    among them whose visible text the new one would not show all of is also named in `losses`,
    with what it loses (with `force` it is written all the same). Raises SpecErrors for bad
    specs, FormatError when a formatter rejects rendered text, OSError when the tree cannot be
    written."""
    chosen = tree_policy.choose_languages(languages, specs_dir, out)
    output, rendered = render_tree(list(specs), out, root, cache or GenerateCache(), chosen)
    planned = tree.plan(out.resolve(), output)
    result = GenerateResult(
        out,
        len(specs),
        rendered,
        tuple(planned.changes),
        tuple(planned.edited),
        written=False,
        losses=tuple(page_losses(out, output, planned.edited, list(specs), root)),
    )
    if check or (result.conflicts and not force):
        return result
    if result.up_to_date:
        if tree.has_leftovers(out):
            tree.write(out, output, force=force)  # clears what an interrupted run left
        return result
    try:
        changes = tree.write(out, output, force=force)
    except tree.TreeConflict as exc:  # found only once an interrupted swap was recovered
        return replace(result, conflicts=tuple(exc.paths))
    return replace(result, changes=tuple(changes), written=True)


def page_losses(
    out: Path,
    output: Output,
    edited: Sequence[str],
    specs: List[Path],
    root: Optional[Path] = None,
) -> List[PageLoss]:
    """For each page on disk that chgen did not write as it stands (`edited`: no manifest entry,
    or changed since) and whose visible text the new page would not show all of, one error at
    the spec node that renders the part losing it, naming the words lost. chgen's own pages
    (their hash in the manifest) are never compared: regenerating them is the spec's word."""
    from generator.challenge.page import describe_losses, text_losses

    by_owner = {_owner(path): path for path in specs if SPEC_NAME_RE.match(path.name)}
    found = []
    for path in edited:
        if not path.endswith("/challenge.html") or path not in output.files:
            continue
        try:
            old = (out / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        losses = text_losses(old, output.files[path])
        spec = by_owner.get(output.owners.get(path, ""))
        if not losses or spec is None:
            continue
        error = SpecError(
            _loss_position(spec, root, losses[0]),
            f"{out / path} on disk shows text the page this spec renders does not: "
            f"{describe_losses(losses)}",
            "keep that text in the spec, e.g. as an example's display or a section; or run "
            "'chgen generate --force' to write the page without it",
        )
        found.append(PageLoss(path, error))
    return found


def _loss_position(spec_path: Path, root: Optional[Path], loss: "TextLoss") -> Position:
    """The spec node that renders the part of the page a loss is in (the part itself where the
    spec has it, else where it would stand)."""
    from generator.challenge.page import strip_tags
    from generator.spec import load_spec

    try:
        loaded = load_spec(spec_path, root)
    except SpecErrors:
        return Position(str(spec_path), 1, 1)
    spec = loaded.spec
    if loss.kind == "example":
        return loaded.example_position(min(loss.number, len(spec.examples)) - 1)
    if loss.kind == "section":
        titles = [strip_tags(section.title).rstrip(":").strip() for section in spec.sections]
        if loss.label in titles:
            return loaded.position("sections", titles.index(loss.label))
        return loaded.position("sections" if spec.sections else "description")
    return loaded.position(loss.kind)  # description, requirements, constraints, performance


def render_tree(
    paths: List[Path],
    tree_root: Path,
    root: Optional[Path],
    cache: GenerateCache,
    languages: Optional[tree_policy.Languages] = None,
) -> Tuple[Output, int]:
    """The tree's files for `paths`, rendering only specs whose inputs the cache has not seen
    rendered into exactly the files on disk; returns the output and how many were rendered.
    The shared base class is part of it only where the tree has none or chgen wrote it."""
    errors = _duplicate_file_ids(paths)
    if errors:
        raise SpecErrors(errors)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    stale: Dict[Path, str] = {}
    claims: List[tree_policy.Claim] = []
    for path in paths:
        fingerprint = _languages_key(spec_fingerprint(path), languages) if path.is_file() else ""
        kept = _reusable(cache, tree_root, fingerprint)
        if kept is None:
            stale[path] = fingerprint
            continue
        owner = _owner(path)
        claim = tree_policy.claim_of(path, int(owner.split("_")[0]), owner, list(kept))
        claims += [claim] if claim else []
        for name, text in kept.items():
            files[name], owners[name] = text, owner
    if stale:
        loaded = load_all(list(stale), root)
        for item in loaded:
            claim = tree_policy.claim_of(
                item.path, item.spec.id, item.spec.owner, challenge_files(item)
            )
            claims += [claim] if claim else []
        _refuse_duplicate_directories(claims, tree_root, root)
        fresh = build_output(loaded, cache, languages, tree_root)
        for item in loaded:
            own = {p: t for p, t in fresh.files.items() if fresh.owners[p] == item.spec.owner}
            cache.remember_rendered(stale[item.path], own)
        files.update(fresh.files)
        owners.update(fresh.owners)
    else:
        _refuse_duplicate_directories(claims, tree_root, root)
    if not tree_policy.writes_core(tree_root):
        return Output(files, owners), len(stale)
    core_key = core_fingerprint()
    core = _reusable(cache, tree_root, core_key)
    if core is None:
        from generator.render import render_core

        core = render_core()
        cache.remember_rendered(core_key, core)
    for name, text in core.items():
        files[name], owners[name] = text, CORE_OWNER
    return Output(files, owners), len(stale)


def core_fingerprint() -> str:
    return f"{CORE_OWNER}-{generator_fingerprint()}"


def challenge_files(item: "LoadedSpec") -> List[str]:
    """A path inside the directory `item` renders (enough to name that directory)."""
    from generator.render import challenge_dir

    return [f"{challenge_dir(item.spec)}/challenge.py"]


def _refuse_duplicate_directories(
    claims: List[tree_policy.Claim], tree_root: Path, root: Optional[Path]
) -> None:
    """SpecErrors at the `id:` line of each spec that would add a second directory for an id."""
    from generator.spec import load_spec

    found = tree_policy.duplicate_directories(claims, tree_root)
    errors = []
    for claim, message, hint in found:
        try:
            position = load_spec(claim.spec_path, root).position("id")
        except SpecErrors as exc:
            position = exc.errors[0].position
        errors.append(SpecError(position, message, hint))
    if errors:
        raise SpecErrors(errors)


def _languages_key(fingerprint: str, languages: Optional[tree_policy.Languages]) -> str:
    """A spec renders other files in other languages: the cache keeps them apart."""
    if languages is None or languages.keys is None:
        return fingerprint  # a challenge keeping its own languages reuses only what is on disk
    from generator.incremental import sha256

    return sha256(f"{fingerprint}\0languages={languages.key}")


def _owner(path: Path) -> str:
    match = SPEC_NAME_RE.match(path.name)
    return f"{match.group(1)}_{match.group(2)}"


def _reusable(cache: GenerateCache, tree_root: Path, fingerprint: str) -> Optional[Dict[str, str]]:
    hashes = cache.rendered(fingerprint) if fingerprint else None
    return files_on_disk(tree_root, hashes) if hashes else None


def _duplicate_file_ids(paths: List[Path]) -> List[SpecError]:
    seen: Dict[str, Path] = {}
    errors = []
    for path in paths:
        match = SPEC_NAME_RE.match(path.name)
        if not match:
            continue
        other = seen.setdefault(match.group(1), path)
        if other != path:
            errors.append(
                SpecError(
                    Position(str(path), 1, 1),
                    f"id {match.group(1)} is also used by {other}",
                    "every challenge needs its own id",
                )
            )
    return errors


def build_output(
    loaded: List["LoadedSpec"],
    cache: GenerateCache,
    languages: Optional[tree_policy.Languages] = None,
    tree_root: Optional[Path] = None,
) -> Output:
    """Render specs (not the shared base class), then verify what the cache has not seen pass:
    each example against the reference, and the rendered files against the rules `chgen check
    --formatters --deep` applies (generator/validation.py), every finding at its spec line.

    The verification runs the spec's reference: it happens in one sandboxed child for the run
    (generator/example_runner.py), never in this process. A spec that fails adds nothing."""
    from generator.example_check import example_fingerprint
    from generator.example_runner import verify_examples
    from generator.render import challenge_dir, render_challenge

    def keys(item: "LoadedSpec") -> Optional[Sequence[str]]:
        if languages is None:
            return None
        if tree_root is None:
            return languages.keys
        return languages.for_challenge(tree_root, challenge_dir(item.spec))

    rendered = [render_challenge(item, keys(item)) for item in loaded]
    keys = [
        _validation_key(example_fingerprint(item), files) for item, files in zip(loaded, rendered)
    ]
    pending = [i for i, key in enumerate(keys) if not cache.example_verified(key)]
    failed = verify_examples([loaded[i] for i in pending], [rendered[i] for i in pending])
    errors: List[SpecError] = []
    for position, index in enumerate(pending):
        if position in failed:
            errors.extend(failed[position])
        else:
            cache.remember_example(keys[index])
    if errors:
        raise SpecErrors(errors)
    files: Dict[str, str] = {}
    owners: Dict[str, str] = {}
    for item, own in zip(loaded, rendered):
        for path, text in own.items():
            files[path], owners[path] = text, item.spec.owner
    return Output(files, owners)


def _validation_key(example: str, files: Dict[str, str]) -> str:
    """A spec passes again without a check when its example and its rendered files are the same
    (chgen's own version is part of every key: generator/incremental.py)."""
    from generator.incremental import sha256

    listing = "".join(f"{path}\0{sha256(text)}\0" for path, text in sorted(files.items()))
    return sha256(f"{example}\0{listing}")
