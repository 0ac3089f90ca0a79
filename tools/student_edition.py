"""Write the student edition: every notebook with its exercise solutions removed, code and outputs.

    .venv/bin/python tools/student_edition.py              # writes student/NN_*.ipynb (git-ignored)
    .venv/bin/python tools/student_edition.py --out DIR    # somewhere else

Everything else is kept as stored (prose, code, outputs, plots), so a teacher hands the folder out as it is.
Each solution cell becomes an empty code cell headed "# Your solution", and the Open-in-Colab badge is removed
because it opens the full edition, solutions included. ``notebooks/assets/`` is copied along, since lessons load
files from it. Students open the notebooks from a copy of the project (``utils.py`` and ``lessons/`` must be in
a parent folder, as they are for ``student/``), or upload them to Colab beside a clone of the project.
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

SOLUTION = "# Solution"
PLACEHOLDER = "# Your solution\n"


def is_solution(cell: nbformat.NotebookNode) -> bool:
    """True for an exercise's solution cell (a code cell whose first line is ``# Solution``)."""
    return cell.cell_type == "code" and cell.source.lstrip().startswith(SOLUTION)


def student_version(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """Return a copy of ``nb`` with every solution replaced by an empty cell and the Colab badge removed."""
    student = nbformat.from_dict(nb)
    cells = []
    for cell in student.cells:
        if is_solution(cell):
            cell = nbformat.v4.new_code_cell(PLACEHOLDER)
        cells.append(cell)
    student.cells = cells
    title = student.cells[0]
    title.source = re.sub(r"\n*" + re.escape(template.badge(name)) + r"\n*", "\n\n", title.source).strip() + "\n"
    return student


def write_edition(out: Path) -> list[Path]:
    """Write the student edition of every notebook into ``out``; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        target = out / path.name
        nbformat.write(student_version(nbformat.read(path, as_version=4), path.name), target)
        written.append(target)
    assets = ROOT / "notebooks" / "assets"
    if assets.is_dir():
        shutil.copytree(assets, out / "assets", dirs_exist_ok=True)
    return written


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and write the edition."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "student", help="folder to write (default: student/)")
    args = parser.parse_args(argv)
    for path in write_edition(args.out):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
