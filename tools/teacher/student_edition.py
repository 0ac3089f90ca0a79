"""Write the student edition: a self-contained handout with every exercise solution removed, code and outputs.

    .venv/bin/python tools/teacher/student_edition.py                # writes student/ (git-ignored)
    .venv/bin/python tools/teacher/student_edition.py --zip          # ... and student.zip beside it, to hand out
    .venv/bin/python tools/teacher/student_edition.py --out DIR      # somewhere else

The folder holds what the lessons need and nothing that gives the answers away: ``notebooks/`` and ``notebooks/zh/``
(every lesson in English and Chinese without its solutions: a notebook with a ``## Solutions`` section loses that
section, the last, and keeps each exercise's answer cell, with its stub, and the check under it; in a notebook of
the old structure each solution cell is replaced by an empty cell that names its exercise, "# Exercise 2 — your
solution"; the Open-in-Colab link removed, since it opens the full edition), ``notebooks/assets/``, ``utils.py``,
``lessons/``, ``data/README.md``, the requirements files (without the teachers' nbgrader: ``TEACHERS_ONLY``),
``tools/setup.sh`` with ``tools/installer.sh``, and a
README for students whose commands set the handout up and open it. ``lessons/`` ships without the exercises' hidden
cases (``lessons/exercises/hidden.py``), which only nbgrader's course holds. The code cells (code, stored outputs,
plots) are kept as stored. The prose is kept too, but for what would be wrong in a handout: the sentence under
"Exercises" that points at the solutions now says where to write the answer, and a file of the project that the
handout does not ship (``benchmarks/RESULTS.md``, ``tools/author/run_notebooks.py``, ``notebooks/timings.json``, ...)
becomes a link to its published copy on GitHub. The notebooks find ``utils.py`` in the folder above them, so the
handout runs as it is, wherever it is unpacked.
"""

from __future__ import annotations

import argparse
import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tools.author import cells, core, editions, header, setup_cell  # noqa: E402

SOLUTION = editions.LANGUAGES["en"].solution
EXERCISE = editions.LANGUAGES["en"].exercise
"""An exercise is a markdown cell that starts ``**Exercise N.**`` (Chinese: ``**练习N**``); its solution follows it."""

HANDOUT = [
    "utils.py",
    "lessons",
    "data/README.md",
    "data/README.zh.md",
    "requirements.txt",
    "requirements-nodeps.txt",
    "tools/setup.sh",
    "tools/installer.sh",
]
"""What the handout copies from the project besides the notebooks (paths relative to the repository root)."""

PUBLISHED = f"https://github.com/{setup_cell.REPO}"
"""Where the project's own copies of files the handout does not ship are published."""

OPEN_COMMAND = "bash tools/setup.sh && .venv/bin/jupyter lab"
"""The handout README's command that sets the handout up and opens it (tests/test_student_edition.py runs it)."""

MIRROR = "https://pypi.tuna.tsinghua.edu.cn/simple"
"""A PyPI mirror in mainland China (Tsinghua University's), for the handout READMEs' mirror line."""
CUDA_WHEELS = "https://download.pytorch.org/whl/cu126"
"""PyTorch's own wheel index for a CUDA build, for Windows, where PyPI's torch has no CUDA."""

HANDOUT_README = {lang: Path(__file__).with_name("handout") / name for lang, name in (("en", "README.md"),
                                                                                     ("zh", "README.zh.md"))}
"""The handout's own READMEs, one per edition: the commands that set it up, with ``{open_command}`` and the other
fields of ``readme`` filled in."""


def readme(lang: str = "en") -> str:
    """Return the handout's README of edition ``lang``."""
    template = HANDOUT_README[lang].read_text(encoding="utf-8")
    return template.format(open_command=OPEN_COMMAND, mirror=MIRROR, cuda_wheels=CUDA_WHEELS, published=PUBLISHED)


STUDENT_README = readme("en")
"""The handout's README.md (tests/test_student_edition.py runs its first command)."""


def is_solution(cell: nbformat.NotebookNode, lang: str = "en") -> bool:
    """True for an exercise's solution cell (a code cell whose first line is ``# @title Solution``, or
    ``# @title 参考答案``)."""
    return cells.is_solution_cell(cell, lang)


def placeholder(number: int, lang: str = "en") -> str:
    """Return the source of the empty cell that replaces the solution of exercise ``number``."""
    return editions.LANGUAGES[lang].placeholder.format(number=number) + "\n"


ANSWER_HERE = {
    "en": "write your answer in the cell below each exercise",
    "zh": "在每道练习下面的单元格里写你的答案",
}
"""What the handout says under "Exercises" instead of pointing at the solutions."""
ABOUT_SOLUTIONS = {"en": re.compile(r"solution|collapsed", re.I), "zh": re.compile(r"参考答案|折叠")}
"""Words that point at the solutions, which the handout does not have."""
TRY_FIRST = {"en": re.compile(r"^try (it )?(yourself )?first$", re.I), "zh": re.compile(r"^请?先自己试一试$")}
"""A clause that says to try before looking at the solution."""


def without_solutions(paragraph: str, lang: str = "en", answer_here: bool = True) -> str:
    """Return a paragraph with each clause that points at the solutions left out (a sentence left empty goes), and
    with ``answer_here``, ``ANSWER_HERE`` added where they were: "Each exercise needs only the core sections; its
    solution is in the collapsed cell below it." becomes "Each exercise needs only the core sections; write your
    answer in the cell below each exercise." An English paragraph's line breaks become spaces.
    """
    text = " ".join(paragraph.split()) if lang == "en" else "".join(paragraph.strip().split("\n"))
    clause = "; " if lang == "en" else "；"
    sentences = re.split(r"(?<=\.)\s+" if lang == "en" else r"(?<=。)", text)
    kept: list[str] = []
    dropped_from: int | None = None  # the last sentence that lost a clause, if it kept any
    dropped = False
    for sentence in [s for s in sentences if s.strip()]:
        end = "." if lang == "en" and sentence.endswith(".") else "。" if sentence.endswith("。") else ""
        body = sentence[: len(sentence) - len(end)]
        clauses = body.split(clause.strip())
        left = [c.strip() for c in clauses
                if not ABOUT_SOLUTIONS[lang].search(c) and not TRY_FIRST[lang].match(c.strip())]
        if len(left) < len(clauses):
            dropped = True
            dropped_from = len(kept) if left else None
        if left:
            kept.append(clause.join(left) + (end or ("." if lang == "en" else "。")))
    if answer_here and dropped:
        if dropped_from is not None:
            kept[dropped_from] = kept[dropped_from][:-1] + clause + ANSWER_HERE[lang] + kept[dropped_from][-1]
        else:
            kept.append((ANSWER_HERE[lang][0].upper() + ANSWER_HERE[lang][1:] + ".") if lang == "en"
                        else ANSWER_HERE[lang] + "。")
    return (" " if lang == "en" else "").join(kept)


def handout_exercises_intro(source: str, lang: str = "en") -> str:
    """Return the markdown cell that holds the "Exercises" heading with every paragraph that points at the
    solutions rewritten by ``without_solutions``."""
    paragraphs = source.split("\n\n")
    return "\n\n".join(
        p if p.lstrip().startswith("#") or not ABOUT_SOLUTIONS[lang].search(p) else without_solutions(p, lang)
        for p in paragraphs
    )


def handout_exercise_text(source: str, lang: str = "en") -> str:
    """Return an exercise's markdown cell with the clauses that point at the solutions left out ("...; the
    solution at the end of the notebook answers it"), nothing added: the cell already says where to answer."""
    return "\n\n".join(
        p if p.lstrip().startswith("#") or not ABOUT_SOLUTIONS[lang].search(p)
        else without_solutions(p, lang, answer_here=False)
        for p in source.split("\n\n")
    )


PIECE = re.compile(r"```.*?```|(!?\[[^\]\n]*\])\(([^)\s]+)\)|`((?:[^`\n]|\n(?!\n))+)`", re.S)
"""A fenced block (kept as it is), a link or image (groups 1, 2), or a code span (group 3; it may go on over a line
break inside its paragraph, as in Markdown, and is then no file name)."""


@functools.cache
def tracked() -> frozenset[str]:
    """Return the project's files and folders as published (``git ls-files``, relative to the repository root);
    without git, every file but the generated ones in ``data/`` (git-ignored except its README)."""
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [name for name in listing.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        found = (p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file())
        files = [f for f in found if not f.startswith(("data/", ".")) or f in ("data/README.md", "data/README.zh.md")]
    return frozenset(files) | {parent.as_posix() for f in files for parent in Path(f).parents if parent.parts}


def published(path: str) -> str:
    """Return the address of the project's published copy of ``path`` (relative to the repository root)."""
    kind = "blob" if path in tracked() and not (ROOT / path).is_dir() else "tree"
    return f"{PUBLISHED}/{kind}/main/{path.rstrip('/')}"


def link_what_does_not_ship(markdown: str, folder: Path, shipped: Path) -> str:
    """Return ``markdown`` (of a notebook in the project's ``folder``) with every reference to a project file that
    the handout at ``shipped`` lacks turned into a link to its published copy: a code span naming it
    (`` `benchmarks/RESULTS.md` ``) and a relative link to it."""

    def missing(path: Path) -> str | None:
        """The path relative to the repository root of a published project file or folder the handout lacks."""
        relative = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""
        return relative if relative in tracked() and not (shipped / relative).exists() else None

    def replace(match: re.Match[str]) -> str:
        text, target, span = match.groups()
        if target is not None:  # a link: rewrite a relative one to a file that does not ship
            if text.startswith("!") or re.match(r"[a-z]+:|#", target):
                return match.group(0)
            relative = missing((folder / target.partition("#")[0]).resolve())
            return f"{text}({published(relative)})" if relative else match.group(0)
        relative = missing((ROOT / span).resolve()) if span and "/" in span and "\n" not in span else None
        return f"[`{span}`]({published(relative)})" if relative else match.group(0)

    return PIECE.sub(replace, markdown)


def student_version(nb: nbformat.NotebookNode, name: str, lang: str = "en") -> nbformat.NotebookNode:
    """Return a copy of ``nb`` without its solutions and without the Colab link: the ``## Solutions`` section
    dropped (the answer cells and their checks stay), or in the old structure every solution replaced by an empty
    cell; the sentence under "Exercises" that points at the solutions is rewritten (``handout_exercises_intro``), and
    each exercise loses its clauses about the solution (``handout_exercise_text``)."""
    labels = editions.LANGUAGES[lang]
    student = nbformat.from_dict(nb)
    solutions = core.heading_index(student, labels.solutions)
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
        elif cell.cell_type == "markdown" and labels.exercises in cell.source.splitlines():
            cell.source = handout_exercises_intro(cell.source, lang)
        elif cell.cell_type == "markdown" and labels.exercise.match(cell.source):
            cell.source = handout_exercise_text(cell.source, lang)
    title = student.cells[0]
    link = re.escape(header.colab_link(name, lang))
    title.source = re.sub(r"\n*" + link + r"\n*", "\n\n", title.source).strip() + "\n"
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
    from lessons.exercises import hidden  # only here: importing the exercises imports torch

    hidden.strip_folder(out / "lessons")  # the hidden cases are for grading: a student never has them
    (out / "README.md").write_text(STUDENT_README, encoding="utf-8")
    (out / "README.zh.md").write_text(readme("zh"), encoding="utf-8")
    written = {}
    for lang, labels in editions.LANGUAGES.items():
        folder = out / labels.folder.relative_to(ROOT)
        folder.mkdir(parents=True, exist_ok=True)
        for path in sorted(labels.folder.glob("[0-9][0-9]_*.ipynb")):
            written[path] = (student_version(nbformat.read(path, as_version=4), path.name, lang), folder / path.name)
            written[path][1].touch()  # shipped: links between the lessons stay links between the handout's files
    for path, (student, target) in written.items():
        for cell in student.cells:
            if cell.cell_type == "markdown":
                cell.source = link_what_does_not_ship(cell.source, path.parent, out)
        nbformat.write(student, target)
    return [target for _, target in written.values()]


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
