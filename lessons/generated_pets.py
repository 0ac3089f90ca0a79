"""Generated cats and dogs in PetImages' layout: notebook 07's quick-mode sample and a full-size stand-in for the
real photos where they cannot be downloaded.

A cat has pointed ears and a striped forehead, a dog floppy ears and spots, drawn at a random size and place among
clutter that both classes share, so that a network must learn the animals. ``petimages.data_label`` tells the
sets apart by the ``done.txt`` each one writes last. Its unit tests are in ``tests/test_generated_pets.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from lessons.petimages import CLASSES


def make_quick(root: str | os.PathLike[str], per_class: int = 400, seed: int = 0) -> Path:
    """Write a deterministic cats-vs-dogs sample in the real layout under ``root``; return its ``PetImages`` folder.

    Cats have pointed ears and striped foreheads, dogs floppy ears and spots; size, place, brightness, clutter
    and noise vary, a fifth are grayscale. With ``per_class`` >= 6, one file of every kind in ``petimages.KINDS`` is
    among them (``Dog/2.jpg`` lacks the last quarter of its bytes) or added. A sample already there with the
    same settings is kept.
    """
    import io
    import struct

    from PIL import Image

    pets = Path(root) / "PetImages"
    stamp = f"quick PetImages v2: {per_class} per class, seed {seed}\n"
    if _already_written(pets, stamp):
        return pets
    rng = np.random.default_rng(seed)
    noise = Image.fromarray(rng.normal(128, 60, (512, 512)).clip(0, 255).astype(np.uint8))
    # EXIF whose only tag points past the end of the block: Pillow warns while reading it
    bad_exif = b"Exif\0\0II*\0" + struct.pack("<IHHHII", 8, 1, 0x010E, 2, 40, 30) + bytes(26)
    for index in range(per_class):
        for label, name in enumerate(CLASSES):
            image = _draw_pet(rng, dog=bool(label), noise=noise)
            path = pets / name / f"{index}.jpg"
            if (label, index) == (0, 3):
                image.save(path, quality=85, exif=bad_exif)
            elif (label, index) == (1, 5):
                image.convert("CMYK").save(path, quality=85)
            elif (label, index) == (1, 2):  # cut off, as by an interrupted copy
                buffer = io.BytesIO()
                image.save(buffer, "JPEG", quality=85)
                path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) * 3 // 4])
            else:
                image.save(path, quality=85)
    (pets / "Cat" / "666.jpg").write_bytes(b"")  # the real set's two zero-byte files
    (pets / "Dog" / "11702.jpg").write_bytes(b"")
    (pets / "Cat" / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))  # Windows' thumbnails
    (pets / "Dog" / f"{per_class}.jpg").write_bytes(b"<html>this is a web page, not a JPEG</html>\n")
    (pets / "done.txt").write_text(stamp)
    return pets


def _already_written(pets: Path, stamp: str) -> bool:
    """True if ``pets/done.txt`` holds ``stamp``; otherwise empty ``pets`` and create its class folders."""
    import shutil

    if (pets / "done.txt").is_file() and (pets / "done.txt").read_text() == stamp:
        return True
    shutil.rmtree(pets, ignore_errors=True)
    for name in CLASSES:
        (pets / name).mkdir(parents=True)
    return False


def make_generated(
    root: str | os.PathLike[str], per_class: int = 12_500, seed: int = 0, workers: int | None = None
) -> Path:
    """Write a PetImages-like set of the real one's size under ``root``; return its ``PetImages`` folder.

    For full mode on a machine that cannot download the real photos (``NB_GENERATED_DATA=1``): ``per_class``
    JPEGs per class drawn like the quick sample's, but 300-500 pixels wide like the real photos, written by
    ``workers`` processes (default: one per core). A set already there with the same settings is kept.
    """
    from concurrent.futures import ProcessPoolExecutor

    pets = Path(root) / "PetImages"
    stamp = f"generated PetImages v1: {per_class} per class, seed {seed}\n"
    if _already_written(pets, stamp):
        return pets
    chunks = [(str(pets), start, min(start + 250, per_class), seed) for start in range(0, per_class, 250)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_write_generated_chunk, chunks))
    (pets / "done.txt").write_text(stamp)
    return pets


def _write_generated_chunk(chunk: tuple[str, int, int, int]) -> None:
    """Write images ``start`` to ``stop`` of both classes (for ``make_generated``; one process each)."""
    from PIL import Image

    pets, start, stop, seed = chunk
    rng = np.random.default_rng((seed, start))
    noise = Image.fromarray(rng.normal(128, 60, (640, 640)).clip(0, 255).astype(np.uint8))
    for index in range(start, stop):
        for label, name in enumerate(CLASSES):
            image = _draw_pet(rng, dog=bool(label), noise=noise, widths=(300, 501))
            image.save(f"{pets}/{name}/{index}.jpg", quality=85)


def _draw_pet(rng: np.random.Generator, dog: bool, noise: Any, widths: tuple[int, int] = (120, 360)) -> Any:
    """Return one generated PIL image of a cat or dog face among clutter, ``widths`` pixels wide (low, high)."""
    from PIL import Image, ImageDraw

    width = int(rng.integers(*widths))
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
    x0, y0 = int(rng.integers(0, noise.width + 1 - width)), int(rng.integers(0, noise.height + 1 - height))
    image = Image.blend(image, noise.crop((x0, y0, x0 + width, y0 + height)), float(rng.uniform(0.1, 0.35)))
    if rng.random() < 0.8:  # tint four in five into RGB; the rest stay grayscale
        rgb = np.asarray(image, dtype=np.float32)[..., None] * rng.uniform(0.6, 1.4, 3).astype(np.float32)
        image = Image.fromarray(rgb.clip(0, 255).astype(np.uint8))
    return image
