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

import mistune
import nbformat
from nbval.plugin import comment_markers, find_comment_markers, find_metadata_tags

import utils
from tools.author import cells, core, editions, header, template
from tools.teacher.student_edition import is_solution

MAX_BYTES = 1_000_000
CORE_MAX_WORDS = 1_500
"""The core path (everything before ``## Going deeper``) is read in one class period: at most this much prose..."""
CORE_MAX_CODE_CELLS = 25
"""... and at most this many code cells (the setup cell included)..."""
CORE_MAX_MINUTES = core.CORE_MAX_MINUTES
"""... and at most this many minutes in class by ``tools/author/template.py``'s ``core_minutes`` (prose, lines of
code and code cells together)."""
heading_index, core_size = core.heading_index, core.core_size
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
    labels = editions.LANGUAGES[lang]
    problems = []
    first = nb.cells[0].source if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    if not re.match(rf"# {name[:2]} · \S", first):
        problems.append(f"first cell is not a title '# {name[:2]} · ...'")
    if header.colab_link(name, lang) not in first:
        problems.append("no Open-in-Colab link pointing at this notebook in the first cell")
    if re.search(r"!\[[^\]]*\]\(https?://", first):
        problems.append("a remote image in the header: JupyterLab shows it broken offline (use words)")
    line = header.time_line(header.current_times(timings, nb, name, lang), lang, header.quick_mode_shrinks(nb))
    if line not in first:
        problems.append("the header's time line differs from notebooks/timings.json (run tools/author/template.py)")
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
    if code[0].source != editions.LANGUAGES[lang].setup_cell:
        return ["first code cell is not tools/author/template.py's setup cell (run tools/author/template.py)"]
    return _collapsed(code[0], "the setup cell")


def _collapsed(cell: Any, what: str) -> list[str]:
    """``cell`` shows only its ``# @title`` line, in Colab (a form) and in JupyterLab (its code hidden)."""
    problems = []
    if not cell.source.startswith(cells.FORM_TITLE):
        problems.append(f"{what} does not start with {cells.FORM_TITLE.strip()!r} (its title in Colab)")
    if cell.metadata.get("cellView") != "form":
        problems.append(f"{what} is not a Colab form (cellView) (run tools/author/template.py)")
    if not cell.metadata.get("jupyter", {}).get("source_hidden"):
        problems.append(f"{what}'s code is not collapsed (jupyter.source_hidden) (run tools/author/template.py)")
    return problems


def check_metadata(nb: Notebook) -> list[str]:
    """The kernel ``tools/setup.sh`` registers (so JupyterLab opens the notebook unmodified), and Colab metadata that
    asks for a GPU runtime."""
    problems = []
    if nb.metadata.get("kernelspec") != template.KERNELSPEC:
        problems.append(f"kernelspec is {nb.metadata.get('kernelspec')!r}, not {template.KERNELSPEC!r}")
    for key, value in template.COLAB_METADATA.items():
        if nb.metadata.get(key) != value:
            problems.append(f"metadata {key!r} is not {value!r} (run tools/author/template.py)")
    return problems


def check_executed_in_order(nb: Notebook) -> list[str]:
    """Every code cell ran, once, top to bottom in one kernel: execution counts 1, 2, 3, ..."""
    counts = [c.get("execution_count") for c in code_cells(nb)]
    if counts != list(range(1, len(counts) + 1)):
        return [f"execution counts are {counts[:10]}..., expected 1, 2, 3, ... (run tools/author/run_notebooks.py)"]
    return []


def check_outputs(nb: Notebook) -> list[str]:
    """No error outputs at all, no stderr, no machine paths, no CUDA device strings in stored outputs; each stream's
    output in one piece (``tools/author/run_notebooks.py``'s ``coalesce_streams``)."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        for before, out in zip(outputs, outputs[1:], strict=False):
            if out.get("output_type") == "stream" and (before.get("output_type"), before.get("name")) == (
                "stream", out.get("name")):
                name = out.get("name")
                problems.append(f"cell {index}: a {name} output in pieces (run tools/author/run_notebooks.py)")
        for out in outputs:
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


MACHINE_COMMENT = re.compile(r"#\s*[(（].*[)）]\s*$")
"""A cell's first line that says in brackets why its output differs between machines, ``# (rates depend on the
machine)``: the cell's output is not compared (its tag ``nbval-ignore-output``) and a check follows it."""


def check_markers(nb: Notebook) -> list[str]:
    """Errors are caught in the cell (``utils.expect_error``), never let through by a tag or marker; markers are
    exact; a cell that says its output depends on the machine (``MACHINE_COMMENT``) is not compared; an ignored
    output is followed by a check cell (an ``assert``, or an exercise's check with ``strict=True``,
which raises AssertionError); no cell is skipped; no ``inspect.getsource`` checks."""
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
        if dict(find_comment_markers(cell.source)):
            problems.append(f"code cell {index}: an nbval marker in the code a student reads: make it a cell tag "
                            "(run tools/author/template.py)")
        first = cell.source.splitlines()[0] if cell.source else ""
        if MACHINE_COMMENT.match(first) and options.get("check") is not False:
            problems.append(f"code cell {index}: {first!r} says the output depends on the machine, but nbval "
                            "compares it: tag the cell nbval-ignore-output")
        if options.get("check") is False:
            following = code[index + 1].source if index + 1 < len(code) else ""
            if "assert" not in following and (check_call(following) or ("", 0, False))[2] is False:
                problems.append(f"code cell {index}: ignored output is not followed by a check cell with an assert")
        if "getsource" in cell.source:
            problems.append(f"code cell {index}: shown copies are checked by tests/test_shown_copies.py, not here")
    return problems


def check_solutions_collapsed(nb: Notebook, lang: str = "en") -> list[str]:
    """Exercise solutions exist, under the ``## Solutions`` heading after the Exercises, each collapsed to its
    ``# @title`` line in Colab (a form) and JupyterLab (``jupyter.source_hidden``), with no stored output (nbval runs
    it without comparing one: its tag ``nbval-ignore-output``). ``outputs_hidden`` is not stored, since JupyterLab's
    "Run All" uncovers it and saving drops it anyway."""
    labels = editions.LANGUAGES[lang]
    solutions = [c for c in nb.cells if is_solution(c, lang)]
    if not solutions:
        return [f"no '{labels.solution}' code cells"]
    problems = []
    if heading_index(nb, labels.solutions) is None:
        problems.append(f"no {labels.solutions!r} section: the solutions go there, after all the exercises")
    for cell in solutions:
        jupyter = cell.metadata.get("jupyter", {})
        problems += _collapsed(cell, f"solution {cell.source.splitlines()[0]!r}")
        if "outputs_hidden" in jupyter:
            problems.append("a solution under the Solutions heading stores outputs_hidden (Run All uncovers it)")
        if cell.get("outputs"):
            problems.append(f"solution {cell.source.splitlines()[0]!r} stores an output, which shows the answer "
                            "(run tools/author/template.py)")
        if cells.IGNORE_OUTPUT_TAG not in cell.metadata.get("tags", []):
            problems.append(f"solution {cell.source.splitlines()[0]!r} lacks the tag {cells.IGNORE_OUTPUT_TAG!r}: "
                            "nbval would compare its output with none")
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


def _exercise_text(nb: Notebook, index: int, lang: str) -> str:
    """Return the text of the exercise that code cell ``index`` belongs to: the exercise its answer cell, check or
    solution names, else the markdown cell right above it; "" if none."""
    labels = editions.LANGUAGES[lang]
    first = nb.cells[index].source.splitlines()[0] if nb.cells[index].source else ""
    number = None
    for label in (labels.answer, labels.solution_of):
        if match := re.fullmatch(re.escape(label).replace(r"\{number\}", r"(\d+)"), first):
            number = int(match.group(1))
    if number is None and (found := check_call(nb.cells[index].source)):
        number = found[1]
    if number is None:
        previous = nb.cells[index - 1] if index else None
        return previous.source if previous is not None and previous.cell_type == "markdown" else ""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and (match := labels.exercise.match(cell.source)) and \
                int(match.group(1)) == number:
            return cell.source
    return ""


def check_cell_length(nb: Notebook) -> list[str]:
    """Every code cell but the setup cell (run, not read, shown collapsed) has at most ``CODE_CELL_MAX_LINES``
    non-blank lines, so that it needs no scroll bar."""
    setup = next((c.id for c in nb.cells if c.cell_type == "code"), None)
    problems = []
    for index, cell in enumerate(nb.cells):
        lines = sum(1 for line in cell.source.splitlines() if line.strip())
        if cell.cell_type == "code" and cell.id != setup and lines > core.CODE_CELL_MAX_LINES:
            problems.append(f"cell {index} ({cell.id}) has {lines} lines of code (at most "
                            f"{core.CODE_CELL_MAX_LINES}): split it")
    return problems


def check_code_width(nb: Notebook) -> list[str]:
    """Every line of every code cell has at most ``CODE_LINE_MAX_CHARS`` characters."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for number, line in enumerate(cell.source.splitlines(), 1):
            if len(line) > core.CODE_LINE_MAX_CHARS:
                problems.append(f"cell {index} ({cell.id}) line {number} has {len(line)} characters (at most "
                                f"{core.CODE_LINE_MAX_CHARS}): wrap it")
    return problems


def check_core_path(nb: Notebook, lang: str = "en") -> list[str]:
    """A core path a class does in one period (at most ``CORE_MAX_WORDS`` words, ``CORE_MAX_CODE_CELLS`` code cells
    and ``CORE_MAX_MINUTES`` minutes), then ``## Going deeper`` before the Summary and the Exercises; what comes
    after Going deeper (Summary, Exercises, solutions) uses nothing that only Going deeper defines. Prose and
    minutes are counted in the English edition (the Chinese one has the same cells: tools/author/translate.py)."""
    labels = editions.LANGUAGES[lang]
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
    minutes = core.core_minutes(nb, lang)
    if lang == "en" and minutes > CORE_MAX_MINUTES:
        problems.append(
            f"core path takes {minutes:.1f} minutes in class, at most {CORE_MAX_MINUTES} ({words} words at "
            f"{core.WORDS_PER_MINUTE} a minute, {core.core_lines(nb, lang)} lines of code at "
            f"{core.LINES_PER_MINUTE} a minute, a minute per code cell): move material into {labels.going_deeper!r}"
        )
    core_names: set[str] = set()
    deeper_names: set[str] = set()
    after_names: set[str] = set()  # defined after the Summary (answer cells, solutions): they shadow Going deeper's
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        defined, used = defined_and_used(cell.source)
        if index < deeper:
            core_names |= defined
        elif summary is None or index < summary:
            deeper_names |= defined
        else:
            exercise = _exercise_text(nb, index, lang)
            needs = sorted((used & deeper_names) - core_names - defined - after_names)
            if needs and "(Going deeper)" not in exercise and "（进阶）" not in exercise:
                problems.append(f"cell {index} uses {needs}, defined only under {labels.going_deeper!r}")
            after_names |= defined  # an answer cell's names, read by the check under it
    return problems


def check_call(source: str) -> tuple[str, int, bool] | None:
    """Return ``(lesson, number, strict)`` of the ``exercises.check("NN", N, ...)`` call in a code cell, or None
    when the cell's code (comments aside) is not exactly one such call."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr) or not isinstance(tree.body[0].value, ast.Call):
        return None
    call = tree.body[0].value
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "check" and isinstance(func.value, ast.Name)
            and func.value.id == "exercises" and len(call.args) >= 2):
        return None
    lesson, number = call.args[0], call.args[1]
    if not (isinstance(lesson, ast.Constant) and isinstance(lesson.value, str)
            and isinstance(number, ast.Constant) and isinstance(number.value, int)):
        return None
    strict = any(k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value is True
                 for k in call.keywords)
    return lesson.value, number.value, strict


def _printed(cell: Any) -> str:
    """Return what a code cell's stored outputs printed (its stdout streams)."""
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def check_exercises(nb: Notebook, lang: str = "en", lesson: str | None = None) -> list[str]:
    """The exercises and their solutions in the exercises' structure (``_check_exercises_with_checks``): the
    student edition runs exactly the cells the tests run, less the Solutions section. ``lesson``: the notebook's
    number, which every check call must name."""
    if heading_index(nb, editions.LANGUAGES[lang].solutions) is None:
        return [f"no {editions.LANGUAGES[lang].solutions!r} section after the exercises"]
    return _check_exercises_with_checks(nb, lang, lesson)


def _check_exercises_with_checks(nb: Notebook, lang: str, lesson: str | None) -> list[str]:
    """Under ``## Exercises``, each exercise is a markdown cell ``**Exercise N.**`` (N = 1, 2, ...) directly followed
    by its answer cell (first line ``# Exercise N: your answer``, then the stub: the stored check says "not answered
    yet") and its check cell, ``exercises.check("NN", N, ...)``. Every solution comes after all of them, in the last
    section, ``## Solutions``: for each exercise in order a collapsed cell ``# Solution: exercise N`` directly followed
    by the same check with ``strict=True``, its stored output "correct"; nothing else there but markdown. A solution
    reads no name that only an answer cell (a stub) defines. The student edition drops the Solutions section."""
    labels = editions.LANGUAGES[lang]
    start, end = heading_index(nb, labels.exercises), heading_index(nb, labels.solutions)
    problems: list[str] = []
    if start is None or end is None or end < start:
        return [f"{labels.solutions!r} must come after {labels.exercises!r}"]
    if any(line.startswith("## ") for c in nb.cells[end + 1 :] if c.cell_type == "markdown"
           for line in c.source.splitlines()):
        problems.append(f"{labels.solutions!r} must be the last section")
    numbers: list[int] = []
    answer_names: set[str] = set()
    other_names: set[str] = set()
    for index, cell in enumerate(nb.cells[:end]):
        if index > start and cell.cell_type == "markdown" and (match := labels.exercise.match(cell.source)):
            number = int(match.group(1))
            numbers.append(number)
            answer, check = (nb.cells[index + k] if index + k < end else None for k in (1, 2))
            first = labels.answer.format(number=number)
            if answer is None or answer.cell_type != "code" or answer.source.splitlines()[:1] != [first]:
                problems.append(f"cell {index}: Exercise {number} is not directly followed by its answer cell "
                                f"starting {first!r}")
            elif labels.unanswered not in _printed(check or {}):
                problems.append(f"cell {index + 1}: the answer cell of Exercise {number} is not the stub (its stored "
                                f"check does not say {labels.unanswered!r})")
            found = check_call(check.source) if check is not None and check.cell_type == "code" else None
            if found is None or found[1:] != (number, False) or (lesson is not None and found[0] != lesson):
                problems.append(f"cell {index}: Exercise {number}'s answer is not followed by "
                                f"exercises.check({lesson or 'NN'!r}, {number}, ...)")
        if cell.cell_type == "code" and cell.source.strip():
            defined = defined_and_used(cell.source)[0]
            if cell.source.startswith(labels.answer.split("{")[0]):
                answer_names |= defined
            else:
                other_names |= defined
        if is_solution(cell, lang):
            problems.append(f"cell {index}: a solution before {labels.solutions!r}")
    if numbers != list(range(1, len(numbers) + 1)) or not numbers:
        problems.append(f"exercises are numbered {numbers}, expected 1, 2, ...")
    solved: list[int] = []
    solution_names: set[str] = set()
    cells = nb.cells
    for index in range(end + 1, len(cells)):
        cell = cells[index]
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        if is_solution(cell, lang):
            match = re.fullmatch(re.escape(labels.solution_of).replace(r"\{number\}", r"(\d+)"),
                                 cell.source.splitlines()[0])
            if not match:
                problems.append(f"cell {index}: a solution whose first line is not {labels.solution_of!r}")
                continue
            number = int(match.group(1))
            solved.append(number)
            defined, used = defined_and_used(cell.source)
            if stubs := sorted((used & answer_names) - other_names - solution_names - defined):
                problems.append(f"cell {index}: solution {number} uses {stubs}, which only an answer cell (a stub) "
                                "defines")
            solution_names |= defined
            check = cells[index + 1] if index + 1 < len(cells) else None
            found = check_call(check.source) if check is not None and check.cell_type == "code" else None
            if found is None or found[1:] != (number, True) or (lesson is not None and found[0] != lesson):
                problems.append(f"cell {index}: solution {number} is not directly followed by "
                                f"exercises.check({lesson or 'NN'!r}, {number}, ..., strict=True)")
            elif labels.correct not in _printed(check):
                problems.append(f"cell {index + 1}: the stored check of solution {number} does not say "
                                f"{labels.correct!r}")
        elif not (index > end + 1 and is_solution(cells[index - 1], lang) and check_call(cell.source)):
            problems.append(f"cell {index}: a code cell under {labels.solutions!r} that is neither a solution nor "
                            "its check")
    if solved != numbers:
        problems.append(f"solutions are for exercises {solved}, expected {numbers}")
    return problems


def check_size(path: Path) -> list[str]:
    """Stored notebooks stay small (< 1 MB)."""
    size = path.stat().st_size
    return [] if size <= MAX_BYTES else [f"{size} bytes > {MAX_BYTES}"]


def check_all(path: Path, timings: dict[str, Any] | None = None) -> list[str]:
    """Every check above for one notebook file of either edition (times compared with ``notebooks/timings.json``)."""
    nb = read(path)
    timings = header.read_timings() if timings is None else timings
    lang = editions.language_of(path)
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
        + check_cell_length(nb)
        + check_code_width(nb)
        + check_exercises(nb, lang, path.name[:2])
        + check_headings(nb)
        + check_links(nb)
        + check_figures(nb)
        + check_size(path)
    )


# ---- Accessibility: what can be checked without a browser -------------------------------------------------
# The Notebooks for All checklist: one H1 and headings in order, link text that says where it leads, a description
# of every figure, and nothing told by colour alone. Markdown is parsed as CommonMark (mistune), so a `#` comment in
# a fenced code block is no heading and a bare URL is a link whose text is the URL.
MARKDOWN = mistune.create_markdown(renderer="ast", plugins=["table", "url", "strikethrough"])
HTML_HEADING = re.compile(r"<h([1-6])\b", re.IGNORECASE)
VAGUE_LINK_TEXTS = {
    "here", "click here", "click", "this", "this link", "this page", "link", "more", "read more", "see here", "go",
    "这里", "点击这里", "点这里", "点此", "此处", "这个", "这个链接", "链接", "更多", "详情", "见这里",
}
"""Link texts that do not say where the link leads (compared without case, spaces and punctuation)."""
SHOWS_A_PLOT = {"subplots", "figure", "subplot_mosaic"}  # pyplot calls that make a figure
LINE_STYLE_KEYWORDS = {"marker", "linestyle", "ls", "dashes"}
COLOUR_KEYWORDS = {"color", "c", "colors", "facecolor", "edgecolor", "markerfacecolor", "mfc", "markeredgecolor", "mec"}
PLAIN_COLOURS = {"black", "white", "gray", "grey", "k", "w", "none"}  # text, frames, reference lines
SAFE_COLOUR_MAPS = {"gray", "Greys", "Blues", "viridis", "cividis"}
"""Colour maps that read the same with every common colour-vision deficiency (one hue, or viridis' even lightness)."""
FORMAT_COLOURS = set("bgrcmykw")  # the colour letters of a matplotlib format string such as "r--"


def _tokens(tokens: list[dict[str, Any]]) -> Any:
    """Yield every token of a mistune AST, depth first."""
    for token in tokens:
        yield token
        yield from _tokens(token.get("children", []))


def _text(token: dict[str, Any]) -> str:
    """Return the text a reader (or a screen reader) gets from a token: its text, and the alt text of its images."""
    return token.get("raw", "") + "".join(_text(child) for child in token.get("children", []))


def markdown_headings(markdown: str) -> list[tuple[int, str]]:
    """Return the (level, text) of every heading of ``markdown``: Markdown headings and HTML ``<h1>`` to ``<h6>``."""
    headings = []
    for token in _tokens(MARKDOWN(markdown)):
        if token["type"] == "heading":
            headings.append((token["attrs"]["level"], _text(token).strip()))
        elif token["type"] in ("block_html", "inline_html"):
            headings += [(int(level), token["raw"].strip()) for level in HTML_HEADING.findall(token["raw"])]
    return headings


def check_heading_order(headings: list[tuple[int, str]]) -> list[str]:
    """One H1, first; below it no heading skips a level (a ``###`` straight after a ``#`` does)."""
    problems = []
    if [level for level, _ in headings].count(1) != 1 or not headings or headings[0][0] != 1:
        problems.append(f"{[text for level, text in headings if level == 1]} are its H1 headings: there must be one, "
                        "the title, first")
    for (before, _), (level, text) in zip(headings[:-1], headings[1:], strict=True):
        if level > before + 1:
            problems.append(f"heading {text!r} (level {level}) skips a level after a level-{before} heading")
    return problems


def check_headings(nb: Notebook) -> list[str]:
    """The headings of all markdown cells, in order, as one page: see ``check_heading_order``."""
    headings = [h for cell in nb.cells if cell.cell_type == "markdown" for h in markdown_headings(cell.source)]
    return check_heading_order(headings)


def link_problems(markdown: str) -> list[str]:
    """Links whose text does not say where they lead (empty, vague such as "here", or the bare URL) and images
    without alt text or with a file name as alt text, in ``markdown``."""
    problems = []
    for token in _tokens(MARKDOWN(markdown)):
        text = _text(token).strip()
        if token["type"] == "link":
            words = re.sub(r"[\W_]+", " ", text.lower()).strip()
            if not words:
                problems.append(f"a link to {token['attrs']['url']} has no text")
            elif words in VAGUE_LINK_TEXTS:
                problems.append(f"link text {text!r} does not say where it leads ({token['attrs']['url']})")
            elif re.match(r"(https?://|www\.)", text):
                problems.append(f"link text {text!r} is a bare URL: say what is there")
        elif token["type"] == "image" and (not text or re.search(r"\.(png|jpe?g|svg|gif)$", text, re.IGNORECASE)):
            problems.append(f"image {token['attrs']['url']} has no alt text that describes it ({text!r})")
    return problems


def check_links(nb: Notebook) -> list[str]:
    """Every link's text says where it leads, every image in markdown has alt text (``link_problems``)."""
    return [f"cell {index}: {problem}" for index, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
            for problem in link_problems(cell.source)]


def _plot_problems(source: str) -> list[str]:
    """Problems of one code cell's plotting code: a figure shown without ``utils.show_figure``, lines told apart by
    colour alone (no marker or line style, or the same style twice on one axes), colours outside ``utils.PALETTE``."""
    from IPython.core.inputtransformer2 import TransformerManager

    tree = ast.parse(TransformerManager().transform_cell(source))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    names = {ast.unparse(call.func) for call in calls}
    problems = []
    if any(isinstance(c.func, ast.Attribute) and c.func.attr == "show" and not c.args for c in calls):
        problems.append("shows a figure with .show(): use utils.show_figure(fig, en, zh), which gives it alt text")
    if {f"plt.{name}" for name in SHOWS_A_PLOT} & names and "utils.show_figure" not in names:
        problems.append("makes a figure but never shows it with utils.show_figure (its description, as alt text)")
    styles: dict[str, list[str]] = {}
    allowed = PLAIN_COLOURS | {colour.lower() for colour in utils.PALETTE}
    for call in calls:
        if isinstance(call.func, ast.Attribute) and call.func.attr == "plot":
            formats = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            keywords = {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg in LINE_STYLE_KEYWORDS}
            if not formats and not keywords:
                problems.append(f"{ast.unparse(call)[:60]}: no marker or line style, so only colour tells it apart")
            if any(FORMAT_COLOURS & set(fmt) for fmt in formats):
                problems.append(f"{ast.unparse(call)[:60]}: a colour in the format string (use utils.PALETTE)")
            styles.setdefault(ast.unparse(call.func.value), []).append(repr((formats, sorted(keywords.items()))))
        for keyword in call.keywords:
            values = [keyword.value.body, keyword.value.orelse] if isinstance(keyword.value, ast.IfExp) else [
                keyword.value]
            for value in values:
                if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                    continue
                if keyword.arg in COLOUR_KEYWORDS and value.value.lower() not in allowed:
                    problems.append(f"colour {value.value!r}: use utils.PALETTE (colour-blind safe) or black/gray")
                if keyword.arg == "cmap" and value.value not in SAFE_COLOUR_MAPS:
                    problems.append(f"colour map {value.value!r}: use one of {sorted(SAFE_COLOUR_MAPS)}")
    for axes, used in styles.items():
        if len(set(used)) < len(used):
            problems.append(f"two lines on {axes} have the same marker and line style: only colour tells them apart")
    return problems


def check_figures(nb: Notebook) -> list[str]:
    """Every figure is shown by ``utils.show_figure``: its plotting code (``_plot_problems``), and its stored output,
    an HTML image whose alt text is its description, with the description in both languages in the metadata. An
    image output of any other kind has no alt text in JupyterLab."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        problems += [f"cell {index}: {problem}" for problem in _plot_problems(cell.source)]
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if any(key.startswith("image/") for key in data):
                problems.append(f"cell {index}: an image output without alt text (show it with utils.show_figure)")
            html = data.get("text/html", "")
            if "<img" in html:
                descriptions = out.get("metadata", {}).get(utils.FIGURE_METADATA, {})
                if not re.search(r'<img [^>]*alt="[^"]*\w', html):
                    problems.append(f"cell {index}: an HTML image without alt text")
                if not all(descriptions.get(lang, "").strip() for lang in editions.LANGUAGES):
                    problems.append(f"cell {index}: a figure without its description in {list(editions.LANGUAGES)}")
    return problems
