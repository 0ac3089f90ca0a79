"""Write the student edition: a self-contained handout with every exercise solution removed, code and outputs.

    .venv/bin/python tools/student_edition.py                # writes student/ (git-ignored)
    .venv/bin/python tools/student_edition.py --zip          # ... and student.zip beside it, to hand out
    .venv/bin/python tools/student_edition.py --out DIR      # somewhere else

The folder holds what the lessons need and nothing that gives the answers away: ``notebooks/`` and ``notebooks/zh/``
(every lesson in English and Chinese without its solutions: a notebook with a ``## Solutions`` section loses that
section, the last, and keeps each exercise's answer cell, with its stub, and the check under it; in a notebook of
the old structure each solution cell is replaced by an empty cell that names its exercise, "# Exercise 2 — your
solution"; the Open-in-Colab badge removed, since it opens the full edition),
``notebooks/assets/``, ``utils.py``, ``lessons/``,
``data/README.md``, the requirements files (without the teachers' nbgrader: ``TEACHERS_ONLY``) and
``tools/setup.sh``, and a README for students. Everything else in
the notebooks (prose, code, stored outputs, plots) is kept as stored. The notebooks find ``utils.py`` in the
folder above them, so the handout runs as it is, wherever it is unpacked.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tools import notebook_template as template  # noqa: E402

SOLUTION = template.LANGUAGES["en"].solution
EXERCISE = template.LANGUAGES["en"].exercise
"""An exercise is a markdown cell that starts ``**Exercise N.**`` (Chinese: ``**练习N**``); its solution follows it."""

HANDOUT = ["utils.py", "lessons", "data/README.md", "requirements.txt", "requirements-nodeps.txt", "tools/setup.sh"]
"""What the handout copies from the project besides the notebooks (paths relative to the repository root)."""

STUDENT_README = """# PyTorch on GPUs: the lessons (student edition)

Open the notebooks in `notebooks/` in order (the Chinese edition, 中文版, is in `notebooks/zh/`). Under each
exercise, replace the stub in its answer cell with your answer, run it, and run the check below it: it says whether
the answer is right and, if not, what is wrong. `exercises.hint("02", 1)` prints a hint for exercise 1 of lesson 02.

- **JupyterLab on your computer** (Linux or macOS, Python 3.10-3.13): `bash tools/setup.sh && .venv/bin/jupyter lab`
  from this folder. The first run installs PyTorch and the other packages (about 5 GB, a few minutes).
- **Colab**: upload this whole folder to your Google Drive or to the Colab session and open a notebook from
  `notebooks/`, with a GPU runtime (*Runtime -> Change runtime type -> GPU*). The notebooks find `utils.py` in the
  folder above them.
- **No internet in the classroom?** Set quick mode before starting Jupyter: `NB_QUICK=1 .venv/bin/jupyter lab`.
  The lessons then use small generated data sets; see `data/README.md` for copying the real ones in by hand.
"""


def is_solution(cell: nbformat.NotebookNode, lang: str = "en") -> bool:
    """True for an exercise's solution cell (a code cell whose first line is ``# Solution``, or ``# 参考答案``)."""
    return cell.cell_type == "code" and cell.source.lstrip().startswith(template.LANGUAGES[lang].solution)


def placeholder(number: int, lang: str = "en") -> str:
    """Return the source of the empty cell that replaces the solution of exercise ``number``."""
    return template.LANGUAGES[lang].placeholder.format(number=number) + "\n"


def student_version(nb: nbformat.NotebookNode, name: str, lang: str = "en") -> nbformat.NotebookNode:
    """Return a copy of ``nb`` without its solutions and without the Colab badge: the ``## Solutions`` section
    dropped (the answer cells and their checks stay), or in the old structure every solution replaced by an empty
    cell."""
    labels = template.LANGUAGES[lang]
    student = nbformat.from_dict(nb)
    solutions = template.heading_index(student, labels.solutions)
    if solutions is not None:  # tests/hygiene.py check_exercises: the last section, and only solutions and checks
        del student.cells[solutions:]
    for index, cell in enumerate(student.cells):
        if is_solution(cell, lang):
            match = labels.exercise.match(student.cells[index - 1].source if index else "")
            if not match:  # tests/hygiene.py check_exercises: every solution follows its exercise
                raise ValueError(f"{name}: the solution in cell {index} does not follow an exercise cell")
            empty = nbformat.v4.new_code_cell(placeholder(int(match.group(1)), lang))
            empty.id = cell.get("id", empty.id)  # the same cell id: a diff shows the cell emptied, not replaced
            student.cells[index] = empty
    title = student.cells[0]
    title.source = re.sub(r"\n*" + re.escape(template.badge(name, lang)) + r"\n*", "\n\n", title.source).strip() + "\n"
    return student


TEACHERS_ONLY = ("nbgrader",)
"""Packages in requirements.txt that the handout leaves out: nbgrader's JupyterLab extension (Formgrader, Create
assignment) is for the teacher who grades, and would show in every student's JupyterLab."""


def students_requirements(text: str) -> str:
    """Return requirements.txt's ``text`` without the teachers' packages (``TEACHERS_ONLY``) and their comment
    lines (``# teachers: ...``)."""
    kept = []
    for line in text.splitlines(keepends=True):
        name = re.split(r"[=<>!~\[; #]", line.strip(), maxsplit=1)[0].lower()
        if name in TEACHERS_ONLY or line.lstrip().lower().startswith("# teachers"):
            continue
        kept.append(line)
    return "".join(kept)


def write_edition(out: Path) -> list[Path]:
    """Write the student handout into ``out`` (see the module docstring); return the notebooks written."""
    written = []
    for lang, labels in template.LANGUAGES.items():
        folder = out / labels.folder.relative_to(ROOT)
        for path in sorted(labels.folder.glob("[0-9][0-9]_*.ipynb")):
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(student_version(nbformat.read(path, as_version=4), path.name, lang), folder / path.name)
            written.append(folder / path.name)
    notebooks = out / "notebooks"
    shutil.copytree(ROOT / "notebooks" / "assets", notebooks / "assets", dirs_exist_ok=True)
    for name in HANDOUT:
        source, target = ROOT / name, out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        elif name == "requirements.txt":
            target.write_text(students_requirements(source.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copy2(source, target)
    (out / "README.md").write_text(STUDENT_README, encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and write the edition (and its zip archive with ``--zip``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "student", help="folder to write (default: student/)")
    parser.add_argument("--zip", action="store_true", help="also write OUT.zip, the folder as one archive")
    args = parser.parse_args(argv)
    if args.out.exists():  # replace an older edition, never anything else
        readme = args.out / "README.md"
        if not (readme.is_file() and readme.read_text(encoding="utf-8").startswith(STUDENT_README.split("\n")[0])):
            parser.error(f"{args.out} exists and is not a student edition: choose another --out")
        shutil.rmtree(args.out)
    for path in write_edition(args.out):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    if args.zip:
        archive = shutil.make_archive(str(args.out), "zip", root_dir=args.out.parent, base_dir=args.out.name)
        print(Path(archive).relative_to(ROOT) if Path(archive).is_relative_to(ROOT) else archive)


if __name__ == "__main__":
    main()
