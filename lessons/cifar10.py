"""CIFAR-10 for notebook 06 and benchmarks/cifar_loop.py: the source's CNN, gradient clipping, real data (or
generated images of its shape when it cannot be had), the generated sample, batches, and a TensorBoard server.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils``; ``utils`` never imports it.
Its unit tests are in ``tests/test_cifar10.py``.
"""

from __future__ import annotations

import functools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

import utils
from utils import DATA_DIR, atomic_save, shown_path

MEAN: tuple[float, float, float] = (0.4914, 0.4822, 0.4465)
"""Per-channel mean of the CIFAR-10 training images scaled to [0, 1] (what ``Normalize`` subtracts)."""

STD: tuple[float, float, float] = (0.2470, 0.2435, 0.2616)
"""Per-channel standard deviation of the CIFAR-10 training images scaled to [0, 1]."""

ARCHIVE = "cifar-10-python.tar.gz"
"""The file torchvision downloads into ``data/`` (170 MB); its address is ``torchvision.datasets.CIFAR10.url``."""

PAGE = "https://www.cs.toronto.edu/~kriz/cifar.html"
"""The data set's home page (Alex Krizhevsky's), which describes CIFAR-10 and links the archive."""

GENERATED_CLASSES: tuple[str, ...] = (
    "h-stripes",
    "v-stripes",
    "diagonals",
    "checkers",
    "disk",
    "ring",
    "square",
    "cross",
    "triangle",
    "dots",
)
"""Class names of the generated quick-mode sample: one shape or texture per class, drawn in random colours."""


def cnn() -> nn.Sequential:
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


def clip_gradients_before_step(
    optimizer: torch.optim.Optimizer, max_norm: float
) -> RemovableHandle:
    """Make every ``optimizer.step()`` first scale all its gradients down to a total
    norm of at most ``max_norm``.

    The same as ``nn.utils.clip_grad_norm_(parameters, max_norm)`` between
    ``backward()`` and ``step()``, without a change to the training loop (notebook
    06's, ``utils.train_epoch``); it never waits for the GPU. The hook is not part of
    ``optimizer.state_dict()``: register it again on a reloaded optimizer.
    ``.remove()`` on the returned handle undoes it.
    """

    def clip(optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        parameters = [p for group in optimizer.param_groups for p in group["params"]]
        nn.utils.clip_grad_norm_(parameters, max_norm)

    return optimizer.register_step_pre_hook(clip)


def preprocess() -> Callable[[Any], torch.Tensor]:
    """Return the per-image transform: uint8 (32, 32, 3) image -> normalised float32 (3, 32, 32) tensor."""
    from torchvision import transforms

    return transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])


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


def damaged_files(root: str | os.PathLike[str]) -> list[Path]:
    """Return the CIFAR-10 files in ``root`` whose MD5 is not the one torchvision checks: the archive
    (``ARCHIVE``) and the unpacked batches and meta file (missing files are not listed)."""
    from torchvision.datasets import CIFAR10
    from torchvision.datasets.utils import check_integrity

    unpacked = [(Path(CIFAR10.base_folder) / name, md5) for name, md5 in CIFAR10.train_list + CIFAR10.test_list]
    unpacked.append((Path(CIFAR10.base_folder) / CIFAR10.meta["filename"], CIFAR10.meta["md5"]))
    files = [(Path(CIFAR10.filename), CIFAR10.tgz_md5), *unpacked]
    return [
        Path(root) / name
        for name, md5 in files
        if (Path(root) / name).is_file() and not check_integrity(str(Path(root) / name), md5)
    ]


UNAVAILABLE: dict[str, dict[str, str]] = {
    "en": {
        "message": "Real CIFAR-10 is not available: {failed}.\nTo get it: on a machine with internet, download {url} "
        "({archive}, 170 MB; the data set's page is {page}) and copy the file into {where} -- torchvision checks and "
        "unpacks it on the next run (an already unpacked {folder}/ folder there works too).",
        "download": "torchvision could not download it into {where} ({error}){removed}",
        "find": "torchvision could not find it in {where} ({error}){removed}",
        "removed": "; the incomplete or wrong download {removed} was removed",
        "damaged one": "{names} is damaged (not the MD5 torchvision checks): delete, then copy again",
        "damaged": "{names} are damaged (not the MD5 torchvision checks): delete, then copy again",
        "and": ", ",
    },
    "zh": {
        "message": "无法使用真实的CIFAR-10：{failed}\n获取方法：在能上网的机器上下载{url}（{archive}，170 MB；"
        "数据集的主页是{page}），把这个文件复制到{where}中。下次运行时torchvision会检查并解压它"
        "（那里已经解压好的{folder}/文件夹也可以）。",
        "download": "torchvision没能把它下载到{where}{removed}。torchvision的报错：\n{error}",
        "find": "torchvision没能在{where}中找到它{removed}。torchvision的报错：\n{error}",
        "removed": "；下载到一半或内容不对的{removed}已经删除",
        "damaged one": "{names}已经损坏（MD5与torchvision检查的不符）：请删除，然后重新复制。",
        "damaged": "{names}已经损坏（MD5与torchvision检查的不符）：请删除，然后重新复制。",
        "and": "、",
    },
}
"""The parts of ``unavailable_message`` in each language: the message around what failed, and what failed
(torchvision could not download or find the data, perhaps after removing a bad download; or files are damaged)."""


def unavailable_message(
    root: str | os.PathLike[str],
    error: BaseException,
    download: bool = True,
    lang: str | None = None,
    damaged: list[Path] | None = None,
    removed: Path | None = None,
) -> str:
    """Return what is said when real CIFAR-10 cannot be loaded: what failed (files found ``damaged``, by name; an
    interrupted or wrong download ``removed``), and where to get it and put it, in ``lang`` (``"en"`` or ``"zh"``;
    by default the edition's language, ``utils.set_language``). The words are ``UNAVAILABLE``'s."""
    words = UNAVAILABLE[lang or utils.language()]
    where = shown_path(root) + "/"
    names = [shown_path(path) for path in damaged or []]
    if names:
        failed = words["damaged one" if len(names) == 1 else "damaged"].format(names=words["and"].join(names))
    else:
        gone = words["removed"].format(removed=shown_path(removed)) if removed is not None else ""
        error_text = f"{type(error).__name__}: {error}"
        failed = words["download" if download else "find"].format(where=where, error=error_text, removed=gone)
    return words["message"].format(failed=failed, where=where, **_cifar10_files())


@functools.cache
def _cifar10_files() -> dict[str, str]:
    """Return the fixed parts of ``UNAVAILABLE["message"]``: the archive's address and name, the page, the folder."""
    from torchvision.datasets import CIFAR10

    return {"url": CIFAR10.url, "archive": ARCHIVE, "page": PAGE, "folder": CIFAR10.base_folder}


def load_real(
    train: bool, root: str | os.PathLike[str] = DATA_DIR, download: bool = True, lang: str | None = None
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Return ``(images, labels, class names)`` of the real CIFAR-10 train or test split, downloaded into ``root``.

    torchvision checks the MD5 of every file it reads, every time (the unpacked batches; the archive before it
    unpacks it), downloads the archive when they are missing or damaged, and unpacks it: an archive copied from any
    mirror is checked the same way. If that fails (offline, blocked, corrupt file) this raises ONE RuntimeError,
    ``unavailable_message`` in ``lang`` (by default the edition's language; notebook 06 shows this error), which
    names the damaged files it finds; an archive this call wrote that is not CIFAR-10's (a download cut off, or a
    wrong one) is deleted. It never switches to other data (``datasets`` decides what happens next).
    """
    import tarfile

    from torchvision.datasets import CIFAR10

    archive = Path(root) / CIFAR10.filename
    before = _stamp(archive)
    try:
        dataset = CIFAR10(root=str(root), train=train, download=download)
    except (OSError, RuntimeError, EOFError, tarfile.TarError) as error:
        damaged, removed = damaged_files(root), None
        if archive in damaged and _stamp(archive) != before:  # written by this call: nothing half-written is kept
            archive.unlink()
            damaged.remove(archive)
            removed = archive
        message = unavailable_message(root, error, download, lang, damaged, removed)
        raise RuntimeError(message) from None
    return dataset.data, np.asarray(dataset.targets, dtype=np.int64), list(dataset.classes)


def _stamp(path: Path) -> tuple[int, int] | None:
    """Return the size and modification time of the file at ``path`` (None if there is none): whether it changed."""
    return (path.stat().st_size, path.stat().st_mtime_ns) if path.is_file() else None


def draw_shapes(n_images: int, seed: int | tuple[int, ...] = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(images, labels)``: ``n_images`` generated uint8 (32, 32, 3) images of 10 balanced classes.

    Each class is a shape or texture (``GENERATED_CLASSES``) of random size, position and colours on a
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


def generated_sample(
    root: str | os.PathLike[str] = DATA_DIR, n_train: int = 3000, n_test: int = 1000, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(train_images, train_labels, test_images, test_labels)`` of the quick sample, cached in ``root``.

    The first call generates it and writes one tensor file under ``root/cifar10-quick/`` with
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
    train_images, train_labels = draw_shapes(n_train, (seed, 0))
    test_images, test_labels = draw_shapes(n_test, (seed, 1))
    arrays = (train_images, train_labels, test_images, test_labels)
    atomic_save({key: torch.from_numpy(array) for key, array in zip(keys, arrays, strict=True)}, path)
    return arrays


def datasets(
    quick: bool,
    root: str | os.PathLike[str] = DATA_DIR,
    transform: Callable[[Any], Any] | None = None,
    download: bool = True,
) -> tuple[CIFARArrays, CIFARArrays]:
    """Return ``(train_set, test_set)``: real CIFAR-10, or generated CIFAR-shaped images, and say which.

    Both are ``CIFARArrays`` with the same transform (default ``preprocess()``); ``is_generated`` tells the
    kinds apart. ``quick=True``: the generated quick sample (3,000 + 1,000). Full mode: real CIFAR-10 from
    ``root`` (downloaded there if ``download``). When it cannot be had, it prints a banner to stderr (what failed,
    where to get the archive and where to put it) and goes on with generated images of CIFAR-10's size and shape
    (50,000 + 10,000); with ``NB_STRICT_DATA=1`` it raises that RuntimeError instead. With ``NB_GENERATED_DATA=1``
    full mode uses the generated images at once, and says so. What it says is in the edition's language
    (``utils.set_language``).
    """

    transform = preprocess() if transform is None else transform
    generated_classes = list(GENERATED_CLASSES)
    if quick:
        train_images, train_labels, test_images, test_labels = generated_sample(root)
        classes = generated_classes
    elif utils.env_flag(utils.GENERATED_ENV):
        print(
            utils.localized(
                f"{utils.GENERATED_ENV} is set: generated CIFAR-shaped images (50,000 + 10,000), not CIFAR-10",
                f"已设置{utils.GENERATED_ENV}：使用生成的、与CIFAR-10形状相同的图像（50,000 + 10,000张），不是CIFAR-10",
            )
        )
        train_images, train_labels, test_images, test_labels = generated_sample(root, n_train=50_000, n_test=10_000)
        classes = generated_classes
    else:
        try:
            train_images, train_labels, classes = load_real(train=True, root=root, download=download)
            test_images, test_labels, _ = load_real(train=False, root=root, download=download)
        except RuntimeError as error:
            strict = utils.STRICT_DATA_ENV
            if utils.env_flag(strict):
                stops = utils.localized(
                    f"({strict}=1 is set, so this stops here.)", f"（已设置{strict}=1，所以到此停止。）"
                )
                raise RuntimeError(f"{error}\n{stops}") from None
            goes_on = utils.localized(
                "Going on with GENERATED images of the same shape (50,000 + 10,000 images of ten shapes, made once), "
                f"NOT CIFAR-10: every accuracy below is about them.\n(Set {strict}=1 to stop here instead.)",
                "改用形状相同的生成图像（GENERATED，十种形状共50,000 + 10,000张，只生成一次）继续运行，而不是CIFAR-10："
                f"下面的每个准确率都是在这些图像上得到的。\n（设置{strict}=1可以让它在这里停止。）",
            )
            utils.announce_generated_data(str(error), goes_on)
            train_images, train_labels, test_images, test_labels = generated_sample(root, n_train=50_000, n_test=10_000)
            classes = generated_classes
    return (
        CIFARArrays(train_images, train_labels, classes, transform),
        CIFARArrays(test_images, test_labels, classes, transform),
    )


def is_generated(dataset: CIFARArrays) -> bool:
    """Return True if ``dataset`` holds the project's generated shapes (its classes), False for real CIFAR-10."""
    return dataset.classes == list(GENERATED_CLASSES)


DATA_LABELS: dict[str, dict[str, str]] = {
    "generated": {"en": "generated shapes, not CIFAR-10", "zh": "生成的图形，不是CIFAR-10"},
    "real": {"en": "CIFAR-10", "zh": "CIFAR-10"},
}
"""What ``data_label`` says a dataset holds, per kind and language: the generated shapes (quick mode, or full mode
without the real data) or CIFAR-10."""


def data_label(dataset: CIFARArrays, lang: str | None = None) -> str:
    """Return what ``dataset`` holds, for outputs (``DATA_LABELS``): generated shapes or CIFAR-10, in ``lang``
    (``"en"`` or ``"zh"``; by default the edition's language, ``utils.set_language``)."""
    return DATA_LABELS["generated" if is_generated(dataset) else "real"][lang or utils.language()]


def device_batches(
    images: torch.Tensor,
    labels: torch.Tensor,
    batch_size: int,
    shuffle: bool = True,
    generator: torch.Generator | None = None,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Yield normalised ``(inputs, labels)`` batches cut from uint8 (N, 32, 32, 3) ``images`` on their device.

    Same values as ``preprocess()`` + a DataLoader, without per-image Python work or host-to-device
    copies: for a dataset that fits in GPU memory (CIFAR-10 is 150 MB as uint8) this keeps the GPU busy.
    """
    device = images.device
    if shuffle:
        order = torch.randperm(len(labels), generator=generator).to(device)
    else:
        order = torch.arange(len(labels), device=device)
    mean = torch.tensor(MEAN, device=device).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=device).view(1, 3, 1, 1)
    for start in range(0, len(order), batch_size):
        index = order[start : start + batch_size]
        # contiguous(): the DataLoader's NCHW memory layout, so that only the data loading differs
        inputs = images[index].permute(0, 3, 1, 2).contiguous().float().div(255)
        yield inputs.sub(mean).div(std), labels[index]


# ---- TensorBoard: this interpreter's own server ----------------------------------------------------------------------
_TENSORBOARDS: dict[int, tuple[subprocess.Popen[bytes], Any]] = {}
"""The TensorBoard processes ``start_tensorboard`` started, by port, each with the file that holds its output."""


def tensorboard_command() -> list[str]:
    """Return the command that runs this interpreter's own TensorBoard: the ``tensorboard`` script beside
    ``sys.executable`` (``Scripts/tensorboard.exe`` on Windows), else ``[sys.executable, "-m", "tensorboard.main"]``.

    A Jupyter kernel's PATH may lack its environment's ``bin`` folder, so a bare ``tensorboard`` may be another
    environment's, or none (the ``%tensorboard`` magic then says "Could not find `tensorboard`").
    """
    folder = Path(sys.executable).parent
    for script in (folder / "tensorboard", folder / "tensorboard.exe", folder / "Scripts" / "tensorboard.exe"):
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "tensorboard.main"]


def free_port() -> int:
    """Return a TCP port of localhost that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("localhost", 0))
        return int(probe.getsockname()[1])


def start_tensorboard(logdir: str | os.PathLike[str], timeout_s: float = 90.0) -> int:
    """Start this interpreter's TensorBoard (``tensorboard_command``) on ``logdir`` at a free port of localhost and
    return the port once the server answers; stop it with ``stop_tensorboard(port)``.

    Where the command is a script, it also becomes ``TENSORBOARD_BINARY``, the variable the ``%tensorboard`` magic
    reads, so that the magic finds the same TensorBoard. Raises RuntimeError, with TensorBoard's own output, if the
    server exits or does not answer within ``timeout_s`` seconds (it is then stopped).
    """
    import urllib.request

    command = tensorboard_command()
    if len(command) == 1:
        os.environ["TENSORBOARD_BINARY"] = command[0]
    port = free_port()
    output = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [*command, "--logdir", str(logdir), "--host", "localhost", "--port", str(port)],
        stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    _TENSORBOARDS[port] = (process, output)
    deadline = time.monotonic() + timeout_s
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://localhost:{port}/data/logdir", timeout=2) as answer:
                if answer.status == 200:
                    return port
        except OSError:  # not listening yet
            time.sleep(0.25)
    exit_code = process.poll()
    output.seek(0)
    said = output.read().decode(errors="replace").strip()[-2000:]
    stop_tensorboard(port)
    why = f"exited with code {exit_code}" if exit_code is not None else f"did not answer within {timeout_s:g} s"
    raise RuntimeError(f"TensorBoard ({' '.join(command)}) {why}:\n{said}")


def stop_tensorboard(port: int, timeout_s: float = 10.0) -> bool:
    """Stop the TensorBoard that ``start_tensorboard`` started at ``port`` (Ctrl+C, then a kill after ``timeout_s``);
    return True if one was running there, False if none was (stopping twice is harmless)."""
    process, output = _TENSORBOARDS.pop(port, (None, None))
    if process is None:
        return False
    if process.poll() is None:
        process.send_signal(signal.SIGINT if os.name == "posix" else signal.SIGTERM)  # lets it remove its info file
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    output.close()
    return True


def running_tensorboards() -> list[int]:
    """Return the ports of the TensorBoard servers that ``start_tensorboard`` started and that still run."""
    return sorted(port for port, (process, _) in _TENSORBOARDS.items() if process.poll() is None)
