"""A big CUDA GPU made to behave as Colab's free T4 where the lessons can tell: memory, bfloat16 and TF32.

Colab's free GPU is a T4 (compute capability 7.5): it has no TF32, so float32 convolutions and matrix products run
in full float32; it computes bfloat16 only by emulation, so mixed precision takes float16 (``utils.amp_dtype``
asks ``torch.cuda.is_bf16_supported(including_emulation=False)``); and it has far less memory than an H100. The
project has no T4, but ``tools/ci/gpu_check.sh``'s ``t4`` part imposes those three on the GPU it borrows (issue 41),
so that every lesson runs its T4 path to the end there. ``install`` does, in this process and, through
``os.environ``, in every process it starts:

- **Memory.** Each visible GPU's caching allocator is capped at ``T4_MEMORY`` bytes
  (``torch.cuda.set_per_process_memory_fraction``), as soon as CUDA initialises (``torch.cuda._lazy_call``: the
  cap waits for the lazy initialisation, so a process that never touches CUDA does not start it).
  ``lessons.memory.gpu_budget`` caps within a cap already set and puts it back on exit.
- **No TF32.** ``NVIDIA_TF32_OVERRIDE=0``, which NVIDIA's cuBLAS and cuDNN read: they compute in full float32
  whatever PyTorch's flags ask for, as a T4 does; and the flags start off (``torch.backends.cudnn.allow_tf32``
  False, matrix products at ``"highest"``), so that ``utils.tf32_in_effect`` answers False as on a T4 until a
  notebook switches a flag on. ``tools/ci/gpu_check.sh`` measures both before the notebooks run.
- **bfloat16.** ``torch.cuda.is_bf16_supported(including_emulation=False)`` answers False, as on a T4; with
  emulation (the default argument) the GPU's own answer, True, as a T4 also says. ``utils.amp_dtype`` then picks
  float16 by its own T4 branch (``NB_AMP_DTYPE`` stays unset, so that branch is the one that runs).

What this cannot impose: the T4's speed, its 40 SMs, its cuDNN and cuBLAS kernels (they differ per architecture, so
float rounding differs too), ``torch.cuda.get_device_properties`` (name, capability 9.0 and total memory stay the
big GPU's) and ``torch.cuda.mem_get_info``. ``tools/ci/gpu_check.sh`` also runs the part on 2 CPU cores, as Colab's
free tier has.

A test tool: nothing students run imports it. ``tests/switch_site/sitecustomize.py`` calls ``install`` at the start of
every Python process while ``NB_GPU_LIKE=t4``. ``python tests/t4_like.py``, run that way, measures that all of it
holds on the GPU (``check``); ``tools/ci/gpu_check.sh`` runs it before the notebooks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import torch

ENV = "NB_GPU_LIKE"
"""``NB_GPU_LIKE=t4``: set by ``tools/ci/gpu_check.sh``, with ``tests/switch_site`` on ``PYTHONPATH``."""
T4_MEMORY = 15 * 10**9
"""The bytes each GPU's allocator may reserve: 15 GB (14.0 GiB), issue 41's figure for Colab's T4."""

_installed: list[Callable[..., bool]] = []  # the original is_bf16_supported, once installed


def cap_memory() -> None:
    """Cap every visible GPU's caching allocator at ``T4_MEMORY`` bytes (the whole GPU if it has less)."""
    for index in range(torch.cuda.device_count()):
        total = torch.cuda.get_device_properties(index).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, T4_MEMORY / total), index)


def install() -> None:
    """Make this process, and the ones it starts, see a T4's memory, TF32 and bfloat16 (module docstring).

    A second call changes nothing.
    """
    if _installed:
        return
    os.environ[ENV] = "t4"  # the processes this one starts do the same
    os.environ["NVIDIA_TF32_OVERRIDE"] = "0"  # read by cuBLAS and cuDNN when they load, after this
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    original = torch.cuda.is_bf16_supported
    _installed.append(original)

    def is_bf16_supported(including_emulation: bool = True) -> bool:
        """As on a T4: bfloat16 only by emulation."""
        return bool(original(True)) if including_emulation else False

    torch.cuda.is_bf16_supported = is_bf16_supported
    torch.cuda._lazy_call(cap_memory)  # at once if CUDA is initialised already, else when it is


TF32_LIMIT = 1e-5
"""The largest relative error (Frobenius norm, against float64) that counts as full float32: a 1024 x 1024 product
or a 3 x 3 convolution over 64 channels is about 3e-7 from float64 in float32 and 3e-4 in TF32 (measured on a CPU,
TF32 emulated by ``tests/tf32_emulation.py``)."""


def relative_error(got: torch.Tensor, exact: torch.Tensor) -> float:
    """Return ``|got - exact| / |exact|`` in the Frobenius norm, computed in float64."""
    return ((got.double() - exact).norm() / exact.norm()).item()


def check(dry_run: bool = False) -> list[str]:
    """Print what this process sees of the T4-like GPU; return what does not hold (empty: all of it holds).

    On the GPU: the switch is installed, ``amp_dtype`` and ``tf32_in_effect`` answer as on a T4, a product and a
    convolution asked for in TF32 (both flags on, as notebook 09 asks for it) compute in full float32 all the same,
    and the allocator refuses a tensor past ``T4_MEMORY`` and gives one below it. ``dry_run``: on a CPU, only what
    does not need a GPU.
    """
    import utils  # the repository root is on sys.path (PYTHONPATH, or this file run from it)

    problems = []
    like = sys.modules.get("t4_like")
    if like is None or not like._installed:
        return [f"not installed: set {ENV}=t4 and put tests/switch_site first on PYTHONPATH"]
    device = utils.get_device()
    print(f"device {device}, {utils.cpu_cores()} CPU cores; {ENV}={os.environ.get(ENV)}, "
          f"NVIDIA_TF32_OVERRIDE={os.environ.get('NVIDIA_TF32_OVERRIDE')}")
    answers = torch.cuda.is_bf16_supported(including_emulation=False), torch.cuda.is_bf16_supported()
    print(f"is_bf16_supported(including_emulation=False) {answers[0]}, is_bf16_supported() {answers[1]}")
    print(f"utils.amp_dtype: {utils.amp_dtype(device)}; utils.tf32_in_effect: conv "
          f"{utils.tf32_in_effect(device, 'conv')}, matmul {utils.tf32_in_effect(device, 'matmul')}")
    if device.type != "cuda":
        if not dry_run:
            problems.append("no CUDA GPU")
        return problems
    if utils.amp_dtype(device) != torch.float16 or answers != (False, True):
        problems.append("bfloat16 is not answered as on a T4")
    if utils.tf32_in_effect(device, "conv") or utils.tf32_in_effect(device, "matmul"):
        problems.append("TF32 is in effect")
    total = torch.cuda.get_device_properties(device).total_memory
    cap = torch.cuda.get_per_process_memory_fraction(torch.cuda.current_device()) * total
    print(f"allocator cap {cap / 1e9:.2f} GB of the GPU's {total / 1e9:.2f} GB ({torch.cuda.get_device_name(device)})")
    conv, matmul = torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()
    try:  # TF32 asked for by both flags: NVIDIA_TF32_OVERRIDE=0 must keep full float32, as a T4 computes
        torch.backends.cudnn.allow_tf32 = True
        torch.set_float32_matmul_precision("high")
        generator = torch.Generator().manual_seed(0)
        a, b = (torch.randn(1024, 1024, generator=generator) for _ in range(2))
        x, w = torch.randn(8, 64, 32, 32, generator=generator), torch.randn(64, 64, 3, 3, generator=generator)
        errors = {
            "matmul": relative_error((a.to(device) @ b.to(device)).cpu(), a.double() @ b.double()),
            "conv": relative_error(torch.nn.functional.conv2d(x.to(device), w.to(device), padding=1).cpu(),
                                   torch.nn.functional.conv2d(x.double(), w.double(), padding=1)),
        }
    finally:
        torch.backends.cudnn.allow_tf32 = conv
        torch.set_float32_matmul_precision(matmul)
    print("relative error with TF32 asked for: " + ", ".join(f"{k} {v:.1e}" for k, v in errors.items())
          + f" (full float32 below {TF32_LIMIT:.0e}; TF32 about 3e-4)")
    problems += [f"{kind} computes in TF32 ({error:.1e})" for kind, error in errors.items() if error > TF32_LIMIT]
    if total > T4_MEMORY:
        try:
            torch.empty(T4_MEMORY + 2**30, dtype=torch.uint8, device=device)
            problems.append("the allocator gave more than T4_MEMORY")
        except torch.OutOfMemoryError:
            print(f"{(T4_MEMORY + 2**30) / 1e9:.2f} GB refused: torch.OutOfMemoryError")
        below = torch.empty(T4_MEMORY - 2**30, dtype=torch.uint8, device=device)
        print(f"{below.numel() / 1e9:.2f} GB given")
        del below
        torch.cuda.empty_cache()
    return problems


def main(argv: list[str]) -> int:
    """``python tests/t4_like.py [--cpu-dry-run]``: run ``check``, print what fails; exit 1 if anything does."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = check(dry_run="--cpu-dry-run" in argv)
    print("T4-like: " + ("; ".join(problems) if problems else "everything holds"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
