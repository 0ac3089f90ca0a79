"""tools/notebook_template.py: what a student sees of the cells every notebook shares (the setup cell, the
solutions, nbval's markers), made by one idempotent pass that the Chinese translation records follow."""

from __future__ import annotations

import copy

import nbformat
from nbval.plugin import comment_markers, find_comment_markers, find_metadata_tags, metadata_tags

from tools import notebook_template as template
from tools import translate


def test_the_markers_are_nbvals_own_and_each_tag_means_the_same() -> None:
    assert set(template.NBVAL_MARKERS) == set(comment_markers)
    for marker in template.NBVAL_MARKERS:
        tag = template.marker_tag(marker)
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
    assert setup.source == template.SETUP_CELL
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
    whichever order tools/notebook_template.py and tools/translate.py run."""
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
