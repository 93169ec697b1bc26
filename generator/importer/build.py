"""`chgen import`: a challenge directory of the public layout -> a spec that regenerates it.

This module only assembles: the original is read (original), each section of the spec is built
where its job lives (reference, cases, performance, examples, scaffold, page_kept) into one
SpecDraft (draft), which is validated and rendered in memory while the import decides (verify,
exact), then written as YAML once and verified once by loading and rendering that text (specfile).
The pieces come from where they live: attributes, signature spellings, the reference body and case
names from challenge.py's source (pyast); the cases from running it on the CPU (trace, infer); texts
and the example as shown from challenge.html (html); an easy challenge's scaffold from starter.cu
(starters). Every rendered file is compared with its original and the two challenge.py files are
checked for equivalence; whatever differs is in the report.
"""

from __future__ import annotations

import copy
from pathlib import Path

from generator.importer import html as page_reader
from generator.importer import starters
from generator.importer.cases import case_entry, read_cases
from generator.importer.draft import SpecDraft
from generator.importer.exact import exact_inputs
from generator.importer.examples import read_examples
from generator.importer.original import STARTERS, locate, read_original
from generator.importer.page_kept import (
    item_count,
    keep_written_examples,
    original_rule_codes,
    page_contradicts_example,
    page_form,
    squeeze_batches_of_one,
)
from generator.importer.performance import check_performance_bullet, performance_section
from generator.importer.reference import (
    attributes,
    latex_labels,
    reference_helpers,
    reference_jax_fields,
    reference_text,
    signature_entries,
)
from generator.importer.report import ImportFailure, Report
from generator.importer.result import ImportResult
from generator.importer.scaffold import (
    exploded_solve,
    scaffold_of,
    starter_helpers_of,
    starter_scaffolds,
)
from generator.importer.specfile import verify_written
from generator.importer.verify import finish, written_result


def import_challenge(
    directory: Path, seed: int = 0, inline_svg: bool = False, written_examples: bool = True
) -> ImportResult:
    """Read `directory` (challenges/<difficulty>/<id>_<slug>) and write its spec in memory;
    `written_examples`: an example section chgen does not render as the page writes it keeps the
    page's HTML as its `display` (the author's text is not lost; its values are still those of
    challenge.py, verified at generate time); off, every example is rendered from its values."""
    report = Report()
    for name in ("challenge.py", "challenge.html"):
        if not (directory / name).is_file():
            raise ImportFailure(f"{directory.name}/{name} is missing")
    challenge_id, slug, difficulty = locate(directory, report)
    read = read_original(directory, seed, report)
    attrs = attributes(read.source, report)
    found = read_cases(read, report)
    cases, perf_case, defaults = found.functional, found.performance, found.defaults
    reference = reference_text(read.source, read.params, report)
    page_text = (directory / "challenge.html").read_text(encoding="utf-8")
    tensor_inputs = [p.name for p in read.params if p.is_tensor and p.direction != "out"]
    page = page_reader.read_page(
        page_text,
        [p.name for p in read.params if p.is_tensor and p.direction != "in"],
        [p.name for p in read.params],
        tensor_inputs[0] if len(tensor_inputs) == 1 else None,
        tensor_inputs,
    )
    for note in page.notes:
        report.note(note)
    examples = read_examples(read, reference, page, attrs, found.prefill, report)
    check_performance_bullet(read.params, perf_case, page, report)
    starter_texts = starters.read_starters(directory / "starter", STARTERS)
    scaffold = scaffold_of(difficulty, slug, starter_texts, read.sizes, report)
    starter_scaffolds(scaffold, starter_texts, read.params, report)
    starter_helpers = starter_helpers_of(starter_texts, scaffold, report, difficulty == "easy")
    requirements = page.requirements
    if not requirements:
        requirements = ["The <code>solve</code> function signature must remain unchanged"]
        report.note("challenge.html lists no Implementation Requirements; chgen writes one")
    elif isinstance(requirements, str):
        report.note(
            "challenge.html: the Implementation Requirements are no list; the spec keeps the "
            "section's HTML as the page writes it (requirements)"
        )
    performance, constraints, bullet_rule = performance_section(
        read, perf_case, defaults, found.prefill, page, page_text, report
    )
    svg_name = f"{challenge_id}_{slug}.svg" if page.svg and not inline_svg else None
    draft = SpecDraft(
        spec_name=f"{challenge_id}_{slug}.yaml",
        svg_name=svg_name,
        svg_text=page.svg,
        id=challenge_id,
        slug=slug,
        directory=None if directory.name == f"{challenge_id}_{slug}" else directory.name,
        name=attrs["name"],
        difficulty=difficulty,
        access_tier=attrs["access_tier"],
        num_gpus=attrs["num_gpus"],
        atol=attrs["atol"],
        rtol=attrs["rtol"],
        signature=signature_entries(read.params, latex_labels(read.params, read.sizes, page)),
        reference_helpers=reference_helpers(read.source),
        reference=reference,
        **reference_jax_fields(read.source, read.params, report),
        description=page.description + "\n",
        svg=svg_name or (page.svg + "\n" if page.svg else None),
        after_svg=page.after_svg + "\n" if page.after_svg else None,
        requirements=requirements,
        constraints=constraints,
        examples=examples,
        prefill=None if found.prefill == "empty" else found.prefill,
        scaffold=scaffold,
        starter_helpers=starter_helpers or None,
        exploded_solve=exploded_solve(starter_texts, report) or None,
        defaults=defaults,
        functional=[case_entry(c, defaults, read.sizes, read.params, found.prefill) for c in cases],
        performance=performance,
        page=page_form(page, len(examples), item_count(requirements), report),
        sections=page.sections or None,
        tolerated_rules=original_rule_codes(read, page_text, report, bullet_rule) or None,
    )
    squeeze_batches_of_one(draft, page_text, report)
    if written_examples:
        kept = keep_written_examples(page_text, draft)
        for note in kept:
            report.note(note)
        wrong = kept and page_contradicts_example(draft)
        if wrong:
            # the author's text is kept as written, and so is its mistake: D001 is tolerated
            draft.tolerate("D001")
            report.note(
                f"challenge.html: the page's example shows values its own challenge.py does not "
                f"produce (D001 {wrong}); the spec keeps the page's text and tolerates D001: "
                "correct the page or challenge.py"
            )
    keep = page_text if written_examples else None
    before = copy.deepcopy(report)
    finished = finish(read, draft, keep, report)
    finished = exact_inputs(read, draft, keep, before, finished)
    result = written_result(read, finished)
    verify_written(result.spec_text, finished.draft, finished.files)
    return result
