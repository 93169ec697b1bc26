"""How the spec keeps the page: its layout choices, the example sections kept as written, the rules
the original breaks (tolerated), and what the spec keeps as values or as text."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import torch

from generator.challenge.page import read_page as read_page_facts
from generator.html import example_form
from generator.importer import html as page_reader
from generator.importer.draft import MatrixFlags, PageLayout, PreFlags, SpecDraft
from generator.importer.examples import example_tensors, split_explanation
from generator.importer.original import Read
from generator.importer.report import Report
from generator.importer.specfile import built_spec, write_tree
from generator.render import render_challenge, render_page


def squeeze_batches_of_one(draft: SpecDraft, page_text: str, report: Report) -> None:
    """A page writing its examples as bmatrix where chgen would write the data in <pre> for a
    [1, 3, 4] tensor among it shows that batch of one as its matrix (page.matrix.squeeze)."""
    from generator.challenge.page import example_forms, read_page

    if set(example_forms(read_page(page_text))) != {"bmatrix"}:
        return
    shown = [example_tensors(example) for example in draft.examples]
    if all(example_form(tensors) == "pre" for tensors in shown) and all(
        example_form(tensors, squeeze=True) == "matrix" for tensors in shown
    ):
        if draft.page.matrix is None:
            draft.page.matrix = MatrixFlags()
        draft.page.matrix.squeeze = True
        report.note(
            "challenge.html: the example shows each tensor of a batch of one (leading dimensions "
            "1) as its matrix; so does the spec (page.matrix.squeeze)"
        )


def original_rule_codes(
    read: Read, page_text: str, report: Report, extra: Optional[str] = None
) -> List[str]:
    """The rules `chgen check` (static) finds errors of in the original challenge: the forms it
    keeps, which the spec then tolerates, so that `chgen generate` reproduces them instead of
    refusing what the original already does. A page writing its examples in <pre> keeps that form
    for 2-D data too (H009), though the original's generated example may hide the data's rank; so
    does one writing 1-D data as one-row bmatrices (kept as the page's text, its `display`)."""
    from generator.challenge.page import example_forms, multi_row_matrix, read_page

    # errors and warnings alike: a page carried as written keeps a raw × (H013) as much as a
    # heading form; `chgen check` tolerates them in the tree while the files are as generated
    found = {f.code for f in read.findings if not f.code.startswith("G")}
    parsed = read_page(page_text)
    forms = example_forms(parsed)
    example = read.run.example.values if read.run.example is not None else {}
    ranks = [v.ndim for v in example.values() if isinstance(v, torch.Tensor)]
    two_d = 2 in ranks
    if "pre" in forms and "bmatrix" not in forms and two_d:
        found.add("H009")
    flat_only = ranks and max(ranks) <= 1 and not multi_row_matrix(parsed)
    if "bmatrix" in forms and "pre" not in forms and flat_only:
        found.add("H009")
    if extra:
        found.add(extra)
    codes = sorted(found)
    if codes:
        report.note(
            f"the original breaks rule(s) {', '.join(codes)}; the spec tolerates them "
            "(tolerated_rules), so generation keeps those forms and `chgen check` passes them "
            "while the files are as generated: "
            + "; ".join(f"{code} {why}" for code, why in tolerated_reasons(read, codes).items())
        )
    return codes


def tolerated_reasons(read: Read, codes: List[str]) -> Dict[str, str]:
    """Why each tolerated rule is: what it checks, and the original's files it finds it in."""
    from generator.checks.registry import RULES

    reasons = {}
    for code in codes:
        files = sorted(
            {
                f.path.rsplit(f"{read.directory.name}/", 1)[-1] or "the directory"
                for f in read.findings
                if f.code == code
            }
        )
        summary = RULES[code].summary if code in RULES else code
        where = f"in the original's {', '.join(files)}" if files else "a form the spec keeps"
        reasons[code] = f"({summary}) {where}"
    return reasons


def keep_written_examples(
    page_text: str,
    draft: SpecDraft,
) -> List[str]:
    """Give every example whose section the spec does not render as the page writes it the
    page's data block as its `display` (the explanation too where it is not the block's end);
    the report's note for each one kept."""
    notes: List[str] = []
    examples = draft.examples
    try:
        rendered = render_page(built_spec(draft))
    except Exception:  # noqa: BLE001 - the main pass reports why the spec fails
        return notes
    if rendered == page_text:
        return notes
    written = read_page_facts(page_text)
    ours = read_page_facts(rendered)
    theirs = list(written.examples())
    for number, (entry, section) in enumerate(zip(examples, ours.examples()), start=1):
        match = next((e for e in theirs if e.title == section.title), None)
        if match is None:
            continue
        theirs.remove(match)
        body, mine = written.body(match.heading), ours.body(section.heading)
        if entry.outputs is None or body.strip("\n") == mine.strip("\n"):
            continue  # the page's text alone already, or rendered as the page writes it
        block, entry.explanation = split_explanation(
            page_reader.written_block(body), entry.explanation
        )
        entry.display = block + "\n"
        entry.numbers = None
        notes.append(
            f"challenge.html: example {number}'s data is kept as the page writes it (display); "
            "chgen does not render it from the values"
        )
    return notes


def page_contradicts_example(draft: SpecDraft) -> Optional[str]:
    """D001's message when the page, with the examples' `display`, shows values the challenge's
    generate_example_test or reference does not produce (the page's own mistake, which
    `chgen generate` would refuse), else None. Runs the challenge's code, as the import worker
    (a process of its own, in the spec-code sandbox) already does."""
    from generator.checks import challenge_py, deep
    from generator.checks.report import Options
    from generator.checks.report import Report as CheckReport
    from generator.checks.source import ChallengeDir, Tree

    with tempfile.TemporaryDirectory(prefix="chgen-import-display-") as tmp:
        root = Path(tmp)
        try:
            loaded = built_spec(draft)
            files = render_challenge(loaded)
        except Exception:  # noqa: BLE001 - the main pass reports why the spec fails
            return None
        name = write_tree(root / "tree", loaded, files)
        found = CheckReport(Options(select=("D001",)))
        challenge = ChallengeDir(root / "tree" / name, name, Tree(root / "tree", ""))
        model = challenge_py.check(challenge, found)
        deep.check_here([challenge], {challenge.path: model}, found)
        return next((f.message for f in found.sorted() if f.code == "D001"), None)


def page_form(
    page: page_reader.Page, examples: int, requirements: int, report: Report
) -> PageLayout:
    """The page's layout choices; its blank lines between sections only while every example
    section is kept (one left out changes the count), its items' indentations only while every
    item is kept."""
    choices = dict(page.form)
    pre, matrix = choices.pop("pre", None), choices.pop("matrix", None)
    form = PageLayout(
        **choices,
        pre=PreFlags(**pre) if pre else None,
        matrix=MatrixFlags(**matrix) if matrix else None,
    )
    indents = form.item_indents
    if indents is not None and len(indents) != requirements + len(page.constraints):
        form.item_indents = None
        report.note("challenge.html: the items' indentations are chgen's (an item is not kept)")
    for name, what in (
        ("section_gaps", "the blank lines between sections"),
        ("heading_ends", "the headings' end tags"),
    ):
        given = getattr(form, name)
        if given is not None and len(given) != examples + 2:  # one per standard section
            setattr(form, name, None)
            report.note(f"challenge.html: {what} are chgen's (an example is left out)")
    return form


def item_count(requirements: Any) -> int:
    """How many list items the requirements are (none where they are the section's HTML)."""
    return len(requirements) if isinstance(requirements, list) else 0


def page_parts(draft: SpecDraft) -> Dict[str, Dict[str, int]]:
    """What the spec keeps of the page, per kind of part: as values (chgen renders it from
    them) or as the author's text; `text_only` counts the examples kept without values."""
    examples = draft.examples
    written = [e for e in examples if e.display is not None]
    bullet = draft.performance.bullet
    requirements = draft.requirements
    return {
        "example": {
            "values": len(examples) - len(written),
            "text": len(written),
            "text_only": sum(e.outputs is None for e in written),
        },
        "performance bullet": {"values": int(bullet), "text": int(not bullet)},
        "own section": {"text": len(draft.sections or [])},
        "list item": {"text": item_count(requirements) + len(draft.constraints)},
        "section HTML": {"text": int(isinstance(requirements, str))},
        "description": {"text": 1 + bool(draft.svg) + bool(draft.after_svg)},
    }
