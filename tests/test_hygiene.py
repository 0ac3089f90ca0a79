"""Every notebook passes the hygiene checks, and every check is shown to catch a bad notebook."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

import hygiene
from tools import notebook_template as template

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EDITIONS = NOTEBOOKS + sorted((NOTEBOOK_DIR / "zh").glob("*.ipynb"))  # English and Chinese
NAME = "01_devices.ipynb"


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no notebooks found"


@pytest.mark.parametrize("path", EDITIONS, ids=[p.relative_to(NOTEBOOK_DIR).as_posix() for p in EDITIONS])
def test_notebook_is_clean(path: Path) -> None:
    assert hygiene.check_all(path) == []


# ---- a good notebook, then one bad variant per check ------------------------------------------------

TIMINGS = {"01_devices": {"quick/cpu": {"seconds": 12.3, "machine": "a 2-core CPU"}}}


def good_notebook() -> nbformat.NotebookNode:
    title = f"# 01 · Devices\n\n{template.colab_link(NAME)}\n\n{template.time_line(TIMINGS['01_devices'])}"
    stdout = nbformat.v4.new_output("stream", name="stdout", text="cpu\n")
    solution = nbformat.v4.new_code_cell("# Solution\nprint(1)", execution_count=6)
    solution.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(title),
            nbformat.v4.new_markdown_cell("You will learn:\n- things"),
            nbformat.v4.new_code_cell(template.SETUP_CELL, execution_count=1),
            nbformat.v4.new_code_cell("import torch", execution_count=2),
            nbformat.v4.new_code_cell("print('cpu')", execution_count=3, outputs=[stdout]),
            nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\nprint(torch.__version__)", execution_count=4),
            nbformat.v4.new_code_cell("assert True", execution_count=5),
            nbformat.v4.new_markdown_cell("## Going deeper\n\nOptional."),
            nbformat.v4.new_markdown_cell("## Summary\n\n## Exercises"),
            nbformat.v4.new_markdown_cell("**Exercise 1.** Print one."),
            solution,
        ],
        metadata={"kernelspec": dict(template.KERNELSPEC)},
    )
    nb.metadata.update(copy.deepcopy(template.COLAB_METADATA))
    return nb


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def mutate(nb: dict) -> None:
        target: Any = nb
        *keys, last = path.split("/")
        for key in keys:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value

    return mutate


def _add_output(output: dict) -> Callable[[dict], None]:
    return lambda nb: nb["cells"][4]["outputs"].append(nbformat.from_dict(output))


BAD = {
    "no title": _set("cells/0/source", "Devices"),
    "wrong title number": _set("cells/0/source", "# 02 · Devices"),
    "no Colab link": _set("cells/0/source", "# 01 · Devices\n\n" + template.time_line(TIMINGS["01_devices"])),
    "time line not from timings": _set(
        "cells/0/source", f"# 01 · Devices\n\n{template.colab_link(NAME)}\n\n**Time:** 5 s"
    ),
    "a remote badge image, broken offline": _set(
        "cells/0/source",
        f"# 01 · Devices\n\n{template.colab_link(NAME)} {template.badge(NAME)}\n\n"
        + template.time_line(TIMINGS["01_devices"]),
    ),
    "no you-will-learn": _set("cells/1/source", "Intro"),
    "no summary": _set("cells/8/source", "## Exercises"),
    "setup cell differs": _set("cells/2/source", template.SETUP_CELL.replace("--depth", "--depth=1")),
    "no GPU runtime metadata": _set("metadata/accelerator", "None"),
    "no GPU type": _set("metadata/colab", {"provenance": []}),
    "not executed": _set("cells/4/execution_count", None),
    "out of order": _set("cells/4/execution_count", 7),
    "error output": _add_output({"output_type": "error", "ename": "RuntimeError", "evalue": "", "traceback": []}),
    "raises marker": _set("cells/4/source", "# NBVAL_RAISES_EXCEPTION\nprint('cpu')"),
    "raises tag": _set("cells/4/metadata", {"tags": ["raises-exception"]}),
    "skipped cell": _set("cells/4/source", "# NBVAL_SKIP\nprint('cpu')"),
    "getsource check": _set("cells/6/source", "assert inspect.getsource(f) == inspect.getsource(utils.f)"),
    "stderr": _add_output({"output_type": "stream", "name": "stderr", "text": "UserWarning: careful\n"}),
    "machine path": _add_output({"output_type": "stream", "name": "stdout", "text": "/home/alice/data\n"}),
    "cuda string": _add_output({"output_type": "stream", "name": "stdout", "text": "device='cuda:0'\n"}),
    "no solution": _set("cells/10/source", "print(1)"),
    "solution open": _set("cells/10/metadata", {}),
    "solution output open": _set("cells/10/metadata", {"jupyter": {"source_hidden": True}}),
    "inexact ignore marker": _set("cells/5/source", "# NBVAL_IGNORE_OUTPUT  (versions differ)\nprint(1)"),
    "ignored cell without check": _set("cells/6/source", "print('no check here')"),
    "kernelspec": _set("metadata/kernelspec/name", "conda-env-foo"),
    "kernel display name": _set("metadata/kernelspec/display_name", "Python 3"),
    "no going deeper": _set("cells/7/source", "## More"),
    "going deeper after summary": lambda nb: nb["cells"].insert(9, nb["cells"].pop(7)),
    "core prose too long": _set("cells/1/source", "You will learn " + "word " * hygiene.CORE_MAX_WORDS),
    "exercise unnumbered": _set("cells/9/source", "Print one."),
    "exercise numbered 2": _set("cells/9/source", "**Exercise 2.** Print one."),
}


def _problems(nb: nbformat.NotebookNode, tmp_path: Path, name: str = NAME) -> list[str]:
    path = tmp_path / name
    nbformat.write(nb, path)
    return hygiene.check_all(path, TIMINGS)


def test_good_notebook_passes(tmp_path: Path) -> None:
    assert _problems(good_notebook(), tmp_path) == []


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_notebook_is_caught(kind: str, tmp_path: Path) -> None:
    nb = copy.deepcopy(good_notebook())
    BAD[kind](nb)
    assert _problems(nb, tmp_path), f"hygiene checks missed: {kind}"


def test_bad_name_is_caught() -> None:
    assert hygiene.check_name("1_devices.ipynb")
    assert hygiene.check_name("01-Devices.ipynb")
    assert not hygiene.check_name(NAME)


def test_cuda_string_echoed_from_source_is_allowed(tmp_path: Path) -> None:
    nb = good_notebook()
    nb["cells"][4]["source"] = 'print(torch.device("cuda:1").index)  # cuda:1'
    nb["cells"][4]["outputs"] = [nbformat.v4.new_output("stream", name="stdout", text="cuda:1 -> 1\n")]
    assert _problems(nb, tmp_path) == []
    nb["cells"][4]["outputs"][0]["text"] = "cuda:0\n"  # a device the code never named: machine output
    assert _problems(nb, tmp_path)


def test_oversized_notebook_is_caught(tmp_path: Path) -> None:
    nb = good_notebook()
    nb["cells"][4]["outputs"][0]["text"] = "x" * (hygiene.MAX_BYTES + 1)
    assert any("bytes" in p for p in _problems(nb, tmp_path))


READMES = {"en": ("README.md", "notebooks"), "zh": ("README.zh.md", "notebooks/zh")}


@pytest.mark.parametrize("lang", sorted(READMES))
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_readme_lists_notebook_with_colab_badge(path: Path, lang: str) -> None:
    name, folder = READMES[lang]
    readme = (NOTEBOOK_DIR.parent / name).read_text(encoding="utf-8")
    assert f"({folder}/{path.name})" in readme, f"{name} does not link {folder}/{path.name}"
    assert template.badge(path.name, lang) in readme, f"{name} lacks the Colab badge of {folder}/{path.name}"


PAGES = ["README.md", "README.zh.md", "docs/TEACHING.md", "docs/TEACHING.zh.md", "data/README.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_of_the_project_pages_resolve(page: str) -> None:
    path = NOTEBOOK_DIR.parent / page
    targets = [t.split("#")[0] for t in LINK.findall(path.read_text(encoding="utf-8"))]
    local = [t for t in targets if t and "://" not in t and not t.startswith("mailto:")]
    missing = [t for t in local if not (path.parent / t).exists()]
    assert not missing, f"{page}: links to missing files {missing}"


@pytest.mark.parametrize("lang", sorted(template.TEACHING_PAGES))
def test_teachers_page_times_come_from_timings_json(lang: str) -> None:
    text = template.TEACHING_PAGES[lang].read_text(encoding="utf-8")
    assert template.teaching_page_with_table(text, lang) == text, "run tools/notebook_template.py"


def _code(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, execution_count=1)


def test_core_path_counts_code_cells() -> None:
    nb = good_notebook()
    assert hygiene.core_size(nb) == (len("You will learn:\n- things".split()), 5)
    nb.cells[3:3] = [_code("x = 1") for _ in range(hygiene.CORE_MAX_CODE_CELLS - 5)]
    assert not hygiene.check_core_path(nb)
    nb.cells.insert(3, _code("x = 1"))
    assert any("code cells" in problem for problem in hygiene.check_core_path(nb))


def test_solution_may_not_need_going_deeper() -> None:
    nb = good_notebook()
    nb.cells.insert(8, _code("deep = 1"))  # under Going deeper
    nb.cells[-1].source = "# Solution\nprint(deep)"
    assert any("deep" in problem for problem in hygiene.check_core_path(nb))
    nb.cells[-2].source = "**Exercise 1.** (Going deeper) Print it."  # said in the exercise: allowed
    assert not hygiene.check_core_path(nb)
    nb.cells[4].source = "deep = 0"  # defined in the core as well: allowed
    nb.cells[-2].source = "**Exercise 1.** Print it."
    assert not hygiene.check_core_path(nb)


def test_student_edition_runs_what_the_tests_run() -> None:
    nb = good_notebook()
    assert not hygiene.check_exercises(nb)
    nb.cells.append(_code("print(2)"))  # a code cell after a solution: the student edition would run it alone
    assert any("after a solution" in problem for problem in hygiene.check_exercises(nb))
    nb = good_notebook()
    nb.cells[-1].source = "# Solution\nanswer = 1"
    nb.cells.append(nbformat.v4.new_markdown_cell("**Exercise 2.** More."))
    nb.cells.append(nbformat.v4.new_code_cell("# Solution\nprint(answer)"))
    assert not hygiene.check_exercises(nb)  # solutions may build on earlier solutions
    nb.cells.append(_code("print(answer)"))
    assert any("only a solution defines" in problem for problem in hygiene.check_exercises(nb))


def test_magics_do_not_break_the_name_analysis() -> None:
    defined, used = hygiene.defined_and_used("%load_ext tensorboard\n!ls\nx = y + 1\ndef f(): return z")
    assert {"x", "f"} <= defined and {"y", "z"} <= used and "print" not in used


def test_locals_and_parameters_are_not_globals() -> None:
    source = "def save(path):\n    path = str(path)\n    return path + suffix\n"
    source += "rows = [r for r in table]\nf = lambda a: a"
    defined, used = hygiene.defined_and_used(source)
    assert defined == {"save", "rows", "f"} and used == {"suffix", "table"}
