"""Tests of tests/t4_like.py: a big GPU made to answer as Colab's T4 (memory, TF32, bfloat16), from outside.

The CUDA parts run on a GPU faked at torch's C layer (``tests/fake_cuda.py``: an 80 GiB GPU of compute capability
9.0, as the H100 the project borrows), with the lazy initialisation played as torch plays it; everything in
``torch.cuda``'s Python, ``utils`` and ``lessons.memory`` runs for real. The switch from outside
(``tests/switch_site``) runs in real subprocesses, as ``tools/ci/gpu_check.sh`` starts them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import t4_like
import torch
from fake_cuda import GIB, FakeGpu

import utils
from lessons import memory

ROOT = Path(__file__).resolve().parents[1]
CAP = t4_like.T4_MEMORY / (80 * GIB)  # the fraction of the fake 80 GiB GPU that 15 GB is


@pytest.fixture
def undone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``install`` changes this process for good; here everything it changes is put back after the test."""
    monkeypatch.setattr(t4_like, "_installed", [])
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", torch.cuda.is_bf16_supported)
    for name in (t4_like.ENV, "NVIDIA_TF32_OVERRIDE"):  # install sets both: each put back as it was, unset too
        monkeypatch.setenv(name, "")  # (delenv alone records nothing to restore for a variable that is not set)
        monkeypatch.delenv(name)
    conv, matmul = torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()
    yield
    torch.backends.cudnn.allow_tf32 = conv
    torch.set_float32_matmul_precision(matmul)


def test_an_h100_answers_as_a_t4(monkeypatch: pytest.MonkeyPatch, undone: None) -> None:
    gpu = FakeGpu(monkeypatch, capability=(9, 0), total_memory=80 * GIB)
    device = utils.get_device()  # torch.device("cuda"), as every notebook gets it
    assert utils.amp_dtype(device) == torch.bfloat16 and utils.tf32_in_effect(device)  # an H100, as it is
    t4_like.install()
    assert utils.amp_dtype(device) == torch.float16  # amp_dtype's own T4 branch: NB_AMP_DTYPE is not set
    assert utils.AMP_DTYPE_ENV not in os.environ
    assert torch.cuda.is_bf16_supported(including_emulation=False) is False
    assert torch.cuda.is_bf16_supported() is True  # a T4 emulates bfloat16, and says so by default
    assert not utils.tf32_in_effect(device, "conv") and not utils.tf32_in_effect(device, "matmul")
    assert os.environ["NVIDIA_TF32_OVERRIDE"] == "0" and os.environ[t4_like.ENV] == "t4"
    assert gpu.called("setMemoryFraction") == [(CAP, 0)]  # CUDA was initialised already: capped at once
    assert torch.cuda.get_per_process_memory_fraction(0) == CAP
    t4_like.install()  # a second call changes nothing
    assert gpu.called("setMemoryFraction") == [(CAP, 0)]


def test_the_cap_waits_for_cudas_lazy_initialisation(monkeypatch: pytest.MonkeyPatch, undone: None) -> None:
    gpu = FakeGpu(monkeypatch)
    monkeypatch.setattr(torch.cuda, "_initialized", False)  # a process that has not touched CUDA yet
    monkeypatch.setattr(torch.cuda, "_queued_calls", [])
    t4_like.install()
    assert gpu.called("setMemoryFraction") == []  # importing torch does not start CUDA
    # torch.cuda._lazy_init, as it runs at the first CUDA call: the C layer's init (faked), then the queued calls
    monkeypatch.setattr(torch.cuda, "_initialized", True)
    for queued, _ in torch.cuda._queued_calls:
        queued()
    assert gpu.called("setMemoryFraction") == [(CAP, 0)]


def test_a_gpu_smaller_than_a_t4_is_not_capped(monkeypatch: pytest.MonkeyPatch, undone: None) -> None:
    gpu = FakeGpu(monkeypatch, total_memory=8 * GIB)
    t4_like.install()
    assert gpu.fraction == 1.0


def test_gpu_budget_stays_within_the_t4_cap_and_puts_it_back(monkeypatch: pytest.MonkeyPatch, undone: None) -> None:
    gpu = FakeGpu(monkeypatch)
    t4_like.install()
    gpu.allocated = gpu.reserved = 1 * GIB
    device = utils.get_device()
    with memory.gpu_budget(device, 256 * memory.MB):  # notebook 10's budget: tighter than the cap
        assert gpu.fraction == (GIB + 256 * memory.MB) / (80 * GIB)
    assert gpu.fraction == CAP
    with memory.gpu_budget(device, 20 * GIB):  # more than a T4 has: the T4's cap holds
        assert gpu.fraction == CAP
    assert gpu.fraction == CAP


def run_python(code: str, **env: str) -> str:
    """Run ``code`` in a new Python, as tools/ci/gpu_check.sh starts one, and return what it prints."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NB_GPU_LIKE", "NVIDIA_TF32_OVERRIDE")}
    environ.update(PYTHONPATH=os.pathsep.join([str(ROOT / "tests" / "switch_site"), str(ROOT)]), **env)
    done = subprocess.run([sys.executable, "-c", code], env=environ, cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


PROBE = """
import os, sys, torch
like = sys.modules.get("t4_like")
print(like is not None, torch.backends.cudnn.allow_tf32, os.environ.get("NVIDIA_TF32_OVERRIDE"),
      any(like is not None and call is like.cap_memory for call, _ in torch.cuda._queued_calls))
"""


def test_the_switch_from_outside_reaches_every_process_and_nothing_without_it() -> None:
    # a kernel with NB_GPU_LIKE=t4, and a process it starts (notebook 08's DDP workers are started so)
    code = f"import subprocess, sys\n{PROBE}\nsubprocess.run([sys.executable, '-c', {PROBE!r}], check=True)"
    lines = run_python(code, NB_GPU_LIKE="t4").splitlines()
    assert lines == ["True False 0 True", "True False 0 True"]  # installed, the cap queued until CUDA starts
    untouched = run_python("import sys; print('torch' in sys.modules, 't4_like' in sys.modules)")
    assert untouched == "False False"  # without the variable the site imports nothing


def test_the_check_says_how_to_switch_it_on_and_passes_a_cpu_dry_run() -> None:
    def check(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        environ = {k: v for k, v in os.environ.items() if k not in ("NB_GPU_LIKE", "NVIDIA_TF32_OVERRIDE")}
        environ.update(PYTHONPATH=os.pathsep.join([str(ROOT / "tests" / "switch_site"), str(ROOT)]), **env)
        return subprocess.run([sys.executable, "tests/t4_like.py", *args], env=environ, cwd=ROOT,
                              capture_output=True, text=True, timeout=120)

    off = check("--cpu-dry-run")
    assert off.returncode == 1 and "set NB_GPU_LIKE=t4 and put tests/switch_site first on PYTHONPATH" in off.stdout
    dry = check("--cpu-dry-run", NB_GPU_LIKE="t4", CUDA_VISIBLE_DEVICES="")
    assert dry.returncode == 0 and dry.stdout.endswith("T4-like: everything holds\n"), dry.stdout + dry.stderr
    assert "is_bf16_supported(including_emulation=False) False" in dry.stdout
    no_gpu = check(NB_GPU_LIKE="t4", CUDA_VISIBLE_DEVICES="")  # on a GPU machine, the check needs its GPU
    assert no_gpu.returncode == 1 and "T4-like: no CUDA GPU" in no_gpu.stdout
