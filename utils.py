"""Small shared helpers for the notebooks: device choice, placement checks, seeding, quick mode, timing.

Every helper here is first written out in full inside a lesson; this module only saves typing it again.
Run ``pytest tests/test_utils.py`` for its unit tests.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch
from torch import nn

T = TypeVar("T")

ROOT: Path = Path(__file__).resolve().parent
"""The repository root (the folder that holds this file)."""

DATA_DIR: Path = ROOT / "data"
"""Where downloads, generated samples, checkpoints and logs go (git-ignored except its README)."""

QUICK_ENV = "NB_QUICK"
"""Environment variable that switches every notebook to quick mode; the test configuration sets it."""


# --------------------------------------------------------------------------------------------------
# Quick mode, seeding, progress bars
# --------------------------------------------------------------------------------------------------


def is_quick_mode() -> bool:
    """Return True when ``NB_QUICK`` is set to a true value (tests, CI, offline classrooms)."""
    return os.environ.get(QUICK_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def seed_everything(seed: int = 0, num_threads: int | None = None) -> None:
    """Seed Python, NumPy and PyTorch (all devices); optionally fix torch's CPU thread count.

    CPU float results are bit-identical only for the same seed *and* thread count, so quick-mode
    runs pass ``num_threads`` to make the outputs stored in the notebooks reproduce anywhere.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # seeds the CPU and every accelerator
    if num_threads is not None:
        torch.set_num_threads(num_threads)


def progress(iterable: Iterable[T], **kwargs: Any) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm progress bar for people; return it unchanged in quick mode (tests)."""
    if is_quick_mode():
        return iter(iterable)
    from tqdm.auto import tqdm

    return iter(tqdm(iterable, **kwargs))


# --------------------------------------------------------------------------------------------------
# Devices
# --------------------------------------------------------------------------------------------------


def get_device() -> torch.device:
    """Return the best usable device: the available accelerator (CUDA, MPS, ...) or else the CPU."""
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None and hasattr(accelerator, "current_accelerator"):
        # check_available=True: without it a CUDA build names "cuda" even on a machine with no GPU.
        found = accelerator.current_accelerator(check_available=True)
        return found if found is not None else torch.device("cpu")
    if torch.cuda.is_available():  # older PyTorch without torch.accelerator
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def try_gpu(i: int = 0) -> torch.device:
    """Return ``cuda:i`` if that GPU exists, else the CPU (d2l's semantics)."""
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f"cuda:{i}")
    return torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    """Return every CUDA GPU, or ``[cpu]`` when there is none (d2l 1.0.3 returns ``[]`` there)."""
    gpus = [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
    return gpus if gpus else [torch.device("cpu")]


def synchronize(device: torch.device | str) -> None:
    """Wait until all queued work on ``device`` has finished (a no-op on the CPU)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


# --------------------------------------------------------------------------------------------------
# Where does this live?
# --------------------------------------------------------------------------------------------------


def placement(obj: Any) -> dict[str, str]:
    """Map every tensor that ``obj`` owns to its device, e.g. ``{"0.weight": "cpu"}``.

    ``obj`` may be a tensor, an ``nn.Module`` (parameters *and* buffers, loss modules included), an
    optimizer (its per-parameter state, such as momentum buffers), or a list/tuple/dict of those.
    A module without parameters or buffers, or an optimizer before its first step, gives ``{}``.
    """
    if isinstance(obj, torch.Tensor):
        return {"tensor": str(obj.device)}
    if isinstance(obj, nn.Module):
        found = {name: str(p.device) for name, p in obj.named_parameters()}
        found.update({f"{name} (buffer)": str(b.device) for name, b in obj.named_buffers()})
        return found
    if isinstance(obj, torch.optim.Optimizer):
        found = {}
        for index, state in enumerate(obj.state.values()):
            for key, value in state.items():
                if isinstance(value, torch.Tensor):
                    found[f"state[{index}].{key}"] = str(value.device)
        return found
    if isinstance(obj, dict):
        items: Iterable[tuple[str, Any]] = ((str(k), v) for k, v in obj.items())
    elif isinstance(obj, (list, tuple)):
        items = ((str(i), v) for i, v in enumerate(obj))
    else:
        return {}
    return {f"{key}.{inner}": dev for key, value in items for inner, dev in placement(value).items()}


def devices_of(obj: Any) -> set[str]:
    """Return the set of device strings of every tensor in ``obj`` (see ``placement``)."""
    return set(placement(obj).values())


def describe_placement(obj: Any) -> str:
    """Return a one-line answer to "where does this live?": one device, ``mixed: ...``, or no tensors."""
    found = devices_of(obj)
    if not found:
        return "no tensors (nothing to move)"
    if len(found) == 1:
        return f"{found.pop()} ({len(placement(obj))} tensors)"
    return "mixed: " + ", ".join(sorted(found))


# --------------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------------


def time_it(
    fn: Callable[[], Any], device: torch.device | str = "cpu", warmup: int = 2, repeat: int = 5
) -> float:
    """Return the median wall time of ``fn()`` in seconds, after ``warmup`` calls.

    GPUs run work asynchronously, so the clock is read only after ``synchronize(device)``:
    without that you time how fast work is queued, not how fast it runs.
    """
    for _ in range(warmup):
        fn()
    synchronize(device)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --------------------------------------------------------------------------------------------------
# Checkpoints (written out in full in notebook 05) and the training loop (notebook 06)
# --------------------------------------------------------------------------------------------------


def atomic_save(obj: Any, path: str | os.PathLike[str]) -> Path:
    """``torch.save`` to a temporary file beside ``path``, then rename it over ``path``; return ``path``.

    A crash or full disk during saving leaves the previous file intact: the rename is atomic.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def train_epoch(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: nn.Module,
    optimizer: torch.optim.Optimizer,
    device: torch.device,
) -> float:
    """Train ``model`` for one pass over ``loader`` on ``device``; return the mean training loss.

    The running loss stays on the device, so the GPU is synchronised once per epoch, not once per batch.
    """
    model.train()
    non_blocking = device.type == "cuda"  # overlaps copies with compute when the loader pins memory
    total_loss = torch.zeros((), device=device)
    count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=non_blocking)
        targets = targets.to(device, non_blocking=non_blocking)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach() * len(targets)
        count += len(targets)
    return total_loss.item() / max(count, 1)


@torch.no_grad()
def evaluate(
    model: nn.Module,
    loader: Iterable[tuple[torch.Tensor, torch.Tensor]],
    loss_fn: nn.Module,
    device: torch.device,
) -> tuple[float, float]:
    """Return ``(mean loss, accuracy)`` of ``model`` over ``loader``, computed in batches on ``device``."""
    model.eval()
    non_blocking = device.type == "cuda"
    total_loss = torch.zeros((), device=device)
    correct = torch.zeros((), device=device, dtype=torch.long)
    count = 0
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=non_blocking)
        targets = targets.to(device, non_blocking=non_blocking)
        logits = model(inputs)
        total_loss += loss_fn(logits, targets) * len(targets)
        correct += (logits.argmax(dim=1) == targets).sum()
        count += len(targets)
    return total_loss.item() / max(count, 1), correct.item() / max(count, 1)


# --------------------------------------------------------------------------------------------------
# CIFAR-10 data (notebook 06)
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# PetImages data (notebook 07)
# --------------------------------------------------------------------------------------------------
