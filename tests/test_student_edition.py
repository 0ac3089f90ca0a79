"""The student edition: generated from the stored notebooks, no solution leaks, and it still runs to the end."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import utils
from tools import student_edition

NOTEBOOKS = sorted((utils.ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture(scope="module")
def edition() -> Iterator[Path]:
    """The student edition written under data/ (inside the project, so its setup cells find utils.py)."""
    utils.DATA_DIR.mkdir(exist_ok=True)
    out = Path(tempfile.mkdtemp(prefix="student-test-", dir=utils.DATA_DIR))
    student_edition.write_edition(out)
    yield out
    shutil.rmtree(out, ignore_errors=True)


def _text(nb: nbformat.NotebookNode) -> str:
    """All sources and outputs of ``nb`` as one string."""
    return nbformat.writes(nb)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_solution_leaks_and_everything_else_is_kept(edition: Path, path: Path) -> None:
    full = nbformat.read(path, as_version=4)
    student = nbformat.read(edition / path.name, as_version=4)
    assert len(student.cells) == len(full.cells)
    solutions = [cell for cell in full.cells if student_edition.is_solution(cell)]
    assert solutions, "a notebook without exercise solutions"
    rest = _text(nbformat.v4.new_notebook(cells=[c for c in full.cells if not student_edition.is_solution(c)]))
    text = _text(student)
    unique = {line.strip() for c in solutions for line in c.source.splitlines()[1:] if line.strip() not in rest}
    assert unique, "solutions with nothing of their own"
    for line in unique:  # a line found only in solutions is nowhere in the student edition
        assert line not in text, f"solution line leaks: {line!r}"
    for before, after in zip(full.cells, student.cells, strict=True):
        if student_edition.is_solution(before):
            assert after.source == student_edition.PLACEHOLDER and not after.outputs  # code and outputs gone
        elif before is not full.cells[0]:
            assert after == before  # prose, code and stored outputs unchanged
    assert "colab.research.google.com/github" not in student.cells[0].source


def test_student_notebooks_run_to_the_end(edition: Path) -> None:
    """Every student notebook executes top to bottom in quick mode (its exercises are empty cells)."""
    os.environ[utils.QUICK_ENV] = "1"
    for path in sorted(edition.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(edition)}}).execute()
        assert all(o.get("output_type") != "error" for c in nb.cells for o in c.get("outputs", []))


def test_student_version_replaces_solution_code_and_output() -> None:
    secret = nbformat.v4.new_code_cell("# Solution\nanswer = 42\nprint(answer)", execution_count=3)
    secret.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    name = "01_devices.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(f"# 01 · Devices\n\n{student_edition.template.badge(name)}\n\nText"),
        nbformat.v4.new_code_cell("print(1)", execution_count=1),
        nbformat.v4.new_markdown_cell("## Exercises\n\n1. Print the answer."),
        secret,
    ])
    student = student_edition.student_version(nb, name)
    assert "answer = 42" not in nbformat.writes(student) and "42\n" not in nbformat.writes(student)
    assert student.cells[3].source == student_edition.PLACEHOLDER and student.cells[3].outputs == []
    assert student.cells[0].source == "# 01 · Devices\n\nText\n" and nb.cells[3] is secret  # the original is kept
