"""Unit tests for the PetImages helpers in utils.py (notebook 07) and a smoke test of their benchmark."""

from __future__ import annotations

import importlib.util
import io
import struct
import urllib.error
import urllib.request
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from PIL import Image, ImageOps

import utils
from lessons import petimages

ROOT = Path(__file__).resolve().parents[1]
URL = "https://example.invalid/kagglecatsanddogs_5340.zip"  # never contacted: the tests replace urlopen
# EXIF whose only tag points past the end of its block: reading it makes Pillow warn (as make_quick_petimages does)
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
    return pets


# ---- one file ----------------------------------------------------------------------------------------


def test_load_petimage_gives_small_grayscale_pixels(tmp_path: Path) -> None:
    path = _photo(tmp_path / "a.jpg", size=(500, 375))
    pixels, notes, others = petimages.load_petimage(path)
    assert pixels is not None and pixels.shape == (50, 50) and pixels.dtype == np.uint8
    assert pixels.flags.writeable and notes == [] and others == []
    assert pixels[:, :5].mean() < 40 < 215 < pixels[:, -5:].mean()  # the gradient survived
    assert petimages.load_petimage(path, size=32)[0].shape == (32, 32)


@pytest.mark.parametrize(("mode", "note"), [("L", "grayscale"), ("CMYK", "CMYK")])
def test_grayscale_and_cmyk_are_converted_not_dropped(mode: str, note: str, tmp_path: Path) -> None:
    pixels, notes, _ = petimages.load_petimage(_photo(tmp_path / "a.jpg", mode=mode))
    assert pixels is not None and pixels.shape == (50, 50) and notes == [note]


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    image = Image.new("L", (100, 50), 255)
    image.paste(0, (0, 0, 50, 50))  # left half black
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 degrees clockwise to display": the left half ends up on top
    image.save(tmp_path / "turned.jpg", exif=exif)
    pixels, _, _ = petimages.load_petimage(tmp_path / "turned.jpg")
    assert pixels[:20].mean() < 30 and pixels[-20:].mean() > 225


def test_corrupt_exif_is_counted_and_its_warning_filtered(tmp_path: Path) -> None:
    path = _photo(tmp_path / "a.jpg", exif=BAD_EXIF)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with pytest.warns(UserWarning), Image.open(path) as image:  # Pillow itself warns reading this EXIF ...
            ImageOps.exif_transpose(image)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ... but load_petimage lets nothing escape
        pixels, notes, others = petimages.load_petimage(path)
    assert pixels is not None and notes == ["corrupt EXIF"] and others == []


def test_warnings_are_filtered_by_message_not_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _photo(tmp_path / "a.jpg")
    messages = ["Possibly corrupt EXIF data.  Expecting to read 32 bytes but only got 0. Skipping tag 270"]

    def warning_transpose(image: Image.Image, **kwargs: Any) -> None:
        for message in messages:
            warnings.warn(message, UserWarning, stacklevel=2)

    monkeypatch.setattr(ImageOps, "exif_transpose", warning_transpose)
    assert petimages.load_petimage(path)[1:] == (["corrupt EXIF"], [])
    messages.append("something else entirely")
    assert petimages.load_petimage(path)[1:] == (["corrupt EXIF"], ["UserWarning: something else entirely"])
    messages.pop(0)
    assert petimages.load_petimage(path)[1:] == ([], ["UserWarning: something else entirely"])


@pytest.mark.parametrize("content", [b"<html>a web page</html>", b"\xff\xd8\xff\xe0" + bytes(20)])
def test_unreadable_files_give_none(content: bytes, tmp_path: Path) -> None:
    (tmp_path / "bad.jpg").write_bytes(content)
    pixels, notes, others = petimages.load_petimage(tmp_path / "bad.jpg")
    assert pixels is None and len(notes) == 1 and notes[0].startswith("unreadable (") and others == []


def test_truncated_jpeg_is_unreadable(tmp_path: Path) -> None:
    data = _photo(tmp_path / "a.jpg", size=(400, 300)).read_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    assert petimages.load_petimage(tmp_path / "cut.jpg")[0] is None


# ---- a folder --------------------------------------------------------------------------------------------

# Python >= 3.12 warns when a process with threads forks (the process pool's default start on Linux before 3.14);
# the workers only run PIL code, so the warning does not apply to them
FORK_WARNING = "ignore:.*use of fork\\(\\) may lead to deadlocks:DeprecationWarning"

EXPECTED_COUNTS = {
    "Cat": {"kept": 5, "grayscale": 1, "CMYK": 0, "corrupt EXIF": 1, "zero-byte": 1, "not an image": 1,
            "unreadable": 0},
    "Dog": {"kept": 3, "grayscale": 0, "CMYK": 1, "corrupt EXIF": 0, "zero-byte": 1, "not an image": 0,
            "unreadable": 1},
}


@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.parametrize("workers", [1, 2])
def test_build_counts_every_problem_and_keeps_every_readable_image(workers: int, tmp_path: Path) -> None:
    data = petimages.build_petimages(_pet_folder(tmp_path), workers=workers)
    assert data["counts"] == EXPECTED_COUNTS
    assert sorted(data["skipped"]) == [
        ("Cat/666.jpg", "zero-byte"), ("Cat/Thumbs.db", "not an image"),
        ("Dog/11702.jpg", "zero-byte"), ("Dog/3.jpg", "unreadable (UnidentifiedImageError)"),
    ]
    assert data["files"] == [f"Cat/{i}.jpg" for i in range(5)] + [f"Dog/{i}.jpg" for i in range(3)]
    assert data["images"].shape == (8, 50, 50) and data["images"].dtype == torch.uint8
    assert data["labels"].tolist() == [0] * 5 + [1] * 3 and data["labels"].dtype == torch.int64
    for index, file in enumerate(data["files"]):  # each slot holds its own file's pixels
        assert np.array_equal(data["images"][index].numpy(), petimages.load_petimage(tmp_path / "PetImages" / file)[0])


def test_build_passes_other_warnings_on_with_the_file_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pets = tmp_path / "PetImages"
    _photo(pets / "Cat" / "0.jpg")
    (pets / "Dog").mkdir()

    def warning_transpose(image: Image.Image, **kwargs: Any) -> None:
        warnings.warn("something else entirely", UserWarning, stacklevel=2)

    monkeypatch.setattr(ImageOps, "exif_transpose", warning_transpose)
    with pytest.warns(UserWarning, match="Cat/0.jpg: UserWarning: something else entirely"):
        data = petimages.build_petimages(pets, workers=1)
    assert data["counts"]["Cat"]["kept"] == 1


def test_cache_is_reused_and_rebuilt_on_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pets, cache = _pet_folder(tmp_path), tmp_path / "images.pt"
    builds = []
    real_build = petimages.build_petimages

    def counting_build(*args: Any, **kwargs: Any) -> dict[str, Any]:
        builds.append(args)
        return real_build(*args, **kwargs)

    monkeypatch.setattr(petimages, "build_petimages", counting_build)
    first = petimages.load_or_build_petimages(pets, cache, workers=1)
    assert len(builds) == 1 and cache.is_file()
    second = petimages.load_or_build_petimages(pets, cache)
    assert len(builds) == 1  # read from the cache
    assert torch.equal(first["images"], second["images"]) and torch.equal(first["labels"], second["labels"])
    assert first["files"] == second["files"] and first["counts"] == second["counts"]
    assert [tuple(s) for s in second["skipped"]] == first["skipped"]
    petimages.load_or_build_petimages(pets, cache, rebuild=True, workers=1)
    assert len(builds) == 2  # the rebuild switch
    assert petimages.load_or_build_petimages(pets, cache, size=32, workers=1)["images"].shape[1:] == (32, 32)
    assert len(builds) == 3  # a cache of another size is not used


def test_quick_sample_is_deterministic_and_has_every_problem(tmp_path: Path) -> None:
    first = petimages.make_quick_petimages(tmp_path / "a", per_class=20)
    second = petimages.make_quick_petimages(tmp_path / "b", per_class=20)
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*.*"))
    assert files == sorted(p.relative_to(second).as_posix() for p in second.rglob("*.*"))
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    assert first.name == "PetImages" and len(list((first / "Cat").glob("*.jpg"))) == 21
    sizes = set()
    for path in (first / "Dog").glob("1?.jpg"):
        with Image.open(path) as image:
            sizes.add(image.size)
    assert len(sizes) > 5  # varied sizes
    data = petimages.build_petimages(first, workers=1)
    for kind in petimages.PET_KINDS:
        assert sum(data["counts"][name][kind] for name in petimages.PET_CLASSES) >= 1, kind


def test_quick_sample_is_reused_unless_settings_change(tmp_path: Path) -> None:
    pets = petimages.make_quick_petimages(tmp_path, per_class=6)
    stamp = (pets / "Cat" / "0.jpg").stat().st_mtime_ns
    petimages.make_quick_petimages(tmp_path, per_class=6)
    assert (pets / "Cat" / "0.jpg").stat().st_mtime_ns == stamp
    petimages.make_quick_petimages(tmp_path, per_class=7)
    assert (pets / "Cat" / "6.jpg").is_file()


# ---- download and extraction --------------------------------------------------------------------------------


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


@pytest.mark.parametrize("name", ["../evil.txt", "/tmp/evil.txt", "PetImages/../../evil.txt", "..\\evil.txt"])
def test_safe_extract_refuses_path_escapes(name: str, tmp_path: Path) -> None:
    archive = _zip(tmp_path / "bad.zip", {"PetImages/Cat/0.jpg": b"fine", name: b"evil"})
    with pytest.raises(ValueError, match="refusing to extract"):
        petimages.safe_extract(archive, tmp_path / "out")
    assert not (tmp_path / "out" / "PetImages").exists()  # nothing was written, not even the good member
    assert not (tmp_path / "evil.txt").exists()


def test_safe_extract_extracts_good_archives(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "good.zip", {"PetImages/Cat/0.jpg": b"cat", "readme[1].txt": b"hello"})
    dest = petimages.safe_extract(archive, tmp_path / "out")
    assert (dest / "PetImages" / "Cat" / "0.jpg").read_bytes() == b"cat"


class FakeResponse(io.BytesIO):
    """What ``urlopen`` returns: a readable body with an HTTP status."""

    def __init__(self, body: bytes, status: int) -> None:
        super().__init__(body)
        self.status = status


def _fake_urlopen(monkeypatch: pytest.MonkeyPatch, payload: bytes, honour_range: bool, cut: int | None = None) -> list:
    requests = []

    def urlopen(request: urllib.request.Request, timeout: float) -> FakeResponse:
        requests.append(request)
        start = int(request.headers.get("Range", "bytes=0-")[6:-1]) if honour_range else 0
        body = payload[start:cut]
        return FakeResponse(body, 206 if honour_range and start else 200)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return requests


def test_download_resumes_a_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    payload = bytes(range(200)) * 50
    (tmp_path / "x.zip.part").write_bytes(payload[:3000])
    requests = _fake_urlopen(monkeypatch, payload, honour_range=True)
    path = petimages.download_file(URL, tmp_path / "x.zip", len(payload))
    assert path.read_bytes() == payload and not (tmp_path / "x.zip.part").exists()
    assert requests[0].headers["Range"] == "bytes=3000-"
    assert capsys.readouterr().err == ""  # the progress bar is silent in quick mode (tests)


def test_download_restarts_when_the_server_ignores_the_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = bytes(range(200)) * 50
    (tmp_path / "x.zip.part").write_bytes(b"junk" * 100)
    _fake_urlopen(monkeypatch, payload, honour_range=False)
    assert petimages.download_file(URL, tmp_path / "x.zip", len(payload)).read_bytes() == payload


def test_download_interrupted_keeps_the_part_for_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = bytes(range(200)) * 50
    _fake_urlopen(monkeypatch, payload, honour_range=True, cut=4000)
    with pytest.raises(OSError, match="stopped at 4,000 of 10,000 bytes"):
        petimages.download_file(URL, tmp_path / "x.zip", len(payload))
    assert (tmp_path / "x.zip.part").stat().st_size == 4000 and not (tmp_path / "x.zip").exists()
    requests = _fake_urlopen(monkeypatch, payload, honour_range=True)
    assert petimages.download_file(URL, tmp_path / "x.zip", len(payload)).read_bytes() == payload
    assert requests[0].headers["Range"] == "bytes=4000-"


def test_download_too_big_part_starts_over_and_complete_part_needs_no_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = b"abc" * 100
    (tmp_path / "x.zip.part").write_bytes(payload + b"extra")
    requests = _fake_urlopen(monkeypatch, payload, honour_range=True)
    assert petimages.download_file(URL, tmp_path / "x.zip", len(payload)).read_bytes() == payload
    assert "Range" not in requests[0].headers
    (tmp_path / "y.zip.part").write_bytes(payload)
    assert petimages.download_file(URL, tmp_path / "y.zip", len(payload)).read_bytes() == payload
    assert len(requests) == 1


def test_offline_gives_one_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(request: Any, timeout: float) -> None:
        raise urllib.error.URLError(OSError(101, "Network is unreachable"))

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    data_dir = utils.DATA_DIR / "offline_test_never_created"
    with pytest.raises(RuntimeError) as caught:
        petimages.get_petimages(data_dir)
    message = str(caught.value)
    assert message.startswith("PetImages is not available (Network is unreachable).")
    assert "put it at data/offline_test_never_created/kagglecatsanddogs_5340.zip" in message
    assert "824,887,076 bytes" in message and "NB_QUICK=1" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # one message, no chain
    assert not data_dir.exists()


def test_get_petimages_skips_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "petimages" / "PetImages" / "Cat").mkdir(parents=True)
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("downloaded although present"))
    assert petimages.get_petimages(tmp_path) == tmp_path / "petimages" / "PetImages"


def test_get_petimages_checks_size_then_extracts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("downloaded although present"))
    archive = _zip(tmp_path / "kagglecatsanddogs_5340.zip", {"PetImages/Cat/0.jpg": b"c", "PetImages/Dog/0.jpg": b"d"})
    with pytest.raises(RuntimeError, match=f"the zip has {archive.stat().st_size:,} bytes, not 824,887,076"):
        petimages.get_petimages(tmp_path)
    monkeypatch.setattr(petimages, "PETIMAGES_ZIP_BYTES", archive.stat().st_size)
    pets = petimages.get_petimages(tmp_path)
    assert pets == tmp_path / "petimages" / "PetImages" and (pets / "Dog" / "0.jpg").read_bytes() == b"d"
    assert not (tmp_path / "petimages.part").exists()


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
