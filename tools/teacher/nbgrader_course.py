"""Write an nbgrader course from the lessons: one assignment per notebook, graded with the exercises' own checks.

    .venv/bin/python tools/teacher/nbgrader_course.py                  # writes nbgrader_course/ (git-ignored), English
    .venv/bin/python tools/teacher/nbgrader_course.py --lang zh 02 03  # the Chinese edition of lessons 02 and 03
    cd nbgrader_course && ../.venv/bin/nbgrader generate_assignment 02_placement_checks

The course folder holds ``nbgrader_config.py`` and ``source/NN_topic/``: the lesson's notebook, and beside it what
it imports (``utils.py``, ``lessons/``, ``notebooks/assets/``, ``data/README.md``), so the released assignment runs
wherever nbgrader puts it. In each notebook, for exercise N:

- the answer cell becomes an nbgrader solution cell: the stub, with the reference solution (from the notebook's
  ``## Solutions``) in a ``### BEGIN SOLUTION`` / ``### END SOLUTION`` region. For a function, the region is its
  body; for a class, each method's body; for values, the solution's code after the ``= None`` lines. nbgrader's
  release puts ``raise NotImplementedError("your code here")`` there (the same stub as the lessons'), so an
  unanswered function reads as "not answered yet" to the check;
- the check under it becomes an autograded test cell, worth ``Exercise.points``: the same call as
  ``exercises.grade``, which raises AssertionError with the check's sentence unless the answer is right; where the
  check has hidden cases (``Exercise.has_hidden``: other inputs for a function or class), the cell also runs them in
  a ``### BEGIN HIDDEN TESTS`` region, which the released notebook leaves out and ``nbgrader autograde`` puts back,
  so that an answer fitted to the visible cases does not get the points: the region holds the cases (the check
  module's hidden block, ``lessons/exercises/hidden.py``), then the grade call that passes them. The course's copy
  of ``lessons/`` has those blocks stripped, so the release holds the cases nowhere;
- where the exercise also asks why (``Exercise.explain``), a manually graded answer cell follows, worth
  ``Exercise.explain_points``; its reference text is the markdown under the solution's check in ``## Solutions``;
- the ``## Solutions`` section is left out.

Only notebooks in the exercises' structure (a ``## Solutions`` section, see ``tests/hygiene.py``) can be turned into
assignments; the others are refused by name.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from lessons import exercises  # noqa: E402
from lessons.exercises import hidden  # noqa: E402
from tools.author import core, editions  # noqa: E402

COURSE_ID = "pytorch-gpu-notebooks"
CODE_STUB = {"en": 'raise NotImplementedError("your code here")', "zh": 'raise NotImplementedError("在这里写你的代码")'}
"""What nbgrader's release puts in place of a solution region: the lessons' own stub, in each edition's language."""
TEXT_STUB = {"en": "YOUR ANSWER HERE", "zh": "在这里写你的答案"}
BESIDE = ["utils.py", "lessons", "notebooks/assets", "data/README.md"]
"""What each assignment folder holds besides its notebook (paths relative to the repository root)."""
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
MARK = "This folder was written by tools/teacher/nbgrader_course.py"

CONFIG = '''# {mark}; nbgrader reads this file from the folder it runs in.
c = get_config()  # noqa: F821 (nbgrader defines it)
c.CourseDirectory.course_id = "{course}"
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
c.ClearSolutions.text_stub = {text!r}
c.Execute.timeout = 600  # seconds per cell: full mode trains for minutes in lessons 06 and 07
'''


@dataclass
class Parts:
    """The cells of one exercise: its markdown, answer cell, check, and in ``## Solutions`` the solution, its
    check (strict) and the markdown under it."""

    number: int
    answer: int
    check: int
    solution: nbformat.NotebookNode
    strict_check: nbformat.NotebookNode
    explanation: str


def _numbered(label: str, line: str) -> int | None:
    match = re.fullmatch(re.escape(label).replace(r"\{number\}", r"(\d+)"), line)
    return int(match.group(1)) if match else None


def exercise_parts(nb: nbformat.NotebookNode, lang: str) -> list[Parts]:
    """Return each exercise's cells (see ``Parts``); ValueError if ``nb`` lacks the ``## Solutions`` structure."""
    labels = editions.LANGUAGES[lang]
    heading = core.heading_index(nb, labels.solutions)
    if heading is None:
        raise ValueError(f"no {labels.solutions!r} section: the notebook's exercises have no checks yet")
    answers: dict[int, int] = {}
    for index, cell in enumerate(nb.cells[:heading]):
        number = _numbered(labels.answer, cell.source.split("\n")[0]) if cell.cell_type == "code" else None
        if number is not None:
            answers[number] = index
    parts = []
    cells = nb.cells
    for index in range(heading + 1, len(cells)):
        number = _numbered(labels.solution_of, cells[index].source.split("\n")[0])
        if cells[index].cell_type != "code" or number is None:
            continue
        text = []
        for cell in cells[index + 2 :]:
            if cell.cell_type != "markdown":
                break
            text.append(cell.source)
        parts.append(Parts(number, answers[number], answers[number] + 1, cells[index], cells[index + 1],
                           "\n\n".join(text)))
    return parts


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """Return the first and last line (1-based) of a function's body, its docstring left out."""
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    return body[0].lineno, body[-1].end_lineno or body[-1].lineno


def _region(code: str, indent: str) -> list[str]:
    return [indent + BEGIN, *(indent + line if line else "" for line in code.split("\n")), indent + END]


def _definitions(tree: ast.Module) -> dict[str, ast.AST]:
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def answer_source(stub: str, solution: str) -> str:
    """Return the nbgrader answer cell: ``stub`` (the answer cell) with the solution (the solution cell, its first
    line the label) in solution regions. Functions: each stubbed function's body is replaced by the solution's body
    of the same function; classes: each method's; values (``name = None``): the solution's code follows the stubs."""
    stub_lines, solution_lines = stub.split("\n"), solution.split("\n")
    stub_tree, solution_tree = ast.parse(stub), ast.parse(solution)
    values = [n for n in stub_tree.body if isinstance(n, ast.Assign)]
    if values:
        code = "\n".join(solution_lines[1:]).strip("\n")
        return "\n".join([*stub_lines, *_region(code, "")])
    stubbed, solved = _definitions(stub_tree), _definitions(solution_tree)
    replacements: list[tuple[int, int, list[str]]] = []  # (first, last line 1-based, new lines)
    for name, node in stubbed.items():
        if name not in solved or type(solved[name]) is not type(node):
            raise ValueError(f"the solution does not define {name!r} as the answer cell does")
        pairs = [(node, solved[name])]
        if isinstance(node, ast.ClassDef):
            methods, solution_methods = _definitions(ast.Module(node.body, [])), _definitions(
                ast.Module(solved[name].body, []))  # type: ignore[attr-defined]
            if set(methods) != set(solution_methods):
                raise ValueError(f"class {name}: the answer cell stubs {sorted(methods)}, the solution defines "
                                 f"{sorted(solution_methods)}")
            pairs = [(methods[m], solution_methods[m]) for m in methods]
        for mine, theirs in pairs:
            first, last = _body_lines(mine)  # type: ignore[arg-type]
            indent = re.match(r"\s*", stub_lines[first - 1]).group(0)  # type: ignore[union-attr]
            start, end = _body_lines(theirs)  # type: ignore[arg-type]
            code = textwrap.dedent("\n".join(solution_lines[start - 1 : end]))
            replacements.append((first, last, _region(code, indent)))
    for first, last, new in sorted(replacements, reverse=True):
        stub_lines[first - 1 : last] = new
    return "\n".join(stub_lines)


def _meta(grade_id: str, *, solution: bool, grade: bool, points: int = 0) -> dict[str, object]:
    meta: dict[str, object] = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
                               "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def assignment(nb: nbformat.NotebookNode, lesson: str, lang: str = "en") -> nbformat.NotebookNode:
    """Return the nbgrader source notebook of lesson notebook ``nb`` (see the module docstring)."""
    labels = editions.LANGUAGES[lang]
    parts = {p.number: p for p in exercise_parts(nb, lang)}
    heading = core.heading_index(nb, labels.solutions)
    cells: list[nbformat.NotebookNode] = []
    by_index = {p.answer: p for p in parts.values()}
    checks = {p.check for p in parts.values()}
    for index, cell in enumerate(nb.cells[:heading]):
        cell = nbformat.from_dict(cell)
        if cell.cell_type == "code":  # nbgrader releases notebooks without outputs
            cell.update(outputs=[], execution_count=None)
        if index in checks:
            continue
        if index not in by_index:
            cells.append(cell)
            continue
        part = by_index[index]
        found = exercises.exercise(lesson, part.number)
        cell.source = answer_source(cell.source, part.solution.source)
        cell.metadata.update(_meta(f"ex{lesson}_{part.number}_answer", solution=True, grade=False))
        cells.append(cell)
        test = nbformat.v4.new_code_cell(grading_source(nb.cells[part.check].source, found))
        test.metadata.update(_meta(f"ex{lesson}_{part.number}_check", solution=False, grade=True,
                                   points=found.points))
        cells.append(test)
        if found.explain_en:
            question = found.explain_zh if lang == "zh" else found.explain_en
            prompt = nbformat.v4.new_markdown_cell(f"**练习{part.number}**：{question}" if lang == "zh" else
                                                   f"**Exercise {part.number}:** {question}")
            prompt.metadata.update(_meta(f"ex{lesson}_{part.number}_question", solution=False, grade=False))
            written = nbformat.v4.new_markdown_cell(part.explanation or _comments(part.solution.source))
            written.metadata.update(_meta(f"ex{lesson}_{part.number}_explain", solution=True, grade=True,
                                          points=found.explain_points))
            cells += [prompt, written]
    course = nbformat.from_dict(nb)
    course.cells = cells
    return course


def grading_source(check: str, found: exercises.Exercise) -> str:
    """Return the autograded test cell for the exercise's check cell ``check`` (``exercises.check("NN", N, ...)``):
    the same call as ``exercises.grade``, and where the check has hidden cases a hidden-tests region with their
    block's code, then the call that grades them."""
    tree = ast.parse(check)
    call = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "check"):
        raise ValueError(f"exercise {found.number}'s check cell is not one exercises.check(...) call: {check!r}")
    if any(k.arg == "strict" for k in call.keywords) or not check.rstrip().endswith(")"):
        raise ValueError(f"exercise {found.number}'s check cell is not the student's check: {check!r}")
    visible = check.strip().replace("exercises.check(", "exercises.grade(", 1)
    if not found.has_hidden:
        return visible
    module = Path(sys.modules[found.verify.__module__].__file__ or "")
    block = hidden.hidden_blocks(module.read_text(encoding="utf-8"))[found.hidden]
    return "\n".join([visible, BEGIN_HIDDEN, block, visible[:-1] + f", hidden={found.hidden})", END_HIDDEN])


def _comments(code: str) -> str:
    """The comments of a solution's code, as the reference for a written answer where no markdown gives one."""
    lines = [line.strip().lstrip("#").strip() for line in code.split("\n")[1:] if line.strip().startswith("#")]
    return " ".join(lines) or "(see the solution)"


def lesson_paths(lessons: list[str] | None = None, lang: str = "en") -> list[Path]:
    """Return the notebooks of edition ``lang`` for the two-digit ``lessons`` (every lesson if none are given)."""
    folder = editions.LANGUAGES[lang].folder
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if lessons:
        paths = [p for p in paths if p.name[:2] in lessons]
        if missing := sorted(set(lessons) - {p.name[:2] for p in paths}):
            raise ValueError(f"no lesson {', '.join(missing)} in {folder.relative_to(ROOT)}")
    return paths


def write_course(out: Path, paths: list[Path], lang: str = "en") -> list[Path]:
    """Write the course of the lesson notebooks ``paths`` (edition ``lang``) into ``out`` (see the module
    docstring); return the source notebooks written."""
    written = []
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(
        CONFIG.format(mark=MARK, course=COURSE_ID, stub=CODE_STUB[lang], text=TEXT_STUB[lang]), encoding="utf-8")
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        try:
            source = assignment(nb, path.name[:2], lang)
        except ValueError as error:
            raise ValueError(f"{path.name}: {error}") from None
        target = out / "source" / path.stem
        target.mkdir(parents=True, exist_ok=True)
        nbformat.write(source, target / path.name)
        for name in BESIDE:
            where = target / name
            where.parent.mkdir(parents=True, exist_ok=True)
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, where, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(ROOT / name, where)
        hidden.strip_folder(target / "lessons")  # the hidden cases live in the test cells only (see grading_source)
        written.append(target / path.name)
    return written


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and write the course."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="two-digit lesson numbers (default: every lesson)")
    parser.add_argument("--out", type=Path, default=ROOT / "nbgrader_course", help="course folder to write")
    parser.add_argument("--lang", choices=sorted(editions.LANGUAGES), default="en", help="edition (default: en)")
    args = parser.parse_args(argv)
    config = args.out / "nbgrader_config.py"
    if args.out.exists() and any(args.out.iterdir()):  # replace an earlier course's source, never anything else
        if not (config.is_file() and MARK in config.read_text(encoding="utf-8")):
            parser.error(f"{args.out} exists and is not a course written by this tool: choose another --out")
        shutil.rmtree(args.out / "source", ignore_errors=True)
    try:
        written = write_course(args.out, lesson_paths(args.lessons, args.lang), args.lang)
    except ValueError as error:
        parser.error(str(error))
    for path in written:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
