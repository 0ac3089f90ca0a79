"""Checks every notebook must pass. Each returns a list of problems (empty = fine).

They are plain functions so tests/test_hygiene.py can feed them both the real notebooks and bad ones. Notebooks
are read with nbformat, and nbval markers are recognised by nbval's own parser, so a marker counts here exactly
when it counts for nbval.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
from nbval.plugin import comment_markers, find_comment_markers, find_metadata_tags

from tools import notebook_template as template
from tools.student_edition import SOLUTION, is_solution

MAX_BYTES = 1_000_000
NAME = re.compile(r"^(\d\d)_[a-z0-9]+(_[a-z0-9]+)*\.ipynb$")
MACHINE_PATH = re.compile(r"(/root/|/home/[^/\s]+/|/Users/[^/\s]+/|/tmp/|/work/|/content/|[A-Z]:\\\\Users)")
CUDA_STRING = re.compile(r"cuda:\d|device='cuda|device\(type='cuda")

Notebook = Any  # an nbformat NotebookNode


def read(path: Path) -> Notebook:
    """Return the notebook at ``path`` (nbformat, version 4)."""
    return nbformat.read(path, as_version=4)


def code_cells(nb: Notebook) -> list[Any]:
    """Return the non-empty code cells of ``nb``."""
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def nbval_options(cell: Any) -> dict[str, Any]:
    """Return what nbval will do with ``cell``: e.g. ``{"check": False}`` (ignore output), ``{"skip": True}``."""
    return {**dict(find_comment_markers(cell.source)), **dict(find_metadata_tags(cell.metadata))}


def check_name(name: str) -> list[str]:
    """`NN_topic.ipynb`: two digits, underscore, lowercase words."""
    return [] if NAME.match(name) else [f"name {name!r} is not NN_topic.ipynb"]


def check_structure(nb: Notebook, name: str, timings: dict[str, Any]) -> list[str]:
    """Title with the notebook's number, Colab badge to itself, measured times, 'You will learn', Summary, Exercises."""
    problems = []
    first = nb.cells[0].source if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    if not re.match(rf"# {name[:2]} · \S", first):
        problems.append(f"first cell is not a title '# {name[:2]} · ...'")
    if template.badge(name) not in first:
        problems.append("no Open-in-Colab badge pointing at this notebook in the first cell")
    line = template.time_line(timings.get(name.removesuffix(".ipynb"), {}))
    if line not in first:
        problems.append("the header's time line differs from notebooks/timings.json (run tools/notebook_template.py)")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for heading in ("You will learn", "## Summary", "## Exercises"):
        if heading not in text:
            problems.append(f"missing {heading!r}")
    return problems


def check_setup_cell(nb: Notebook) -> list[str]:
    """The first code cell is the shared setup cell, character for character."""
    code = code_cells(nb)
    if not code:
        return ["no code cells"]
    if code[0].source != template.SETUP_CELL:
        return ["first code cell is not tools/notebook_template.py's SETUP_CELL (run tools/notebook_template.py)"]
    return []


def check_metadata(nb: Notebook) -> list[str]:
    """Kernel ``python3`` (nbval, JupyterLab, Colab find it) and Colab metadata that asks for a GPU runtime."""
    problems = []
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problems.append(f"kernelspec name is {nb.metadata.get('kernelspec', {}).get('name')!r}, not 'python3'")
    for key, value in template.COLAB_METADATA.items():
        if nb.metadata.get(key) != value:
            problems.append(f"metadata {key!r} is not {value!r} (run tools/notebook_template.py)")
    return problems


def check_executed_in_order(nb: Notebook) -> list[str]:
    """Every code cell ran, once, top to bottom in one kernel: execution counts 1, 2, 3, ..."""
    counts = [c.get("execution_count") for c in code_cells(nb)]
    if counts != list(range(1, len(counts) + 1)):
        return [f"execution counts are {counts[:10]}..., expected 1, 2, 3, ... (run tools/run_notebooks.py)"]
    return []


def check_outputs(nb: Notebook) -> list[str]:
    """No error outputs at all, no stderr, no machine paths, no CUDA device strings in stored outputs."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"cell {index}: stored error {out.get('ename')} (Run all would stop here)")
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                problems.append(f"cell {index}: stderr output {out.get('text', '')[:80]!r}")
            blob = json.dumps(out)
            if match := MACHINE_PATH.search(blob):
                problems.append(f"cell {index}: machine path {match.group(0)!r} in output")
            for match in CUDA_STRING.finditer(blob):
                if match.group(0) not in cell.source:  # echoing a literal from the code is deterministic
                    problems.append(f"cell {index}: CUDA device string {match.group(0)!r} in output")
                    break
    return problems


def check_markers(nb: Notebook) -> list[str]:
    """Errors are caught in the cell (``utils.expect_error``), never let through by a tag or marker; markers are
    exact; an ignored output is followed by a check cell; no cell is skipped; no ``inspect.getsource`` checks."""
    problems = []
    code = code_cells(nb)
    for index, cell in enumerate(code):
        options = nbval_options(cell)
        if "raises-exception" in cell.metadata.get("tags", []) or options.get("check_exception"):
            problems.append(f"code cell {index}: relies on a raises-exception tag or marker; use utils.expect_error")
        if options.get("skip"):
            problems.append(f"code cell {index}: NBVAL_SKIP hides the cell from the tests")
        for line in cell.source.splitlines():
            text = line.strip().lstrip("#").strip()
            if line.strip().startswith("#") and text.startswith("NBVAL_") and text not in comment_markers:
                problems.append(f"code cell {index}: {line.strip()!r} is not an exact nbval marker, nbval ignores it")
        if options.get("check") is False:
            following = code[index + 1].source if index + 1 < len(code) else ""
            if "assert" not in following:
                problems.append(f"code cell {index}: ignored output is not followed by a check cell with an assert")
        if "getsource" in cell.source:
            problems.append(f"code cell {index}: shown copies are checked by tests/test_shown_copies.py, not here")
    return problems


def check_solutions_collapsed(nb: Notebook) -> list[str]:
    """Exercise solutions exist, after the Exercises heading, with code and output collapsed."""
    solutions = [c for c in nb.cells if is_solution(c)]
    if not solutions:
        return [f"no '{SOLUTION}' code cells"]
    problems = []
    for cell in solutions:
        jupyter = cell.metadata.get("jupyter", {})
        if not (jupyter.get("source_hidden") and jupyter.get("outputs_hidden")):
            problems.append("a solution cell's code or output is not collapsed (jupyter.source_hidden/outputs_hidden)")
    exercises = next((i for i, c in enumerate(nb.cells) if "## Exercises" in c.source and c.cell_type == "markdown"), 0)
    if any(i < exercises for i, c in enumerate(nb.cells) if is_solution(c)):
        problems.append("a solution cell comes before the Exercises heading")
    return problems


def check_size(path: Path) -> list[str]:
    """Stored notebooks stay small (< 1 MB)."""
    size = path.stat().st_size
    return [] if size <= MAX_BYTES else [f"{size} bytes > {MAX_BYTES}"]


def check_all(path: Path, timings: dict[str, Any] | None = None) -> list[str]:
    """Every check above for one notebook file (times compared with ``notebooks/timings.json`` by default)."""
    nb = read(path)
    timings = template.read_timings() if timings is None else timings
    return (
        check_name(path.name)
        + check_structure(nb, path.name, timings)
        + check_setup_cell(nb)
        + check_metadata(nb)
        + check_executed_in_order(nb)
        + check_outputs(nb)
        + check_markers(nb)
        + check_solutions_collapsed(nb)
        + check_size(path)
    )
