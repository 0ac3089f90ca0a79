"""tools/ci/check_lab.py's parts that need no browser: the copy of the project a lesson opens in, and the words that
count as an error in what a student sees (the browser run itself is command 4 of .ci/run)."""

from __future__ import annotations

from pathlib import Path

import pytest

import utils
from tools.ci import check_lab


def test_the_copy_holds_what_a_students_clone_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = tmp_path / "checkout"
    for name in ["utils.py", "lessons/ddp.py", "notebooks/01_devices.ipynb", "notebooks/zh/01_devices.ipynb",
                 ".git/HEAD", ".venv/bin/python", ".venv-docs/x", "data/cifar-10-batches-py/data_batch_1",
                 "data/README.md", "_site/index.html", "student/README.md", "lessons/__pycache__/ddp.pyc",
                 "notebooks/.ipynb_checkpoints/01_devices-checkpoint.ipynb", "notebooks/data/x"]:
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        (checkout / name).write_text("x", encoding="utf-8")
    monkeypatch.setattr(check_lab, "ROOT", checkout)
    copy = tmp_path / "copy"
    check_lab.copy_project(copy)
    held = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert held == ["lessons/ddp.py", "notebooks/01_devices.ipynb", "notebooks/data/x",
                    "notebooks/zh/01_devices.ipynb", "utils.py"]
    assert (copy / "data").is_dir() and not any((copy / "data").iterdir())  # empty: the lessons write there


@pytest.mark.parametrize("text", [
    "Traceback (most recent call last):\n  File ...", "ERROR: Could not find a version that satisfies torch",
    "some output\nerror: failed", "Error displaying widget: model not found"])
def test_error_text_is_found(text: str) -> None:
    assert check_lab.ERROR_TEXT.search(text), text


@pytest.mark.parametrize("text", [
    "✓ Exercise 1: correct.", "RuntimeError: Tensor on device cpu is not on the expected device meta!",
    utils.EXPECTED_ERROR["en"], utils.EXPECTED_ERROR["zh"], "errors: 0", "练习1：正确。"])
def test_a_lessons_own_words_are_not_error_text(text: str) -> None:
    assert not check_lab.ERROR_TEXT.search(text), text
