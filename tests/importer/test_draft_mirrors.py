"""The import's typed sections stand for the spec model's classes field for field: a field added to
the model, renamed or dropped, shows here, not as a key the loader refuses at import time."""

from __future__ import annotations

from dataclasses import fields

import pytest

from generator.importer import draft
from generator.spec import model

#: each mirror, its model class, and the model's fields an import never fills (with why)
MIRRORS = [
    (draft.Parameter, model.Param, {}),
    (draft.CaseEntry, model.Case, {"gpus": "not read from an original: a case's own rank count (world_size)"}),
    (
        draft.PerformanceEntry,
        model.Performance,
        {"baselines": "an original names no baseline to time against"},
    ),
    (
        draft.ExampleEntry,
        model.Example,
        {
            "shapes": "not read from an original page: an example in another shape",
            "shown": "not read from an original page: the import writes `hide` instead",
        },
    ),
    (draft.PageLayout, model.PageForm, {}),
]


@pytest.mark.parametrize("mirror, cls, never", MIRRORS, ids=lambda m: getattr(m, "__name__", ""))
def test_each_typed_section_has_its_model_classes_fields(mirror, cls, never):
    mine = {f.name for f in fields(mirror) if not f.metadata.get("layout")}
    assert mine <= set(cls.model_fields), sorted(mine - set(cls.model_fields))
    assert set(cls.model_fields) - mine == set(never), sorted(set(cls.model_fields) - mine)
