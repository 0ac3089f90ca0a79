"""CIFAR-10 for notebook 06 and benchmarks/cifar_loop.py: the source's CNN, real data, the generated sample, batches.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils``; ``utils`` never imports it.
Its unit tests are in ``tests/test_cifar10.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import utils
from utils import DATA_DIR, atomic_save, shown_path

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
    and DataLoader code. It lives in this module, not in a notebook, because DataLoader workers started with
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
        f"  2. Or use the generated sample instead: quick mode, {utils.QUICK_ENV}=1 in the environment before "
        f"starting Jupyter (or %env {utils.QUICK_ENV}=1 in the first cell)."
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
    ``root`` and raises one clear error when it cannot; it never falls back to the sample on its own. Only when
    ``NB_GENERATED_DATA=1`` is set does full mode use a generated set of CIFAR-10's size (50,000 + 10,000), and
    it says so.
    """
    transform = cifar10_transform() if transform is None else transform
    if quick:
        train_images, train_labels, test_images, test_labels = quick_cifar10(root)
        classes: list[str] = list(QUICK_CIFAR10_CLASSES)
    elif utils.env_flag(utils.GENERATED_ENV):
        print(f"{utils.GENERATED_ENV} is set: generated CIFAR-shaped images (50,000 + 10,000), not CIFAR-10")
        train_images, train_labels, test_images, test_labels = quick_cifar10(root, n_train=50_000, n_test=10_000)
        classes = list(QUICK_CIFAR10_CLASSES)
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
