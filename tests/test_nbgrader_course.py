"""tools/nbgrader_course.py: the course it writes works with nbgrader's own commands, offline.

Two lessons in the exercises' structure (answer cells with stubs, checks, ``## Solutions``), made here with the
exercises of lessons 02 and 03 (until the notebooks themselves are converted), go through the tool and then
``nbgrader generate_assignment`` and ``nbgrader autograde``: the reference solutions get full marks, an empty
submission gets 0 on the autograded parts, and one wrong answer loses exactly that exercise's points.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from lessons import exercises
from tools import nbgrader_course
from tools import notebook_template as template

NBGRADER = Path(sys.executable).parent / "nbgrader"

STUBS = {
    ("02", 1): 'def module_device(module: nn.Module) -> torch.device | None:\n'
               '    """The one device of module\'s parameters and buffers; None without any; ValueError if mixed."""\n'
               '    raise NotImplementedError("your code here")',
    ("02", 2): 'missing = None  # the name of the tensor utils.placement(layer) leaves out\n'
               'stayed_on = None  # the device that tensor is on after .to("meta")',
    ("02", 3): "tensors_held = None  # {loss class name: [names of the tensors it holds]}",
    ("03", 1): 'class LowerTriangle(nn.Module):\n'
               '    def __init__(self, n: int):\n'
               '        super().__init__()\n'
               '        raise NotImplementedError("your code here")\n\n'
               '    def forward(self, X):\n'
               '        raise NotImplementedError("your code here")',
    ("03", 2): 'class Parallel(nn.Module):\n'
               '    def __init__(self, module_a: nn.Module, module_b: nn.Module):\n'
               '        super().__init__()\n'
               '        raise NotImplementedError("your code here")\n\n'
               '    def forward(self, X):\n'
               '        raise NotImplementedError("your code here")',
    ("03", 3): "in_features = None  # what the linear layer infers",
}
SOLUTIONS = {
    ("02", 1): 'def module_device(module: nn.Module) -> torch.device | None:\n'
               '    devices = {t.device for t in [*module.parameters(), *module.buffers()]}\n'
               '    if len(devices) > 1:\n'
               '        raise ValueError(f"module has tensors on several devices: {sorted(map(str, devices))}")\n'
               '    return devices.pop() if devices else None\n\n\n'
               'print(module_device(nn.ReLU()), module_device(nn.BatchNorm1d(2)))',
    ("02", 2): 'class OffsetLayer(nn.Module):\n'
               '    def __init__(self):\n'
               '        super().__init__()\n'
               '        self.bias = nn.Parameter(torch.zeros(3))\n'
               '        self.offset = torch.ones(3)  # a plain attribute: invisible to .to()\n\n\n'
               'layer = OffsetLayer().to("meta")\n'
               'missing = "offset"\n'
               'stayed_on = layer.offset.device.type',
    ("02", 3): 'losses = [nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0])), nn.NLLLoss(weight=torch.ones(4)),\n'
               '          nn.CrossEntropyLoss()]\n'
               'tensors_held = {type(loss).__name__: [name.split(" ")[0] for name in utils.placement(loss)]\n'
               '                for loss in losses}',
    ("03", 1): 'class LowerTriangle(nn.Module):\n'
               '    def __init__(self, n: int):\n'
               '        super().__init__()\n'
               '        self.register_buffer("mask", torch.tril(torch.ones(n, n)), persistent=False)\n\n'
               '    def forward(self, X):\n'
               '        return X * self.mask',
    ("03", 2): 'class Parallel(nn.Module):\n'
               '    def __init__(self, module_a: nn.Module, module_b: nn.Module):\n'
               '        super().__init__()\n'
               '        self.module_a, self.module_b = module_a, module_b\n\n'
               '    def forward(self, X):\n'
               '        return torch.cat([self.module_a(X), self.module_b(X)], dim=-1)',
    ("03", 3): 'conv_net = nn.Sequential(nn.LazyConv2d(6, kernel_size=5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))\n'
               'conv_net(torch.zeros(1, 1, 28, 28))\n'
               'in_features = conv_net[3].in_features',
}
EXPLANATIONS = {("02", 2): "A plain tensor attribute is not registered: `.to()` never sees it.",
                ("03", 1): "The mask is the same every time, so nothing needs saving; FixedHiddenMLP's is random.",
                ("03", 3): "It infers the flatten size from the first batch."}
WRONG = {  # one wrong answer per lesson: (exercise, answer cell source)
    "02": (1, "def module_device(module):\n    return torch.device('cpu')"),
    "03": (3, "in_features = 6 * 28 * 28"),
}
NAMES = {"02": "02_placement_checks", "03": "03_module_building"}


def lesson_notebook(lesson: str, lang: str = "en") -> nbformat.NotebookNode:
    """A small lesson notebook in the exercises' structure with the exercises of ``lesson``, run as the project
    stores notebooks (the outputs the hygiene checks ask for)."""
    labels = template.LANGUAGES[lang]
    code = nbformat.v4.new_code_cell
    cells = [nbformat.v4.new_markdown_cell(f"# {lesson} · A lesson"),
             code(labels.setup_cell),
             code("import torch\nfrom torch import nn\n\nfrom lessons import exercises"),
             nbformat.v4.new_markdown_cell(labels.exercises)]
    solutions = [nbformat.v4.new_markdown_cell(labels.solutions)]
    for number in (1, 2, 3):
        answers = ", ".join(exercises.exercise(lesson, number).answers)
        cells += [nbformat.v4.new_markdown_cell(f"**Exercise {number}.** Do it." if lang == "en" else
                                                f"**练习{number}**：做一做。"),
                  code(labels.answer.format(number=number) + "\n" + STUBS[(lesson, number)]),
                  code(f'exercises.check("{lesson}", {number}, {answers})')]
        solution = code(labels.solution_of.format(number=number) + "\n" + SOLUTIONS[(lesson, number)])
        solution.metadata["jupyter"] = {"source_hidden": True}
        solutions += [solution, code(f'exercises.check("{lesson}", {number}, {answers}, strict=True)')]
        if (lesson, number) in EXPLANATIONS:
            solutions.append(nbformat.v4.new_markdown_cell(EXPLANATIONS[(lesson, number)]))
    return nbformat.v4.new_notebook(cells=cells + solutions, metadata={"kernelspec": dict(template.KERNELSPEC)})


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
    assert graded["ex03_1_check"].source == 'exercises.check("03", 1, LowerTriangle, strict=True)'
    assert graded["ex03_1_check"].metadata["nbgrader"]["points"] == exercises.exercise("03", 1).points
    assert graded["ex03_3_explain"].source == EXPLANATIONS[("03", 3)]
    assert graded["ex03_3_explain"].metadata["nbgrader"]["points"] == exercises.exercise("03", 3).explain_points
    assert "### BEGIN SOLUTION" in graded["ex03_2_answer"].source
    assert not any(template.LANGUAGES["en"].solutions in c.source for c in course.cells)  # no Solutions section
    assert not any('exercises.check("03", 1, LowerTriangle)' == c.source for c in course.cells)


def test_chinese_assignment() -> None:
    course = nbgrader_course.assignment(lesson_notebook("03", "zh"), "03", "zh")
    graded = {c.metadata["nbgrader"]["grade_id"]: c for c in course.cells if "nbgrader" in c.metadata}
    assert graded["ex03_3_question"].source == "**练习3**：" + exercises.exercise("03", 3).explain_zh
    assert graded["ex03_3_answer"].source.startswith("# 练习3：你的答案\nin_features = None")
    assert not any(template.LANGUAGES["zh"].solutions in c.source for c in course.cells)


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


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], dict[str, float]]]:
    """Both lessons through the tool, generate_assignment and autograde, for three students: the reference
    solutions, the empty release, and the reference with one wrong answer. Returns each (student, lesson)'s score
    per graded cell."""
    if not NBGRADER.exists():
        pytest.fail("nbgrader is pinned in requirements.txt: run `bash tools/setup.sh`")
    from nbgrader.api import Gradebook

    root = tmp_path_factory.mktemp("nbgrader")
    lessons = root / "lessons"
    lessons.mkdir()
    paths = []
    for lesson, name in NAMES.items():
        nbformat.write(lesson_notebook(lesson), lessons / f"{name}.ipynb")
        paths.append(lessons / f"{name}.ipynb")
    course = root / "course"
    nbgrader_course.write_course(course, paths)
    every = "0[23]_*"  # both assignments in one command: each nbgrader command takes seconds to start
    _run("generate_assignment", every, "--force", cwd=course)
    for lesson, name in NAMES.items():
        source = nbformat.read(course / "source" / name / f"{name}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
        reference = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                     if c.metadata.get("nbgrader", {}).get("solution")}
        assert not any("BEGIN SOLUTION" in c.source or "offset" in c.source for c in release.cells)
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
            folder = course / "submitted" / student / name
            folder.mkdir(parents=True)
            nbformat.write(submission, folder / f"{name}.ipynb")
            for beside in nbgrader_course.BESIDE:
                where = folder / beside
                where.parent.mkdir(parents=True, exist_ok=True)
                (shutil.copytree if (course / "source" / name / beside).is_dir() else shutil.copy2)(
                    course / "source" / name / beside, where)
    _run("autograde", every, "--force", cwd=course)
    scores: dict[tuple[str, str], dict[str, float]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for lesson, name in NAMES.items():
            for student in ("reference", "empty", "wrong"):
                notebook = gradebook.find_submission_notebook(name, name, student)
                scores[(student, lesson)] = {grade.name: grade.score for grade in notebook.grades}
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
