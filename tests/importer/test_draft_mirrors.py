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
    (
        draft.CaseEntry,
        model.Case,
        {"gpus": "not read from an original: a case's own rank count (world_size)"},
    ),
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
    (draft.DefaultsEntry, model.Defaults, {}),
    (draft.ScaffoldEntry, model.Scaffold, {}),
    (draft.StarterScaffoldEntry, model.StarterScaffold, {}),
    (draft.SectionEntry, model.Section, {}),
    (draft.PageLayout, model.PageForm, {}),
    (draft.PreFlags, model.PreForm, {}),
    (draft.MatrixFlags, model.MatrixForm, {}),
]


@pytest.mark.parametrize("mirror, cls, never", MIRRORS, ids=lambda m: getattr(m, "__name__", ""))
def test_each_typed_section_has_its_model_classes_fields(mirror, cls, never):
    mine = {f.name for f in fields(mirror) if not f.metadata.get("layout")}
    assert mine <= set(cls.model_fields), sorted(mine - set(cls.model_fields))
    assert set(cls.model_fields) - mine == set(never), sorted(set(cls.model_fields) - mine)


#: flag groups whose mirror's defaults are the model's own (a field left out reads back the same)
FLAG_GROUPS = [(draft.PreFlags, model.PreForm), (draft.MatrixFlags, model.MatrixForm)]


@pytest.mark.parametrize("mirror, cls", FLAG_GROUPS, ids=lambda m: getattr(m, "__name__", ""))
def test_a_flag_group_at_its_defaults_writes_nothing_the_model_would_not_default(mirror, cls):
    assert mirror().data() == {}
    defaults = cls().model_dump()
    for f in fields(mirror):
        if f.default is not None:
            assert f.default == defaults[f.name], f.name


def test_nested_sections_are_written_as_the_model_reads_them():
    """A page layout's flag groups and a scaffold's starters are written as mappings, in the
    order the import reads them, defaults left out; the model validates what is written."""
    page = draft.PageLayout(
        indent="  ",
        pre=draft.PreFlags(tight=True, indent="  ", unnamed=["output"]),
        matrix=draft.MatrixFlags(strong=False, indent="  ", squeeze=True),
    )
    written = page.data()
    assert written == {
        "indent": "  ",
        "pre": {"tight": True, "indent": "  ", "unnamed": ["output"]},
        "matrix": {"strong": False, "indent": "  ", "squeeze": True},
    }
    assert list(written["matrix"]) == ["strong", "indent", "squeeze"]
    model.PageForm.model_validate(written)
    assert draft.PageLayout().data() is None

    starter = draft.StarterScaffoldEntry(kernel="add", block_keyword=True)
    scaffold = draft.ScaffoldEntry("add_kernel", ["N"], {"triton": starter})
    assert scaffold.data() == {
        "kernel": "add_kernel",
        "grid": ["N"],
        "starters": {"triton": {"kernel": "add", "block_keyword": True}},
    }
    model.Scaffold.model_validate(scaffold.data())
    assert draft.ScaffoldEntry("k", ["N"]).data() == {"kernel": "k", "grid": ["N"]}

    assert draft.DefaultsEntry().data() is None
    assert draft.DefaultsEntry(scalars={"k": 2}).data() == {"scalars": {"k": 2}}

    section = draft.SectionEntry("Notes", "<p>extra</p>\n", "examples")
    assert section.data() == {"title": "Notes", "html": "<p>extra</p>\n", "after": "examples"}
    assert draft.SectionEntry("Notes", "<p>x</p>\n", "examples", gap=2).data()["gap"] == 2
    model.Section.model_validate(section.data())
