"""Checks every notebook must pass. Each returns a list of problems (empty = fine).

They are plain functions so tests/test_hygiene.py can feed them both the real notebooks and bad ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

REPO = "pytorch-gpu-notebooks/pytorch-gpu-notebooks"
"""GitHub home of the collection: the Colab badges and the Colab setup cells point here."""

MAX_BYTES = 1_000_000
NAME = re.compile(r"^(\d\d)_[a-z0-9]+(_[a-z0-9]+)*\.ipynb$")
MACHINE_PATH = re.compile(r"(/root/|/home/[^/\s]+/|/Users/[^/\s]+/|/tmp/|/work/|/content/|[A-Z]:\\\\Users)")
CUDA_STRING = re.compile(r"cuda:\d|device='cuda|device\(type='cuda")
RAISES = "NBVAL_RAISES_EXCEPTION"
IGNORE = "NBVAL_IGNORE_OUTPUT"
MARKERS = {RAISES, IGNORE, "NBVAL_SKIP", "NBVAL_CHECK_OUTPUT"}

Notebook = dict[str, Any]


def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _code_cells(nb: Notebook) -> list[dict[str, Any]]:
    return [c for c in nb.get("cells", []) if c.get("cell_type") == "code" and _source(c).strip()]


def _markdown(nb: Notebook) -> str:
    return "\n".join(_source(c) for c in nb.get("cells", []) if c.get("cell_type") == "markdown")


def _markers(cell: dict[str, Any]) -> set[str]:
    """The nbval markers nbval itself will see: a comment line that is exactly the marker, or a cell tag."""
    found = set()
    for line in _source(cell).splitlines():
        line = line.strip()
        if line.startswith("#") and line.lstrip("#").strip() in MARKERS:
            found.add(line.lstrip("#").strip())
    tags = cell.get("metadata", {}).get("tags", [])
    if "raises-exception" in tags:
        found.add(RAISES)
    if "nbval-ignore-output" in tags:
        found.add(IGNORE)
    return found


def check_name(name: str) -> list[str]:
    """`NN_topic.ipynb`: two digits, underscore, lowercase words."""
    return [] if NAME.match(name) else [f"name {name!r} is not NN_topic.ipynb"]


def check_structure(nb: Notebook, name: str) -> list[str]:
    """Title with the notebook's number, Colab badge to itself, 'You will learn', Summary, Exercises."""
    problems = []
    cells = nb.get("cells", [])
    first = _source(cells[0]) if cells and cells[0].get("cell_type") == "markdown" else ""
    number = name[:2]
    if not re.match(rf"# {number} · \S", first):
        problems.append(f"first cell is not a title '# {number} · ...'")
    badge = f"https://colab.research.google.com/github/{REPO}/blob/main/notebooks/{name}"
    if badge not in first:
        problems.append("no Open-in-Colab badge pointing at this notebook in the first cell")
    text = _markdown(nb)
    for heading in ("You will learn", "## Summary", "## Exercises"):
        if heading not in text:
            problems.append(f"missing {heading!r}")
    return problems


def check_setup_cell(nb: Notebook) -> list[str]:
    """The first code cell makes utils importable (JupyterLab, nbval, Colab); a code cell imports utils."""
    code = _code_cells(nb)
    if not code:
        return ["no code cells"]
    problems = []
    first = _source(code[0])
    if "google.colab" not in first or "utils.py" not in first or REPO not in first:
        problems.append("first code cell is not the setup cell (Colab clone + utils.py on sys.path)")
    if not any(re.search(r"^import utils\b", _source(c), re.M) for c in code[:3]):
        problems.append("utils is not imported in the first code cells")
    return problems


def check_executed_in_order(nb: Notebook) -> list[str]:
    """Every code cell ran, once, top to bottom in one kernel: execution counts 1, 2, 3, ..."""
    counts = [c.get("execution_count") for c in _code_cells(nb)]
    if counts != list(range(1, len(counts) + 1)):
        return [f"execution counts are {counts[:10]}..., expected 1, 2, 3, ... (run tools/run_notebooks.py)"]
    return []


def check_outputs(nb: Notebook) -> list[str]:
    """No unexpected errors, no stderr, no machine paths, no CUDA device strings in stored outputs."""
    problems = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        expected_error = RAISES in _markers(cell)
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors and not expected_error:
            problems.append(f"cell {index}: unexpected error {errors[0].get('ename')}")
        if expected_error and not errors:
            problems.append(f"cell {index}: marked {RAISES} but stored no error")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                problems.append(f"cell {index}: stderr output {''.join(out.get('text', ''))[:80]!r}")
            blob = json.dumps(out)
            if match := MACHINE_PATH.search(blob):
                problems.append(f"cell {index}: machine path {match.group(0)!r} in output")
            for match in CUDA_STRING.finditer(blob):
                if match.group(0) not in _source(cell):  # echoing a literal from the code is deterministic
                    problems.append(f"cell {index}: CUDA device string {match.group(0)!r} in output")
                    break
    return problems


def check_markers(nb: Notebook) -> list[str]:
    """nbval markers are exact (nbval ignores '# NBVAL_IGNORE_OUTPUT (why)'); an ignored cell is followed by a check."""
    problems = []
    code = _code_cells(nb)
    for index, cell in enumerate(code):
        for line in _source(cell).splitlines():
            text = line.strip().lstrip("#").strip()
            if line.strip().startswith("#") and text.startswith("NBVAL_") and text not in MARKERS:
                problems.append(f"code cell {index}: {line.strip()!r} is not an exact nbval marker, nbval ignores it")
        if IGNORE in _markers(cell):
            following = _source(code[index + 1]) if index + 1 < len(code) else ""
            if "assert" not in following:
                problems.append(f"code cell {index}: {IGNORE} is not followed by a check cell with an assert")
    return problems


def check_solutions_collapsed(nb: Notebook) -> list[str]:
    """Exercise solutions exist and their code is collapsed (`jupyter.source_hidden`)."""
    solutions = [c for c in _code_cells(nb) if _source(c).lstrip().startswith("# Solution")]
    if not solutions:
        return ["no '# Solution' code cells"]
    hidden = [c for c in solutions if c.get("metadata", {}).get("jupyter", {}).get("source_hidden")]
    if len(hidden) != len(solutions):
        return [f"{len(solutions) - len(hidden)} solution cell(s) not collapsed"]
    return []


def check_kernelspec(nb: Notebook) -> list[str]:
    """kernelspec name is python3, so nbval, JupyterLab and Colab all find a kernel."""
    name = nb.get("metadata", {}).get("kernelspec", {}).get("name")
    return [] if name == "python3" else [f"kernelspec name is {name!r}, not 'python3'"]


def check_size(path: Path) -> list[str]:
    """Stored notebooks stay small (< 1 MB)."""
    size = path.stat().st_size
    return [] if size <= MAX_BYTES else [f"{size} bytes > {MAX_BYTES}"]


def check_all(path: Path) -> list[str]:
    """Every check above for one notebook file."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return (
        check_name(path.name)
        + check_structure(nb, path.name)
        + check_setup_cell(nb)
        + check_executed_in_order(nb)
        + check_outputs(nb)
        + check_markers(nb)
        + check_solutions_collapsed(nb)
        + check_kernelspec(nb)
        + check_size(path)
    )
