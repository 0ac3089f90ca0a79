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


def shown_path(path: str | os.PathLike[str]) -> str:
    """Return ``path`` relative to the repository root if it lies inside it (no machine paths in outputs)."""
    resolved = Path(path).resolve()
    return resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else str(path)


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


def time_runs(
    fn: Callable[[], Any], device: torch.device | str = "cpu", warmup: int = 2, repeat: int = 5
) -> list[float]:
    """Return the seconds each of `repeat` calls of fn() took, after `warmup` untimed calls (synchronised)."""
    for _ in range(warmup):
        fn()
    synchronize(device)
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        synchronize(device)
        seconds.append(time.perf_counter() - start)
    return seconds


def time_it(
    fn: Callable[[], Any], device: torch.device | str = "cpu", warmup: int = 2, repeat: int = 5
) -> float:
    """Return the median wall time of ``fn()`` in seconds, after ``warmup`` calls (``time_runs``, notebook 09).

    GPUs run work asynchronously, so the clock is read only after ``synchronize(device)``:
    without that you time how fast work is queued, not how fast it runs.
    """
    return statistics.median(time_runs(fn, device, warmup, repeat))


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

CIFAR10_MEAN: tuple[float, float, float] = (0.4914, 0.4822, 0.4465)
"""Per-channel mean of the CIFAR-10 training images scaled to [0, 1] (what ``Normalize`` subtracts)."""

CIFAR10_STD: tuple[float, float, float] = (0.2470, 0.2435, 0.2616)
"""Per-channel standard deviation of the CIFAR-10 training images scaled to [0, 1]."""

CIFAR10_ARCHIVE = "cifar-10-python.tar.gz"
"""The file torchvision downloads into ``data/`` (170 MB); its address is ``torchvision.datasets.CIFAR10.url``."""

QUICK_CIFAR10_CLASSES: tuple[str, ...] = (
    "h-stripes", "v-stripes", "diagonals", "checkers", "disk", "ring", "square", "cross", "triangle", "dots",
)
"""Class names of the generated quick-mode sample: one shape or texture per class, drawn in random colours."""


def cifar10_cnn() -> nn.Sequential:
    """Return the source's CIFAR-10 network: three 5x5 conv + max-pool blocks, then two linear layers (10 logits)."""
    return nn.Sequential(
        nn.Conv2d(3, 32, kernel_size=5, padding=2),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 32, kernel_size=5, padding=2),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, kernel_size=5, padding=2),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64 * 4 * 4, 64),
        nn.Linear(64, 10),
    )


def cifar10_transform() -> Callable[[Any], torch.Tensor]:
    """Return the per-image transform: uint8 (32, 32, 3) image -> normalised float32 (3, 32, 32) tensor."""
    from torchvision import transforms

    return transforms.Compose([transforms.ToTensor(), transforms.Normalize(CIFAR10_MEAN, CIFAR10_STD)])


class CIFARArrays(torch.utils.data.Dataset):
    """A dataset of images in one uint8 array (N, 32, 32, 3) with labels; item i is ``(transform(image), label)``.

    Real CIFAR-10 and the quick-mode sample both arrive in this class, so both go through the same transform
    and DataLoader code. It lives in utils.py, not in a notebook, because DataLoader workers started with
    "spawn" (the default on macOS and Windows) must import the dataset's class and its transform by name.
    """

    def __init__(
        self,
        images: np.ndarray,
        labels: np.ndarray | Iterable[int],
        classes: Iterable[str],
        transform: Callable[[Any], Any] | None = None,
    ) -> None:
        images = np.asarray(images)
        if images.dtype != np.uint8 or images.ndim != 4 or images.shape[3] != 3:
            raise ValueError(f"expected uint8 images of shape (N, H, W, 3), got {images.dtype} {images.shape}")
        self.images = images
        self.labels = np.asarray(labels, dtype=np.int64)
        if len(self.labels) != len(images):
            raise ValueError(f"{len(images)} images but {len(self.labels)} labels")
        self.classes = list(classes)
        self.transform = transform

    def __len__(self) -> int:
        """Return the number of images."""
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        """Return ``(transformed image, label)`` of image ``index``."""
        image: Any = self.images[index]
        if self.transform is not None:
            image = self.transform(image)
        return image, int(self.labels[index])


def cifar10_unavailable_message(root: str | os.PathLike[str], error: BaseException, download: bool = True) -> str:
    """Return the one message shown when real CIFAR-10 cannot be loaded: what failed and the two ways to fix it."""
    where = shown_path(root) + "/"
    action = "download it into" if download else "find it in"
    return (
        f"Real CIFAR-10 is not available: torchvision could not {action} {where} "
        f"({type(error).__name__}: {error}).\n"
        f"Fix it in one of two ways:\n"
        f"  1. On a machine with internet, download {CIFAR10_ARCHIVE} (170 MB; the address is in "
        f"torchvision.datasets.CIFAR10.url) and copy it into {where} -- torchvision checks and unpacks it on "
        f"the next run (an already unpacked cifar-10-batches-py/ folder there works too).\n"
        f"  2. Or use the generated sample instead: quick mode, NB_QUICK=1 in the environment before starting "
        f"Jupyter (or %env NB_QUICK=1 in the first cell)."
    )


def load_cifar10(
    train: bool, root: str | os.PathLike[str] = DATA_DIR, download: bool = True
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Return ``(images, labels, class names)`` of the real CIFAR-10 train or test split, downloaded into ``root``.

    torchvision downloads the archive, verifies its checksum and unpacks it. If that fails (offline, blocked,
    corrupt file) this raises ONE RuntimeError that says how to fix it; it never switches to other data.
    """
    import tarfile

    from torchvision.datasets import CIFAR10

    try:
        dataset = CIFAR10(root=str(root), train=train, download=download)
    except (OSError, RuntimeError, EOFError, tarfile.TarError) as error:
        raise RuntimeError(cifar10_unavailable_message(root, error, download)) from None
    return dataset.data, np.asarray(dataset.targets, dtype=np.int64), list(dataset.classes)


def make_quick_cifar10(n_images: int, seed: int | tuple[int, ...] = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(images, labels)``: ``n_images`` generated uint8 (32, 32, 3) images of 10 balanced classes.

    Each class is a shape or texture (``QUICK_CIFAR10_CLASSES``) of random size, position and colours on a
    random background, plus pixel noise: colour and place tell nothing, so a network must learn the shapes.
    The same seed gives the same bytes on every machine (integer arithmetic and exact comparisons only).
    """
    rng = np.random.default_rng(seed)
    labels = np.arange(n_images) % 10
    rng.shuffle(labels)
    rows, cols = np.mgrid[0:32, 0:32]
    images = np.empty((n_images, 32, 32, 3), dtype=np.uint8)
    for index, label in enumerate(labels):
        background = rng.integers(0, 256, 3)
        foreground = rng.integers(0, 256, 3)
        while np.abs(foreground - background).sum() < 200:  # enough contrast to see the shape
            foreground = rng.integers(0, 256, 3)
        size = int(rng.integers(12, 25))
        top, left = (int(v) for v in rng.integers(0, 33 - size, 2))
        period = int(rng.integers(3, 6))
        v, u = rows - top, cols - left  # coordinates inside the object's box
        box = (u >= 0) & (u < size) & (v >= 0) & (v < size)
        du, dv = 2 * u + 1 - size, 2 * v + 1 - size  # twice the offset from the box centre: integers
        inside_circle = du * du + dv * dv <= size * size
        bar = size // 4 + 1
        masks = (
            box & (v % period < period // 2),  # h-stripes
            box & (u % period < period // 2),  # v-stripes
            box & ((u + v) % period < period // 2),  # diagonals
            box & ((u // period + v // period) % 2 == 0),  # checkers
            inside_circle,  # disk
            inside_circle & (100 * (du * du + dv * dv) >= 30 * size * size),  # ring
            box,  # square
            box & ((np.abs(du) < bar) | (np.abs(dv) < bar)),  # cross
            box & (np.abs(du) <= v + 1),  # triangle
            box & (u % period < period // 2) & (v % period < period // 2),  # dots
        )
        image = np.where(masks[label][..., None], foreground, background)
        image = image + rng.integers(-30, 31, (32, 32, 3))
        images[index] = np.clip(image, 0, 255).astype(np.uint8)
    return images, labels.astype(np.int64)


def quick_cifar10(
    root: str | os.PathLike[str] = DATA_DIR, n_train: int = 3000, n_test: int = 1000, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(train_images, train_labels, test_images, test_labels)`` of the quick sample, cached in ``root``.

    The first call generates it (about a second) and writes one tensor file under ``root/cifar10-quick/`` with
    ``atomic_save``; later calls read that file, so every run sees the same bytes. A damaged file is rebuilt.
    """
    path = Path(root) / "cifar10-quick" / f"sample-v1-seed{seed}-{n_train}-{n_test}.pt"
    keys = ("train_images", "train_labels", "test_images", "test_labels")
    if path.is_file():
        try:
            stored = torch.load(path, weights_only=True)
            return tuple(stored[key].numpy() for key in keys)  # type: ignore[return-value]
        except Exception:  # damaged files surface as many error types (notebook 05): rebuild below
            pass
    train_images, train_labels = make_quick_cifar10(n_train, (seed, 0))
    test_images, test_labels = make_quick_cifar10(n_test, (seed, 1))
    arrays = (train_images, train_labels, test_images, test_labels)
    atomic_save({key: torch.from_numpy(array) for key, array in zip(keys, arrays, strict=True)}, path)
    return arrays


def cifar10_datasets(
    quick: bool, root: str | os.PathLike[str] = DATA_DIR, transform: Callable[[Any], Any] | None = None
) -> tuple[CIFARArrays, CIFARArrays]:
    """Return ``(train_set, test_set)``: real CIFAR-10, or with ``quick=True`` the generated sample.

    Both are ``CIFARArrays`` with the same transform (default ``cifar10_transform()``). Full mode downloads into
    ``root`` and raises one clear error when it cannot; it never falls back to the sample on its own.
    """
    transform = cifar10_transform() if transform is None else transform
    if quick:
        train_images, train_labels, test_images, test_labels = quick_cifar10(root)
        classes: list[str] = list(QUICK_CIFAR10_CLASSES)
    else:
        train_images, train_labels, classes = load_cifar10(train=True, root=root)
        test_images, test_labels, _ = load_cifar10(train=False, root=root)
    return (
        CIFARArrays(train_images, train_labels, classes, transform),
        CIFARArrays(test_images, test_labels, classes, transform),
    )


def cifar10_device_batches(
    images: torch.Tensor,
    labels: torch.Tensor,
    batch_size: int,
    shuffle: bool = True,
    generator: torch.Generator | None = None,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Yield normalised ``(inputs, labels)`` batches cut from uint8 (N, 32, 32, 3) ``images`` on their device.

    Same values as ``cifar10_transform()`` + a DataLoader, without per-image Python work or host-to-device
    copies: for a dataset that fits in GPU memory (CIFAR-10 is 150 MB as uint8) this keeps the GPU busy.
    """
    device = images.device
    if shuffle:
        order = torch.randperm(len(labels), generator=generator).to(device)
    else:
        order = torch.arange(len(labels), device=device)
    mean = torch.tensor(CIFAR10_MEAN, device=device).view(1, 3, 1, 1)
    std = torch.tensor(CIFAR10_STD, device=device).view(1, 3, 1, 1)
    for start in range(0, len(order), batch_size):
        index = order[start : start + batch_size]
        # contiguous(): the DataLoader's NCHW memory layout, so that only the data loading differs
        inputs = images[index].permute(0, 3, 1, 2).contiguous().float().div(255)
        yield inputs.sub(mean).div(std), labels[index]


# --------------------------------------------------------------------------------------------------
# PetImages data (notebook 07)
# --------------------------------------------------------------------------------------------------

PET_CLASSES: tuple[str, str] = ("Cat", "Dog")
"""Folder names under ``PetImages/``; an image's label is its folder's index here (cat 0, dog 1)."""

PET_KINDS: tuple[str, ...] = ("kept", "grayscale", "CMYK", "corrupt EXIF", "zero-byte", "not an image", "unreadable")
"""Rows of the cleaning report: images kept (some converted or warned about on the way), then files skipped."""

PETIMAGES_URL = (
    "https://download.microsoft.com/download/3/E/1/3E1C3F21-ECDB-4869-8368-6DEBA77B919F/kagglecatsanddogs_5340.zip"
)
"""Microsoft's download of the Kaggle cats-and-dogs images (the PetImages folders)."""

PETIMAGES_ZIP_BYTES = 824_887_076
"""Exact size of ``kagglecatsanddogs_5340.zip``: a file of any other size is incomplete or not the right one."""

EXIF_WARNINGS = r"Possibly corrupt EXIF data|Corrupt EXIF data|Truncated File Read|Tag data larger than file"
"""What Pillow warns while reading a broken EXIF block; the wording depends on Pillow's version."""


def download_file(url: str, path: str | os.PathLike[str], expected_bytes: int) -> Path:
    """Download ``url`` to ``path`` with a progress bar, resuming an interrupted ``.part`` file; return ``path``."""
    import urllib.request

    path = Path(path)
    part = path.with_name(path.name + ".part")
    have = part.stat().st_size if part.is_file() else 0
    if have > expected_bytes:  # cannot be the start of the right file: start again
        part.unlink()
        have = 0
    if have < expected_bytes:
        request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
        with urllib.request.urlopen(request, timeout=60) as response:
            if response.status != 206:  # the server ignored the range and sends everything
                have = 0
            from tqdm.auto import tqdm

            with open(part, "ab" if have else "wb") as file, tqdm(
                total=expected_bytes, initial=have, unit="B", unit_scale=True, desc=path.name, disable=is_quick_mode()
            ) as bar:
                while chunk := response.read(1 << 20):
                    file.write(chunk)
                    bar.update(len(chunk))
    got = part.stat().st_size
    if got != expected_bytes:
        if got > expected_bytes:
            part.unlink()
        raise OSError(f"the download stopped at {got:,} of {expected_bytes:,} bytes; run again to resume")
    os.replace(part, path)
    return path


def safe_extract(zip_path: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Extract ``zip_path`` into ``dest`` after checking that no member lands outside ``dest``; return ``dest``."""
    import zipfile
    from pathlib import PurePosixPath

    dest = Path(dest).resolve()
    with zipfile.ZipFile(zip_path) as archive:
        members = archive.infolist()
        for member in members:
            name = member.filename.replace("\\", "/")
            inside = (dest / name).resolve().is_relative_to(dest)
            if name.startswith("/") or ".." in PurePosixPath(name).parts or not inside:
                raise ValueError(f"refusing to extract {member.filename!r}: it would land outside the target folder")
        for member in progress(members, desc="extracting"):
            archive.extract(member, dest)
    return dest


def get_petimages(data_dir: str | os.PathLike[str] = DATA_DIR, url: str = PETIMAGES_URL) -> Path:
    """Return ``data_dir/petimages/PetImages``; download (resumable), check and extract it first if it is missing."""
    import shutil

    data_dir = Path(data_dir)
    pets = data_dir / "petimages" / "PetImages"
    if pets.is_dir():
        return pets
    zip_path = data_dir / "kagglecatsanddogs_5340.zip"
    try:
        if not zip_path.is_file():
            download_file(url, zip_path, PETIMAGES_ZIP_BYTES)
        if zip_path.stat().st_size != PETIMAGES_ZIP_BYTES:
            raise OSError(f"the zip has {zip_path.stat().st_size:,} bytes, not {PETIMAGES_ZIP_BYTES:,}: replace it")
    except OSError as error:  # offline, refused, timed out, interrupted or wrong size
        reason = getattr(error, "reason", error)  # urllib wraps the network error
        reason = getattr(reason, "strerror", None) or reason  # "Connection refused", without paths or numbers
        raise RuntimeError(
            f"PetImages is not available ({reason}). Fix: download {zip_path.name} "
            f"({PETIMAGES_ZIP_BYTES:,} bytes) from Microsoft's download centre in a browser, "
            f"put it at {shown_path(zip_path)} "
            f"and run again; or use the generated sample instead: quick mode, NB_QUICK=1."
        ) from None
    tmp = data_dir / "petimages.part"
    shutil.rmtree(tmp, ignore_errors=True)
    safe_extract(zip_path, tmp)
    shutil.rmtree(pets.parent, ignore_errors=True)
    os.replace(tmp, pets.parent)  # an interrupted extraction never looks finished
    return pets


def load_petimage(path: str | os.PathLike[str], size: int = 50) -> tuple[np.ndarray | None, list[str], list[str]]:
    """Return ``(pixels, notes, other_warnings)``: ``size``x``size`` uint8 grayscale, or None if unreadable."""
    import re
    import warnings

    from PIL import Image, ImageOps

    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with Image.open(path) as image:
                if image.mode != "RGB":  # grayscale, CMYK, palette...: converted below, not dropped
                    notes.append({"L": "grayscale"}.get(image.mode, image.mode))
                image.draft("L", (size, size))  # JPEG: decode at 1/2, 1/4 or 1/8 scale, straight to gray
                ImageOps.exif_transpose(image, in_place=True)  # reads EXIF: phone photos the right way up
                pixels = np.array(image.convert("L").resize((size, size), Image.Resampling.BILINEAR))
        except Exception as error:  # reported by the caller with the file's name, never passed over silently
            return None, [f"unreadable ({type(error).__name__})"], []
    exif = [w for w in caught if re.search(EXIF_WARNINGS, str(w.message))]
    others = [f"{w.category.__name__}: {w.message}" for w in caught if w not in exif]
    return pixels, notes + ["corrupt EXIF"] * bool(exif), others


def scan_petimages(root: str | os.PathLike[str]) -> tuple[list[tuple[str, int]], list[tuple[str, str]], dict]:
    """Return ``(todo, skipped, counts)``: files to decode with labels, files skipped and why, counts per class."""
    counts = {name: dict.fromkeys(PET_KINDS, 0) for name in PET_CLASSES}
    todo, skipped = [], []
    for label, name in enumerate(PET_CLASSES):
        for path in sorted((Path(root) / name).iterdir()):
            if path.suffix.lower() not in {".jpg", ".jpeg", ".png"}:
                problem = "not an image"  # e.g. Thumbs.db, the thumbnail cache Windows leaves in folders
            elif path.stat().st_size == 0:
                problem = "zero-byte"
            else:
                todo.append((f"{name}/{path.name}", label))
                continue
            counts[name][problem] += 1
            skipped.append((f"{name}/{path.name}", problem))
    return todo, skipped, counts


def build_petimages(root: str | os.PathLike[str], size: int = 50, workers: int | None = None) -> dict[str, Any]:
    """Return the cleaned data set under ``root``: keys images (N, size, size) uint8, labels, files, counts, skipped.

    ``workers`` processes (default: one per core) decode; the results go straight into one preallocated array.
    """
    import contextlib
    import warnings
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    todo, skipped, counts = scan_petimages(root)
    images = np.empty((len(todo), size, size), dtype=np.uint8)
    labels = np.empty(len(todo), dtype=np.int64)
    files: list[str] = []
    workers = workers or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    decode, paths = partial(load_petimage, size=size), [Path(root) / rel for rel, _ in todo]
    with contextlib.ExitStack() as stack:
        if workers > 1:  # load_petimage is importable by name, so this also works where processes start by spawn
            pool = stack.enter_context(ProcessPoolExecutor(workers))
            results = pool.map(decode, paths, chunksize=max(1, len(todo) // (8 * workers)))
        else:
            results = map(decode, paths)
        for (rel, label), (pixels, notes, others) in zip(
            todo, progress(results, total=len(todo), desc="decoding"), strict=True
        ):
            count = counts[PET_CLASSES[label]]
            for note in notes:  # "grayscale", "CMYK", "corrupt EXIF", "unreadable (...)", other modes
                count[note.split(" (")[0]] = count.get(note.split(" (")[0], 0) + 1
            for message in others:  # any other warning reaches you, with the file's name
                warnings.warn(f"{rel}: {message}", stacklevel=2)
            if pixels is None:
                skipped.append((rel, notes[0]))
                continue
            images[len(files)], labels[len(files)] = pixels, label
            count["kept"] += 1
            files.append(rel)
    if len(files) < len(todo):  # unreadable files left empty slots at the end
        images, labels = images[: len(files)].copy(), labels[: len(files)].copy()
    return {"images": torch.from_numpy(images), "labels": torch.from_numpy(labels), "files": files,
            "counts": counts, "skipped": skipped}


def load_or_build_petimages(
    root: str | os.PathLike[str],
    cache: str | os.PathLike[str],
    size: int = 50,
    rebuild: bool = False,
    workers: int | None = None,
) -> dict[str, Any]:
    """Return ``build_petimages(root, size, workers)``, read from the file ``cache`` unless missing or ``rebuild``."""
    if Path(cache).is_file() and not rebuild:
        data = torch.load(cache, weights_only=True)
        if tuple(data["images"].shape[1:]) == (size, size):
            return {**data, "files": data["files"].splitlines()}
    data = build_petimages(root, size, workers)
    atomic_save({**data, "files": "\n".join(data["files"])}, cache)  # one string loads faster than 25,000
    return data


def make_quick_petimages(root: str | os.PathLike[str], per_class: int = 400, seed: int = 0) -> Path:
    """Write a deterministic cats-vs-dogs sample in the real layout under ``root``; return its ``PetImages`` folder.

    Cats have pointed ears and striped foreheads, dogs floppy ears and spots; size, place, brightness, clutter
    and noise vary, a fifth are grayscale. One file of every problem kind in ``PET_KINDS`` is added. A sample
    already there with the same settings is kept.
    """
    import shutil
    import struct

    from PIL import Image

    pets = Path(root) / "PetImages"
    stamp = f"quick PetImages v1: {per_class} per class, seed {seed}\n"
    if (pets / "done.txt").is_file() and (pets / "done.txt").read_text() == stamp:
        return pets
    shutil.rmtree(pets, ignore_errors=True)
    for name in PET_CLASSES:
        (pets / name).mkdir(parents=True)
    rng = np.random.default_rng(seed)
    noise = Image.fromarray(rng.normal(128, 60, (512, 512)).clip(0, 255).astype(np.uint8))
    # EXIF whose only tag points past the end of the block: Pillow warns while reading it
    bad_exif = b"Exif\0\0II*\0" + struct.pack("<IHHHII", 8, 1, 0x010E, 2, 40, 30) + bytes(26)
    for index in range(per_class):
        for label, name in enumerate(PET_CLASSES):
            image = _draw_pet(rng, dog=bool(label), noise=noise)
            path = pets / name / f"{index}.jpg"
            if (label, index) == (0, 3):
                image.save(path, quality=85, exif=bad_exif)
            elif (label, index) == (1, 5):
                image.convert("CMYK").save(path, quality=85)
            else:
                image.save(path, quality=85)
    (pets / "Cat" / "666.jpg").write_bytes(b"")  # the real set's two zero-byte files
    (pets / "Dog" / "11702.jpg").write_bytes(b"")
    (pets / "Cat" / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))  # Windows' thumbnails
    (pets / "Dog" / f"{per_class}.jpg").write_bytes(b"<html>this is a web page, not a JPEG</html>\n")
    (pets / "done.txt").write_text(stamp)
    return pets


def _draw_pet(rng: np.random.Generator, dog: bool, noise: Any) -> Any:
    """Return one generated PIL image of a cat or dog face among clutter (for ``make_quick_petimages``)."""
    from PIL import Image, ImageDraw

    width = int(rng.integers(120, 360))
    height = int(width * rng.uniform(0.6, 1.25))
    side = min(width, height)
    background = int(rng.integers(0, 256))
    fur = int((background + rng.integers(70, 186)) % 256)  # the animal always stands out from the background
    image = Image.new("L", (width, height), background)
    draw = ImageDraw.Draw(image)
    for _ in range(int(rng.integers(1, 6))):  # clutter that both classes share
        x, y, r = rng.uniform(0, width), rng.uniform(0, height), rng.uniform(0.05, 0.2) * side
        if rng.random() < 0.5:
            draw.ellipse((x - r, y - r, x + r, y + r), fill=int(rng.integers(0, 256)))
        else:
            draw.regular_polygon((x, y, r), 3, rotation=float(rng.uniform(0, 360)), fill=int(rng.integers(0, 256)))
    r = rng.uniform(0.15, 0.3) * side
    cx, cy = rng.uniform(0.3, 0.7) * width, rng.uniform(0.4, 0.65) * height
    for s in (-1, 1):
        if dog:  # floppy ears beside the head
            draw.ellipse((cx + s * 0.85 * r - 0.35 * r, cy - 0.6 * r, cx + s * 0.85 * r + 0.35 * r, cy + r), fill=fur)
        else:  # pointed ears on top
            tip = (cx + s * 0.85 * r, cy - 1.5 * r)
            draw.polygon([(cx + s * 0.95 * r, cy - 0.2 * r), (cx + s * 0.15 * r, cy - 0.75 * r), tip], fill=fur)
    draw.ellipse((cx - r, cy - 0.85 * r, cx + r, cy + 0.85 * r), fill=fur)
    mark = int(np.clip(fur + rng.choice([-1, 1]) * 45, 0, 255))  # faint markings, and the eyes
    if dog:  # spots
        for _ in range(4):
            x, y, e = cx + rng.uniform(-0.6, 0.6) * r, cy + rng.uniform(-0.5, 0.5) * r, rng.uniform(0.08, 0.15) * r
            draw.ellipse((x - e, y - e, x + e, y + e), fill=mark)
    else:  # stripes on the forehead
        for k in (-1, 0, 1):
            line = (cx + k * 0.25 * r, cy - 0.8 * r, cx + k * 0.2 * r, cy - 0.4 * r)
            draw.line(line, fill=mark, width=max(1, int(0.08 * r)))
    for s in (-1, 1):  # eyes
        e = 0.12 * r
        draw.ellipse((cx + s * 0.4 * r - e, cy - 0.15 * r - e, cx + s * 0.4 * r + e, cy - 0.15 * r + e), fill=mark)
    x0, y0 = int(rng.integers(0, 513 - width)), int(rng.integers(0, 513 - height))
    image = Image.blend(image, noise.crop((x0, y0, x0 + width, y0 + height)), float(rng.uniform(0.1, 0.35)))
    if rng.random() < 0.8:  # tint four in five into RGB; the rest stay grayscale
        rgb = np.asarray(image, dtype=np.float32)[..., None] * rng.uniform(0.6, 1.4, 3).astype(np.float32)
        image = Image.fromarray(rgb.clip(0, 255).astype(np.uint8))
    return image


# --------------------------------------------------------------------------------------------------
# Several processes with DistributedDataParallel (notebook 08, where the worker is shown in full)
# --------------------------------------------------------------------------------------------------


def ddp_toy_data(n: int = 512, seed: int = 0) -> torch.utils.data.TensorDataset:
    """Return a fixed classification set: n points in 20 dimensions, the class set by the sum of the first 10."""
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(n, 20, generator=generator)
    return torch.utils.data.TensorDataset(features, (features[:, :10].sum(dim=1) > 0).long())


def ddp_toy_model() -> nn.Sequential:
    """Return the small classifier that notebook 08 trains in several processes."""
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))


def free_port() -> int:
    """Return a TCP port on this machine that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ddp_worker(rank: int, world_size: int, port: int, out_dir: str, epochs: int = 2, batch_size: int = 16,
               lr: float = 0.1, seed: int = 0) -> None:
    """One DDP process: join the group, train ddp_toy_model on this rank's shard, save what it did to out_dir."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data import DataLoader, DistributedSampler

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    use_gpus = torch.cuda.device_count() >= world_size  # one GPU per process, or else CPU processes
    device = torch.device("cuda", rank) if use_gpus else torch.device("cpu")
    if use_gpus:
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(1)  # the processes share the CPU's cores
    dist.init_process_group("nccl" if use_gpus else "gloo", rank=rank, world_size=world_size)
    try:
        torch.manual_seed(seed)  # the same initial weights in every process
        model = ddp_toy_model().to(device)
        ddp_model = DistributedDataParallel(model, device_ids=[rank] if use_gpus else None)
        dataset = ddp_toy_data(seed=seed)
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        optimizer = torch.optim.SGD(ddp_model.parameters(), lr=lr)
        indices, losses = [], []
        for epoch in range(epochs):
            sampler.set_epoch(epoch)  # a new shuffle each epoch, the same one in every process
            indices.append(list(sampler))
            for inputs, targets in loader:
                loss = nn.functional.cross_entropy(ddp_model(inputs.to(device)), targets.to(device))
                optimizer.zero_grad()
                loss.backward()  # DDP averages the gradients of all processes here
                optimizer.step()
                losses.append(loss.detach())
        result = {"device": str(device), "backend": dist.get_backend(), "indices": indices,
                  "losses": torch.stack(losses).cpu(), "model": {k: v.cpu() for k, v in model.state_dict().items()}}
        atomic_save(result, Path(out_dir) / f"rank{rank}.pt")
    finally:
        dist.destroy_process_group()
