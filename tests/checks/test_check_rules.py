"""Every rule fires on a planted violation and stays silent on the same tree without it.

Each case copies a clean challenge (generated/ 142, or a golden easy / fp16 challenge), plants one
violation, and expects the rule's code at the planted file; the clean run uses the same options.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional

import pytest
from check_fixtures import EASY, FP16, JAX_REF, MEDIUM, Fixture, make_fixture

from generator.checks.registry import RULES

PY = "challenge.py"
HTML = "challenge.html"
CU = "starter/starter.cu"
MOJO = "starter/starter.mojo"
JAX = "starter/starter.jax.py"
TORCH = "starter/starter.pytorch.py"
TRITON = "starter/starter.triton.py"
BULLET = "<code>N</code> = 16,384, <code>C</code> = 4,096"


@dataclass
class Case:
    plant: Callable[[Fixture, Path], Optional[Path]]  # may return the path to check instead
    where: str  # the finding's path ends with this
    source: tuple = MEDIUM
    options: Dict[str, object] = field(default_factory=dict)
    clean_options: Optional[Dict[str, object]] = None


def edit(relative: str, old: str, new: str):
    def plant(fx: Fixture, tmp: Path) -> None:
        fx.edit(relative, old, new)

    return plant


def append(relative: str, text: str):
    def plant(fx: Fixture, tmp: Path) -> None:
        before = fx.read(relative) if fx.path(relative).exists() else ""
        fx.write(relative, before + text)

    return plant


def delete(relative: str):
    def plant(fx: Fixture, tmp: Path) -> None:
        fx.path(relative).unlink()

    return plant


def rename_dir(new_name: str):
    def plant(fx: Fixture, tmp: Path) -> Path:
        target = fx.challenge.parent / new_name
        fx.challenge.rename(target)
        fx.challenge = target
        return fx.root

    return plant


def move_to_group(group: str):
    def plant(fx: Fixture, tmp: Path) -> Path:
        target = fx.root / "challenges" / group / fx.challenge.name
        target.parent.mkdir(parents=True)
        fx.challenge.rename(target)
        fx.challenge = target
        return fx.root

    return plant


def duplicate_id(fx: Fixture, tmp: Path) -> None:
    shutil.copytree(fx.challenge, fx.root / "challenges" / "hard" / "142_other_challenge")


def taken_elsewhere(fx: Fixture, tmp: Path) -> None:
    other = tmp / "other" / "challenges" / "easy" / "142_something_else"
    other.mkdir(parents=True)


def replace_example(fx: Fixture, tmp: Path) -> None:
    text = fx.read(HTML)
    start = text.index("<h2>Example</h2>") + len("<h2>Example</h2>\n")
    end = text.index("<h2>Constraints</h2>")
    pre = "<pre>\nInput:  x = [[1.0, -1.0, 1.0, -1.0], [2.0, 0.0, 0.0, 0.0]]\n</pre>\n\n"
    fx.write(HTML, text[:start] + pre + text[end:])


def remove_bullet(fx: Fixture, tmp: Path) -> None:
    fx.write(HTML, re.sub(r"\s*<li>Performance is measured with.*?</li>", "", fx.read(HTML)))


def remove_core(fx: Fixture, tmp: Path) -> None:
    (fx.root / "challenges" / "core" / "challenge_base.py").unlink()


DEEP = {"deep": True}
FORMAT = {"formatters": True}
REF_ASSERT = "        assert x.dtype == torch.float32\n"
CASES: Dict[str, Case] = {
    # ------------------------------------------------------------------ layout
    "L001": Case(rename_dir("142_RMS_Norm_Backward"), "142_RMS_Norm_Backward"),
    "L002": Case(move_to_group("misc"), "misc/142_rms_norm_backward"),
    "L003": Case(duplicate_id, "medium/142_rms_norm_backward"),
    "L004": Case(taken_elsewhere, "medium/142_rms_norm_backward", options={"against": "other"}),
    "L005": Case(delete(HTML), HTML),
    "L006": Case(delete(MOJO), MOJO),
    "L007": Case(append("starter/starter.cpp", "int x;\n"), "starter/starter.cpp"),
    "L008": Case(remove_core, "core/challenge_base.py"),
    "L009": Case(append("solution.cu", "// mine\n"), "solution.cu"),
    # ------------------------------------------------------------------ challenge.py
    "P001": Case(append(PY, "def broken(:\n    pass\n"), PY),
    "P002": Case(edit(PY, "class Challenge(ChallengeBase):", "class Challenge:"), PY),
    "P003": Case(edit(PY, "    num_gpus = 1\n", ""), PY),
    "P004": Case(
        edit(PY, "    atol = 0.001\n    rtol = 0.001", "    rtol = 0.001\n    atol = 0.001"), PY
    ),
    "P005": Case(edit(PY, 'name = "RMS Norm Backward"', 'name = "RMS Norm (Backward"'), PY),
    "P006": Case(
        edit(
            PY,
            '    access_tier = "free"\n',
            '    access_tier = "free"\n\n    def __init__(self, device="cuda"):\n'
            "        super().__init__(device)\n",
        ),
        PY,
    ),
    "P007": Case(edit(PY, "def generate_performance_test", "def generate_perf_test"), PY),
    "P008": Case(edit(PY, "        x: torch.Tensor,\n", "        inp: torch.Tensor,\n"), PY),
    "P009": Case(edit(PY, '"N": (ctypes.c_int, "in")', '"N": (ctypes.c_int, "input")'), PY),
    "P010": Case(edit(PY, "import torch\n", "import numpy as np\nimport torch\n"), PY),
    "P011": Case(append(PY, "\ntorch.manual_seed(0)\n"), PY),
    "P012": Case(edit(PY, "        assert x.shape == (N, C)\n", ""), PY),
    "P013": Case(edit(PY, REF_ASSERT, ""), PY),
    "P014": Case(edit(PY, REF_ASSERT, REF_ASSERT + "        assert x.device == dy.device\n"), PY),
    "P015": Case(edit(PY, REF_ASSERT, REF_ASSERT + "        assert not x.is_cuda\n"), PY),
    "P016": Case(
        edit(PY, "torch.full((N, C), 123.0, device=self.device, ", "torch.full((N, C), 123.0, "),
        PY,
    ),
    "P017": Case(
        lambda fx, tmp: None,
        PY,
        options={"cases": (1, 2)},
        clean_options={"cases": (1, 100)},
    ),
    "P018": Case(
        edit(
            PY,
            "weight = torch.tensor([1.0, 2.0, 0.5, 1.0], device=self.device,",
            "weight = torch.rand(4, device=self.device,",
        ),
        PY,
    ),
    "P019": Case(
        edit(PY, "def reference_impl_jax(self, x, T, D, eps):", "def reference_impl_jax(self, x):"),
        PY,
        source=JAX_REF,
    ),
    # ------------------------------------------------------------------ starters
    "S001": Case(edit(CU, 'extern "C" void solve(', 'extern "C" void solver('), CU),
    "S002": Case(edit(TRITON, "    x: torch.Tensor,", "    inp: torch.Tensor,"), TRITON),
    "S003": Case(edit(CU, "const float* x,", "const double* x,"), CU),
    "S004": Case(edit(CU, " float* dx,", " const float* dx,"), CU),
    "S005": Case(edit(JAX, ") -> tuple[jax.Array, jax.Array]:", ") -> jax.Array:"), JAX),
    "S006": Case(edit(TORCH, "    pass", "    pass  # to do"), TORCH),
    "S007": Case(edit(TORCH, "# x, dy, weight, dx, dweight are", "# x, dy, weight, dx are"), TORCH),
    "S008": Case(
        edit(TORCH, "are tensors on the GPU\ndef", "are tensors on the GPU\n\ndef"), TORCH
    ),
    "S009": Case(edit(JAX, "    # return output tensor directly\n", ""), JAX),
    "S010": Case(edit(TORCH, "    pass", "    dx.zero_()"), TORCH),
    "S011": Case(
        edit(CU, "    vector_add<<<blocksPerGrid, threadsPerBlock>>>(A, B, C, N);\n", ""),
        CU,
        source=EASY,
    ),
    "S012": Case(edit(MOJO, "from max.gpu.host import", "from std.gpu.host import"), MOJO),
    "S013": Case(edit(MOJO, ') abi("C"):', ") raises:"), MOJO),
    "S014": Case(edit(MOJO, "x: Pointer[", "x: UnsafePointer["), MOJO),
    "S015": Case(edit(MOJO, "    dx: Pointer", "    out: Pointer"), MOJO),
    "S016": Case(edit(CU, "#include <cuda_fp16.h>\n", ""), CU, source=FP16),
    # ------------------------------------------------------------------ challenge.html
    "H001": Case(lambda fx, tmp: fx.write(HTML, "<h1>RMS</h1>\n" + fx.read(HTML)), HTML),
    "H002": Case(edit(HTML, "<h2>Constraints</h2>", "<p>Constraints</p>"), HTML),
    "H003": Case(edit(HTML, "<h2>Example</h2>", "<h3>Example</h3>"), HTML),
    "H004": Case(edit(HTML, ' viewBox="0 0 520 290"', ""), HTML),
    "H005": Case(edit(HTML, 'fill="#222"', 'fill="#1a1a1a"'), HTML),
    "H006": Case(append(HTML, "<p>\\(\\frac{1}{\\)</p>\n"), HTML),
    "H007": Case(append(HTML, "<p>\\(\\text{d\\_x}\\)</p>\n"), HTML),
    "H008": Case(
        edit(HTML, "<h2>Example</h2>\n", "<h2>Example</h2>\n<pre>x = [1.0]</pre>\n"), HTML
    ),
    "H009": Case(replace_example, HTML),
    "H010": Case(remove_bullet, HTML),
    "H011": Case(edit(HTML, BULLET, "<code>C</code> = 4,096, <code>N</code> = 16,384"), HTML),
    "H012": Case(edit(HTML, BULLET, "<code>N</code> = 16384, <code>C</code> = 4,096"), HTML),
    "H013": Case(append(HTML, "<p>1 \u2264 N</p>\n"), HTML),
    # ------------------------------------------------------------------ deep
    "D001": Case(edit(HTML, "1.375 &", "1.5 &"), HTML, options=DEEP),
    "D002": Case(
        edit(HTML, BULLET, "<code>N</code> = 8,192, <code>C</code> = 4,096"), HTML, options=DEEP
    ),
    "D003": Case(edit(PY, "N, C = 16384, 4096", "N, C = 163840, 4096"), PY, options=DEEP),
    "D004": Case(edit(PY, "torch.full((N, C), 123.0,", "torch.zeros((N, C),"), PY, options=DEEP),
    "D005": Case(
        edit(PY, REF_ASSERT, REF_ASSERT + '        assert x.device.type == "cuda"\n'),
        PY,
        options=DEEP,
    ),
    "D006": Case(
        edit(
            PY,
            "    def generate_functional_test(self) -> List[Dict[str, Any]]:\n",
            "    def generate_functional_test(self) -> List[Dict[str, Any]]:\n"
            '        raise RuntimeError("broken generator")\n',
        ),
        PY,
        options=DEEP,
    ),
    "D007": Case(
        edit(
            PY,
            "weight = torch.tensor([1.0, 2.0, 0.5, 1.0], device=self.device, dtype=torch.float32)",
            "weight = torch.tensor([1.0, 2.0, 0.5, 1.0], device=self.device, dtype=torch.float64)",
        ),
        PY,
        options=DEEP,
    ),
    "D008": Case(
        edit(PY, "jnp.mean(jnp.square(xf), axis=1)", "jnp.sum(jnp.square(xf), axis=1)"),
        PY,
        source=JAX_REF,
        options=DEEP,
    ),
    # ------------------------------------------------------------------ formatting
    "F001": Case(edit(PY, "    num_gpus = 1\n", "    num_gpus=1\n"), PY, options=FORMAT),
    "F002": Case(edit(PY, REF_ASSERT, REF_ASSERT + "        unused = 1\n"), PY, options=FORMAT),
    "F003": Case(edit(CU, "const float* x,", "const float  *x,"), CU, options=FORMAT),
    "F004": Case(edit(MOJO, "    N: Int32,", "    N:Int32,"), MOJO, options=FORMAT),
    "F005": Case(edit(HTML, "<h2>Constraints</h2>", "<h2>Constraints</h2>  "), HTML),
}
SPEC_CODES = ("G001", "G002")  # tested in test_check_specs.py


def test_every_rule_has_a_case() -> None:
    assert sorted(list(CASES) + list(SPEC_CODES)) == sorted(RULES)


def _run(fx: Fixture, tmp: Path, code: str, options: Dict[str, object], target=None):
    opts = dict(options)
    if "against" in opts:
        opts["against"] = tmp / str(opts["against"])
    return [f for f in fx.run([code], target=target, **opts) if f.code == code]


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_fires_on_planted_violation(code: str, tmp_path: Path) -> None:
    case = CASES[code]
    fx = make_fixture(tmp_path, case.source)
    target = case.plant(fx, tmp_path)
    found = _run(fx, tmp_path, code, case.options, target)
    assert found, f"{code} did not fire"
    assert any(f.path.endswith(case.where) for f in found), [f.render() for f in found]
    for finding in found:
        assert finding.severity == RULES[code].severity
        assert finding.line >= 1 and finding.col >= 1
        assert ";" in finding.message  # says what is wrong and how to fix it


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_is_silent_on_clean_tree(code: str, tmp_path: Path) -> None:
    case = CASES[code]
    fx = make_fixture(tmp_path, case.source)
    if code == "L004":
        (tmp_path / "other" / "challenges" / "easy" / "142_rms_norm_backward").mkdir(parents=True)
    options = case.clean_options if case.clean_options is not None else case.options
    assert _run(fx, tmp_path, code, options) == []


def test_a_dropped_draw_is_no_tensor_on_the_wrong_device(tmp_path: Path) -> None:
    """`torch.randint(0, 16, (1,))` as a statement only advances the random stream (an imported
    case keeps the original's draws so): P016 stays silent; a tensor kept from it still fires."""
    fx = make_fixture(tmp_path, MEDIUM)
    text = fx.read(PY)
    opening = "def generate_functional_test(self) -> List[Dict[str, Any]]:\n        tests = []\n"
    assert opening in text
    for statement, fires in (("torch.randint(0, 16, (1,))", False), ("k = torch.rand(2)", True)):
        fx.write(PY, text.replace(opening, f"{opening}        {statement}\n", 1))
        assert bool(_run(fx, tmp_path, "P016", {})) == fires, statement
