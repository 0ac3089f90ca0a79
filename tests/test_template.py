"""tools/author/template.py: what a student sees of the cells every notebook shares (the setup cell, the
solutions, nbval's markers), made by one idempotent pass that the Chinese translation records follow."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
from nbval.plugin import comment_markers, find_comment_markers, find_metadata_tags, metadata_tags

from tools.author import cells, core, digest, header, setup_cell, template, translate


def test_the_markers_are_nbvals_own_and_each_tag_means_the_same() -> None:
    assert set(cells.NBVAL_MARKERS) == set(comment_markers)
    for marker in cells.NBVAL_MARKERS:
        tag = cells.marker_tag(marker)
        assert tag in metadata_tags
        as_comment = dict(find_comment_markers(f"# {marker}\nx = 1"))
        as_tag = dict(find_metadata_tags({"tags": [tag]}))
        assert as_comment == as_tag, marker


def _legacy_notebook() -> nbformat.NotebookNode:
    """A notebook as the helpers write it: markers in the code, a solution with its output, the setup cell open."""
    printed = [nbformat.v4.new_output("stream", name="stdout", text="the answer: 42\n")]
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Devices"),
        nbformat.v4.new_code_cell("import os", execution_count=1),
        nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\n# (differs by machine)\nprint(os.cpu_count())",
                                  execution_count=2, outputs=copy.deepcopy(printed)),
        nbformat.v4.new_code_cell("#NBVAL_IGNORE_OUTPUT (why)\nprint(1)", execution_count=3),  # not a marker
        nbformat.v4.new_markdown_cell("## Solutions"),
        nbformat.v4.new_code_cell("# Solution: exercise 1\nanswer = 42\nprint('the answer:', answer)",
                                  execution_count=4, outputs=copy.deepcopy(printed)),
    ])


def test_apply_collapses_the_setup_cell_and_solutions_and_moves_markers_to_tags() -> None:
    nb = _legacy_notebook()
    template.apply(nb, "01_devices.ipynb", {})
    setup, ignored, inexact, solution = (nb.cells[i] for i in (1, 2, 3, 5))
    for cell in (setup, solution):
        assert cell.source.startswith("# @title ") and cell.metadata["cellView"] == "form"
        assert cell.metadata["jupyter"] == {"source_hidden": True}
    assert setup.source == setup_cell.SETUP_CELL
    assert ignored.source == "# (differs by machine)\nprint(os.cpu_count())"
    assert ignored.metadata["tags"] == ["nbval-ignore-output"] and ignored.outputs  # its output stays
    assert inexact.source.startswith("#NBVAL_IGNORE_OUTPUT (why)") and "tags" not in inexact.metadata
    assert solution.source == "# @title Solution: exercise 1\nanswer = 42\nprint('the answer:', answer)"
    assert solution.outputs == [] and solution.metadata["tags"] == ["nbval-ignore-output"]
    assert solution.execution_count == 4  # it still ran, in order
    again = copy.deepcopy(nb)
    template.apply(again, "01_devices.ipynb", {})
    assert again == nb  # idempotent: the lead re-runs it after every merge


def test_a_translation_stays_current_when_english_and_chinese_are_presented() -> None:
    """The Chinese cell records the English source it translates; the same change to both keeps it current, in
    whichever order tools/author/template.py and tools/author/translate.py run."""
    english = _legacy_notebook()
    chinese = copy.deepcopy(english)
    chinese.cells[2].source = "# NBVAL_IGNORE_OUTPUT\n# （因机器而异）\nprint(os.cpu_count())"
    chinese.cells[5].source = "# 参考答案：练习1\nanswer = 42\nprint('the answer:', answer)"
    for index in (2, 5):
        chinese.cells[index].metadata["translation"] = translate.provenance(english.cells[index], index, "translated")
    template.apply(english, "01_devices.ipynb", {})
    template.apply(chinese, "01_devices.ipynb", {}, "zh")
    assert chinese.cells[2].source == "# （因机器而异）\nprint(os.cpu_count())"
    assert chinese.cells[5].source.startswith("# @title 参考答案：练习1\n")
    for index in (2, 5):
        record = chinese.cells[index].metadata["translation"]
        assert record == translate.provenance(english.cells[index], index, "translated"), index


RUN = {"machine": "a 2-core CPU", "torch": "2.15.0", "date": "2026-11-24"}
GPU = {"machine": "an NVIDIA H100 80GB HBM3", "torch": "2.11.0", "date": "2026-11-26"}


def test_the_time_line_gives_one_time_per_machine_and_mode_without_dates() -> None:
    times = {"quick/cpu": {**RUN, "seconds": 8.1, "code": "abc"}, "full/cpu": {**RUN, "seconds": 255.0, "code": "abc"},
             "quick/gpu": {**GPU, "seconds": 19.6}, "full/gpu": {**GPU, "seconds": 60.0}}
    line = header.time_line(times, "en")
    assert line == (
        "**Time:** in [quick mode](../README.md#start-here) 8 s on a 2-core CPU and 20 s on an NVIDIA H100 80GB HBM3 "
        "(CUDA's start-up included); in full mode 4 min 15 s on the CPU and 60 s on the GPU.")
    assert header.TIME_LINE.fullmatch(line)  # one line: tools/author/translate.py leaves it out of the hash
    for lang in ("en", "zh"):
        text = header.time_line(times, lang)
        assert "run_notebooks" not in text and "timings.json" not in text  # neither ships in the student edition
        assert "2026" not in text and "torch" not in text  # how a time was measured is not on a student's page
        assert text.index(header.QUICK_MODE_LINK[lang]) < text.index("CPU")  # quick mode first, linked
    zh = header.time_line(times, "zh")
    assert zh == ("**用时**：[快速模式](../../README.zh.md#从这里开始)在2核CPU上8秒，"
                  "在NVIDIA H100 80GB HBM3上20秒（含CUDA的启动时间）；完整模式在CPU上4分15秒，在GPU上60秒。")


def test_a_lesson_whose_quick_mode_shrinks_nothing_gets_one_time_per_machine() -> None:
    times = {"quick/cpu": {**RUN, "seconds": 14.7}, "full/cpu": {**RUN, "seconds": 6.7},
             "quick/gpu": {**GPU, "seconds": 19.6}, "full/gpu": {**GPU, "seconds": 19.5}}
    assert header.time_line(times, "en", shrinks=False) == (
        "**Time:** 7 s on a 2-core CPU and 20 s on an NVIDIA H100 80GB HBM3 (CUDA's start-up included).")
    assert header.time_line({"quick/cpu": {**RUN, "seconds": 8}}, "zh", shrinks=False) == "**用时**：在2核CPU上8秒。"
    same = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("setup"),
                                           nbformat.v4.new_code_cell("QUICK = utils.is_quick_mode()  # nothing")])
    assert not header.quick_mode_shrinks(same)
    same.cells.append(nbformat.v4.new_code_cell("n = 100 if QUICK else 1000"))
    assert header.quick_mode_shrinks(same)


def test_the_start_up_is_named_only_where_the_gpu_took_longer() -> None:
    faster = {"quick/cpu": {**RUN, "seconds": 20.4}, "quick/gpu": {**GPU, "seconds": 15.2}}
    assert "start-up" not in header.time_line(faster)
    assert header.time_line({"quick/cpu": {**RUN, "seconds": 8}}) == (
        "**Time:** in [quick mode](../README.md#start-here) 8 s on a 2-core CPU; in full mode not measured yet on a "
        "CPU.")


def test_the_code_digest_ignores_comments_and_the_setup_cell_only() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup_cell.SETUP_CELL),
                                         nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\nx = 1  # one")])
    code = digest.code_digest(nb)
    nb.cells[0].source = setup_cell.SETUP_CELL_ZH
    nb.cells[1].source = "# （一）\nx = 1\n"
    assert digest.code_digest(nb) == code
    nb.cells[1].source = "x = 2"
    assert digest.code_digest(nb) != code


def test_a_notebooks_code_digest_is_the_same_on_every_python() -> None:
    """The header says "this version" when a recorded time's code digest is the notebook's: the digest must not
    depend on the Python that computes it (3.12 splits an f-string into several tokens, PEP 701; the other-Python
    lane runs this test on 3.13). The value was computed on Python 3.11; comments, IPython lines and blank lines do
    not count."""
    code = 'x = 2  # two\nprint(f"x is {x!r:>4} and {f\'{x + 1}\'}")\n%time y = x\n\nif x:\n    y = f"""{x}\nlines"""'
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("# setup"), nbformat.v4.new_code_cell(code)])
    assert digest.code_digest(notebook) == "5d3575b260dd"
    notebook.cells[1].source = code.replace("  # two", "  # 二").replace("%time y = x", "%timeit y = x")
    assert digest.code_digest(notebook) == "5d3575b260dd"


def test_the_header_quotes_only_times_of_the_current_code() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 99 · X"),
                                         nbformat.v4.new_code_cell("import os"),
                                         nbformat.v4.new_code_cell("print(1)  # a comment")])
    code = digest.code_digest(nb)
    run = {"machine": "a 2-core CPU", "torch": "2.15.0", "seconds": 8}
    timings = {"99_x": {"quick/cpu": {**run, "code": code}, "full/cpu": {**run, "seconds": 60, "code": "older"},
                        "quick/gpu": {**run, "machine": "an NVIDIA H100 80GB HBM3"}}}  # no digest: older still
    assert header.current_times(timings, nb, "99_x.ipynb") == {"quick/cpu": {**run, "code": code}}
    nb.cells[2].source = "print(1)  # 注释"  # a translated comment measures the same code
    assert header.current_times(timings, nb, "99_x.ipynb") == {"quick/cpu": {**run, "code": code}}
    nb.cells[2].source = "print(2)"
    assert header.current_times(timings, nb, "99_x.ipynb") == {}
    assert header.current_times({}, nb, "99_x.ipynb") == {}


def test_the_teachers_table_marks_times_of_older_code() -> None:
    run = {"machine": "a 2-core CPU", "torch": "2.15.0", "seconds": 8}
    timings = {"99_x": {"quick/cpu": {**run, "code": "now"}, "full/cpu": {**run, "seconds": 60, "code": "older"}}}
    table = header.timings_table(timings, ["99_x"], "en", {"99_x": "now"})
    assert "| 99_x | 8 s | 60 s † | - | - |" in table and "earlier version of the lesson's code" in table
    assert "| 99_x | 8 s † | 60 s | - | - |" in header.timings_table(timings, ["99_x"], "en", {"99_x": "older"})
    assert "较早的代码" in header.timings_table(timings, ["99_x"], "zh", {"99_x": "now"})


def test_the_teachers_table_of_what_has_run_where_counts_the_inventory() -> None:
    results = "\n".join([
        "| site | only on CUDA | what proves it |",
        "|---|---|---|",
        "| `notebooks/99_x.ipynb#aaaa0001` | prints the GPU | GPU run of 2026-11-26 (code `abc`) |",
        "| `notebooks/99_x.ipynb#aaaa0002` | a check | everywhere; not run yet: its code changed |",
        "| `notebooks/99_x.ipynb#aaaa0003` | a string | everywhere |",
        "| `notebooks/99_x.ipynb#aaaa0004` | a guard | fake: tests/test_utils.py::test_a |",
        "| `utils.py::get_device` | a module's function: not a lesson's cell | not run yet |",
    ])
    assert core.proven_counts(results) == {"99_x": {"gpu": 1, "fake": 1, "everywhere": 1, "not run": 1}}
    table = core.proven_table([Path("99_x.ipynb"), Path("98_y.ipynb")], results)
    assert "| 99_x | 3 | 1 | 1 | 1 |" in table and "| 98_y | 0 | 0 | 0 | 0 |" in table
    assert "还没有在GPU上运行" in core.proven_table([Path("99_x.ipynb")], results, "zh")
