"""tools/teacher/nbgrader_course.py: the course it writes works with nbgrader's own commands, offline.

Two lessons in the exercises' structure (answer cells with stubs, checks, ``## Solutions``), 02 and 03 as stored,
go through the tool and then
``nbgrader generate_assignment`` and ``nbgrader autograde``: the reference solutions get full marks, an empty
submission gets 0 on the autograded parts, and one wrong answer loses exactly that exercise's points.

Beside them, one assignment holds every exercise of the ten lessons, its test cells made by the tool from the
lessons' own check cells, and two submissions built from the students' answers of tests/exercise_corpus/: one
right answer per exercise (where the corpus has an answer fitted to the visible cases, that one instead), and one
wrong answer per exercise. Each answer gets exactly its points: a right one all, a wrong one none, a fitted one none
(its hidden cases, left out of the release, fail).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from lessons import exercises
from tests import exercise_corpus as corpus
from tests.test_student_edition import leaked
from tools.author import editions, kernels
from tools.teacher import nbgrader_course

NBGRADER = Path(sys.executable).parent / "nbgrader"
ROOT = Path(__file__).resolve().parents[1]

WRONG = {  # one wrong answer per lesson: (exercise, answer cell source)
    "02": (1, "def module_device(module):\n    return torch.device('cpu')"),
    "03": (3, "in_features = 6 * 28 * 28"),
}
NAMES = {"02": "02_placement_checks", "03": "03_module_building"}


def lesson_notebook(lesson: str, lang: str = "en") -> nbformat.NotebookNode:
    """The lesson's notebook as stored, in edition ``lang``."""
    return nbformat.read(editions.LANGUAGES[lang].folder / f"{NAMES[lesson]}.ipynb", as_version=4)


def test_answer_source_puts_the_solution_in_regions() -> None:
    function = nbgrader_course.answer_source(
        "# Exercise 1: your answer\ndef f(x):\n    \"\"\"Doc.\"\"\"\n    raise NotImplementedError(\"your code here\")",
        "# Solution: exercise 1\ndef f(x):\n    y = x + 1\n    return y\n\n\nprint(f(1))")
    assert function == ('# Exercise 1: your answer\ndef f(x):\n    """Doc."""\n    ### BEGIN SOLUTION\n'
                        '    y = x + 1\n    return y\n    ### END SOLUTION')
    values = nbgrader_course.answer_source("# Exercise 2: your answer\nanswer = None", "# Solution: exercise 2\n"
                                           "answer = 6 * 7")
    assert values == "# Exercise 2: your answer\nanswer = None\n### BEGIN SOLUTION\nanswer = 6 * 7\n### END SOLUTION"
    with pytest.raises(ValueError, match="does not define 'g'"):
        nbgrader_course.answer_source("def g():\n    raise NotImplementedError", "# Solution: exercise 1\nx = 1")


def test_assignment_cells_and_points() -> None:
    course = nbgrader_course.assignment(lesson_notebook("03"), "03")
    graded = {c.metadata["nbgrader"]["grade_id"]: c for c in course.cells if "nbgrader" in c.metadata}
    assert sorted(graded) == ["ex03_1_answer", "ex03_1_check", "ex03_1_explain", "ex03_1_question",
                              "ex03_2_answer", "ex03_2_check", "ex03_3_answer", "ex03_3_check", "ex03_3_explain",
                              "ex03_3_question"]
    assert graded["ex03_1_check"].source == (  # the hidden cases, then the call that grades them
        'exercises.grade("03", 1, LowerTriangle)\n### BEGIN HIDDEN TESTS\nLOWER_TRIANGLE_HIDDEN = [2, 5, 6]\n'
        'exercises.grade("03", 1, LowerTriangle, hidden=LOWER_TRIANGLE_HIDDEN)\n### END HIDDEN TESTS')
    assert exercises.exercise("03", 1).hidden_cases() == [2, 5, 6]
    assert graded["ex03_3_check"].source == 'exercises.grade("03", 3, in_features)'  # a value: no hidden cases
    assert graded["ex03_1_check"].metadata["nbgrader"]["points"] == exercises.exercise("03", 1).points
    explanation = nbgrader_course.exercise_parts(lesson_notebook("03"), "en")[2].explanation
    assert explanation.startswith("A lazy layer") and graded["ex03_3_explain"].source == explanation
    assert graded["ex03_3_explain"].metadata["nbgrader"]["points"] == exercises.exercise("03", 3).explain_points
    assert "### BEGIN SOLUTION" in graded["ex03_2_answer"].source
    assert not any(editions.LANGUAGES["en"].solutions in c.source for c in course.cells)  # no Solutions section
    assert not any('exercises.check("03", 1, LowerTriangle)' == c.source for c in course.cells)


def test_chinese_assignment() -> None:
    course = nbgrader_course.assignment(lesson_notebook("03", "zh"), "03", "zh")
    graded = {c.metadata["nbgrader"]["grade_id"]: c for c in course.cells if "nbgrader" in c.metadata}
    assert graded["ex03_3_question"].source == "**练习3**：" + exercises.exercise("03", 3).explain_zh
    assert graded["ex03_3_answer"].source.startswith("# 练习3：你的答案\nin_features = None")
    assert not any(editions.LANGUAGES["zh"].solutions in c.source for c in course.cells)


def test_a_notebook_without_solutions_section_is_refused(tmp_path: Path) -> None:
    old = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 02 · Old")])
    nbformat.write(old, tmp_path / "02_old.ipynb")
    with pytest.raises(ValueError, match="02_old.ipynb: no '## Solutions' section"):
        nbgrader_course.write_course(tmp_path / "course", [tmp_path / "02_old.ipynb"])


def test_main_replaces_only_its_own_course(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):
        nbgrader_course.main(["--out", str(tmp_path / "other")])
    assert (tmp_path / "other" / "keep.txt").is_file()


def _run(*args: str, cwd: Path) -> str:
    path = f"{NBGRADER.parent}{os.pathsep}{os.environ.get('PATH', '')}"  # nbgrader runs alembic from its venv
    done = subprocess.run([str(NBGRADER), *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NB_QUICK": "1", "PATH": path})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


CORPUS_NAME = "exercise_corpus"
CORPUS_STUDENTS = ("right", "wrong")
CORPUS_SETUP = """
import tempfile

from lessons import exercises, generated_pets

work = Path(tempfile.mkdtemp())
run_dir = checkpoint_dir = work
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
nn.functional.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,))).backward()
optimizer.step()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 1}, work / "epoch_01.pt")
pet_dir = generated_pets.make_quick(work / "pets", per_class=6)
data = petimages.build(pet_dir, size=16, workers=1)
big_batch, largest, budget = 128, 22, 8 * 2**20
"""
"""What the lessons define before their check cells, for the exercises of all ten in one notebook."""


def corpus_answers(student: str) -> dict[tuple[str, int], str]:
    """One answer per exercise: "right" (a fitted answer where the corpus has one), or "wrong"; each after what the
    notebook defines before the exercise (``corpus.SETUP``)."""
    chosen = {}
    for key, answers in corpus.CORPUS.items():
        if student == "right":
            fitted = [a for a in answers if a.hidden == "wrong"]
            answer = (fitted or [a for a in answers if a.verdict == "correct"])[0].source
        else:
            answer = next(a for a in answers if a.verdict == "wrong").source
        chosen[key] = "\n".join([corpus.SETUP.get(key, "").strip("\n"), answer]).strip("\n")
    return chosen


def corpus_assignment() -> nbformat.NotebookNode:
    """Every exercise of the ten lessons in one assignment: an answer cell (a right answer as its solution, after
    the exercise's setup: lessons' setups define the same names differently) and the autograded test cell that the
    tool makes from the lesson's check cell."""
    setup = "\n".join([corpus.PRELUDE, CORPUS_SETUP])
    cells = [nbformat.v4.new_code_cell(setup)]
    right = {key: next(a for a in answers if a.verdict == "correct").source for key, answers in corpus.CORPUS.items()}
    for path in nbgrader_course.lesson_paths():
        lesson = path.name[:2]
        nb = nbformat.read(path, as_version=4)
        for part in nbgrader_course.exercise_parts(nb, "en"):
            found = exercises.exercise(lesson, part.number)
            answer = nbformat.v4.new_code_cell("\n".join(
                [corpus.SETUP.get((lesson, part.number), "").strip("\n"), nbgrader_course.BEGIN,
                 right[(lesson, part.number)], nbgrader_course.END]).strip("\n"))
            answer.metadata.update(nbgrader_course._meta(f"ex{lesson}_{part.number}_answer", solution=True,
                                                         grade=False))
            test = nbformat.v4.new_code_cell(nbgrader_course.grading_source(nb.cells[part.check].source, found))
            test.metadata.update(nbgrader_course._meta(f"ex{lesson}_{part.number}_check", solution=False, grade=True,
                                                       points=found.points))
            cells += [answer, test]
    return nbformat.v4.new_notebook(cells=cells, metadata=lesson_notebook("02").metadata)


def _submit(course: Path, name: str, student: str, submission: nbformat.NotebookNode) -> None:
    folder = course / "submitted" / student / name
    folder.mkdir(parents=True)
    nbformat.write(submission, folder / f"{name}.ipynb")
    for beside in nbgrader_course.BESIDE:
        where = folder / beside
        where.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (course / "source" / name / beside).is_dir() else shutil.copy2)(
            course / "source" / name / beside, where)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], dict[str, float]]]:
    """Both lessons through the tool, generate_assignment and autograde, for three students: the reference
    solutions, the empty release, and the reference with one wrong answer; and the corpus assignment for its two
    students. Returns each (student, lesson or CORPUS_NAME)'s score per graded cell."""
    if not NBGRADER.exists():
        pytest.fail("nbgrader is pinned in requirements.txt: run `bash tools/setup.sh`")
    from nbgrader.api import Gradebook

    root = tmp_path_factory.mktemp("nbgrader")
    course = root / "course"
    nbgrader_course.write_course(course, nbgrader_course.lesson_paths(sorted(NAMES)))
    (course / "source" / CORPUS_NAME).mkdir()
    nbformat.write(corpus_assignment(), course / "source" / CORPUS_NAME / f"{CORPUS_NAME}.ipynb")
    for beside in nbgrader_course.BESIDE:
        (course / "source" / CORPUS_NAME / beside).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (ROOT / beside).is_dir() else shutil.copy2)(
            course / "source" / NAMES["02"] / beside, course / "source" / CORPUS_NAME / beside)
    every = "*"  # every assignment in one command: each nbgrader command takes seconds to start
    _run("generate_assignment", every, "--force", cwd=course)
    for lesson, name in NAMES.items():
        source = nbformat.read(course / "source" / name / f"{name}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
        reference = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                     if c.metadata.get("nbgrader", {}).get("solution")}
        assert not any("BEGIN SOLUTION" in c.source or "HIDDEN" in c.source for c in release.cells)
        answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells
                   if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"}
        lesson_nb = lesson_notebook(lesson)
        for part in nbgrader_course.exercise_parts(lesson_nb, "en"):  # the release holds the stub, nothing more
            stub = lesson_nb.cells[part.answer].source.split("\n")
            extra = [line for line in answers[f"ex{lesson}_{part.number}_answer"].split("\n")
                     if line.strip() not in ("", nbgrader_course.CODE_STUB["en"]) and line not in stub]
            assert not extra, extra
        for student in ("reference", "empty", "wrong"):
            submission = nbformat.from_dict(release)
            for cell in submission.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                if student != "empty" and grade_id in reference:
                    cell.source = "\n".join(line for line in reference[grade_id].split("\n")
                                            if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
                number, wrong = WRONG[lesson]
                if student == "wrong" and grade_id == f"ex{lesson}_{number}_answer":
                    cell.source = wrong
            _submit(course, name, student, submission)
    release = nbformat.read(course / "release" / CORPUS_NAME / f"{CORPUS_NAME}.ipynb", as_version=4)
    assert not any("HIDDEN" in c.source for c in release.cells)  # the hidden cases are not released
    assert not leaked(course / "release")  # ... anywhere: not in the release's copy of lessons/ either
    assert leaked(course / "source")  # (the source's test cells hold them)
    for student in CORPUS_STUDENTS:
        submission = nbformat.from_dict(release)
        chosen = corpus_answers(student)
        for cell in submission.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if grade_id.endswith("_answer"):
                lesson, number = grade_id[2:].split("_")[:2]
                cell.source = chosen[(lesson, int(number))]
        _submit(course, CORPUS_NAME, student, submission)
    sockets = Path(tempfile.mkdtemp(prefix="nbgrader-kernels-"))  # Unix sockets (tools/author/kernels.py)
    try:
        _run("autograde", every, "--force", *kernels.ipc_options(sockets), cwd=course)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    scores: dict[tuple[str, str], dict[str, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for lesson, name in NAMES.items():
            for student in ("reference", "empty", "wrong"):
                notebook = gradebook.find_submission_notebook(name, name, student)
                scores[(student, lesson)] = {grade.name: grade.score for grade in notebook.grades}
        for student in CORPUS_STUDENTS:
            notebook = gradebook.find_submission_notebook(CORPUS_NAME, CORPUS_NAME, student)
            scores[(student, CORPUS_NAME)] = {grade.name: grade.score for grade in notebook.grades}
    yield scores


def _autograded(scores: dict[str, float]) -> float:
    return sum(score for grade_id, score in scores.items() if grade_id.endswith("_check"))


@pytest.mark.parametrize("lesson", sorted(NAMES))
def test_reference_solutions_get_full_marks(graded: dict, lesson: str) -> None:
    full = sum(exercises.exercise(lesson, n).points for n in (1, 2, 3))
    assert _autograded(graded[("reference", lesson)]) == full


@pytest.mark.parametrize("lesson", sorted(NAMES))
def test_empty_submission_gets_nothing(graded: dict, lesson: str) -> None:
    assert _autograded(graded[("empty", lesson)]) == 0
    assert len([g for g in graded[("empty", lesson)] if g.endswith("_check")]) == 3


@pytest.mark.parametrize("lesson", sorted(NAMES))
def test_wrong_answer_loses_exactly_its_points(graded: dict, lesson: str) -> None:
    number, _ = WRONG[lesson]
    lost = {g: s for g, s in graded[("reference", lesson)].items() if graded[("wrong", lesson)][g] != s}
    assert lost == {f"ex{lesson}_{number}_check": exercises.exercise(lesson, number).points}


def test_every_corpus_answer_gets_exactly_its_points(graded: dict) -> None:
    """A right answer gets all its points, a wrong one none, and one fitted to the visible cases none: its hidden
    cases fail (the visible check alone passes it: tests/test_exercises.py)."""
    fitted = {key for key, answers in corpus.CORPUS.items() if any(a.hidden == "wrong" for a in answers)}
    assert len(fitted) >= 5
    for student in CORPUS_STUDENTS:
        for key, found in exercises.EXERCISES.items():
            got = graded[(student, CORPUS_NAME)][f"ex{key[0]}_{key[1]}_check"]
            expected = found.points if student == "right" and key not in fitted else 0
            assert got == expected, (student, key, got)
