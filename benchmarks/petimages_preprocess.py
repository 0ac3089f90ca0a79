"""Folders of JPEGs -> a ready training tensor: the source's OpenCV pipeline against notebook 07's, in one run.

    .venv/bin/python benchmarks/petimages_preprocess.py                 # 600 generated photos, best of 5
    .venv/bin/python benchmarks/petimages_preprocess.py --images 2000   # more images, steadier numbers
    .venv/bin/python benchmarks/petimages_preprocess.py --draft         # also: what PIL's draft mode saves
    .venv/bin/python benchmarks/petimages_preprocess.py --root data/petimages/PetImages   # the real set

It writes ``--images`` photo-like JPEGs (about 500x375 like the real set, every tenth grayscale, about 30-40 KB
each) in the PetImages layout into a temporary folder, reads them all once (so every pipeline finds them in
the page cache, as on a local disk), then times the whole path from folders to the tensor each training loop
takes: for the source a float tensor in [0, 1] and one-hot labels, for notebook 07 the uint8 pixels and class
indices (its model converts each batch to float on the device, where that costs next to nothing):

- ``source``: the source's code. An OpenCV loop (``cv2.imread`` grayscale, ``cv2.resize`` to 50x50, a
  one-hot label from ``np.eye``, errors swallowed by ``except``), ``np.random.shuffle``, ``np.save`` of the
  ragged list (today's NumPy needs ``dtype=object`` for that), ``np.load(allow_pickle=True)`` and
  ``torch.Tensor(list of arrays)``, the conversion torch warns is extremely slow.
- ``source, 2nd run``: what the source does once the .npy exists: ``np.load`` + ``torch.Tensor(list)``.
- ``ours, build``: ``petimages.load_or_build(rebuild=True)``: scan and count problems, decode with
  PIL's draft mode on every core into one preallocated array, save one tensor file.
- ``ours, cache``: the same call once the tensor file exists: a scan of the folders (every entry's name, size
  and modification time, to check that the cache is not out of date), then ``torch.load`` of that file.

``--draft`` adds two rows that show what PIL's draft mode saves, both building in one process (so that the
cores play no part): ``ours, 1 process`` as ``ours, build`` with ``workers=1``, and ``ours, 1 process, no
draft`` the same with JPEG's ``draft`` made a no-op, so that every JPEG is decoded at full size and in colour
before it is made gray and 50x50.

Goals (2-core CPU): ``ours, build`` >= 2x faster than ``source``; ``ours, cache`` >= 100x faster than
``ours, build``. OpenCV is needed only for the ``source`` rows (``pip install opencv-python-headless``, not in
requirements.txt); without it they are skipped with a message.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import utils  # noqa: E402
from lessons import petimages  # noqa: E402

SIZE = 50


def make_photos(root: Path, n_images: int, seed: int = 0) -> Path:
    """Write ``n_images`` photo-like JPEGs (half Cat, half Dog) under ``root/PetImages``; return that folder."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    # smooth structure at three scales plus grain, cut from shared tiles: compresses and decodes like photos
    tile = np.zeros((768, 1024, 3), np.float32)
    for cells, amplitude in [(4, 70.0), (16, 35.0), (64, 18.0)]:
        coarse = rng.normal(0, amplitude, (cells * 3 // 4 + 2, cells + 2, 3)).astype(np.float32)
        for channel in range(3):
            layer = Image.fromarray(coarse[..., channel]).resize((1024, 768), Image.Resampling.BICUBIC)
            tile[..., channel] += np.asarray(layer)
    grain = rng.normal(0, 5, (768, 1024, 3)).astype(np.float32)
    pets = root / "PetImages"
    for index in range(n_images):
        name = petimages.CLASSES[index % 2]
        (pets / name).mkdir(parents=True, exist_ok=True)
        width = int(rng.integers(400, 501))
        height = int(rng.integers(300, 376))
        top, left = int(rng.integers(0, 768 - height)), int(rng.integers(0, 1024 - width))
        crop = tile[top : top + height, left : left + width] * rng.uniform(0.6, 1.4, 3).astype(np.float32)
        crop += grain[:height, :width] + rng.uniform(60, 200)
        image = Image.fromarray(crop.clip(0, 255).astype(np.uint8))
        if index % 10 == 0:
            image = image.convert("L")
        image.save(pets / name / f"{index // 2}.jpg", quality=90)
    return pets


def source_pipeline(pets: Path, workdir: Path) -> tuple[torch.Tensor, torch.Tensor]:
    """The source's make_training_data, np.save, then its loading code; return (X, y) as the source had them."""
    import cv2

    labels = {os.path.join(pets, "Cat"): 0, os.path.join(pets, "Dog"): 1}
    training_data = []
    for label in labels:
        for f in os.listdir(label):
            if "jpg" in f:
                try:
                    path = os.path.join(label, f)
                    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
                    img = cv2.resize(img, (SIZE, SIZE))
                    training_data.append([np.array(img), np.eye(2)[labels[label]]])
                except Exception:  # the source: a bare `except: pass`
                    pass
    np.random.shuffle(training_data)
    np.save(workdir / "training_data.npy", np.array(training_data, dtype=object))
    return source_second_run(workdir)


def source_second_run(workdir: Path) -> tuple[torch.Tensor, torch.Tensor]:
    """The source's loading code once training_data.npy exists: np.load, torch.Tensor(list), / 255."""
    training_data = np.load(workdir / "training_data.npy", allow_pickle=True)
    with warnings.catch_warnings():  # torch warns (once) that this is extremely slow: that is what we measure
        warnings.filterwarnings("ignore", message="Creating a tensor from a list of numpy.ndarrays")
        X = torch.Tensor([i[0] for i in training_data]).view(-1, SIZE, SIZE)
    X = X / 255.0
    y = torch.Tensor([i[1] for i in training_data])
    return X, y


def ours(pets: Path, cache: Path, rebuild: bool, workers: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Notebook 07's path: the cached uint8 tensor (N, 1, 50, 50) and labels, built first when ``rebuild``."""
    data = petimages.load_or_build(pets, cache, SIZE, rebuild=rebuild, workers=workers)
    return data["images"].unsqueeze(1), data["labels"]  # the notebook's model scales pixels on the device


@contextlib.contextmanager
def draft_off() -> Iterator[None]:
    """Make a JPEG's ``draft`` do nothing in this process until the block ends (for the ``--draft`` rows)."""
    from PIL import JpegImagePlugin

    saved = JpegImagePlugin.JpegImageFile.draft
    JpegImagePlugin.JpegImageFile.draft = lambda self, mode, size: None  # decode at full size, in stored colours
    try:
        yield
    finally:
        JpegImagePlugin.JpegImageFile.draft = saved


def ours_without_draft(pets: Path, cache: Path) -> tuple[torch.Tensor, torch.Tensor]:
    """``ours`` in one process with PIL's draft mode switched off."""
    with draft_off():
        return ours(pets, cache, rebuild=True, workers=1)


def best_seconds(pipelines: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Return the shortest of ``repeat`` wall times of each pipeline, the pipelines taking turns in each round.

    Taking turns exposes every pipeline to the same background load; the shortest time is the least disturbed.
    """
    times: dict[str, list[float]] = {name: [] for name in pipelines}
    for _ in range(repeat):
        for name, fn in pipelines.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark, print a table and return the best seconds per pipeline."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=600, help="generated photos (half cats, half dogs)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per pipeline (the best is reported)")
    parser.add_argument("--workers", type=int, default=None, help="decoding processes (default: every core)")
    parser.add_argument("--root", type=Path, default=None, help="an existing PetImages folder instead")
    parser.add_argument("--skip-source", action="store_true", help="time only notebook 07's pipeline")
    parser.add_argument(
        "--draft", action="store_true", help="also time our build in one process with and without PIL's draft mode"
    )
    args = parser.parse_args(argv)
    try:
        import cv2  # noqa: F401
    except ImportError:
        if not args.skip_source:
            print(
                "OpenCV is not installed, so the source's pipeline is skipped. For the comparison run\n"
                "    .venv/bin/python -m pip install opencv-python-headless\n"
                "(for this benchmark only: the lesson does not need OpenCV)."
            )
        args.skip_source = True

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        pets = args.root or make_photos(workdir, args.images)
        n_files = sum(1 for _ in pets.rglob("*.jpg"))
        for path in pets.rglob("*.jpg"):  # the page cache now holds every file, for every pipeline alike
            path.read_bytes()
        cache = workdir / "petimages_50.pt"
        pipelines: dict[str, Callable[[], object]] = {}
        if not args.skip_source:
            pipelines["source"] = lambda: source_pipeline(pets, workdir)
            pipelines["source, 2nd run"] = lambda: source_second_run(workdir)
        pipelines["ours, build"] = lambda: ours(pets, cache, rebuild=True, workers=args.workers)
        pipelines["ours, cache"] = lambda: ours(pets, cache, rebuild=False)
        if args.draft:
            one_cache = workdir / "petimages_50_one_process.pt"
            pipelines["ours, 1 process"] = lambda: ours(pets, one_cache, rebuild=True, workers=1)
            pipelines["ours, 1 process, no draft"] = lambda: ours_without_draft(pets, one_cache)
        seconds = best_seconds(pipelines, args.repeat)
        X, y = ours(pets, cache, rebuild=False)
        assert X.shape == (len(y), 1, SIZE, SIZE) and X.dtype == torch.uint8

    cores = utils.cpu_cores()
    print(f"{n_files} JPEGs -> tensor {tuple(X.shape)}; {cores} cores; best of {args.repeat} runs")
    print(f"{'pipeline':26}{'seconds':>10}{'images/s':>11}")
    for name, value in seconds.items():
        print(f"{name:26}{value:10.3f}{n_files / value:11,.0f}")
    build, load = seconds["ours, build"], seconds["ours, cache"]
    if "source" in seconds:
        print(f"ours, build vs source: {seconds['source'] / build:.1f}x faster (goal >= 2x)")
    print(f"ours, cache vs ours, build: {build / load:.0f}x faster (goal >= 100x)")
    if args.draft:
        one, no_draft = seconds["ours, 1 process"], seconds["ours, 1 process, no draft"]
        print(f"draft mode, in one process: {no_draft / one:.1f}x as fast as without it")
        print(f"every core ({cores}) against one process: {one / build:.1f}x as fast")
        if "source" in seconds:
            print(f"ours in one process without draft mode vs source: {seconds['source'] / no_draft:.1f}x as fast")
    return seconds


if __name__ == "__main__":
    main()
