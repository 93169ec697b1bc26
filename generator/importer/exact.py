"""Cases the regenerated challenge.py does not reproduce get their inputs as the original's own
torch calls (coded.py), until every case is reproduced or the challenge is refused."""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Tuple

from generator.importer import coded
from generator.importer.draft import SpecDraft
from generator.importer.original import Read
from generator.importer.replay import ReplayError
from generator.importer.report import ImportFailure, Report
from generator.importer.verify import Finished, finish
from generator.spec.model import REFERENCE_OUTPUTS


def exact_inputs(
    read: Read,
    draft: SpecDraft,
    page_text: Optional[str],
    before: Report,
    finished: Finished,
) -> Finished:
    """Every case the regenerated challenge.py does not reproduce (inputs, reference results)
    gets its inputs as the original's own torch calls (coded.py): first keeping the inputs that
    are one plain draw as distributions, then all as code. A challenge still not reproduced is
    refused, with the first difference."""
    codable = coded.labels_of(read.run, read.names)
    done: Dict[str, coded.Coded] = {}
    for keep in (True, False):
        wrong = inexact(finished) + [
            label
            for label in codable
            if label != coded.EXAMPLE
            and coded.draws_differ(read.run, read.params, read.names, label, _forms(draft, label))
        ]
        wrong = list(dict.fromkeys(wrong))
        if not wrong:
            return finished
        # an example is written as code only where it is drawn (its page shows no values)
        fixable = [
            label
            for label in wrong
            if label in codable and (label != coded.EXAMPLE or _example_is_drawn(draft))
        ]
        if not fixable:
            break
        draft = copy.deepcopy(draft)
        for label in fixable:
            try:
                done[label] = coded.code_inputs(
                    read.run, read.params, read.names, label, keep and label != coded.EXAMPLE
                )
            except ReplayError as exc:
                raise ImportFailure(
                    f"case {label}: its inputs cannot be written as code: {exc}"
                ) from None
            _place_code(draft, label, done[label])
        report = copy.deepcopy(before)
        for label in done:
            report.withdraw(label)
            report.note(
                f"case {label}: its inputs are made by the original's own torch calls (code)"
            )
        if coded.EXAMPLE in done and done[coded.EXAMPLE].draws:
            draft.tolerate("P018")
            report.note(
                "example: its code draws as the original's generate_example_test does, from the "
                "stream the judge seeds (P018 tolerated)"
            )
        finished = finish(read, draft, page_text, report)
    if not inexact(finished):
        return finished
    problems = finished.equivalence.problems()
    reasons = problems or [f"case {label}: {why}" for label, why in _approximations(finished)]
    raise ImportFailure(f"the regenerated challenge.py is not equivalent: {reasons[0]}")


def _example_is_drawn(draft: SpecDraft) -> bool:
    return draft.examples[0].outputs == REFERENCE_OUTPUTS


def _forms(draft: SpecDraft, label: str) -> Dict[str, Any]:
    """The spec forms of a case's inputs (its own over the defaults)."""
    entry = draft.performance if label == coded.PERFORMANCE else draft.entry(label)
    return {**(draft.defaults.inputs or {}), **(entry.inputs or {})}


def inexact(finished: Finished) -> List[str]:
    """The cases whose regenerated values (inputs, reference results) differ, or that the
    import approximated."""
    equivalence = finished.equivalence
    found = [c.label for c in equivalence.cases if c.problems or c.differing or c.reference]
    found += [label for label in finished.report.approximated if label not in found]
    if equivalence.signature:
        found.append("signature")
    return found


def _approximations(finished: Finished) -> List[Tuple[str, str]]:
    return [(label, why[0]) for label, why in finished.report.approximated.items() if why]


def _place_code(draft: SpecDraft, label: str, made: coded.Coded) -> None:
    """The coded inputs (and seed) of one case, in the draft."""
    if label == coded.EXAMPLE:
        example = draft.examples[0]
        example.inputs = made.inputs
        example.seed = None  # the code draws from the stream the judge seeds
        return
    entry = draft.performance if label == coded.PERFORMANCE else draft.entry(label)
    if entry.scalars is not None:  # those the code computes are passed by name
        entry.scalars = {k: v for k, v in entry.scalars.items() if k not in made.computed}
    entry.inputs = made.inputs
    entry.seed = made.seed
    entry.coded = True
