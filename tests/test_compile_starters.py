"""Every generated starter compiles with the real toolchain, and every challenge.py runs on CPU.

CUDA with nvcc for sm_75 and sm_90; Mojo with the pinned `mojo build` for sm_90 and no warnings;
the Python starters import; the CuTe starter goes through cute.compile; the JAX starter is called;
challenge.py is imported with device="cpu" and all its generators and its reference run.
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.challenge.pyfile import WORLD_SIZE
from generator.judge.cases import materialise
from generator.languages import BY_KEY, for_gpus
from generator.loading import load_challenge_class
from tests.conftest import GOLDEN, ROOT

TREES = [ROOT / "generated" / "challenges", GOLDEN / "tree" / "challenges"]
CHALLENGES = sorted(d for t in TREES for d in t.glob("*/*_*") if d.is_dir())
IDS = [d.name for d in CHALLENGES]
BIN = Path(sys.executable).parent
QUIET_MODULAR = {"MODULAR_CRASH_REPORTING_ENABLED": "false", "MODULAR_TELEMETRY_ENABLED": "0"}


def test_every_challenge_is_collected():
    assert "142_rms_norm_backward" in IDS and len(IDS) >= 5


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_challenge(directory: Path):
    return load_challenge_class(directory / "challenge.py")


def require_starter(directory: Path, key: str) -> None:
    """A multi-GPU challenge ships no starter in a language that cannot reach its peer ranks."""
    lang = BY_KEY[key]
    if lang not in for_gpus(load_challenge(directory).num_gpus):
        pytest.skip(f"{directory.name} has no {lang.title} starter: {lang.distributed_refusal}")


@pytest.mark.slow
@pytest.mark.parametrize("directory", CHALLENGES, ids=IDS)
def test_cuda_starter_compiles_for_sm75_and_sm90(directory: Path, tmp_path: Path):
    require_starter(directory, "cuda")
    nvcc = shutil.which("nvcc")
    assert nvcc, "nvcc is required (CUDA 13.0 toolkit)"
    try:  # a multi-GPU starter includes nccl.h
        headers = BY_KEY["cuda"].nccl_flags(directory / "starter" / "starter.cu")
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    result = subprocess.run(
        [nvcc, "-shared", "-Xcompiler", "-fPIC", "-Werror", "all-warnings", *headers,
         "-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_90,code=sm_90",
         "-o", str(tmp_path / "starter.so"), str(directory / "starter" / "starter.cu")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "starter.so").stat().st_size > 0


@pytest.mark.slow
@pytest.mark.parametrize("directory", CHALLENGES, ids=IDS)
def test_mojo_starter_builds_without_warnings(directory: Path, tmp_path: Path):
    require_starter(directory, "mojo")
    result = subprocess.run(
        [str(BIN / "mojo"), "build", "--emit", "shared-lib", "--target-accelerator", "sm_90",
         str(directory / "starter" / "starter.mojo"), "-o", str(tmp_path / "starter.so")],
        capture_output=True, text=True, env={**os.environ, **QUIET_MODULAR},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "" and "warning" not in result.stdout, result.stderr
    assert (tmp_path / "starter.so").stat().st_size > 0


MOJO_SOLUTIONS = sorted((ROOT / "solutions").glob("*/*/solution.mojo"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "source",
    MOJO_SOLUTIONS,
    ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in MOJO_SOLUTIONS],
)
def test_mojo_solution_builds_without_warnings(source: Path, tmp_path: Path):
    result = subprocess.run(
        [str(BIN / "mojo"), "build", "--emit", "shared-lib", "--target-accelerator", "sm_90",
         str(source), "-o", str(tmp_path / "solution.so")],
        capture_output=True, text=True, env={**os.environ, **QUIET_MODULAR},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "" and "warning" not in result.stdout, result.stderr


@pytest.mark.parametrize("directory", CHALLENGES, ids=IDS)
@pytest.mark.parametrize("key", ["pytorch", "triton", "jax", "cute", "tilelang"])
def test_python_starter_imports_and_has_solve(directory: Path, key: str):
    require_starter(directory, key)
    lang = BY_KEY[key]
    module = load_module(directory / "starter" / lang.starter_name, f"{key}_{directory.name}")
    assert callable(module.solve)


def example_args(directory: Path):
    challenge = load_challenge(directory)(device="cpu")
    return challenge, challenge.generate_example_test()


@pytest.mark.slow
@pytest.mark.parametrize("directory", CHALLENGES, ids=IDS)
def test_cute_starter_goes_through_cute_compile(directory: Path, monkeypatch):
    require_starter(directory, "cute")
    monkeypatch.setenv("CUTE_DSL_ARCH", "sm_90a")
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import from_dlpack

    module = load_module(directory / "starter" / "starter.cute.py", f"cute_{directory.name}")
    challenge, case = example_args(directory)
    args = []
    for name, (ctype, _) in challenge.get_solve_signature().items():
        value = case[name]
        if hasattr(value, "data_ptr"):
            args.append(from_dlpack(value))
        elif "c_float" in repr(ctype):
            args.append(cutlass.Float32(value))
        else:
            args.append(cutlass.Int32(value))
    compiled = cute.compile(module.solve, *args)
    assert compiled is not None


@pytest.mark.parametrize("directory", CHALLENGES, ids=IDS)
def test_jax_starter_is_called_on_cpu(directory: Path):
    require_starter(directory, "jax")
    import jax

    module = load_module(directory / "starter" / "starter.jax.py", f"jaxs_{directory.name}")
    challenge, case = example_args(directory)
    args = []
    for name, (_, direction) in challenge.get_solve_signature().items():
        if direction == "out":
            continue
        value = case[name]
        args.append(jax.dlpack.from_dlpack(value) if hasattr(value, "data_ptr") else value)
    assert module.solve(*args) is None  # the empty starter returns nothing, without error


def _itemsize(value) -> int:
    """Bytes per element of a tensor or of a descriptor (its dtype is a string)."""
    import torch

    if torch.is_tensor(value):
        return value.element_size()
    return torch.empty(0, dtype=getattr(torch, getattr(value, "dtype", "float32"))).element_size()


@pytest.mark.parametrize("directory", CHALLENGES, ids=IDS)
def test_challenge_py_runs_on_cpu(directory: Path):
    import torch

    torch.manual_seed(0)
    challenge = load_challenge(directory)(device="cpu")
    signature = challenge.get_solve_signature()
    written = [challenge.generate_example_test(), *challenge.generate_functional_test()]
    # cases written with descriptors (RandTensor, OutTensor, ...) become tensors as the judge's do
    # (a multi-GPU case may name its ranks: the judge reads that key, the reference does not)
    cases = [
        {k: materialise(v, "cpu") for k, v in case.items() if k != WORLD_SIZE} for case in written
    ]
    for case in cases:
        assert list(case) == list(signature)
        for value in case.values():
            if isinstance(value, torch.Tensor):
                assert value.device.type == "cpu"
        challenge.reference_impl(**case)
    outputs = [n for n, (_, d) in signature.items() if d != "in"]
    for case in cases:
        for name in outputs:
            assert torch.isfinite(case[name].float()).all(), (directory.name, name)
    performance = challenge.generate_performance_test()  # generated, not run: it is large
    assert list(performance) == list(signature)
    tensors = [v for v in performance.values() if torch.is_tensor(v) or hasattr(v, "shape")]
    size = sum(math.prod(v.shape) * _itemsize(v) for v in tensors)
    assert 0 < size <= 3.2e9


@pytest.mark.slow
def test_every_dtype_of_the_table_compiles_in_a_cuda_starter(tmp_path: Path):
    """Each dtype's CUDA type with the header the one table names for it, as a starter declares
    it (CUDA 13's cuda_runtime.h declares int8_t but not uint8_t: public 7 kept `unsigned char`)."""
    from generator.dtypes import DTYPES

    nvcc = shutil.which("nvcc")
    assert nvcc, "nvcc is required (CUDA 13.0 toolkit)"
    lines = sorted({f"#include <{d.cuda_include}>" for d in DTYPES.values() if d.cuda_include})
    lines.append("#include <cuda_runtime.h>")
    for index, dtype in enumerate(DTYPES.values()):
        lines.append(f"__global__ void k{index}({dtype.cuda}* x) {{}}")
        lines.append(f'extern "C" void solve{index}({dtype.cuda}* x) {{ k{index}<<<1, 1>>>(x); }}')
    source = tmp_path / "dtypes.cu"
    source.write_text("\n".join(lines) + "\n")
    done = subprocess.run([nvcc, "-c", str(source), "-o", str(tmp_path / "dtypes.o")],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
