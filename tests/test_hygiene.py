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
import utils
from tools.author import cells, core, digest, editions, header, setup_cell, template

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
    times = header.time_line(TIMINGS["01_devices"], shrinks=False)  # the good notebook shrinks nothing
    title = f"# 01 · Devices\n\n{header.colab_link(NAME)}\n\n{times}"
    stdout = nbformat.v4.new_output("stream", name="stdout", text="cpu\n")
    printed = lambda text: [nbformat.v4.new_output("stream", name="stdout", text=text)]  # noqa: E731
    solution = nbformat.v4.new_code_cell("# @title Solution: exercise 1\nanswer = 1", execution_count=8)
    solution.metadata.update(cellView="form", jupyter={"source_hidden": True}, tags=["nbval-ignore-output"])
    setup = nbformat.v4.new_code_cell(setup_cell.SETUP_CELL, execution_count=1)
    setup.metadata.update(cellView="form", jupyter={"source_hidden": True})
    ignored = nbformat.v4.new_code_cell("print(torch.__version__)", execution_count=4)
    ignored.metadata["tags"] = ["nbval-ignore-output"]
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(title),
            nbformat.v4.new_markdown_cell("You will learn:\n- things"),
            setup,
            nbformat.v4.new_code_cell("import torch", execution_count=2),
            nbformat.v4.new_code_cell("print('cpu')", execution_count=3, outputs=[stdout]),
            ignored,
            nbformat.v4.new_code_cell("assert True", execution_count=5),
            nbformat.v4.new_markdown_cell("## Going deeper\n\nOptional."),
            nbformat.v4.new_markdown_cell("## Summary\n\n## Exercises"),
            nbformat.v4.new_markdown_cell("**Exercise 1.** Print one."),
            nbformat.v4.new_code_cell("# Exercise 1: your answer\nanswer = None", execution_count=6),
            nbformat.v4.new_code_cell('exercises.check("01", 1, answer)', execution_count=7,
                                      outputs=printed("Exercise 1: not answered yet: replace the stub.\n")),
            nbformat.v4.new_markdown_cell("## Solutions\n\nTry the exercises first."),
            solution,
            nbformat.v4.new_code_cell('exercises.check("01", 1, answer, strict=True)', execution_count=9,
                                      outputs=printed("Exercise 1: the reference solution passes the check.\n")),
            nbformat.v4.new_markdown_cell("Why: because."),
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
    "machine-dependent output compared": _set("cells/4/source", "# (the device differs per machine)\nprint('cpu')"),
    "no title": _set("cells/0/source", "Devices"),
    "wrong title number": _set("cells/0/source", "# 02 · Devices"),
    "no Colab link": _set("cells/0/source",
                          "# 01 · Devices\n\n" + header.time_line(TIMINGS["01_devices"], shrinks=False)),
    "time line not from timings": _set(
        "cells/0/source", f"# 01 · Devices\n\n{header.colab_link(NAME)}\n\n**Time:** 5 s"
    ),
    "a remote badge image, broken offline": _set(
        "cells/0/source",
        f"# 01 · Devices\n\n{header.colab_link(NAME)} {header.badge(NAME)}\n\n"
        + header.time_line(TIMINGS["01_devices"], shrinks=False),
    ),
    "no you-will-learn": _set("cells/1/source", "Intro"),
    "no summary": _set("cells/8/source", "## Exercises"),
    "setup cell differs": _set("cells/2/source", setup_cell.SETUP_CELL.replace("--depth", "--depth=1")),
    "setup cell open in JupyterLab": _set("cells/2/metadata/jupyter", {}),
    "setup cell open in Colab": _set("cells/2/metadata", {"jupyter": {"source_hidden": True}}),
    "a marker in the code a student reads": _set("cells/5/source", "# NBVAL_IGNORE_OUTPUT\nprint(1)"),
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
    "a print stored in pieces": _add_output({"output_type": "stream", "name": "stdout", "text": "more\n"}),
    "machine path": _add_output({"output_type": "stream", "name": "stdout", "text": "/home/alice/data\n"}),
    "cuda string": _add_output({"output_type": "stream", "name": "stdout", "text": "device='cuda:0'\n"}),
    "no solution": _set("cells/13/source", "print(1)"),
    "no Solutions section": _set("cells/12/source", "The solutions."),
    "inexact ignore marker": _set("cells/5/source", "# NBVAL_IGNORE_OUTPUT  (versions differ)\nprint(1)"),
    "ignored cell without check": _set("cells/6/source", "print('no check here')"),
    "kernelspec": _set("metadata/kernelspec/name", "conda-env-foo"),
    "kernel display name": _set("metadata/kernelspec/display_name", "Python 3"),
    "no going deeper": _set("cells/7/source", "## More"),
    "going deeper after summary": lambda nb: nb["cells"].insert(9, nb["cells"].pop(7)),
    "core prose too long": _set("cells/1/source", "You will learn " + "word " * hygiene.CORE_MAX_WORDS),
    "core too long for a class": _set("cells/3/source", "\n".join(f"x = {i}" for i in range(10 * 45))),
    "exercise unnumbered": _set("cells/9/source", "Print one."),
    "exercise numbered 2": _set("cells/9/source", "**Exercise 2.** Print one."),
}


def _insert(index: int, cell: nbformat.NotebookNode) -> Callable[[dict], None]:
    return lambda nb: nb["cells"].insert(index, cell)


BAD_WITH_CHECKS = {
    "answer cell unlabelled": _set("cells/10/source", "answer = None"),
    "answer cell of another exercise": _set("cells/10/source", "# Exercise 2: your answer\nanswer = None"),
    "answer given in the full edition": _set("cells/11/outputs/0/text", "Exercise 1: correct.\n"),
    "no check under the exercise": _set("cells/11/source", "print(answer)"),
    "check of another notebook": _set("cells/11/source", 'exercises.check("02", 1, answer)'),
    "check of another exercise": _set("cells/11/source", 'exercises.check("01", 2, answer)'),
    "strict check under the exercise": _set("cells/11/source", 'exercises.check("01", 1, answer, strict=True)'),
    "solution open": _set("cells/13/metadata", {"cellView": "form", "tags": ["nbval-ignore-output"]}),
    "solution not a Colab form": _set("cells/13/metadata", {"jupyter": {"source_hidden": True},
                                                            "tags": ["nbval-ignore-output"]}),
    "solution output flag stored": _set("cells/13/metadata/jupyter", {"source_hidden": True, "outputs_hidden": True}),
    "solution output stored": _set("cells/13/outputs", [nbformat.v4.new_output("stream", text="answer: 1\n")]),
    "solution output compared": _set("cells/13/metadata/tags", []),
    "solution title of old": _set("cells/13/source", "# Solution: exercise 1\nanswer = 1"),
    "solution unlabelled": _set("cells/13/source", "# @title Solution\nanswer = 1"),
    "solution of another exercise": _set("cells/13/source", "# @title Solution: exercise 2\nanswer = 1"),
    "solution reads the stub": _set("cells/13/source", "# @title Solution: exercise 1\nprint(answer)"),
    "solution check not strict": _set("cells/14/source", 'exercises.check("01", 1, answer)'),
    "solution check fails": _set("cells/14/outputs/0/text", "Exercise 1: not yet. It is 2.\n"),
    "no check after the solution": lambda nb: nb["cells"].pop(14),
    "no solution at all": lambda nb: [nb["cells"].pop(13) for _ in range(2)],
    "solution before the Solutions heading": lambda nb: nb["cells"].insert(12, nb["cells"].pop(13)),
    "other code under Solutions": _insert(15, nbformat.v4.new_code_cell("print(2)", execution_count=10)),
    "a section after Solutions": _insert(15, nbformat.v4.new_markdown_cell("## More")),
    "Solutions before Exercises": lambda nb: nb["cells"].insert(8, nb["cells"].pop(12)),
}


@pytest.mark.parametrize("kind", sorted(BAD_WITH_CHECKS))
def test_bad_exercise_with_checks_is_caught(kind: str, tmp_path: Path) -> None:
    nb = good_notebook()
    BAD_WITH_CHECKS[kind](nb)
    assert _problems(nb, tmp_path), f"hygiene checks missed: {kind}"


def test_chinese_notebook_with_checks_passes(tmp_path: Path) -> None:
    nb = good_notebook()
    zh = editions.LANGUAGES["zh"]
    line = header.time_line(TIMINGS["01_devices"], "zh", shrinks=False)
    nb.cells[0].source = f"# 01 · 设备\n\n{header.colab_link(NAME, 'zh')}\n\n{line}"
    nb.cells[1].source = "你将学到：\n- 东西"
    nb.cells[2].source = zh.setup_cell
    nb.cells[7].source, nb.cells[8].source = "## 进阶\n\n选学。", "## 小结\n\n## 练习"
    nb.cells[9].source = "**练习1**：打印1。"
    nb.cells[10].source = "# 练习1：你的答案\nanswer = None"
    nb.cells[11].outputs[0].text = "练习1：尚未作答：把上面单元格里的占位代码换成你的答案。\n"
    nb.cells[12].source = "## 参考答案\n\n先自己做练习。"
    nb.cells[13].source = "# @title 参考答案：练习1\nanswer = 1"
    nb.cells[14].outputs[0].text = "练习1：参考答案通过了检查。\n"
    nb.cells[15].source = "原因：因为。"
    (tmp_path / "zh").mkdir()
    assert _problems(nb, tmp_path / "zh") == []
    nb.cells[14].outputs[0].text = "Exercise 1: the reference solution passes the check.\n"  # not this edition's
    assert _problems(nb, tmp_path / "zh")


def test_a_strict_check_checks_an_ignored_solution_output(tmp_path: Path) -> None:
    """A solution whose output depends on the machine is checked by its strict check (it raises AssertionError)."""
    nb = good_notebook()
    assert cells.IGNORE_OUTPUT_TAG in nb.cells[13].metadata["tags"]
    assert _problems(nb, tmp_path) == []
    nb.cells[14].source = 'exercises.check("01", 1, answer)'  # not strict: prints, never fails
    assert any("ignored output is not followed by a check" in p for p in _problems(nb, tmp_path))


def test_exercise_text_found_for_answer_check_and_solution() -> None:
    nb = good_notebook()
    nb.cells.insert(8, _code("deep = 1"))  # under Going deeper
    nb.cells[14].source = "# @title Solution: exercise 1\nanswer = deep"
    assert any("deep" in problem for problem in hygiene.check_core_path(nb))
    nb.cells[10].source = "**Exercise 1.** (Going deeper) Print it."  # said in the exercise: allowed
    assert not hygiene.check_core_path(nb)


def test_an_answer_shadows_a_going_deeper_name() -> None:
    """An answer cell may define a name Going deeper also defines: the check under it reads the answer's."""
    nb = good_notebook()
    nb.cells.insert(8, _code("answer = 2"))  # under Going deeper
    assert not hygiene.check_core_path(nb)  # the check reads the answer cell's `answer`
    nb.cells[11].source = "# Exercise 1: your answer\nother = None"
    assert any("answer" in problem for problem in hygiene.check_core_path(nb))  # now only Going deeper's


def test_check_call_is_read_from_the_code_only() -> None:
    assert hygiene.check_call('exercises.check("02", 1, f)  # run me') == ("02", 1, False)
    assert hygiene.check_call('# hint: exercises.hint("02", 1)\nexercises.check("02", 3, a, b, strict=True)') == (
        "02", 3, True)
    assert hygiene.check_call('print(1)\nexercises.check("02", 1, f)') is None
    assert hygiene.check_call('exercises.check(lesson, 1, f)') is None


def _problems(nb: nbformat.NotebookNode, tmp_path: Path, name: str = NAME) -> list[str]:
    path = tmp_path / name
    nbformat.write(nb, path)
    lang = "zh" if tmp_path.name == "zh" else "en"
    run = {**TIMINGS["01_devices"]["quick/cpu"], "code": digest.edition_code_digest(nb, name, lang)}
    return hygiene.check_all(path, {"01_devices": {"quick/cpu": run}})  # a run of this notebook's code


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
    assert header.badge(path.name, lang) in readme, f"{name} lacks the Colab badge of {folder}/{path.name}"


PAGES = [
    "README.md", "README.zh.md", "CONTRIBUTING.md", "docs/TEACHING.md", "docs/TEACHING.zh.md", "data/README.md",
    "data/README.zh.md",
]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_of_the_project_pages_resolve(page: str) -> None:
    path = NOTEBOOK_DIR.parent / page
    targets = [t.split("#")[0] for t in LINK.findall(path.read_text(encoding="utf-8"))]
    local = [t for t in targets if t and "://" not in t and not t.startswith("mailto:")]
    missing = [t for t in local if not (path.parent / t).exists()]
    assert not missing, f"{page}: links to missing files {missing}"


@pytest.mark.parametrize("lang", sorted(core.TEACHING_PAGES))
def test_teachers_page_times_come_from_timings_json(lang: str) -> None:
    text = core.TEACHING_PAGES[lang].read_text(encoding="utf-8")
    assert core.teaching_page_with_table(text, lang) == text, "run tools/author/template.py"


def _code(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, execution_count=1)


def test_core_path_counts_code_cells() -> None:
    nb = good_notebook()
    assert hygiene.core_size(nb) == (len("You will learn:\n- things".split()), 5)
    nb.cells[3:3] = [_code("x = 1") for _ in range(hygiene.CORE_MAX_CODE_CELLS - 5)]
    assert not any("code cells" in problem for problem in hygiene.check_core_path(nb))
    nb.cells.insert(3, _code("x = 1"))
    assert any("code cells" in problem for problem in hygiene.check_core_path(nb))


def test_core_path_leaves_ten_minutes_and_the_setup_cell_is_not_counted() -> None:
    assert hygiene.CORE_MAX_MINUTES == 25  # of a 45-minute period: twenty for questions and the first exercise
    nb = good_notebook()
    setup_only = copy.deepcopy(nb)
    setup_only.cells = [c for c in nb.cells if c.cell_type != "code" or c.source == setup_cell.SETUP_CELL]
    words, _ = core.core_size(setup_only)
    assert core.core_minutes(setup_only) == words / core.WORDS_PER_MINUTE  # its lines and its minute: not read


def test_code_cells_fit_without_a_scroll_bar() -> None:
    nb = good_notebook()
    nb.cells[3].source = "\n".join(f"x = {i}" for i in range(core.CODE_CELL_MAX_LINES)) + "\n\n"
    assert not hygiene.check_cell_length(nb)
    nb.cells[3].source += "\nx = 0"
    assert any("lines of code" in problem and "split it" in problem for problem in hygiene.check_cell_length(nb))
    nb.cells[2].source = setup_cell.SETUP_CELL  # the setup cell is longer, and run, not read
    assert len(setup_cell.SETUP_CELL.splitlines()) > core.CODE_CELL_MAX_LINES
    assert len(hygiene.check_cell_length(nb)) == 1  # cell 3's, not the setup cell's


def test_code_lines_fit_the_width() -> None:
    nb = good_notebook()
    nb.cells[3].source = "x = " + "1" * (core.CODE_LINE_MAX_CHARS - 4)
    assert not hygiene.check_code_width(nb)
    nb.cells[3].source += "1"
    assert any("wrap it" in problem for problem in hygiene.check_code_width(nb))


def test_core_path_must_fit_a_class_period() -> None:
    nb = good_notebook()
    fits = int((hygiene.CORE_MAX_MINUTES - core.core_minutes(nb)) * core.LINES_PER_MINUTE)  # lines that fit
    nb.cells[3].source += "".join(f"\nx = {i}" for i in range(fits))
    assert core.core_minutes(nb) <= hygiene.CORE_MAX_MINUTES
    assert not hygiene.check_core_path(nb)
    nb.cells[3].source += "\nx = 0"  # one line more: over the class period
    problems = hygiene.check_core_path(nb)
    assert any("minutes in class" in problem and "Going deeper" in problem for problem in problems), problems
    nb.cells[2].source = setup_cell.SETUP_CELL + "\n" * 3 + "\n".join(["y = 1"] * 100)  # setup cell: not read
    assert hygiene.check_core_path(nb) == problems
    long_code = nb.cells[3].source
    nb.cells[3].source = "import torch"
    nb.cells.insert(8, _code(long_code))  # the same code under Going deeper: the core fits again
    assert nb.cells[7].source.startswith("## Going deeper")
    assert not hygiene.check_core_path(nb)


def test_solution_may_not_need_going_deeper() -> None:
    nb = good_notebook()
    nb.cells.insert(8, _code("deep = 1"))  # under Going deeper
    nb.cells[14].source = "# @title Solution: exercise 1\nanswer = deep"
    assert any("deep" in problem for problem in hygiene.check_core_path(nb))
    nb.cells[10].source = "**Exercise 1.** (Going deeper) Print it."  # said in the exercise: allowed
    assert not hygiene.check_core_path(nb)
    nb.cells[4].source = "deep = 0"  # defined in the core as well: allowed
    nb.cells[10].source = "**Exercise 1.** Print it."
    assert not hygiene.check_core_path(nb)


def test_magics_do_not_break_the_name_analysis() -> None:
    defined, used = hygiene.defined_and_used("%load_ext tensorboard\n!ls\nx = y + 1\ndef f(): return z")
    assert {"x", "f"} <= defined and {"y", "z"} <= used and "print" not in used


def test_locals_and_parameters_are_not_globals() -> None:
    source = "def save(path):\n    path = str(path)\n    return path + suffix\n"
    source += "rows = [r for r in table]\nf = lambda a: a"
    defined, used = hygiene.defined_and_used(source)
    assert defined == {"save", "rows", "f"} and used == {"suffix", "table"}


# ---- Accessibility: each check shown to catch what it is for ----------------------------------------------
def _figure_output(alt: str = "A line falls from 1 to 0.", descriptions: dict | None = None) -> dict:
    descriptions = {"en": alt, "zh": "一条线从1降到0。"} if descriptions is None else descriptions
    return nbformat.v4.new_output(
        "display_data", data={"text/html": f'<img src="data:image/png;base64,iVBO" alt="{alt}">', "text/plain": alt},
        metadata={utils.FIGURE_METADATA: descriptions},
    )


PLOT = 'fig, ax = plt.subplots()\nax.plot(x, y, "o-", color=utils.PALETTE[0])\nutils.show_figure(fig, "en", "zh")'

BAD_A11Y = {
    "a second H1": (hygiene.check_headings, lambda nb: nb.cells.insert(1, nbformat.v4.new_markdown_cell("# Again"))),
    "an HTML H1": (hygiene.check_headings, _set("cells/1/source", "<h1>Devices</h1>\n\nYou will learn:\n- things")),
    "a skipped level": (hygiene.check_headings, _set("cells/1/source", "### You will learn\n- things")),
    "no H1 first": (hygiene.check_headings, _set("cells/0/source", "## 01 · Devices")),
    "link text 'here'": (hygiene.check_links, _set("cells/1/source", "See [here](02_placement_checks.ipynb).")),
    "link text 'click here'": (hygiene.check_links, _set("cells/1/source", "[Click here!](https://pytorch.org)")),
    "link text 这里": (hygiene.check_links, _set("cells/1/source", "见[这里](02_placement_checks.ipynb)。")),
    "link text 点击这里": (hygiene.check_links, _set("cells/1/source", "[点击这里](https://pytorch.org)")),
    "a bare URL": (hygiene.check_links, _set("cells/1/source", "Docs: https://pytorch.org/docs")),
    "a URL as link text": (hygiene.check_links, _set("cells/1/source", "[https://pytorch.org](https://pytorch.org)")),
    "an empty link": (hygiene.check_links, _set("cells/1/source", "[](https://pytorch.org)")),
    "an image without alt": (hygiene.check_links, _set("cells/1/source", "![](plot.png)")),
    "a file name as alt": (hygiene.check_links, _set("cells/1/source", "![plot.png](plot.png)")),
    "plt.show()": (hygiene.check_figures, _set("cells/4/source", PLOT.replace('utils.show_figure(fig, "en", "zh")',
                                                                                "plt.show()"))),
    "a figure never shown": (hygiene.check_figures, _set("cells/4/source", PLOT.rsplit("\n", 1)[0])),
    "a line without style": (hygiene.check_figures, _set("cells/4/source", PLOT.replace('"o-", ', ""))),
    "two lines alike": (hygiene.check_figures, _set("cells/4/source", PLOT.replace("\n", "\nax.plot(x, z, 'o-')\n"))),
    "a colour letter": (hygiene.check_figures, _set("cells/4/source", PLOT.replace('"o-"', '"ro-"'))),
    "a named colour": (hygiene.check_figures, _set("cells/4/source", PLOT.replace("utils.PALETTE[0]", '"tab:green"'))),
    "a colour in a branch": (hygiene.check_figures, _set("cells/4/source", PLOT.replace(
        "utils.PALETTE[0]", '"red" if bad else "black"'))),
    "a rainbow colour map": (hygiene.check_figures, _set("cells/4/source", PLOT + '\nax.imshow(a, cmap="jet")')),
    "an image/png output": (hygiene.check_figures, _add_output(
        {"output_type": "display_data", "data": {"image/png": "iVBO", "text/plain": "<Figure>"}, "metadata": {}})),
    "an HTML image without alt": (hygiene.check_figures, _add_output(_figure_output(alt=""))),
    "no Chinese description": (hygiene.check_figures, _add_output(_figure_output(descriptions={"en": "A line."}))),
}


def test_good_notebook_passes_the_accessibility_checks() -> None:
    nb = good_notebook()
    nb.cells[4].source = PLOT
    nb.cells[4].outputs = [_figure_output()]
    nb.cells[1].source = "You will learn:\n- things, from [the PyTorch docs](https://pytorch.org/docs) ![a plot](a.png)"
    nb.cells.insert(2, nbformat.v4.new_markdown_cell("## Setup\n\n```python\n# a comment, not a heading\n```"))
    assert hygiene.check_headings(nb) == hygiene.check_links(nb) == hygiene.check_figures(nb) == []


@pytest.mark.parametrize("kind", sorted(BAD_A11Y))
def test_bad_notebook_fails_its_accessibility_check(kind: str) -> None:
    check, mutate = BAD_A11Y[kind]
    nb = copy.deepcopy(good_notebook())
    nb.cells[4].source = PLOT
    mutate(nb)
    assert check(nb), f"{check.__name__} missed: {kind}"


def test_headings_as_a_reader_meets_them() -> None:
    text = "# Title\n\n```python\n# not a heading\n```\n\nText\n---\n\n<h3>In HTML</h3>"
    assert hygiene.markdown_headings(text) == [(1, "Title"), (2, "Text"), (3, "<h3>In HTML</h3>")]
    assert hygiene.check_heading_order([(1, "T"), (2, "A"), (3, "B"), (2, "C"), (3, "D")]) == []
    assert hygiene.check_heading_order([(1, "T"), (2, "A"), (4, "B")])  # ## then ####


WEBSITE_PAGES = ["docs/TEACHING.md", "docs/TEACHING.zh.md", "site/home.en.md", "site/home.zh.md"]


@pytest.mark.parametrize("page", WEBSITE_PAGES)
def test_the_websites_pages_have_headings_in_order_and_telling_links(page: str) -> None:
    text = (NOTEBOOK_DIR.parent / page).read_text(encoding="utf-8")
    assert hygiene.check_heading_order(hygiene.markdown_headings(text)) == []
    assert hygiene.link_problems(text) == []
