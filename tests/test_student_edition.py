"""The student edition: a self-contained handout, no solution leaks, and it runs.

Why executing one kernel is enough: ``hygiene.check_exercises`` (run on every notebook by test_hygiene.py) proves
that every solution comes after every other code cell and that no other cell reads a name only a solution defines
(with a ``## Solutions`` section: that it is the last section and holds only solutions and their checks), and the
first test below proves that the student notebooks keep every other cell exactly. So a student notebook runs
exactly the cells strict nbval runs, in the same order, less the solutions (plus empty cells, in the old
structure). What that cannot prove is that the
handout is self-contained: the last test runs every notebook's setup and import cells from a copy of the handout
outside the project, where only the handout's own ``utils.py`` and ``lessons/`` can be found.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
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
    """The handout, written outside the project so that nothing of the project can be found from it."""
    parent = Path(tempfile.mkdtemp(prefix="student-test-"))
    student_edition.write_edition(parent / "student")
    yield parent / "student"
    shutil.rmtree(parent, ignore_errors=True)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_solution_leaks_and_everything_else_is_kept(edition: Path, path: Path) -> None:
    full = nbformat.read(path, as_version=4)
    student = nbformat.read(edition / "notebooks" / path.name, as_version=4)
    heading = student_edition.template.heading_index(full, student_edition.template.LANGUAGES["en"].solutions)
    if heading is not None:  # the structure of issue 27: the Solutions section, the last, is left out
        solutions = [cell for cell in full.cells[heading:] if cell.cell_type == "code"]
        rest = nbformat.writes(nbformat.v4.new_notebook(cells=full.cells[:heading]))
        unique = {line.strip() for c in solutions for line in c.source.splitlines()[1:] if line.strip() not in rest}
        assert [c for c in solutions if student_edition.is_solution(c)] and unique, "no solutions of their own"
        text = nbformat.writes(student)
        for line in unique:
            assert line not in text, f"solution line leaks: {line!r}"
        assert student.cells[1:] == full.cells[1:heading]  # prose, answer cells, checks and outputs unchanged
        assert "colab.research.google.com/github" not in student.cells[0].source
        return
    assert len(student.cells) == len(full.cells)
    solutions = [cell for cell in full.cells if student_edition.is_solution(cell)]
    assert solutions, "a notebook without exercise solutions"
    others = [c for c in full.cells if not student_edition.is_solution(c)]
    rest = nbformat.writes(nbformat.v4.new_notebook(cells=others))
    text = nbformat.writes(student)
    unique = {line.strip() for c in solutions for line in c.source.splitlines()[1:] if line.strip() not in rest}
    assert unique, "solutions with nothing of their own"
    for line in unique:  # a line found only in solutions is nowhere in the student edition
        assert line not in text, f"solution line leaks: {line!r}"
    number = 0
    for before, after in zip(full.cells, student.cells, strict=True):
        if student_edition.is_solution(before):
            number += 1  # hygiene.check_exercises: exercise N is the N-th, directly above its solution
            assert after.source == f"# Exercise {number} — your solution\n" and not after.outputs
        elif before is not full.cells[0]:
            assert after == before  # prose, code and stored outputs unchanged
    assert "colab.research.google.com/github" not in student.cells[0].source


def test_handout_holds_what_the_lessons_need(edition: Path) -> None:
    for name in student_edition.HANDOUT + ["README.md", "notebooks/assets"]:
        assert (edition / name).exists(), name
    lessons = {p.name for p in (utils.ROOT / "lessons").glob("*.py")}
    assert {p.name for p in (edition / "lessons").glob("*.py")} == lessons
    assert not (edition / "notebooks" / "timings.json").exists() and not (edition / "tests").exists()


def test_handout_requirements_leave_out_nbgrader(edition: Path) -> None:
    """nbgrader is for the teacher: its JupyterLab extension stays out of the students' JupyterLab; every other
    pin is kept as it is."""
    full = (utils.ROOT / "requirements.txt").read_text(encoding="utf-8")
    handout = (edition / "requirements.txt").read_text(encoding="utf-8")
    assert "nbgrader" in full and "nbgrader" not in handout.lower()
    assert [line for line in full.splitlines() if "nbgrader" not in line] == handout.splitlines()
    assert student_edition.students_requirements("torch==2.15.0\nNBGrader[docs]>=0.9  # x\n") == "torch==2.15.0\n"


def test_handout_notebooks_find_their_code_inside_the_handout(edition: Path) -> None:
    """Every notebook's setup cell and import cell, run in one kernel started in the handout's notebooks/ folder."""
    cells = []
    for path in sorted((edition / "notebooks").glob("*.ipynb")):
        code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        cells += [code[0], code[1]]  # the shared setup cell, then the lesson's imports
    cells.append(nbformat.v4.new_code_cell("print(utils.ROOT.name, utils.ROOT.parent == ROOT.parent)"))
    nb = nbformat.v4.new_notebook(cells=cells)
    os.environ[utils.QUICK_ENV] = "1"
    where = {"metadata": {"path": str(edition / "notebooks")}}
    NotebookClient(nb, timeout=300, kernel_name="python3", resources=where).execute()
    assert nb.cells[-1].outputs[0]["text"] == "student True\n"  # the handout's utils.py, not the project's


def test_zip_holds_the_folder(tmp_path: Path) -> None:
    student_edition.main(["--out", str(tmp_path / "student"), "--zip"])
    with zipfile.ZipFile(tmp_path / "student.zip") as archive:
        names = set(archive.namelist())
    assert "student/utils.py" in names and "student/notebooks/01_devices.ipynb" in names
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):  # never deletes a folder that is not an earlier edition
        student_edition.main(["--out", str(tmp_path / "other")])
    assert (tmp_path / "other" / "keep.txt").is_file()


def test_student_version_replaces_solution_code_and_output() -> None:
    secret = nbformat.v4.new_code_cell("# Solution\nanswer = 42\nprint(answer)", execution_count=3)
    secret.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    name = "01_devices.ipynb"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# 01 · Devices\n\n{student_edition.template.badge(name)}\n\nText"),
            nbformat.v4.new_code_cell("print(1)", execution_count=1),
            nbformat.v4.new_markdown_cell("## Exercises"),
            nbformat.v4.new_markdown_cell("**Exercise 1.** Print the answer."),
            secret,
        ]
    )
    student = student_edition.student_version(nb, name)
    assert "answer = 42" not in nbformat.writes(student) and "42\n" not in nbformat.writes(student)
    assert student.cells[4].source == "# Exercise 1 — your solution\n" and student.cells[4].outputs == []
    assert student.cells[4].id == secret.id  # the same cell, emptied
    assert student.cells[0].source == "# 01 · Devices\n\nText\n" and nb.cells[4] is secret  # the original is kept


def test_student_version_drops_the_solutions_section() -> None:
    """The structure of issue 27: answer cells and checks stay, the Solutions section goes."""
    printed = lambda text: [nbformat.v4.new_output("stream", name="stdout", text=text)]  # noqa: E731
    name = "02_placement_checks.ipynb"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# 02 · Placement\n\n{student_edition.template.badge(name)}"),
            nbformat.v4.new_markdown_cell("## Exercises"),
            nbformat.v4.new_markdown_cell("**Exercise 1.** Give the answer."),
            nbformat.v4.new_code_cell("# Exercise 1: your answer\nanswer = None", execution_count=1),
            nbformat.v4.new_code_cell('exercises.check("02", 1, answer)', execution_count=2,
                                      outputs=printed("Exercise 1: not answered yet\n")),
            nbformat.v4.new_markdown_cell("## Solutions"),
            nbformat.v4.new_code_cell("# Solution: exercise 1\nanswer = 42", execution_count=3),
            nbformat.v4.new_code_cell('exercises.check("02", 1, answer, strict=True)', execution_count=4,
                                      outputs=printed("Exercise 1: correct.\n")),
            nbformat.v4.new_markdown_cell("Why 42: the question was wrong."),
        ]
    )
    student = student_edition.student_version(nb, name)
    assert student.cells[1:] == nb.cells[1:5] and len(nb.cells) == 9  # the original is kept
    written = nbformat.writes(student)  # (not a bare "42": random cell ids may contain it)
    assert "answer = 42" not in written and "Why 42" not in written and "correct." not in written
    assert student.cells[0].source == "# 02 · Placement\n"
