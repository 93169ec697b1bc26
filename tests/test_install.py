"""chgen as a user gets it: the wheel, installed into a fresh virtual environment.

Every command here runs the *installed* code from a scratch directory, never the checkout's. The
full install sees this environment's site-packages through a .pth line (so torch and the
formatters are not installed again) behind its own, so the wheel's `generator` comes first; the
base install gets only the base dependencies, from the package index.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest

from tests.conftest import ROOT
from tests.hook_repos import working_tree_copy

#: modules that only extras bring; a base install has none of them (pygments comes with rich)
EXTRA_ONLY_MODULES = ("torch", "numpy", "black", "isort", "mblack", "clang_format")
CHALLENGE = "challenges/medium/143_row_inverse_rms"


def run(command: List[str], cwd: Path, env: Dict[str, str] = None, timeout: int = 600):
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def site_packages(venv: Path) -> Path:
    found = list((venv / "lib").glob("python*/site-packages"))
    assert len(found) == 1, found
    return found[0]


def new_venv(path: Path, wheel: Path, with_dependencies: bool) -> Path:
    """A venv without pip of its own; this interpreter's pip installs into it (pip --python)."""
    made = run([sys.executable, "-m", "venv", "--without-pip", str(path)], cwd=path.parent)
    assert made.returncode == 0, made.stderr
    install = [sys.executable, "-m", "pip", "--python", str(path / "bin" / "python"), "install"]
    install += (
        ["--quiet", str(wheel)] if with_dependencies else ["--quiet", "--no-deps", str(wheel)]
    )
    installed = run(install, cwd=path.parent)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return path


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = working_tree_copy(tmp_path_factory.mktemp("source"))
    out = tmp_path_factory.mktemp("wheel")
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out)]
        + ["--quiet", str(source)],
        cwd=source,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = out.glob("chgen-*.whl")
    return found


@pytest.fixture(scope="module")
def full_install(wheel: Path, tmp_path_factory) -> Dict[str, Path]:
    """The wheel, with this environment's packages (torch, formatters) visible behind it."""
    venv = new_venv(tmp_path_factory.mktemp("full") / "venv", wheel, with_dependencies=False)
    outer = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site_packages(venv) / "zz_outer_packages.pth").write_text("\n".join(outer) + "\n")
    return {"venv": venv, "scratch": tmp_path_factory.mktemp("scratch")}


def full_env(venv: Path) -> Dict[str, str]:
    """clang-format is a console script: found on PATH, after the venv's own bin/."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [str(venv / "bin"), str(Path(sys.executable).parent), env["PATH"]]
    )
    env.pop("PYTHONPATH", None)
    return env


@pytest.mark.slow
def test_the_installed_code_runs_not_the_checkout(full_install):
    venv, scratch = full_install["venv"], full_install["scratch"]
    where = run(
        [str(venv / "bin/python"), "-c", "import generator; print(generator.__file__)"],
        cwd=scratch,
        env=full_env(venv),
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site_packages(venv)), where.stdout

    version = run([str(venv / "bin/chgen"), "--version"], cwd=scratch, env=full_env(venv))
    assert version.returncode == 0, version.stderr
    assert version.stdout == f"chgen {pyproject_version()}\n"


@pytest.mark.slow
def test_the_installed_generate_matches_generated(full_install):
    venv, scratch = full_install["venv"], full_install["scratch"]
    (scratch / "specs").mkdir()
    for name in ("143_row_inverse_rms.yaml", "143_row_inverse_rms.svg"):
        if (ROOT / "specs" / name).exists():
            shutil.copy2(ROOT / "specs" / name, scratch / "specs" / name)
    result = run(
        [str(venv / "bin/chgen"), "generate", "specs/143_row_inverse_rms.yaml", "--out", "out"],
        cwd=scratch,
        env=full_env(venv),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for relative in [CHALLENGE, "challenges/core"]:
        expected = files_under(ROOT / "generated" / relative)
        assert expected, relative
        assert files_under(scratch / "out" / relative) == expected, relative


@pytest.mark.slow
def test_the_installed_check_passes_and_fails(full_install):
    venv, scratch = full_install["venv"], full_install["scratch"]
    clean = run([str(venv / "bin/chgen"), "check", str(ROOT / "generated")], scratch)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    planted = plant_violation(scratch / "planted")
    failed = run([str(venv / "bin/chgen"), "check", "planted"], scratch)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert f"planted/{CHALLENGE}/challenge.py:4:1: P010 import of 'os'" in failed.stdout
    assert planted.is_file()


@pytest.mark.slow
def test_a_base_install_checks_and_scaffolds_and_names_the_generate_extra(wheel, tmp_path):
    venv = new_venv(tmp_path / "base", wheel, with_dependencies=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    python, chgen = str(venv / "bin/python"), str(venv / "bin/chgen")
    probe = "import importlib.util as u; print([m for m in %r if u.find_spec(m)])"
    present = run([python, "-c", probe % (EXTRA_ONLY_MODULES,)], scratch)
    assert present.stdout.strip() == "[]", present.stdout + present.stderr

    clean = run([chgen, "check", str(ROOT / "generated")], scratch)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    plant_violation(scratch / "planted")
    failed = run([chgen, "check", "planted"], scratch)
    assert failed.returncode == 1 and " P010 " in failed.stdout, failed.stdout + failed.stderr

    made = run([chgen, "new", "leaky_relu", "-d", "easy"], scratch)
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout == "wrote specs/1_leaky_relu.yaml\nwrote specs/chgen-spec.schema.json\n"
    # the schema the spec's first line names is the one the wheel ships, and `chgen schema` prints
    shipped = (ROOT / "generator" / "chgen-spec.schema.json").read_text(encoding="utf-8")
    assert (scratch / "specs" / "chgen-spec.schema.json").read_text(encoding="utf-8") == shipped
    assert run([chgen, "schema"], scratch).stdout == shipped
    loads = run([chgen, "check", "--ignore", "G002", "specs/1_leaky_relu.yaml"], scratch)
    assert loads.returncode == 0, loads.stdout + loads.stderr

    for args, extra in [(["generate"], "generate"), (["check", "specs"], "generate")]:
        refused = run([chgen, *args], scratch)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert refused.stdout == ""
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert f"needs the '{extra}' extra: pip install 'chgen[{extra}]'" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert not (scratch / "generated").exists()


def test_the_packages_list_names_every_package():
    tomllib = pytest.importorskip("tomllib")
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "generator").rglob("__init__.py")
    }
    templates = {"generator.templates"} | {
        "generator.templates." + ".".join(folder.relative_to(ROOT / "templates").parts)
        for folder in (ROOT / "templates").rglob("*")
        if folder.is_dir() and folder.name != "__pycache__"
    }
    assert set(setuptools["packages"]) == on_disk | templates
    assert setuptools["package-dir"]["generator.templates"] == "templates"
    assert set(setuptools["package-data"]) == templates | {"generator"}
    assert setuptools["package-data"]["generator"] == ["chgen-spec.schema.json"]


@pytest.mark.slow
def test_the_wheel_builds_without_a_warning(tmp_path):
    """Built as `pip install` builds it (an isolated environment with the build-system's
    setuptools): no line of the backend's output warns (a folder it would ignore, a deprecated
    or beta setting). Byte-compiling is left on, as a user's environment has it."""
    source = working_tree_copy(tmp_path / "source")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(tmp_path / "out")]
        + [str(source)],
        cwd=source,
        env=env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    # pip -v indents what the backend says; pip's own notes (an index it skips) are not its
    backend = [line for line in (built.stdout + built.stderr).splitlines() if line[:1] == " "]
    warned = [line for line in backend if re.search(r"warn|deprecat|!!", line, re.IGNORECASE)]
    assert not warned, "\n".join(warned)
    (wheel,) = (tmp_path / "out").glob("chgen-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    # package data: the schema editors read, and every template the renderer loads
    assert "generator/chgen-spec.schema.json" in shipped
    templates = {
        f"generator/templates/{path.relative_to(ROOT / 'templates').as_posix()}"
        for path in (ROOT / "templates").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert templates and not templates - shipped, sorted(templates - shipped)


def pyproject_version() -> str:
    written = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert written, "pyproject.toml has no version line"
    return written.group(1)


def files_under(root: Path) -> Dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def plant_violation(tree: Path) -> Path:
    """A copy of generated/ whose challenge.py imports os (rule P010, line 4, column 1)."""
    shutil.copytree(ROOT / "generated", tree)
    challenge = tree / CHALLENGE / "challenge.py"
    text = challenge.read_text()
    assert text.splitlines()[3] == "import torch"
    challenge.write_text(text.replace("import torch\n", "import os\nimport torch\n", 1))
    return challenge
