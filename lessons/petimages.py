"""PetImages (dogs vs cats) for notebook 07 and benchmarks/petimages_preprocess.py: download, clean, decode, cache.

Lesson module (see ``lessons/__init__.py`` for where code lives): it imports ``utils``; ``utils`` never imports it.
Its unit tests are in ``tests/test_petimages.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

import utils
from utils import DATA_DIR, atomic_save, shown_path

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

            bar = tqdm(total=expected_bytes, initial=have, unit="B", unit_scale=True, desc=path.name,
                       disable=utils.is_quick_mode())
            with open(part, "ab" if have else "wb") as file, bar:
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
        for member in utils.progress(members, desc="extracting"):
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
            f"and run again; or use the generated sample instead: quick mode, {utils.QUICK_ENV}=1."
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
            todo, utils.progress(results, total=len(todo), desc="decoding"), strict=True
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
