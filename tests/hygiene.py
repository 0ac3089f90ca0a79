"""Checks every notebook must pass. Each returns a list of problems (empty = fine).

They are plain functions so tests/test_hygiene.py can feed them both the real notebooks and bad ones. Notebooks
are read with nbformat, and nbval markers are recognised by nbval's own parser, so a marker counts here exactly
when it counts for nbval.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from pathlib import Path
from typing import Any

import nbformat
from nbval.plugin import comment_markers, find_comment_markers, find_metadata_tags

from tools import notebook_template as template
from tools.student_edition import is_solution

MAX_BYTES = 1_000_000
CORE_MAX_WORDS = 1_500
"""The core path (everything before ``## Going deeper``) is read in one class period: at most this much prose..."""
CORE_MAX_CODE_CELLS = 25
"""... and at most this many code cells (the setup cell included)."""
heading_index, core_size = template.heading_index, template.core_size
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


def check_structure(nb: Notebook, name: str, timings: dict[str, Any], lang: str = "en") -> list[str]:
    """Title with the notebook's number, Colab link to itself, measured times, 'You will learn', Summary, Exercises."""
    labels = template.LANGUAGES[lang]
    problems = []
    first = nb.cells[0].source if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    if not re.match(rf"# {name[:2]} · \S", first):
        problems.append(f"first cell is not a title '# {name[:2]} · ...'")
    if template.colab_link(name, lang) not in first:
        problems.append("no Open-in-Colab link pointing at this notebook in the first cell")
    if re.search(r"!\[[^\]]*\]\(https?://", first):
        problems.append("a remote image in the header: JupyterLab shows it broken offline (use words)")
    line = template.time_line(timings.get(name.removesuffix(".ipynb"), {}), lang)
    if line not in first:
        problems.append("the header's time line differs from notebooks/timings.json (run tools/notebook_template.py)")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for heading in (labels.learn, labels.summary, labels.exercises):
        if heading not in text:
            problems.append(f"missing {heading!r}")
    return problems


def check_setup_cell(nb: Notebook, lang: str = "en") -> list[str]:
    """The first code cell is the shared setup cell of the notebook's language, character for character."""
    code = code_cells(nb)
    if not code:
        return ["no code cells"]
    if code[0].source != template.LANGUAGES[lang].setup_cell:
        return ["first code cell is not tools/notebook_template.py's setup cell (run tools/notebook_template.py)"]
    return []


def check_metadata(nb: Notebook) -> list[str]:
    """The kernel ``tools/setup.sh`` registers (so JupyterLab opens the notebook unmodified), and Colab metadata that
    asks for a GPU runtime."""
    problems = []
    if nb.metadata.get("kernelspec") != template.KERNELSPEC:
        problems.append(f"kernelspec is {nb.metadata.get('kernelspec')!r}, not {template.KERNELSPEC!r}")
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


def check_solutions_collapsed(nb: Notebook, lang: str = "en") -> list[str]:
    """Exercise solutions exist, after the Exercises heading, with code and output collapsed."""
    labels = template.LANGUAGES[lang]
    solutions = [c for c in nb.cells if is_solution(c, lang)]
    if not solutions:
        return [f"no '{labels.solution}' code cells"]
    problems = []
    for cell in solutions:
        jupyter = cell.metadata.get("jupyter", {})
        if not (jupyter.get("source_hidden") and jupyter.get("outputs_hidden")):
            problems.append("a solution cell's code or output is not collapsed (jupyter.source_hidden/outputs_hidden)")
    exercises = heading_index(nb, labels.exercises) or 0
    if any(i < exercises for i, c in enumerate(nb.cells) if is_solution(c, lang)):
        problems.append("a solution cell comes before the Exercises heading")
    return problems


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp, ast.ClassDef)


def _bound_inside(scope: ast.AST) -> set[str]:
    """Return the names a function, lambda, class or comprehension binds for itself (parameters and assignments)."""
    bound: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = scope.args
        for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]:
            if arg is not None:
                bound.add(arg.arg)
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not scope:
            bound.add(node.name)
    return bound


def defined_and_used(source: str) -> tuple[set[str], set[str]]:
    """Return the global names a code cell binds and the global names it reads (IPython magics translated first).

    Names a function, lambda or comprehension binds for itself (its parameters, its locals) are neither: only what
    the cell leaves behind for later cells, and what it needs from earlier ones, counts."""
    from IPython.core.inputtransformer2 import TransformerManager

    tree = ast.parse(TransformerManager().transform_cell(source))
    defined: set[str] = set()
    used: set[str] = set()

    def visit(node: ast.AST, local: set[str]) -> None:
        if isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not local:
                defined.add(node.name)
            local = local | _bound_inside(node)
        elif isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                if not local:
                    defined.add(node.id)
            elif node.id not in local:
                used.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and not local:
            defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, local)

    visit(tree, set())
    return defined, used - set(dir(builtins))


def check_core_path(nb: Notebook, lang: str = "en") -> list[str]:
    """A core path a class does in one period, then ``## Going deeper`` before the Summary and the Exercises;
    what comes after Going deeper (Summary, Exercises, solutions) uses nothing that only Going deeper defines.
    Prose is counted in the English edition (the Chinese one has the same cells: tools/translate.py)."""
    labels = template.LANGUAGES[lang]
    deeper, summary = heading_index(nb, labels.going_deeper), heading_index(nb, labels.summary)
    if deeper is None:
        return [f"no {labels.going_deeper!r} heading after the core path"]
    problems = []
    if summary is None or summary < deeper:
        problems.append(f"{labels.going_deeper!r} must come after the core and before {labels.summary!r}")
    words, code = core_size(nb, lang)
    if lang == "en" and words > CORE_MAX_WORDS:
        problems.append(f"core path has {words} words of prose (at most {CORE_MAX_WORDS} before the Going deeper)")
    if code > CORE_MAX_CODE_CELLS:
        problems.append(f"core path has {code} code cells (at most {CORE_MAX_CODE_CELLS} before the Going deeper)")
    core_names: set[str] = set()
    deeper_names: set[str] = set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        defined, used = defined_and_used(cell.source)
        if index < deeper:
            core_names |= defined
        elif summary is None or index < summary:
            deeper_names |= defined
        else:
            exercise = nb.cells[index - 1].source if index and nb.cells[index - 1].cell_type == "markdown" else ""
            needs = sorted((used & deeper_names) - core_names - defined)
            if needs and "(Going deeper)" not in exercise and "（进阶）" not in exercise:
                problems.append(f"cell {index} uses {needs}, defined only under {labels.going_deeper!r}")
    return problems


def check_exercises(nb: Notebook, lang: str = "en") -> list[str]:
    """Each exercise is a markdown cell starting ``**Exercise N.**`` (N = 1, 2, ...) directly followed by exactly one
    solution cell; every solution comes after every other code cell, and no code cell after a solution reads a name
    that only solutions define. So the student edition (solutions removed) runs exactly the cells the tests run."""
    exercise = template.LANGUAGES[lang].exercise
    problems = []
    numbers = []
    solution_names: set[str] = set()
    other_names: set[str] = set()
    seen_solution = False
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and (match := exercise.match(cell.source)):
            numbers.append(int(match.group(1)))
            following = nb.cells[index + 1] if index + 1 < len(nb.cells) else None
            if following is None or not is_solution(following, lang):
                problems.append(f"cell {index}: Exercise {match.group(1)} is not directly followed by its solution")
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        defined, used = defined_and_used(cell.source)
        if is_solution(cell, lang):
            seen_solution = True
            previous = nb.cells[index - 1] if index else None
            if previous is None or previous.cell_type != "markdown" or not exercise.match(previous.source):
                problems.append(f"cell {index}: a solution cell that does not follow an '**Exercise N.**' cell")
            solution_names |= defined
            continue
        if seen_solution:
            problems.append(f"cell {index}: a code cell after a solution (the student edition would skip its input)")
        if only := sorted((used & solution_names) - other_names - defined):
            problems.append(f"cell {index} uses {only}, which only a solution defines")
        other_names |= defined
    if numbers != list(range(1, len(numbers) + 1)) or not numbers:
        problems.append(f"exercises are numbered {numbers}, expected 1, 2, ...")
    return problems


def check_size(path: Path) -> list[str]:
    """Stored notebooks stay small (< 1 MB)."""
    size = path.stat().st_size
    return [] if size <= MAX_BYTES else [f"{size} bytes > {MAX_BYTES}"]


def check_all(path: Path, timings: dict[str, Any] | None = None) -> list[str]:
    """Every check above for one notebook file of either edition (times compared with ``notebooks/timings.json``)."""
    nb = read(path)
    timings = template.read_timings() if timings is None else timings
    lang = template.language_of(path)
    return (
        check_name(path.name)
        + check_structure(nb, path.name, timings, lang)
        + check_setup_cell(nb, lang)
        + check_metadata(nb)
        + check_executed_in_order(nb)
        + check_outputs(nb)
        + check_markers(nb)
        + check_solutions_collapsed(nb, lang)
        + check_core_path(nb, lang)
        + check_exercises(nb, lang)
        + check_size(path)
    )
