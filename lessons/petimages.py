"""PetImages (dogs vs cats) for notebook 07 and benchmarks/petimages_preprocess.py: get the photos, decode and clean
them, report what was cleaned, cache the result.

The download and extraction themselves are ``lessons/downloads.py``'s, the generated look-alikes
``lessons/generated_pets.py``'s. Lesson module (see ``lessons/__init__.py``): it imports ``utils``; ``utils`` never
imports it. Its unit tests are in ``tests/test_petimages.py``.
"""

from __future__ import annotations

import http.client
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

import utils
from lessons import downloads
from utils import DATA_DIR, atomic_save, shown_path

CLASSES: tuple[str, str] = ("Cat", "Dog")
"""Folder names under ``PetImages/``; an image's label is its folder's index here (cat 0, dog 1)."""

KINDS: tuple[str, ...] = (
    "kept", "grayscale", "CMYK", "corrupt EXIF", "truncated", "zero-byte", "not an image", "unreadable",
)
"""Rows every cleaning report starts with (``generated_pets.make_quick`` writes one file of each): images kept, what
some of them had (converted, warned about, decoded from a file that ends early), then three reasons to skip a file.
Rows for other image modes and for the rarer reasons in ``SKIP_KINDS`` are added when they occur."""

SKIP_KINDS: tuple[str, ...] = (
    "zero-byte", "not an image", "unreadable", "not a file", "broken link", "unsupported mode",
)
"""Why an entry of a class folder is skipped. Each entry is counted once: as "kept" or as one of these."""

CACHE_FORMAT = 2
"""Version of the cache file ``load_or_build`` writes; a cache of another version is rebuilt."""

URL = (
    "https://download.microsoft.com/download/3/E/1/3E1C3F21-ECDB-4869-8368-6DEBA77B919F/kagglecatsanddogs_5340.zip"
)
"""Microsoft's download of the Kaggle cats-and-dogs images (the PetImages folders)."""

PAGE = "https://www.microsoft.com/en-us/download/details.aspx?id=54765"
"""Microsoft's download centre page "Kaggle Cats and Dogs Dataset": where a person downloads the zip in a browser."""

ZIP_NAME = "kagglecatsanddogs_5340.zip"
"""The zip's name; ``fetch`` looks for it in its data folder (``data/`` by default)."""

ZIP_BYTES = 824_887_076
"""Exact size of ``kagglecatsanddogs_5340.zip``: a file of any other size is incomplete or not the right one."""

ZIP_SHA256 = "b7974bd00a84a99921f36ee4403f089853777b5ae8d151c76a86e64900334af9"
"""SHA-256 of Microsoft's ``kagglecatsanddogs_5340.zip`` (the value Hugging Face datasets and GoMLX check this
download against), so that a copy from any mirror can be checked."""

EXIF_WARNINGS = r"Possibly corrupt EXIF data|Corrupt EXIF data|Truncated File Read|Tag data larger than file"
"""What Pillow warns while reading a broken EXIF block; the wording depends on Pillow's version."""


def check_zip(zip_path: str | os.PathLike[str]) -> None:
    """Raise OSError, with a message that names the file and says what to do, unless ``zip_path`` has the size and
    the SHA-256 of Microsoft's PetImages zip (``ZIP_BYTES``, ``ZIP_SHA256``): a copy from any
    mirror or a classmate's machine is checked before it is unpacked."""
    shown, size = shown_path(zip_path), Path(zip_path).stat().st_size
    if size != ZIP_BYTES:
        raise OSError(
            utils.localized(
                f"{shown} has {size:,} bytes, not {ZIP_BYTES:,}: it is incomplete or another file; delete it",
                f"{shown}有{size:,}字节，而不是{ZIP_BYTES:,}字节：它不完整，或者是别的文件；请删除它",
            )
        )
    if (digest := downloads.file_sha256(zip_path)) != ZIP_SHA256:
        raise OSError(
            utils.localized(
                f"{shown} is damaged: its SHA-256 is {digest}, not {ZIP_SHA256}; delete it",
                f"{shown}已经损坏：它的SHA-256是{digest}，而不是{ZIP_SHA256}；请删除它",
            )
        )


def fetch(data_dir: str | os.PathLike[str] = DATA_DIR, url: str = URL) -> Path:
    """Return a PetImages folder (``Cat/`` and ``Dog/``): the real photos if they can be had, else generated ones.

    The real photos: ``data_dir/petimages/PetImages``, from the zip in ``data_dir`` (put there by hand, from any
    mirror) or downloaded, checked (``check_zip``) and extracted the first time; a failed extraction leaves nothing.
    When that fails, a banner on stderr says what failed and how to get the zip (``missing_message``), and a
    generated set of the real one's size (``generated_pets.make_generated``) takes its place; ``NB_STRICT_DATA=1``
    raises RuntimeError instead, ``NB_GENERATED_DATA=1`` takes the generated set at once and says so.
    """
    import shutil

    from lessons import generated_pets  # here: it imports this module

    data_dir = Path(data_dir)
    if utils.env_flag(utils.GENERATED_ENV):
        print(
            utils.localized(
                f"{utils.GENERATED_ENV} is set: 25,000 generated PetImages-like JPEGs, not the real photos",
                f"已设置{utils.GENERATED_ENV}：使用25,000张生成的、类似PetImages的JPEG图像，不是真实的照片",
            )
        )
        return generated_pets.make_generated(data_dir / "petimages-generated")
    pets = data_dir / "petimages" / "PetImages"
    if pets.is_dir():
        return pets
    zip_path = data_dir / ZIP_NAME
    tmp = data_dir / "petimages.part"
    try:
        if not zip_path.is_file():
            downloads.download_file(url, zip_path, ZIP_BYTES, ZIP_SHA256)
        check_zip(zip_path)
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            downloads.safe_extract(zip_path, tmp)
        except (zipfile.BadZipFile, EOFError, zlib.error, ValueError) as error:  # checked, yet cannot be unpacked
            raise OSError(
                utils.localized(
                    f"{shown_path(zip_path)} cannot be unpacked ({error}); delete it",
                    f"{shown_path(zip_path)}无法解压（{error}）；请删除它",
                )
            ) from error
    except (OSError, http.client.HTTPException) as error:  # offline, refused, cut off, damaged
        shutil.rmtree(tmp, ignore_errors=True)  # nothing half-unpacked is kept
        reason = getattr(error, "reason", error)  # urllib wraps the network error
        reason = getattr(reason, "strerror", None) or reason  # "Connection refused", without paths or numbers
        message = missing_message(str(reason) or type(error).__name__, zip_path)
        if utils.env_flag(utils.STRICT_DATA_ENV):
            raise RuntimeError(message) from None
        goes_on = utils.localized(
            "Going on with GENERATED look-alikes (25,000 JPEGs, made once): every result below is about them, not "
            f"about real photos.\n(Set {utils.STRICT_DATA_ENV}=1 to stop here instead.)",
            "改用生成的仿真图像（GENERATED，25,000张JPEG，只生成一次）继续运行：下面的每个结果都是关于它们的，"
            f"而不是关于真实照片的。\n（设置{utils.STRICT_DATA_ENV}=1可以让它在这里停止。）",
        )
        utils.announce_generated_data(message, goes_on)
        return generated_pets.make_generated(data_dir / "petimages-generated")
    shutil.rmtree(pets.parent, ignore_errors=True)
    os.replace(tmp, pets.parent)  # an interrupted extraction never looks finished
    return pets


def missing_message(reason: str, zip_path: str | os.PathLike[str]) -> str:
    """Return what ``fetch`` says when the real photos cannot be had: what failed and how to get them, in
    the edition's language (``utils.set_language``)."""
    return utils.localized(
        f"PetImages is not available ({reason}). To use the real photos: open {PAGE} "
        f'(Microsoft\'s download centre, "Kaggle Cats and Dogs Dataset") in a browser, download '
        f"{ZIP_NAME} ({ZIP_BYTES:,} bytes; a copy from any mirror will do, it is checked), put it "
        f"at {shown_path(zip_path)} and run again. "
        f"Or run in quick mode (a small generated sample, no download): set {utils.QUICK_ENV}=1 before starting "
        f"Jupyter, or put %env {utils.QUICK_ENV}=1 at the top of the first cell.",
        f"无法使用PetImages（{reason}）。要使用真实的照片：在浏览器中打开{PAGE}"
        f"（微软下载中心的“Kaggle Cats and Dogs Dataset”页面），下载{ZIP_NAME}"
        f"（{ZIP_BYTES:,}字节；从任何镜像得到的副本都可以，使用前会检查它），放到{shown_path(zip_path)}，"
        "然后重新运行。"
        f"或者使用快速模式（一个小的生成样本，不需要下载）：在启动Jupyter之前设置{utils.QUICK_ENV}=1，"
        f"或者在第一个单元格的最上面加上%env {utils.QUICK_ENV}=1。",
    )


DATA_LABELS: dict[str, dict[str, str]] = {
    "quick": {"en": "quick sample, generated", "zh": "快速模式的生成样本"},
    "generated": {"en": "GENERATED, not real photos", "zh": "生成的仿真图像（GENERATED），不是真实照片"},
    "real": {"en": "real photos", "zh": "真实照片"},
}
"""What ``data_label`` says a PetImages folder holds, per kind and language: the quick sample, the generated set of
the real one's size (its word GENERATED kept in Chinese too, as the banner says it), or Microsoft's photos."""


def data_label(pets: str | os.PathLike[str], lang: str | None = None) -> str:
    """Return what the PetImages folder ``pets`` holds, for outputs (``DATA_LABELS``): the quick sample, generated
    or real photos, in ``lang`` (``"en"`` or ``"zh"``; by default the edition's language, ``utils.set_language``)."""
    stamp = Path(pets) / "done.txt"  # written last by generated_pets.make_quick and make_generated
    text = stamp.read_text() if stamp.is_file() else ""
    kind = "quick" if text.startswith("quick PetImages") else "real"
    kind = "generated" if text.startswith("generated PetImages") else kind
    return DATA_LABELS[kind][lang or utils.language()]


KIND_NAMES_ZH: dict[str, str] = {
    "kept": "保留", "grayscale": "灰度", "CMYK": "CMYK", "corrupt EXIF": "EXIF损坏", "truncated": "被截断",
    "zero-byte": "零字节", "not an image": "不是图像", "unreadable": "无法读取", "not a file": "不是文件",
    "broken link": "失效的链接", "unsupported mode": "不支持的模式",
}
"""The Chinese names of the cleaning report's rows (``KINDS``, ``SKIP_KINDS``); a row for another image mode
than these (P, LA, I;16...) reads "P模式"."""

DETAILS_ZH: dict[str, str] = {"truncated": "被截断", "directory": "文件夹", "socket": "套接字", "device": "设备文件"}
"""The Chinese of the fixed details of a skipped entry (``load_photo``, ``scan``). The others stay as
they are: an error's type (``UnidentifiedImageError``), the system's own message, a mode's name, "FIFO"."""

THIRTY_TWO_BITS = {"en": "{}: 32-bit pixels, no known white level", "zh": "{}：32位像素，不知道哪个值是白色"}
"""The detail of a 32-bit image skipped as "unsupported mode", for its mode's name."""

REPORT_SHOWS = 8
"""How many skipped entries the cleaning report names (the real set has a few dozen: the rest is "...")."""


def cleaning_report(data: dict[str, Any], pets: str | os.PathLike[str], lang: str | None = None) -> str:
    """Return the cleaning report of ``data`` (what ``build`` returned for the folder ``pets``) as printed
    text, in ``lang`` (``"en"`` or ``"zh"``; by default the edition's language, ``utils.set_language``).

    A table with a column per class: its first line names the data (``data_label``), then the images kept, how
    many of them had each note of ``load_photo`` (converted from another mode, broken EXIF, truncated), and the
    entries skipped, one row per reason. A last line names the first ``REPORT_SHOWS`` skipped entries with their
    reason (and detail). Every row of ``KINDS`` is there, zero or not; rarer kinds only when they occur.
    """
    counts, skipped, lang = data["counts"], data["skipped"], lang or utils.language()
    kinds = dict.fromkeys(kind for name in CLASSES for kind in counts[name])  # KINDS, then rarer ones
    ordered = sorted(kinds, key=lambda kind: (kind != "kept", kind in SKIP_KINDS))  # stable: kept, notes, skips
    label, names = data_label(pets, lang), [_row_name(kind, lang) for kind in ordered]
    width = max(28, *(utils.text_width(text) + 2 for text in [label, *names]))  # Chinese characters take two columns
    lines = [utils.pad(label, width) + "".join(f"{name:>8}" for name in CLASSES)]
    lines += [utils.pad(_row_name(kind, lang), width) + "".join(f"{counts[name].get(kind, 0):>8,}" for name in CLASSES)
              for kind in ordered]
    head, none, etc, comma = SKIPPED_LINE[lang]
    listed = comma.join(_item(*entry, lang) for entry in skipped[:REPORT_SHOWS])
    return "\n".join([*lines, head + (listed + etc * (len(skipped) > REPORT_SHOWS) or none)])


SKIPPED_LINE = {"en": ("skipped: ", "none", ", ...", ", "), "zh": ("跳过的条目：", "无", "……", "、")}
"""The cleaning report's last line in each language: how it starts, what it says when nothing was skipped, what
follows the names when there are more than ``REPORT_SHOWS``, and what separates the names."""


def _item(file: str, kind: str, detail: str, lang: str) -> str:
    """Return one skipped entry as the cleaning report names it: ``Dog/3.jpg (unreadable: OSError)``, in ``lang``."""
    if lang == "zh":
        return f"{file}（{_kind_name(kind, lang)}{'：' * bool(detail)}{_detail(detail, lang)}）"
    return f"{file} ({kind}{': ' * bool(detail)}{_detail(detail, lang)})"


def unusable_photo_message(photo: str | os.PathLike[str], notes: dict[str, str], lang: str | None = None) -> str:
    """Return what notebook 07 says when the photo it was asked to classify cannot be used: its name and the reason
    ``load_photo`` gave in ``notes`` (a missing file is "unreadable: FileNotFoundError"), and the fix, in ``lang``
    (``"en"`` or ``"zh"``; by default the edition's language, ``utils.set_language``)."""
    lang = lang or utils.language()
    (kind, detail), *_ = notes.items()
    item = _item(Path(photo).name, kind, detail, lang)
    if lang == "zh":
        return f"用不了{item}。解决办法：把MY_PHOTO设为一个存在的JPEG或PNG文件"
    return f"cannot use {item}. Fix: set MY_PHOTO to a JPEG or PNG file that exists"


def _kind_name(kind: str, lang: str) -> str:
    """Return the name of the report row ``kind`` (a key of ``KINDS``... or an image mode) in ``lang``."""
    if lang != "zh":
        return kind
    return KIND_NAMES_ZH.get(kind, f"{kind}模式")


def _row_name(kind: str, lang: str) -> str:
    """Return the first column of ``kind``'s row: kept, "  of them <note>" or "skipped: <reason>", in ``lang``."""
    name = _kind_name(kind, lang)
    if kind == "kept":
        return name
    if kind in SKIP_KINDS:
        return f"跳过：{name}" if lang == "zh" else f"skipped: {name}"
    return f"  其中{name}" if lang == "zh" else f"  of them {name}"


def _detail(detail: str, lang: str) -> str:
    """Return the English ``detail`` of a skipped entry in ``lang`` (the fixed ones: ``DETAILS_ZH``,
    ``THIRTY_TWO_BITS``; an error's type or the system's message stays as it is)."""
    tail = THIRTY_TWO_BITS["en"].removeprefix("{}")
    if lang != "zh":
        return detail
    if detail.endswith(tail) and len(detail) > len(tail):
        return THIRTY_TWO_BITS["zh"].format(detail[: -len(tail)])
    return DETAILS_ZH.get(detail, detail)



def load_photo(
    path: str | os.PathLike[str], size: int = 50, keep_truncated: bool = True
) -> tuple[np.ndarray | None, dict[str, str], list[str]]:
    """Return ``(pixels, notes, other_warnings)`` for one photo file; nothing in the file makes it raise.

    ``pixels``: ``size``x``size`` uint8 grayscale with the brightness a viewer shows, or None when the file is
    skipped. ``notes``: ``{kind: detail}``, each kind a row of the cleaning report. For a kept image: its mode if
    it is not RGB ("grayscale" for L, else the mode's name; 16-bit pixels are scaled to 8 bits, not clipped;
    transparent parts come out as on a white page), "corrupt EXIF" (see ``EXIF_WARNINGS``) and "truncated". For a
    skipped file exactly one note: "unreadable" (with the error's type), "not a file" (a directory, FIFO...) or
    "unsupported mode" (32-bit pixels, whose white level the file does not state, and modes Pillow cannot turn
    into gray). ``other_warnings``: every other warning, as ``"Category: message"``.

    Truncated JPEGs: a JPEG that ends early is decoded as libjpeg (and so OpenCV, the source's reader) decodes it,
    by adding the end-of-image marker that libjpeg inserts itself; whatever the file lacks comes out gray. It is
    kept with the note "truncated", or with ``keep_truncated=False`` skipped as "unreadable" ("truncated"). The
    choice is local to this call: Pillow's process-wide ``ImageFile.LOAD_TRUNCATED_IMAGES`` is never changed.
    """
    import io
    import re
    import warnings

    notes: dict[str, str] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with _open_regular_file(path) as file:
                try:
                    pixels, mode = _decode(file, size)
                except OSError as error:  # Pillow: "image file is truncated"
                    if not (keep_truncated and _is_truncation(error)):
                        raise
                    file.seek(0)
                    data = file.read()
                    if not data.startswith(b"\xff\xd8"):  # not a JPEG
                        raise
                    pixels, mode = _decode(io.BytesIO(data + b"\xff\xd9"), size)  # JPEG's end-of-image marker
                    notes["truncated"] = "the file ends early: its missing part is gray"
        except _Skip as skip:  # reported by the caller with the file's name, never passed over silently
            return None, {skip.kind: skip.detail}, []
        except Exception as error:
            return None, {"unreadable": "truncated" if _is_truncation(error) else type(error).__name__}, []
    if mode != "RGB":  # grayscale, CMYK, palette, 16-bit...: converted, not dropped
        notes[{"L": "grayscale"}.get(mode, mode)] = mode
    exif = [w for w in caught if re.search(EXIF_WARNINGS, str(w.message))]
    if exif:
        notes["corrupt EXIF"] = str(exif[0].message)
    others = [f"{w.category.__name__}: {w.message}" for w in caught if w not in exif]
    return pixels, notes, list(dict.fromkeys(others))  # a warning of a retried decode comes once, not twice


def _is_truncation(error: Exception) -> bool:
    """Return whether ``error`` is Pillow's "image file is truncated": the file ends before its image does."""
    return isinstance(error, OSError) and str(error).startswith("image file is truncated")


class _Skip(Exception):
    """Raised inside ``load_photo`` for a file it skips for a reason other than a decoding error."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(kind, detail)
        self.kind, self.detail = kind, detail


def _open_regular_file(path: str | os.PathLike[str]) -> BinaryIO:
    """Return the file ``path`` opened for reading; raise ``_Skip("not a file", ...)`` for a directory, FIFO...

    It is opened without blocking, so a FIFO (which would wait for a writer forever) is only looked at.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    file_type = _file_type(os.fstat(fd).st_mode)
    if file_type != "file":
        os.close(fd)
        raise _Skip("not a file", file_type)
    return open(fd, "rb")


def _file_type(mode: int) -> str:
    """Return ``"file"`` for a regular file's ``st_mode``, else what it is: directory, FIFO, socket or device."""
    import stat

    kinds = [(stat.S_ISREG, "file"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket")]
    return next((name for test, name in kinds if test(mode)), "device")


def _decode(source: Any, size: int) -> tuple[np.ndarray, str]:
    """Return the image in ``source`` as ``size``x``size`` uint8 grayscale, and the mode it was stored in."""
    from PIL import Image, ImageOps

    with Image.open(source) as image:
        mode = image.mode
        image.draft("L", (size, size))  # JPEG: decode at 1/2, 1/4 or 1/8 scale, straight to gray
        image.load()  # decode now: a broken file fails here, not in the conversions below
        ImageOps.exif_transpose(image, in_place=True)  # reads EXIF: phone photos the right way up
        if image.mode in ("I", "F"):  # white may be 255, 1.0, 65535...: the file does not say which
            raise _Skip("unsupported mode", THIRTY_TWO_BITS["en"].format(image.mode))
        try:
            if image.mode.startswith("I;16"):  # white is 65535; convert("L") would clip everything above 255
                gray = Image.fromarray((np.asarray(image, dtype=np.float32) / 257).round().astype(np.uint8))
            elif image.mode in ("LA", "La", "PA", "RGBA", "RGBa") or "transparency" in image.info:  # on white
                white = Image.new("RGBA", image.size, "white")
                gray = Image.alpha_composite(white, image.convert("RGBA")).convert("L")
            else:
                gray = image.convert("L")
        except ValueError as error:  # e.g. LAB: Pillow has no conversion to gray
            raise _Skip("unsupported mode", image.mode) from error
        return np.array(gray.resize((size, size), Image.Resampling.BILINEAR)), mode


def _shown(name: str) -> str:
    """Return ``name`` printable: bytes that are not UTF-8 (kept by ``os.listdir`` as surrogates) as ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def scan(
    root: str | os.PathLike[str],
) -> tuple[list[tuple[str, int]], list[tuple[str, str, str]], dict[str, dict[str, int]], str]:
    """Return ``(todo, skipped, counts, fingerprint)`` for the folders ``root/Cat`` and ``root/Dog``.

    Every entry of the two folders lands in exactly one place, and none stops the scan: ``todo`` holds
    ``(name, label)`` for each file (or link to one) named .jpg, .jpeg or .png that is not empty; every other
    entry is in ``skipped`` as ``(name as printed, kind, detail)`` and counted in ``counts[class][kind]``: "not an
    image", "zero-byte", "not a file" (a directory, FIFO, socket), "broken link" (a dangling link or a loop of
    links) or "unreadable" (cannot even be looked at). The names in ``todo`` are ``"Cat/<file name>"`` exactly as
    ``os.listdir`` gives them. ``fingerprint`` is a hash of every entry's name, size and modification time.
    """
    import hashlib
    import stat

    counts = {name: dict.fromkeys(KINDS, 0) for name in CLASSES}
    todo, skipped, listing = [], [], []
    for label, name in enumerate(CLASSES):
        with os.scandir(Path(root) / name) as folder:
            entries = sorted(folder, key=lambda entry: entry.name)
        for entry in entries:
            rel, kind, detail = f"{name}/{entry.name}", "", ""
            try:
                info = entry.stat()  # follows links
                listing.append(f"{rel}\0{info.st_size} {info.st_mtime_ns}")  # no name holds a NUL character
            except OSError as error:  # a dangling link, a loop of links, no permission to look
                kind = "broken link" if _is_link(entry) else "unreadable"
                detail = error.strerror or type(error).__name__
                listing.append(f"{rel}\0{detail}")
            else:
                if not stat.S_ISREG(info.st_mode):
                    kind, detail = "not a file", _file_type(info.st_mode)
                elif not entry.name.lower().endswith((".jpg", ".jpeg", ".png")):
                    kind = "not an image"  # e.g. Thumbs.db, the thumbnail cache Windows leaves in folders
                elif info.st_size == 0:
                    kind = "zero-byte"
            if kind:
                counts[name][kind] = counts[name].get(kind, 0) + 1
                skipped.append((_shown(rel), kind, detail))
            else:
                todo.append((rel, label))
    fingerprint = hashlib.sha256("\0".join(listing).encode("utf-8", "surrogatepass")).hexdigest()
    return todo, skipped, counts, fingerprint


def _is_link(entry: os.DirEntry) -> bool:
    """Return whether ``entry`` is a symbolic link, False if even that cannot be found out."""
    try:
        return entry.is_symlink()
    except OSError:
        return False


def build(
    root: str | os.PathLike[str], size: int = 50, workers: int | None = None, keep_truncated: bool = True
) -> dict[str, Any]:
    """Return the cleaned data set under ``root``: a dict of images, labels, files, counts, skipped and more.

    images (N, size, size) uint8 and labels (N,) int64 (the index in ``CLASSES``) of the kept images, files
    their names (``"Cat/0.jpg"``, exactly as on disk); ``counts[class][kind]``: for each class, "kept" plus one
    of ``SKIP_KINDS`` per entry that is not kept (they add up to the entries in the class folder), and, among
    the kept images, how many had each note of ``load_photo``; skipped: ``(name as printed, kind, detail)``
    per skipped entry; fingerprint (``scan``'s) and keep_truncated (``load_photo``'s) record what the
    data were built from. ``workers`` processes (default: one per core) decode; the results go straight into one
    preallocated array.
    """
    import contextlib
    import warnings
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    todo, skipped, counts, fingerprint = scan(root)
    images = np.empty((len(todo), size, size), dtype=np.uint8)
    labels = np.empty(len(todo), dtype=np.int64)
    files: list[str] = []
    workers = workers or utils.cpu_cores()
    decode = partial(load_photo, size=size, keep_truncated=keep_truncated)
    paths = [Path(root) / rel for rel, _ in todo]
    with contextlib.ExitStack() as stack:
        if workers > 1:  # load_photo is importable by name, so this also works where processes start by spawn
            pool = stack.enter_context(ProcessPoolExecutor(workers))
            results = pool.map(decode, paths, chunksize=max(1, len(todo) // (8 * workers)))
        else:
            results = map(decode, paths)
        for (rel, label), (pixels, notes, others) in zip(
            todo, utils.progress(results, total=len(todo), desc=utils.localized("decoding", "解码")), strict=True
        ):
            count = counts[CLASSES[label]]
            for kind in notes:  # a skip kind for a skipped file; for a kept one "grayscale", "truncated"...
                count[kind] = count.get(kind, 0) + 1
            for message in others:  # any other warning reaches you, with the file's name
                warnings.warn(f"{_shown(rel)}: {message}", stacklevel=2)
            if pixels is None:
                skipped += [(_shown(rel), kind, detail) for kind, detail in notes.items()]
                continue
            images[len(files)], labels[len(files)] = pixels, label
            count["kept"] += 1
            files.append(rel)
    if len(files) < len(todo):  # skipped files left empty slots at the end
        images, labels = images[: len(files)].copy(), labels[: len(files)].copy()
    return {
        "images": torch.from_numpy(images),
        "labels": torch.from_numpy(labels),
        "files": files,
        "counts": counts,
        "skipped": skipped,
        "fingerprint": fingerprint,
        "keep_truncated": keep_truncated,
    }


def load_or_build(
    root: str | os.PathLike[str],
    cache: str | os.PathLike[str],
    size: int = 50,
    rebuild: bool = False,
    workers: int | None = None,
    keep_truncated: bool = True,
) -> dict[str, Any]:
    """Return ``build(root, size, workers, keep_truncated)``, read from the file ``cache`` if it is fresh.

    Fresh: built with the same ``size`` and ``keep_truncated`` from the same files (``scan``'s
    fingerprint: no entry added or removed since, none with another size or modification time). A cache that is
    not fresh, damaged, or not readable with ``torch.load(weights_only=True)`` is rebuilt, and one printed line
    says why; nothing is printed when the cache is used, missing, or ``rebuild`` asks for a new one.
    """
    if Path(cache).is_file() and not rebuild:
        data, why_not = _read_cache(cache, root, size, keep_truncated)
        if data is not None:
            return data
        print(
            utils.localized(
                f"{Path(cache).name} {why_not}: rebuilding it", f"{Path(cache).name}{why_not}，正在重新构建"
            )
        )
    data = build(root, size, workers, keep_truncated)
    atomic_save(_cache_contents(data), cache)
    return data


def _cache_contents(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` as the cache file stores it: the file names joined into one string, with their lengths.

    One string and a tensor load faster than 25,000 strings (``torch.load(weights_only=True)`` unpickles each
    separately), and unlike names joined by newlines, the lengths give back names holding any character.
    """
    lengths = torch.tensor([len(name) for name in data["files"]], dtype=torch.int64)
    return {**data, "files": "".join(data["files"]), "file_lengths": lengths, "format": CACHE_FORMAT}


def _read_cache(
    cache: str | os.PathLike[str], root: str | os.PathLike[str], size: int, keep_truncated: bool
) -> tuple[dict[str, Any] | None, str]:
    """Return ``(data, "")`` from the file ``cache`` if it is fresh for these settings, else ``(None, why not)``."""
    import itertools

    try:
        stored = torch.load(cache, weights_only=True)
        if stored.get("format") != CACHE_FORMAT:
            return None, utils.localized("was written in an older format", "是旧格式的")
        ends = list(itertools.accumulate(stored.pop("file_lengths").tolist()))
        joined, images, labels = stored.pop("files"), stored["images"], stored["labels"]
        files = [joined[start:end] for start, end in itertools.pairwise([0, *ends])]
        if (ends or [0])[-1] != len(joined) or not len(files) == len(images) == len(labels) or images.ndim != 3:
            raise ValueError("the parts of the cache do not match")
        built_with, fingerprint = stored["keep_truncated"], stored.pop("fingerprint")
    except Exception as error:  # cut off, overwritten, not a cache at all: rebuilt, with the reason printed
        return None, utils.localized(f"cannot be read ({type(error).__name__})", f"无法读取（{type(error).__name__}）")
    if tuple(images.shape[1:]) != (size, size):
        held = f"{images.shape[1]}x{images.shape[2]}"
        return None, utils.localized(
            f"holds {held} images, not {size}x{size}", f"存的是{held}的图像，而不是{size}x{size}"
        )
    if built_with != keep_truncated:
        return None, utils.localized(
            f"was built with keep_truncated={built_with}", f"是用keep_truncated={built_with}构建的"
        )
    if fingerprint != scan(root)[3]:
        return None, utils.localized(
            "is out of date: photos were added, removed or changed since it was built",
            "已经过时（构建之后有照片被添加、删除或修改）",
        )
    del stored["format"]
    return {**stored, "files": files, "fingerprint": fingerprint}, ""
