"""Unit tests for lessons/petimages.py (notebook 07) and a smoke test of its benchmark."""

from __future__ import annotations

import ast
import errno
import hashlib
import http.client
import http.server
import importlib.util
import os
import re
import socket
import struct
import sys
import threading
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from fake_downloads import fake_urlopen, make_zip
from PIL import Image, ImageFile, ImageOps

import utils
from lessons import generated_pets, petimages

ROOT = Path(__file__).resolve().parents[1]
# EXIF whose only tag points past the end of its block: reading it makes Pillow warn (as make_quick does)
BAD_EXIF = b"Exif\0\0II*\0" + struct.pack("<IHHHII", 8, 1, 0x010E, 2, 40, 30) + bytes(26)


def _photo(path: Path, mode: str = "RGB", size: tuple[int, int] = (96, 72), **save: Any) -> Path:
    """Write a small JPEG with a left-to-right gradient in ``mode``; return its path."""
    gradient = np.tile(np.linspace(0, 255, size[0], dtype=np.uint8), (size[1], 1))
    image = Image.fromarray(gradient).convert(mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, "JPEG", **save)
    return path


def _pet_folder(root: Path) -> Path:
    """Write a PetImages folder with one file of every problem kind; return it."""
    pets = root / "PetImages"
    for i in range(3):
        _photo(pets / "Cat" / f"{i}.jpg")
    _photo(pets / "Cat" / "3.jpg", mode="L")
    _photo(pets / "Cat" / "4.jpg", exif=BAD_EXIF)
    (pets / "Cat" / "666.jpg").write_bytes(b"")
    (pets / "Cat" / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0" + bytes(60))
    for i in range(2):
        _photo(pets / "Dog" / f"{i}.jpg", size=(40, 120))
    _photo(pets / "Dog" / "2.jpg", mode="CMYK")
    (pets / "Dog" / "3.jpg").write_bytes(b"<html>not a JPEG</html>")
    (pets / "Dog" / "11702.jpg").write_bytes(b"")
    whole = _photo(pets / "Dog" / "4.jpg").read_bytes()
    (pets / "Dog" / "4.jpg").write_bytes(whole[: len(whole) * 3 // 4])  # truncated
    return pets


# ---- one file ----------------------------------------------------------------------------------------


def test_load_petimage_gives_small_grayscale_pixels(tmp_path: Path) -> None:
    path = _photo(tmp_path / "a.jpg", size=(500, 375))
    pixels, notes, others = petimages.load_photo(path)
    assert pixels is not None and pixels.shape == (50, 50) and pixels.dtype == np.uint8
    assert pixels.flags.writeable and notes == {} and others == []
    assert pixels[:, :5].mean() < 40 < 215 < pixels[:, -5:].mean()  # the gradient survived
    assert petimages.load_photo(path, size=32)[0].shape == (32, 32)


@pytest.mark.parametrize(("mode", "note"), [("L", "grayscale"), ("CMYK", "CMYK")])
def test_grayscale_and_cmyk_are_converted_not_dropped(mode: str, note: str, tmp_path: Path) -> None:
    pixels, notes, _ = petimages.load_photo(_photo(tmp_path / "a.jpg", mode=mode))
    assert pixels is not None and pixels.shape == (50, 50) and notes == {note: mode}


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    image = Image.new("L", (100, 50), 255)
    image.paste(0, (0, 0, 50, 50))  # left half black
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 degrees clockwise to display": the left half ends up on top
    image.save(tmp_path / "turned.jpg", exif=exif)
    pixels, _, _ = petimages.load_photo(tmp_path / "turned.jpg")
    assert pixels[:20].mean() < 30 and pixels[-20:].mean() > 225


def test_corrupt_exif_is_counted_and_its_warning_filtered(tmp_path: Path) -> None:
    path = _photo(tmp_path / "a.jpg", exif=BAD_EXIF)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with pytest.warns(UserWarning), Image.open(path) as image:  # Pillow itself warns reading this EXIF ...
            ImageOps.exif_transpose(image)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ... but load_photo lets nothing escape
        pixels, notes, others = petimages.load_photo(path)
    assert pixels is not None and list(notes) == ["corrupt EXIF"] and others == []


def test_warnings_are_filtered_by_message_not_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _photo(tmp_path / "a.jpg")
    messages = ["Possibly corrupt EXIF data.  Expecting to read 32 bytes but only got 0. Skipping tag 270"]

    def warning_transpose(image: Image.Image, **kwargs: Any) -> None:
        for message in messages:
            warnings.warn(message, UserWarning, stacklevel=2)

    monkeypatch.setattr(ImageOps, "exif_transpose", warning_transpose)
    assert petimages.load_photo(path)[1:] == ({"corrupt EXIF": messages[0]}, [])
    messages.append("something else entirely")
    other = "UserWarning: something else entirely"
    assert petimages.load_photo(path)[1:] == ({"corrupt EXIF": messages[0]}, [other])
    messages.pop(0)
    assert petimages.load_photo(path)[1:] == ({}, [other])


@pytest.mark.parametrize("content", [b"<html>a web page</html>", b"\xff\xd8\xff\xe0" + bytes(20)])
def test_unreadable_files_give_none_and_a_structured_reason(content: bytes, tmp_path: Path) -> None:
    (tmp_path / "bad.jpg").write_bytes(content)
    pixels, notes, others = petimages.load_photo(tmp_path / "bad.jpg")
    assert pixels is None and notes == {"unreadable": "UnidentifiedImageError"} and others == []  # nothing to parse
    assert petimages.load_photo(tmp_path / "missing.jpg")[1] == {"unreadable": "FileNotFoundError"}


def test_no_permission_is_a_reason_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _photo(tmp_path / "locked.jpg")
    real_open = os.open

    def locked_open(name: Any, flags: int, *args: Any) -> int:  # what chmod 000 does for anyone but root
        if Path(name) == path:
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, flags, *args)

    monkeypatch.setattr(os, "open", locked_open)
    assert petimages.load_photo(path)[:2] == (None, {"unreadable": "PermissionError"})


# ---- image modes: the right brightness, or skipped with a reason ------------------------------------------

MID = 128


def _mid_gray(mode: str) -> Image.Image:
    """Return a 64x48 image in ``mode`` that a viewer shows as mid-gray (for I;16: 128 of 255 as 16 bits)."""
    if mode.startswith("I;16"):
        return Image.frombytes(mode, (64, 48), np.full((48, 64), MID * 257, "<u2" if mode == "I;16" else ">u2"))
    if mode == "I":
        return Image.fromarray(np.full((48, 64), MID * 257, np.int32))  # 16-bit data, as old Pillow read PNGs
    if mode == "F":
        return Image.fromarray(np.full((48, 64), MID / 255, np.float32))  # floats in [0, 1], as most float TIFFs
    gray = Image.new("L", (64, 48), MID)
    return gray.convert("P").convert("PA") if mode == "PA" else gray.convert(mode)


@pytest.mark.parametrize(
    ("mode", "fmt"),
    [
        ("1", "PNG"),
        ("L", "PNG"),
        ("LA", "PNG"),
        ("P", "PNG"),
        ("PA", "TIFF"),
        ("RGB", "PNG"),
        ("RGBA", "PNG"),
        ("CMYK", "TIFF"),
        ("CMYK", "JPEG"),
        ("I;16", "PNG"),
        ("I;16", "TIFF"),
        ("I;16B", "TIFF"),
    ],
)
def test_every_mode_comes_out_with_its_brightness(mode: str, fmt: str, tmp_path: Path) -> None:
    path = tmp_path / f"gray.{fmt.lower()}"
    _mid_gray(mode).save(path, fmt)
    with Image.open(path) as stored:
        assert stored.mode == mode  # the file really holds this mode
    pixels, notes, others = petimages.load_photo(path)
    assert pixels is not None and abs(pixels.mean() - MID) < 3, pixels.mean()  # 16-bit: not clipped to white
    assert list(notes) == ([] if mode == "RGB" else ["grayscale" if mode == "L" else mode]) and others == []


@pytest.mark.parametrize("mode", ["I", "F"])
def test_32_bit_modes_are_skipped_with_a_reason(mode: str, tmp_path: Path) -> None:
    _mid_gray(mode).save(tmp_path / "gray.tiff")
    with Image.open(tmp_path / "gray.tiff") as stored:
        assert stored.mode == mode and abs(stored.convert("L").getpixel((0, 0)) - MID) > 100  # Pillow clips
    pixels, notes, _ = petimages.load_photo(tmp_path / "gray.tiff")
    assert pixels is None and list(notes) == ["unsupported mode"] and notes["unsupported mode"].startswith(mode)


def test_modes_pillow_cannot_turn_gray_are_skipped_with_a_reason(tmp_path: Path) -> None:
    Image.new("L", (64, 48), MID).convert("LAB").save(tmp_path / "lab.tiff")
    assert petimages.load_photo(tmp_path / "lab.tiff")[:2] == (None, {"unsupported mode": "LAB"})


def test_transparent_parts_come_out_as_on_a_white_page(tmp_path: Path) -> None:
    image = Image.new("RGBA", (64, 48), (0, 0, 0, 255))
    image.paste((0, 0, 0, 0), (0, 0, 32, 48))  # left half: transparent (its hidden colour is black)
    image.save(tmp_path / "cutout.png")
    pixels, notes, _ = petimages.load_photo(tmp_path / "cutout.png")
    assert pixels[:, :20].min() == 255 and pixels[:, -20:].max() == 0 and list(notes) == ["RGBA"]


# ---- truncated JPEGs: kept as libjpeg (OpenCV) decodes them, or skipped on request ------------------------------


@pytest.mark.parametrize("missing", [2, 100, "quarter"])
def test_truncated_jpeg_is_kept_like_libjpeg_and_counted(missing: int | str, tmp_path: Path) -> None:
    data = _photo(tmp_path / "a.jpg", size=(400, 300)).read_bytes()
    cut = data[: len(data) * 3 // 4] if missing == "quarter" else data[:-missing]
    (tmp_path / "cut.jpg").write_bytes(cut)
    (tmp_path / "fixed.jpg").write_bytes(cut + b"\xff\xd9")  # what libjpeg reads: a fake end-of-image marker
    pixels, notes, others = petimages.load_photo(tmp_path / "cut.jpg")
    assert np.array_equal(pixels, petimages.load_photo(tmp_path / "fixed.jpg")[0])
    assert list(notes) == ["truncated"] and others == []
    if missing == 2:  # only the end marker is missing: every pixel is there
        assert np.array_equal(pixels, petimages.load_photo(tmp_path / "a.jpg")[0])
    if missing == "quarter":  # the bottom rows are lost: they come out gray
        assert np.abs(pixels[-5:].astype(int) - 128).max() <= 2
    strict = petimages.load_photo(tmp_path / "cut.jpg", keep_truncated=False)
    assert strict[:2] == (None, {"unreadable": "truncated"})
    assert ImageFile.LOAD_TRUNCATED_IMAGES is False  # the user's process-wide setting is left alone


def test_truncated_png_is_not_patched(tmp_path: Path) -> None:
    Image.new("L", (64, 48), MID).save(tmp_path / "a.png")
    data = (tmp_path / "a.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(data[: len(data) // 2])
    pixels, notes, _ = petimages.load_photo(tmp_path / "cut.png")
    assert pixels is None and list(notes) == ["unreadable"]


# ---- a folder --------------------------------------------------------------------------------------------

# Python >= 3.12 warns when a process with threads forks (the process pool's default start on Linux before 3.14);
# the workers only run PIL code, so the warning does not apply to them
FORK_WARNING = "ignore:.*use of fork\\(\\) may lead to deadlocks:DeprecationWarning"

EXPECTED_COUNTS = {
    "Cat": {
        "kept": 5,
        "grayscale": 1,
        "CMYK": 0,
        "corrupt EXIF": 1,
        "truncated": 0,
        "zero-byte": 1,
        "not an image": 1,
        "unreadable": 0,
    },
    "Dog": {
        "kept": 4,
        "grayscale": 0,
        "CMYK": 1,
        "corrupt EXIF": 0,
        "truncated": 1,
        "zero-byte": 1,
        "not an image": 0,
        "unreadable": 1,
    },
}


def _check_every_entry_is_counted_once(data: dict[str, Any], pets: Path) -> None:
    """Assert the cleaning report adds up: per class, kept + every skip kind == the entries in its folder."""
    for name in petimages.CLASSES:
        counts = data["counts"][name]
        assert set(counts) >= set(petimages.KINDS)
        counted = counts["kept"] + sum(counts.get(kind, 0) for kind in petimages.SKIP_KINDS)
        assert counted == len(os.listdir(pets / name)), (name, counts)
        assert counts["kept"] == sum(file.startswith(f"{name}/") for file in data["files"])
    assert len(data["files"]) + len(data["skipped"]) == sum(len(os.listdir(pets / n)) for n in petimages.CLASSES)
    assert all(kind in petimages.SKIP_KINDS for _, kind, _ in data["skipped"])


@pytest.mark.filterwarnings(FORK_WARNING)
def test_build_on_the_quick_sample_counts_every_entry_once(tmp_path: Path) -> None:
    pets = generated_pets.make_quick(tmp_path, per_class=20)
    data = petimages.build(pets, workers=1)
    _check_every_entry_is_counted_once(data, pets)
    strict = petimages.build(pets, workers=1, keep_truncated=False)  # the other policy: one fewer
    assert len(strict["files"]) == len(data["files"]) - 1
    assert ("Dog/2.jpg", "unreadable", "truncated") in strict["skipped"]
    _check_every_entry_is_counted_once(strict, pets)


@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.parametrize("workers", [1, 2])
def test_build_counts_every_problem_and_keeps_every_readable_image(workers: int, tmp_path: Path) -> None:
    pets = _pet_folder(tmp_path)
    data = petimages.build(pets, workers=workers)
    assert data["counts"] == EXPECTED_COUNTS
    assert sorted(data["skipped"]) == [
        ("Cat/666.jpg", "zero-byte", ""),
        ("Cat/Thumbs.db", "not an image", ""),
        ("Dog/11702.jpg", "zero-byte", ""),
        ("Dog/3.jpg", "unreadable", "UnidentifiedImageError"),
    ]
    assert data["files"] == [f"Cat/{i}.jpg" for i in range(5)] + [f"Dog/{i}.jpg" for i in (0, 1, 2, 4)]
    assert data["images"].shape == (9, 50, 50) and data["images"].dtype == torch.uint8
    assert data["labels"].tolist() == [0] * 5 + [1] * 4 and data["labels"].dtype == torch.int64
    _check_every_entry_is_counted_once(data, pets)
    for index, file in enumerate(data["files"]):  # each slot holds its own file's pixels
        assert np.array_equal(data["images"][index].numpy(), petimages.load_photo(tmp_path / "PetImages" / file)[0])


def test_build_passes_other_warnings_on_with_the_file_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pets = tmp_path / "PetImages"
    _photo(pets / "Cat" / "0.jpg")
    (pets / "Dog").mkdir()

    def warning_transpose(image: Image.Image, **kwargs: Any) -> None:
        warnings.warn("something else entirely", UserWarning, stacklevel=2)

    monkeypatch.setattr(ImageOps, "exif_transpose", warning_transpose)
    with pytest.warns(UserWarning, match="Cat/0.jpg: UserWarning: something else entirely"):
        data = petimages.build(pets, workers=1)
    assert data["counts"]["Cat"]["kept"] == 1


def test_cache_is_reused_and_rebuilt_on_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pets, cache = _pet_folder(tmp_path), tmp_path / "images.pt"
    builds = []
    real_build = petimages.build

    def counting_build(*args: Any, **kwargs: Any) -> dict[str, Any]:
        builds.append(args)
        return real_build(*args, **kwargs)

    monkeypatch.setattr(petimages, "build", counting_build)
    first = petimages.load_or_build(pets, cache, workers=1)
    assert len(builds) == 1 and cache.is_file()
    second = petimages.load_or_build(pets, cache)
    assert len(builds) == 1  # read from the cache
    assert torch.equal(first["images"], second["images"]) and torch.equal(first["labels"], second["labels"])
    assert first["files"] == second["files"] and first["counts"] == second["counts"]
    assert second["skipped"] == first["skipped"] and set(second) == set(first)  # the same dict, whichever way
    petimages.load_or_build(pets, cache, rebuild=True, workers=1)
    assert len(builds) == 2  # the rebuild switch
    assert petimages.load_or_build(pets, cache, size=32, workers=1)["images"].shape[1:] == (32, 32)
    assert len(builds) == 3  # a cache of another size is not used


def _odd_entries(pets: Path) -> dict[str, tuple[str, str]]:
    """Add to ``pets/Cat`` one entry of every kind a disk can hold; return {name: (kind, detail)} of the skipped."""
    cat = pets / "Cat"
    os.symlink("loop_b.jpg", cat / "loop_a.jpg")  # a loop of links: "Too many levels of symbolic links"
    os.symlink("loop_a.jpg", cat / "loop_b.jpg")
    os.symlink("nowhere.jpg", cat / "dangling.jpg")  # a link to nothing
    os.symlink("0.jpg", cat / "link_to_0.jpg")  # a good link: kept
    (cat / "album.jpg").mkdir()  # a folder named like a photo
    (cat / "more photos").mkdir()
    os.mkfifo(cat / "pipe.jpg")  # reading it would wait for a writer forever
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(cat / "socket.jpg"))
    _photo(Path(os.fsdecode(bytes(cat) + b"/caf\xe9.jpg")))  # a name that is not UTF-8 (Latin-1): kept
    Path(os.fsdecode(bytes(cat) + b"/vid\xe9.jpg")).write_bytes(b"")  # skipped, its name printable
    loop, nothing = ("broken link", os.strerror(errno.ELOOP)), ("broken link", os.strerror(errno.ENOENT))
    return {
        "Cat/loop_a.jpg": loop,
        "Cat/loop_b.jpg": loop,
        "Cat/dangling.jpg": nothing,
        "Cat/album.jpg": ("not a file", "directory"),
        "Cat/more photos": ("not a file", "directory"),
        "Cat/pipe.jpg": ("not a file", "FIFO"),
        "Cat/socket.jpg": ("not a file", "socket"),
        "Cat/vid\\xe9.jpg": ("zero-byte", ""),
    }


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, Unix sockets and free symlinks are POSIX")
@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.parametrize("workers", [1, 2])
def test_no_entry_stops_the_build(workers: int, tmp_path: Path) -> None:
    pets = _pet_folder(tmp_path)
    expected = _odd_entries(pets)
    data = petimages.build(pets, workers=workers)
    skipped = {name: (kind, detail) for name, kind, detail in data["skipped"]}
    assert {name: skipped[name] for name in expected} == expected
    assert data["counts"]["Cat"]["kept"] == 7 and {"Cat/link_to_0.jpg", "Cat/caf\udce9.jpg"} <= set(data["files"])
    assert data["counts"]["Cat"]["zero-byte"] == 2
    assert data["counts"]["Cat"]["broken link"] == 3 and data["counts"]["Cat"]["not a file"] == 4
    _check_every_entry_is_counted_once(data, pets)


@pytest.mark.parametrize("keep_truncated", [True, False])
def test_cleaning_report_adds_up_to_the_entries_scanned(keep_truncated: bool, tmp_path: Path) -> None:
    pets = _pet_folder(tmp_path)
    if sys.platform != "win32":
        _odd_entries(pets)
    data = petimages.build(pets, workers=1, keep_truncated=keep_truncated)
    _check_every_entry_is_counted_once(data, pets)
    assert data["counts"]["Dog"]["kept"] == 4 if keep_truncated else 3


REPORT = {
    "en": """\
real photos                      Cat     Dog
kept                               5       4
  of them grayscale                1       0
  of them CMYK                     0       1
  of them corrupt EXIF             1       0
  of them truncated                0       1
skipped: zero-byte                 1       1
skipped: not an image              1       0
skipped: unreadable                0       1
skipped: Cat/666.jpg (zero-byte), Cat/Thumbs.db (not an image), Dog/11702.jpg (zero-byte), \
Dog/3.jpg (unreadable: UnidentifiedImageError)""",
    "zh": """\
真实照片                         Cat     Dog
保留                               5       4
  其中灰度                         1       0
  其中CMYK                         0       1
  其中EXIF损坏                     1       0
  其中被截断                       0       1
跳过：零字节                       1       1
跳过：不是图像                     1       0
跳过：无法读取                     0       1
跳过的条目：Cat/666.jpg（零字节）、Cat/Thumbs.db（不是图像）、Dog/11702.jpg（零字节）、\
Dog/3.jpg（无法读取：UnidentifiedImageError）""",
}
"""The cleaning report of ``_pet_folder`` in each language: what notebook 07 prints in each edition."""


def test_cleaning_report_in_both_languages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pets = _pet_folder(tmp_path)
    data = petimages.build(pets, workers=1)
    assert {lang: petimages.cleaning_report(data, pets, lang) for lang in REPORT} == REPORT
    monkeypatch.setattr(utils, "_language", "en")
    assert petimages.cleaning_report(data, pets) == REPORT["en"]
    utils.set_language("zh")  # a Chinese notebook: its edition's language, with nothing else changed in the call
    assert petimages.cleaning_report(data, pets) == REPORT["zh"]
    columns = {len(line.encode("gbk")) for line in REPORT["zh"].splitlines()[:-1]}  # GBK: 2 bytes a Chinese char
    assert columns == {len(line) for line in REPORT["en"].splitlines()[:-1]} == {44}  # the columns line up


NAMED = re.compile(r"\d[\d,]*|[\w.-]+\.(?:jpg|png|db)")
"""What a cleaning report names that reads the same in every language: its numbers and the files' names."""


def test_the_cleaning_report_says_the_same_in_both_languages(tmp_path: Path) -> None:
    """The Chinese report holds the English one's numbers and names, row for row; only the words differ."""
    for en, zh in zip(REPORT["en"].splitlines(), REPORT["zh"].splitlines(), strict=True):
        assert NAMED.findall(en) == NAMED.findall(zh), (en, zh)
    assert REPORT["en"].splitlines()[0].split()[-2:] == REPORT["zh"].splitlines()[0].split()[-2:] == ["Cat", "Dog"]


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, Unix sockets and free symlinks are POSIX")
def test_every_row_and_reason_of_the_report_in_both_languages(tmp_path: Path) -> None:
    """Rarer rows (links, folders, other modes, a 32-bit image) and more skipped entries than the report names."""
    pets = _pet_folder(tmp_path)
    _odd_entries(pets)
    Image.new("P", (60, 40)).save(pets / "Dog" / "palette.png")
    Image.new("I", (60, 40)).save(pets / "Dog" / "deep.png", "TIFF")  # named .png, read by its contents
    data = petimages.build(pets, workers=1)
    report = {lang: petimages.cleaning_report(data, pets, lang) for lang in REPORT}
    assert "  of them P " in report["en"] and "  其中P模式 " in report["zh"]
    assert "skipped: broken link" in report["en"] and "跳过：失效的链接" in report["zh"]
    assert "skipped: not a file" in report["en"] and "跳过：不是文件" in report["zh"]
    assert "skipped: unsupported mode" in report["en"] and "跳过：不支持的模式" in report["zh"]
    assert len(data["skipped"]) > petimages.REPORT_SHOWS
    assert report["en"].endswith(", ...") and report["zh"].endswith("……")
    for en, zh in zip(report["en"].splitlines(), report["zh"].splitlines(), strict=True):
        assert NAMED.findall(en) == NAMED.findall(zh), (en, zh)  # the same numbers and names, row for row
    assert len({len(line) for line in report["en"].splitlines()[:-1]}) == 1  # the columns line up
    assert len({len(line.encode("gbk")) for line in report["zh"].splitlines()[:-1]}) == 1
    details = {(kind, detail) for _, kind, detail in data["skipped"]}
    assert ("not a file", "directory") in details and ("not a file", "socket") in details
    deep = petimages.load_photo(pets / "Dog" / "deep.png")[1]
    assert deep == {"unsupported mode": "I: 32-bit pixels, no known white level"}
    for detail, chinese in [
        ("directory", "文件夹"),
        ("socket", "套接字"),
        ("truncated", "被截断"),
        ("I: 32-bit pixels, no known white level", "I：32位像素，不知道哪个值是白色"),
        ("UnidentifiedImageError", "UnidentifiedImageError"),
    ]:
        entry = [("Cat/x.jpg", "unsupported mode" if detail.startswith("I:") else "not a file", detail)]
        one = {"counts": {name: {"kept": 1} for name in petimages.CLASSES}, "skipped": entry}
        texts = {lang: petimages.cleaning_report(one, pets, lang) for lang in REPORT}
        kind = "unsupported mode" if detail.startswith("I:") else "not a file"
        assert texts["en"].endswith(f"Cat/x.jpg ({kind}: {detail})")
        assert texts["zh"].endswith(f"（{'不支持的模式' if detail.startswith('I:') else '不是文件'}：{chinese}）")


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_load_petimage_never_waits_on_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jpg")
    result = []
    reader = threading.Thread(target=lambda: result.append(petimages.load_photo(tmp_path / "pipe.jpg")), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert result and result[0][:2] == (None, {"not a file": "FIFO"})
    assert petimages.load_photo(tmp_path)[:2] == (None, {"not a file": "directory"})


ODD_NAMES = ["a\u2028b.jpg", "c\x85d.jpg", "e\rf.jpg", "g\nh.jpg", " i j .jpg", "ünï\u00a0cödé.jpg", "k\tl.jpg"]


def test_file_names_of_any_characters_round_trip_through_the_cache(tmp_path: Path) -> None:
    pets, cache = tmp_path / "PetImages", tmp_path / "images.pt"
    names = [*ODD_NAMES, os.fsdecode(b"caf\xe9.jpg")] if sys.platform != "win32" else ODD_NAMES
    for index, name in enumerate(names):  # each photo a different brightness, so a shifted name shows
        path = pets / "Cat" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("L", (64, 48), 20 + 25 * index).save(path, "JPEG")
    (pets / "Dog").mkdir()
    built = petimages.load_or_build(pets, cache, workers=1)
    cached = petimages.load_or_build(pets, cache)
    assert sorted(built["files"]) == sorted(f"Cat/{name}" for name in names) == sorted(cached["files"])
    assert cached["files"] == built["files"] and torch.equal(cached["images"], built["images"])
    for index, file in enumerate(cached["files"]):  # files[i] names the photo whose pixels are images[i]
        assert np.array_equal(cached["images"][index].numpy(), petimages.load_photo(pets / file)[0])


def _damage(cache: Path, how: str) -> None:
    data = cache.read_bytes()
    if how == "empty":
        cache.write_bytes(b"")
    elif how == "cut off":
        cache.write_bytes(data[: len(data) // 2])
    elif how == "garbage":
        cache.write_bytes(bytes(range(256)) * 40)
    elif how == "older format":  # what the first version wrote: names joined by newlines
        stored = torch.load(cache, weights_only=True)
        names = [stored["files"][:3], stored["files"][3:]]
        torch.save(
            {k: v for k, v in stored.items() if k not in ("format", "file_lengths")} | {"files": "\n".join(names)},
            cache,
        )
    elif how == "other object":
        torch.save(torch.zeros(3), cache)


@pytest.mark.parametrize("how", ["empty", "cut off", "garbage", "older format", "other object"])
def test_damaged_cache_is_rebuilt_with_a_message(how: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pets, cache = _pet_folder(tmp_path), tmp_path / "images_50.pt"
    first = petimages.load_or_build(pets, cache, workers=1)
    _damage(cache, how)
    capsys.readouterr()
    again = petimages.load_or_build(pets, cache, workers=1)
    message = capsys.readouterr().out
    assert message.startswith("images_50.pt ") and message.endswith(": rebuilding it\n") and message.count("\n") == 1
    assert ("older format" in message) == (how == "older format")
    assert again["files"] == first["files"] and torch.equal(again["images"], first["images"])
    assert petimages.load_or_build(pets, cache)["files"] == first["files"]  # the rebuilt cache is good
    assert capsys.readouterr().out == ""


def test_stale_cache_is_rebuilt_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pets, cache = _pet_folder(tmp_path), tmp_path / "images_50.pt"
    petimages.load_or_build(pets, cache, workers=1)
    assert petimages.load_or_build(pets, cache)["counts"]["Cat"]["kept"] == 5
    assert capsys.readouterr().out == ""  # fresh: nothing printed, so a notebook's output stays the same
    stale = "images_50.pt is out of date: photos were added, removed or changed since it was built: rebuilding it\n"

    _photo(pets / "Cat" / "new.jpg")  # added
    assert petimages.load_or_build(pets, cache, workers=1)["counts"]["Cat"]["kept"] == 6
    assert capsys.readouterr().out == stale
    (pets / "Cat" / "0.jpg").unlink()  # removed
    assert "Cat/0.jpg" not in petimages.load_or_build(pets, cache, workers=1)["files"]
    assert capsys.readouterr().out == stale
    _photo(pets / "Cat" / "1.jpg", mode="L")  # replaced by another photo
    os.utime(pets / "Cat" / "1.jpg", ns=(1, 1))
    assert petimages.load_or_build(pets, cache, workers=1)["counts"]["Cat"]["grayscale"] == 2
    assert capsys.readouterr().out == stale
    petimages.load_or_build(pets, cache)
    petimages.load_or_build(pets, cache, rebuild=True, workers=1)
    assert capsys.readouterr().out == ""  # fresh again; an asked-for rebuild needs no message either
    petimages.load_or_build(pets, cache, size=32, workers=1)
    assert capsys.readouterr().out == "images_50.pt holds 50x50 images, not 32x32: rebuilding it\n"
    petimages.load_or_build(pets, cache, size=32, keep_truncated=False, workers=1)
    assert capsys.readouterr().out == "images_50.pt was built with keep_truncated=True: rebuilding it\n"


def test_every_torch_load_trusts_nothing(tmp_path: Path) -> None:
    for path in (ROOT / "lessons" / "petimages.py", ROOT / "benchmarks" / "petimages_preprocess.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.load":
                keywords = {k.arg: ast.unparse(k.value) for k in node.keywords}
                assert keywords.get("weights_only") == "True", f"{path.name}:{node.lineno}"


# ---- download and extraction --------------------------------------------------------------------------------


@pytest.fixture
def data_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Neither NB_GENERATED_DATA nor NB_STRICT_DATA set, whatever the environment running the tests holds."""
    monkeypatch.delenv(utils.GENERATED_ENV, raising=False)
    monkeypatch.delenv(utils.STRICT_DATA_ENV, raising=False)
    return monkeypatch


def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every download fail as it does without a network (no network is used)."""

    def offline(request: Any, timeout: float) -> None:
        raise urllib.error.URLError(OSError(101, "Network is unreachable"))

    monkeypatch.setattr(urllib.request, "urlopen", offline)


def _fake_generated(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Replace make_generated (25,000 JPEGs) by a recorder; return the list of folders it was asked for."""
    calls: list[Path] = []
    monkeypatch.setattr(generated_pets, "make_generated", lambda root: calls.append(Path(root)) or Path(root))
    return calls


def test_offline_goes_on_with_generated_data_and_says_so_loudly(
    data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    _offline(data_env)
    calls = _fake_generated(data_env)
    data_dir = utils.DATA_DIR / "offline_test_never_created"
    assert petimages.fetch(data_dir) == data_dir / "petimages-generated"
    assert calls == [data_dir / "petimages-generated"]
    out, err = capsys.readouterr()
    assert out == ""  # the banner goes to stderr: the stdout of tools/ci/gpu_check.sh's call ends with the folder
    assert "PetImages is not available (Network is unreachable)." in err
    assert petimages.PAGE in err and "Kaggle Cats and Dogs Dataset" in err
    assert "put it at data/offline_test_never_created/kagglecatsanddogs_5340.zip" in err
    assert f"{utils.QUICK_ENV}=1 before starting Jupyter" in err and f"%env {utils.QUICK_ENV}=1" in err
    assert "GENERATED" in err and f"{utils.STRICT_DATA_ENV}=1" in err
    assert not data_dir.exists()  # nothing downloaded, no empty folders left


def test_offline_with_strict_data_gives_one_clear_error(data_env: pytest.MonkeyPatch) -> None:
    _offline(data_env)
    calls = _fake_generated(data_env)
    data_env.setenv(utils.STRICT_DATA_ENV, "1")
    data_dir = utils.DATA_DIR / "offline_test_never_created"
    with pytest.raises(RuntimeError) as caught:
        petimages.fetch(data_dir)
    message = str(caught.value)
    assert message.startswith("PetImages is not available (Network is unreachable).")
    assert petimages.PAGE in message
    assert "put it at data/offline_test_never_created/kagglecatsanddogs_5340.zip" in message
    assert "824,887,076 bytes" in message and f"{utils.QUICK_ENV}=1" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # one message, no chain
    assert not data_dir.exists() and calls == []


def test_a_connection_dropped_without_a_message_is_named_by_its_type(
    data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def dropped(request: Any, timeout: float) -> None:
        raise http.client.HTTPException()  # e.g. a server that closes the connection mid-answer

    data_env.setattr(urllib.request, "urlopen", dropped)
    calls = _fake_generated(data_env)
    data_dir = utils.DATA_DIR / "offline_test_never_created"
    assert petimages.fetch(data_dir) == data_dir / "petimages-generated" and len(calls) == 1
    assert "PetImages is not available (HTTPException)." in capsys.readouterr().err
    assert not data_dir.exists()


def test_the_page_is_microsofts_download_centre() -> None:
    assert petimages.PAGE.startswith("https://www.microsoft.com/") and "download" in petimages.PAGE
    assert petimages.URL.endswith("/" + petimages.ZIP_NAME)


def test_data_label_tells_generated_from_real(tmp_path: Path) -> None:
    quick = generated_pets.make_quick(tmp_path / "quick", per_class=6)
    assert petimages.data_label(quick) == "quick sample, generated"
    generated = tmp_path / "generated" / "PetImages"
    generated.mkdir(parents=True)
    (generated / "done.txt").write_text("generated PetImages v1: 3 per class, seed 0\n")
    assert "GENERATED" in petimages.data_label(generated)
    assert petimages.data_label(_pet_folder(tmp_path / "real")) == "real photos"
    assert petimages.data_label(quick, "zh") == "快速模式的生成样本"  # what a Chinese notebook prints
    assert petimages.data_label(generated, "zh") == "生成的仿真图像（GENERATED），不是真实照片"
    assert petimages.data_label(tmp_path / "real" / "PetImages", "zh") == "真实照片"


def test_data_label_follows_the_editions_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    quick = generated_pets.make_quick(tmp_path / "quick", per_class=6)
    monkeypatch.setattr(utils, "_language", "en")
    utils.set_language("zh")  # what a Chinese notebook's setup cell does
    assert petimages.data_label(quick) == "快速模式的生成样本" and petimages.data_label(quick, "en").startswith("quick")


class _ZipHandler(http.server.BaseHTTPRequestHandler):
    """Serves ``payload`` at every address, as a plain HTTP server that ignores Range requests does."""

    payload = b""

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload)

    def log_message(self, *args: Any) -> None:  # quiet
        pass


def test_download_into_a_folder_that_does_not_exist(tmp_path: Path, data_env: pytest.MonkeyPatch) -> None:
    archive = make_zip(tmp_path / "served.zip", {"PetImages/Cat/0.jpg": b"c", "PetImages/Dog/0.jpg": b"d"})
    _ZipHandler.payload = archive.read_bytes()
    _accept(data_env, archive)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ZipHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        data_dir = tmp_path / "not" / "made" / "yet"
        pets = petimages.fetch(data_dir, url=f"http://127.0.0.1:{server.server_port}/k.zip")
    finally:
        server.shutdown()
        server.server_close()
    assert pets == data_dir / "petimages" / "PetImages" and (pets / "Cat" / "0.jpg").read_bytes() == b"c"
    assert (data_dir / "kagglecatsanddogs_5340.zip").read_bytes() == _ZipHandler.payload


def test_get_petimages_skips_when_present(tmp_path: Path, data_env: pytest.MonkeyPatch) -> None:
    (tmp_path / "petimages" / "PetImages" / "Cat").mkdir(parents=True)
    data_env.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("downloaded although present"))
    assert petimages.fetch(tmp_path) == tmp_path / "petimages" / "PetImages"


def _accept(monkeypatch: pytest.MonkeyPatch, archive: Path) -> None:
    """Make ``archive`` the one whose size and SHA-256 ``fetch`` checks for (instead of Microsoft's)."""
    monkeypatch.setattr(petimages, "ZIP_BYTES", archive.stat().st_size)
    monkeypatch.setattr(petimages, "ZIP_SHA256", hashlib.sha256(archive.read_bytes()).hexdigest())


def test_get_petimages_checks_size_and_checksum_then_extracts(tmp_path: Path, data_env: pytest.MonkeyPatch) -> None:
    data_env.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("downloaded although present"))
    data_env.setenv(utils.STRICT_DATA_ENV, "1")
    photos = {"PetImages/Cat/0.jpg": b"c", "PetImages/Dog/0.jpg": b"d"}
    archive = make_zip(tmp_path / "kagglecatsanddogs_5340.zip", photos)
    with pytest.raises(RuntimeError, match=f"has {archive.stat().st_size:,} bytes, not 824,887,076"):
        petimages.fetch(tmp_path)
    data_env.setattr(petimages, "ZIP_BYTES", archive.stat().st_size)
    damaged = f"is damaged: its SHA-256 is [0-9a-f]{{64}}, not {petimages.ZIP_SHA256}"
    with pytest.raises(RuntimeError, match=damaged):
        petimages.fetch(tmp_path)
    _accept(data_env, archive)
    pets = petimages.fetch(tmp_path)
    assert pets == tmp_path / "petimages" / "PetImages" and (pets / "Dog" / "0.jpg").read_bytes() == b"d"
    assert not (tmp_path / "petimages.part").exists()


def test_a_zip_of_the_wrong_size_falls_back_with_the_reason(
    tmp_path: Path, data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    data_env.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("downloaded although present"))
    calls = _fake_generated(data_env)
    (tmp_path / "kagglecatsanddogs_5340.zip").write_bytes(b"partial")
    assert petimages.fetch(tmp_path) == tmp_path / "petimages-generated" and len(calls) == 1
    zip_path = tmp_path / "kagglecatsanddogs_5340.zip"
    assert f"({zip_path} has 7 bytes, not 824,887,076: it is incomplete or another file; delete it)" in (
        capsys.readouterr().err
    )
    assert zip_path.read_bytes() == b"partial"  # the student's file is named, not deleted behind their back


def test_a_damaged_zip_of_the_right_size_falls_back_or_stops(
    tmp_path: Path, data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    data_env.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("downloaded although present"))
    calls = _fake_generated(data_env)
    zip_path = tmp_path / "kagglecatsanddogs_5340.zip"
    zip_path.write_bytes(b"not a zip at all")
    data_env.setattr(petimages, "ZIP_BYTES", 16)
    assert petimages.fetch(tmp_path) == tmp_path / "petimages-generated" and len(calls) == 1
    digest = hashlib.sha256(b"not a zip at all").hexdigest()
    expected = f"PetImages is not available ({zip_path} is damaged: its SHA-256 is {digest}, not "
    assert expected + f"{petimages.ZIP_SHA256}; delete it)." in capsys.readouterr().err
    _accept(data_env, zip_path)  # the right checksum, yet no zip: named too
    data_env.setenv(utils.STRICT_DATA_ENV, "1")
    not_a_zip = rf"not available \({re.escape(str(zip_path))} cannot be unpacked \(File is not a zip file\)"
    with pytest.raises(RuntimeError, match=not_a_zip):
        petimages.fetch(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [zip_path.name]  # nothing half-unpacked


def test_a_zip_damaged_inside_is_named_and_nothing_half_unpacked_is_kept(
    tmp_path: Path, data_env: pytest.MonkeyPatch
) -> None:
    zip_path = tmp_path / "kagglecatsanddogs_5340.zip"
    photos = {f"PetImages/{kind}/{i}.jpg": bytes([i]) * 5000 for kind in ("Cat", "Dog") for i in range(3)}
    content = bytearray(make_zip(zip_path, photos).read_bytes())
    last = content.rindex(b"PetImages/Dog/2.jpg", 0, len(content) - 200)  # the last photo's local header ...
    content[last + 100] ^= 0xFF  # ... and a byte of its data: a copy damaged in transfer, after five good photos
    zip_path.write_bytes(bytes(content))
    _accept(data_env, zip_path)  # a copy whose damage the checksum was told to accept: only unpacking finds it
    data_env.setenv(utils.STRICT_DATA_ENV, "1")
    shown = re.escape(str(zip_path))
    with pytest.raises(RuntimeError, match=rf"\({shown} cannot be unpacked \(Bad CRC-32 for file 'PetImages/Dog/2"):
        petimages.fetch(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [zip_path.name]  # no petimages.part, no petimages/
    data_env.setattr(utils, "_language", "en")
    utils.set_language("zh")  # what a Chinese notebook says
    with pytest.raises(RuntimeError, match=rf"^无法使用PetImages（{shown}无法解压（Bad CRC-32"):
        petimages.fetch(tmp_path)
    data_env.setattr(petimages, "ZIP_BYTES", 1)
    with pytest.raises(RuntimeError, match=f"{shown}有{len(content):,}字节，而不是1字节：它不完整"):
        petimages.fetch(tmp_path)


def test_the_checksum_is_a_sha256_and_the_size_matches_it() -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", petimages.ZIP_SHA256)
    assert petimages.ZIP_BYTES == 824_887_076  # the size recorded with that checksum


# ---- the benchmark ------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings(FORK_WARNING)
def test_benchmark_smoke(capsys: pytest.CaptureFixture) -> None:
    path = ROOT / "benchmarks" / "petimages_preprocess.py"
    spec = importlib.util.spec_from_file_location("petimages_preprocess", path)
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    seconds = benchmark.main(["--images", "12", "--repeat", "1"])
    assert {"ours, build", "ours, cache"} <= set(seconds) and all(v > 0 for v in seconds.values())
    has_cv2 = importlib.util.find_spec("cv2") is not None
    assert ("source" in seconds) == has_cv2  # without OpenCV the source's rows are skipped ...
    assert ("OpenCV is not installed" in capsys.readouterr().out) != has_cv2  # ... with a message


def test_a_chinese_notebook_says_it_in_chinese(data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """zh notebooks' setup cell calls utils.set_language("zh"): the banner, the strict error and the
    NB_GENERATED_DATA line are in Chinese, with the same page, size, folder and switches."""
    _offline(data_env)
    calls = _fake_generated(data_env)
    data_env.setattr(utils, "_language", "en")
    utils.set_language("zh")
    data_dir = utils.DATA_DIR / "offline_test_never_created"
    petimages.fetch(data_dir)
    err = capsys.readouterr().err
    assert "无法使用PetImages（Network is unreachable）。" in err and petimages.PAGE in err
    assert "放到data/offline_test_never_created/kagglecatsanddogs_5340.zip" in err and "824,887,076字节" in err
    assert f"设置{utils.QUICK_ENV}=1" in err and f"%env {utils.QUICK_ENV}=1" in err
    assert "改用生成的仿真图像（GENERATED" in err and f"设置{utils.STRICT_DATA_ENV}=1可以让它在这里停止" in err
    data_env.setenv(utils.STRICT_DATA_ENV, "1")
    with pytest.raises(RuntimeError, match="^无法使用PetImages（Network is unreachable）。"):
        petimages.fetch(data_dir)
    data_env.delenv(utils.STRICT_DATA_ENV)
    data_env.setenv(utils.GENERATED_ENV, "1")
    petimages.fetch(data_dir)
    assert capsys.readouterr().out.startswith(f"已设置{utils.GENERATED_ENV}：使用25,000张生成的")
    assert len(calls) == 2 and not data_dir.exists()


@pytest.mark.filterwarnings(FORK_WARNING)
def test_benchmark_draft_rows_really_decode_without_draft(tmp_path: Path) -> None:
    path = ROOT / "benchmarks" / "petimages_preprocess.py"
    spec = importlib.util.spec_from_file_location("petimages_preprocess", path)
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    photo = benchmark.make_photos(tmp_path, 2) / "Dog" / "0.jpg"  # the second photo: a colour one
    with benchmark.draft_off(), Image.open(photo) as image:
        image.draft("L", (50, 50))
        assert image.mode == "RGB" and image.size[0] >= 400  # full size, in the stored colours
    with Image.open(photo) as image:
        image.draft("L", (50, 50))
        assert image.mode == "L" and image.size[0] < 200  # draft mode is back after the block
    seconds = benchmark.main(["--images", "4", "--repeat", "1", "--draft", "--skip-source"])
    assert {"ours, 1 process", "ours, 1 process, no draft"} <= set(seconds) and all(v > 0 for v in seconds.values())


def test_generated_full_size_set_replaces_the_download_only_when_asked(
    tmp_path: Path, data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    calls = _fake_generated(data_env)
    data_env.setenv(utils.GENERATED_ENV, "1")
    assert petimages.fetch(tmp_path, url="http://127.0.0.1:9/x") == tmp_path / "petimages-generated"
    assert "generated PetImages-like JPEGs, not the real photos" in capsys.readouterr().out
    data_env.delenv(utils.GENERATED_ENV)
    data_env.setenv(utils.STRICT_DATA_ENV, "1")
    with pytest.raises(RuntimeError, match="PetImages is not available"):  # without the flag: the real download
        petimages.fetch(tmp_path / "other", url="http://127.0.0.1:9/x")
    assert len(calls) == 1


def test_what_a_chinese_notebook_prints_while_loading_is_chinese(
    tmp_path: Path, data_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Full mode in a Chinese notebook: the banner naming a download cut off, a stale or damaged cache: each message
    in Chinese, with the same numbers and names (the downloads' own messages: tests/test_downloads.py)."""
    data_env.setattr(utils, "_language", "en")
    utils.set_language("zh")
    payload = bytes(range(200)) * 50
    calls = _fake_generated(data_env)  # the banner of fetch names the cut-off download in Chinese
    fake_urlopen(data_env, payload, honour_range=True, cut=4000)
    data_env.setattr(petimages, "ZIP_BYTES", len(payload))
    assert petimages.fetch(tmp_path / "d") == tmp_path / "d" / "petimages-generated" and len(calls) == 1
    assert (
        "无法使用PetImages（下载停在了4,000字节处（共10,000字节）；重新运行就会接着下载）。" in capsys.readouterr().err
    )
    pets, cache = _pet_folder(tmp_path / "cache"), tmp_path / "images_50.pt"
    petimages.load_or_build(pets, cache, workers=1)
    _photo(pets / "Cat" / "new.jpg")
    petimages.load_or_build(pets, cache, workers=1)
    stale = "images_50.pt已经过时（构建之后有照片被添加、删除或修改），正在重新构建\n"
    assert capsys.readouterr().out == stale
    petimages.load_or_build(pets, cache, size=32, workers=1)
    assert capsys.readouterr().out == "images_50.pt存的是50x50的图像，而不是32x32，正在重新构建\n"
    petimages.load_or_build(pets, cache, size=32, keep_truncated=False, workers=1)
    assert capsys.readouterr().out == "images_50.pt是用keep_truncated=True构建的，正在重新构建\n"
    cache.write_bytes(b"")
    petimages.load_or_build(pets, cache, size=32, keep_truncated=False, workers=1)
    assert capsys.readouterr().out == "images_50.pt无法读取（EOFError），正在重新构建\n"


def test_a_photo_that_cannot_be_used_is_named_with_the_fix(tmp_path: Path) -> None:
    """Notebook 07 classifies the student's own photo (MY_PHOTO): a typo, or a file that is not a photo, is named
    with its reason and the fix, in each edition's language."""
    missing = petimages.load_photo(tmp_path / "my_cat.jpg")[1]
    assert petimages.unusable_photo_message(tmp_path / "my_cat.jpg", missing, "en") == (
        "cannot use my_cat.jpg (unreadable: FileNotFoundError). Fix: set MY_PHOTO to a JPEG or PNG file that exists"
    )
    assert petimages.unusable_photo_message(tmp_path / "my_cat.jpg", missing, "zh") == (
        "用不了my_cat.jpg（无法读取：FileNotFoundError）。解决办法：把MY_PHOTO设为一个存在的JPEG或PNG文件"
    )
    (tmp_path / "notes.txt").write_text("not a photo")
    notes = petimages.load_photo(tmp_path / "notes.txt")[1]
    assert petimages.unusable_photo_message(tmp_path / "notes.txt", notes, "zh").startswith(
        "用不了notes.txt（无法读取：UnidentifiedImageError）"
    )
    assert petimages.unusable_photo_message(tmp_path, petimages.load_photo(tmp_path)[1], "en").startswith(
        f"cannot use {tmp_path.name} (not a file: directory)"
    )
