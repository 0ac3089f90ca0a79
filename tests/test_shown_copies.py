"""A function or class a notebook defines under the name of a helper in ``utils`` or ``lessons`` is exactly that code.

Lessons show helpers in full ("here it is, as the module has it") and then use the module's copy, so the copy a
reader studies must be the code that runs. A notebook that wants a different version gives it another name.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["utils", *sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                           for p in (ROOT / "lessons").rglob("[a-z]*.py"))]  # a package's modules too


def helpers() -> dict[str, str]:
    """Map every function and class name defined in utils and lessons/ to its source."""
    found: dict[str, str] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
                found[attr] = inspect.getsource(obj)
    return found


def defined_in(source: str) -> dict[str, str]:
    """Map each top-level function or class a code cell defines to its source (decorators included)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]  # IPython escapes
    code = "\n".join(lines)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found[node.name] = "\n".join(code.splitlines()[start - 1 : node.end_lineno]) + "\n"
    return found


def drifted(notebook: nbformat.NotebookNode, known: dict[str, str]) -> list[str]:
    """Return the names of helpers that ``notebook`` defines with code different from the module's."""
    problems = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for name, shown in defined_in(cell.source).items():
            if name in known and textwrap.dedent(known[name]) != shown:
                problems.append(name)
    return problems


NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_shown_helpers_are_the_code_that_runs(path: Path) -> None:
    assert drifted(nbformat.read(path, as_version=4), helpers()) == []


def test_a_shown_copy_is_found_and_compared() -> None:
    known = helpers()
    exact = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(known["atomic_save"] + "\nprint(1)")])
    assert drifted(exact, known) == []


def test_a_drifted_copy_fails() -> None:
    known = helpers()
    source = known["atomic_save"].replace('"""', '"""Drifted: ', 1)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    assert drifted(notebook, known) == ["atomic_save"]


def test_decorated_and_magic_cells_are_read() -> None:
    cell = "%matplotlib inline\n@torch.no_grad()\ndef evaluate(model):\n    return 1\n"
    assert defined_in(cell) == {"evaluate": "@torch.no_grad()\ndef evaluate(model):\n    return 1\n"}
