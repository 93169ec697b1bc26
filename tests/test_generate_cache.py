"""The generation API and its cache: a fresh clone regenerates the committed trees byte for byte,
and nothing the cache or the manifest remembers can make `--check` pass on an out-of-date tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator import incremental, resources, tree
from generator.incremental import GenerateCache
from generator.pipeline import generate
from tests.conftest import GOLDEN, ROOT

CHALLENGE = "challenges/medium/142_rms_norm_backward"
SPEC = "142_rms_norm_backward.yaml"


def contents(root: Path) -> dict:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def rename(spec: Path, name: str) -> None:
    text = spec.read_text()
    assert "name: RMS Norm Backward" in text
    spec.write_text(text.replace("name: RMS Norm Backward", f"name: {name}"))


@pytest.mark.parametrize(
    "specs_dir, tree_dir", [("specs", "generated"), ("tests/golden/specs", "tests/golden/tree")]
)
def test_a_fresh_clone_is_clean_after_generate(tmp_path, monkeypatch, specs_dir, tree_dir):
    """As `git clone` leaves it: the specs and the committed tree, no cache at all."""
    shutil.copytree(ROOT / specs_dir, tmp_path / "specs")
    shutil.copytree(ROOT / tree_dir, tmp_path / "tree")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHGEN_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    committed = contents(tmp_path / "tree")
    assert tree.MANIFEST in committed
    result = generate(sorted((tmp_path / "specs").glob("*.yaml")), tmp_path / "tree")
    assert result.up_to_date and not result.written, result.diff
    assert result.rendered == len(list((tmp_path / "specs").glob("*.yaml")))
    assert contents(tmp_path / "tree") == committed
    # the cache went to the user's cache folder, nothing into the project or beside the tree
    assert (tmp_path / "home-cache" / "chgen" / "generate").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home-cache", "specs", "tree"]


def test_the_committed_manifest_holds_no_fingerprints():
    for manifest in (ROOT / "generated" / tree.MANIFEST, GOLDEN / "tree" / tree.MANIFEST):
        text = manifest.read_text()
        assert '"inputs"' not in text and '"verified_examples"' not in text
        assert text == tree.Manifest.read(manifest.parent.parent).render()


@pytest.fixture
def project(workdir: Path) -> Path:
    """The workdir with a warm cache: one generation has already run there."""
    assert generate(sorted((workdir / "specs").glob("*.yaml")), workdir / "generated").up_to_date
    return workdir


def run(project: Path, **options):
    return generate(sorted((project / "specs").glob("*.yaml")), project / "generated", **options)


def test_a_second_run_reuses_everything_and_says_so(project):
    result = run(project, check=True)
    assert result.up_to_date and result.rendered == 0


def test_an_edited_spec_is_out_of_date_despite_the_cached_entry(project):
    rename(project / "specs" / SPEC, "RMS Norm Grad")
    result = run(project, check=True)
    assert not result.up_to_date and result.rendered == 1
    assert result.changed == [f"{CHALLENGE}/challenge.py", tree.MANIFEST]
    assert '+    name = "RMS Norm Grad"' in result.diff


def test_a_tree_older_than_its_cache_entry_is_out_of_date(project):
    """The cache knows what the current spec renders to; the tree holds an older rendering."""
    old_tree = contents(project / "generated")
    rename(project / "specs" / SPEC, "RMS Norm Grad")
    assert run(project).written  # the cache now has an entry for the edited spec
    for name, data in old_tree.items():
        (project / "generated" / name).write_bytes(data)  # e.g. `git checkout generated/`
    result = run(project, check=True)
    assert not result.up_to_date and result.rendered == 1


def test_a_manifest_edited_to_match_a_tampered_file_does_not_pass_check(project):
    """The manifest vouches for nothing: a file is reused only when the cache's hash of what the
    inputs render to matches it."""
    page = project / "generated" / CHALLENGE / "challenge.html"
    page.write_text("<p>tampered</p>\n")
    manifest = tree.Manifest.read(project / "generated")
    manifest.files[f"{CHALLENGE}/challenge.html"]["sha256"] = tree.sha256("<p>tampered</p>\n")
    (project / "generated" / tree.MANIFEST).write_text(manifest.render())
    result = run(project, check=True)
    assert result.changed == [f"{CHALLENGE}/challenge.html", tree.MANIFEST]
    assert result.conflicts == ()  # the manifest was edited too: the file looks generated


def test_cache_entries_from_other_inputs_are_never_found(project, monkeypatch):
    """An entry written under another generator (any package file different) is not looked up:
    the key covers the whole package."""
    spec = project / "specs" / SPEC
    before = incremental.spec_fingerprint(spec)
    monkeypatch.setattr(incremental, "package_fingerprint", lambda: "another generator")
    incremental.generator_fingerprint.cache_clear()
    try:
        assert incremental.spec_fingerprint(spec) != before
        assert GenerateCache().rendered(incremental.spec_fingerprint(spec)) is None
        assert GenerateCache().rendered(before) is not None
    finally:
        incremental.generator_fingerprint.cache_clear()


def test_a_corrupt_cache_entry_is_ignored(project):
    for entry in (project / ".chgen-cache" / "generate" / "rendered").rglob("*.json"):
        entry.write_text("{not json")
    result = run(project, check=True)
    assert result.up_to_date and result.rendered == len(list((project / "specs").glob("*.yaml")))


def test_the_package_fingerprint_covers_every_package_file(tmp_path):
    copy = tmp_path / "generator"
    shutil.copytree(resources.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    roots = [("generator", copy)]
    names = [name for name, _ in resources.package_files(roots)]
    assert "generator/loading.py" in names and "generator/judge/runner.py" in names
    every_file = {p for p in copy.rglob("*") if p.is_file()}
    assert {path for _, path in resources.package_files(roots)} == every_file
    seen = {resources.files_fingerprint(roots)}
    for path in sorted(every_file):
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        seen.add(resources.files_fingerprint(roots))
        path.write_bytes(original)
    assert len(seen) == len(every_file) + 1
    assert resources.files_fingerprint(roots) in seen


def test_the_live_fingerprint_includes_the_templates():
    names = [name for name, _ in resources.package_files(resources.package_roots())]
    assert "templates/challenge.py.j2" in names
    assert "generator/pipeline.py" in names


def test_hand_edits_are_reported_as_conflicts_and_nothing_is_written(project):
    starter = project / "generated" / CHALLENGE / "starter" / "starter.cu"
    starter.write_text(starter.read_text() + "// note\n")
    rename(project / "specs" / SPEC, "RMS Norm Grad")
    before = contents(project / "generated")
    result = run(project)
    assert result.conflicts == (f"{CHALLENGE}/starter/starter.cu",) and not result.written
    assert contents(project / "generated") == before
    forced = run(project, force=True)
    assert forced.written and f"{CHALLENGE}/starter/starter.cu" in forced.changed
    assert "// note" not in starter.read_text()


def test_a_jax_reference_is_verified_again_when_jax_changes(monkeypatch):
    """The verdict on reference_jax is JAX's: another JAX version gives another key; a spec
    without reference_jax does not depend on JAX at all."""
    from generator import example_check
    from generator.spec import load_spec

    with_jax = load_spec(ROOT / "specs" / "143_row_inverse_rms.yaml")
    without = load_spec(ROOT / "specs" / SPEC)
    assert with_jax.spec.reference_jax and without.spec.reference_jax is None
    before = [example_check.example_fingerprint(item) for item in (with_jax, without)]
    monkeypatch.setattr(example_check, "verifier_versions", lambda names: "jax=another")
    after = [example_check.example_fingerprint(item) for item in (with_jax, without)]
    assert after[0] != before[0] and after[1] == before[1]
