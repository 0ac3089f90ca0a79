"""Unit tests for lessons/generated_pets.py: the quick sample and the full-size generated set of notebook 07."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from lessons import generated_pets, petimages


def test_quick_sample_is_deterministic_and_has_every_problem(tmp_path: Path) -> None:
    first = generated_pets.make_quick(tmp_path / "a", per_class=20)
    second = generated_pets.make_quick(tmp_path / "b", per_class=20)
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*.*"))
    assert files == sorted(p.relative_to(second).as_posix() for p in second.rglob("*.*"))
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    assert first.name == "PetImages" and len(list((first / "Cat").glob("*.jpg"))) == 21
    sizes = set()
    for path in (first / "Dog").glob("1?.jpg"):
        with Image.open(path) as image:
            sizes.add(image.size)
    assert len(sizes) > 5  # varied sizes
    data = petimages.build(first, workers=1)
    for kind in petimages.KINDS:
        assert sum(data["counts"][name][kind] for name in petimages.CLASSES) >= 1, kind
    assert data["counts"]["Dog"]["truncated"] == 1 and "Dog/2.jpg" in data["files"]  # kept, as OpenCV keeps it



def test_quick_sample_is_reused_unless_settings_change(tmp_path: Path) -> None:
    pets = generated_pets.make_quick(tmp_path, per_class=6)
    stamp = (pets / "Cat" / "0.jpg").stat().st_mtime_ns
    generated_pets.make_quick(tmp_path, per_class=6)
    assert (pets / "Cat" / "0.jpg").stat().st_mtime_ns == stamp
    generated_pets.make_quick(tmp_path, per_class=7)
    assert (pets / "Cat" / "6.jpg").is_file()


def test_generated_set_has_real_photo_sizes_and_is_reused(tmp_path: Path) -> None:
    pets = generated_pets.make_generated(tmp_path, per_class=3, workers=2)
    widths = []
    for path in sorted((pets / "Cat").iterdir()) + sorted((pets / "Dog").iterdir()):
        with Image.open(path) as image:
            widths.append(image.width)
    assert len(widths) == 6 and all(300 <= w <= 500 for w in widths)
    stamp = (pets / "done.txt").stat().st_mtime_ns
    assert generated_pets.make_generated(tmp_path, per_class=3, workers=2) == pets
    assert (pets / "done.txt").stat().st_mtime_ns == stamp  # kept, not written again
