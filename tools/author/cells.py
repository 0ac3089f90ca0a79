"""What a student sees of each code cell: nbval's markers as tags, not comments; every solution collapsed to its
``# @title`` line with no stored output."""

from __future__ import annotations

from typing import Any

from tools.author.digest import source_hash
from tools.author.editions import LANGUAGES

FORM_TITLE = "# @title "
"""The first line of a cell shown collapsed (the setup cell, every solution): Colab shows the rest of the line as the
title of a form cell (``cellView: "form"``) and hides the code until clicked; JupyterLab hides the code of a cell
whose ``jupyter.source_hidden`` is true (one click on the bar to the left shows it)."""
LEGACY_SOLUTION = {"en": "# Solution", "zh": "# 参考答案"}
"""How a solution's first line began before it was a form title: ``present`` turns it into ``FORM_TITLE`` + the rest."""
NBVAL_MARKERS = ("NBVAL_IGNORE_OUTPUT", "NBVAL_CHECK_OUTPUT", "NBVAL_RAISES_EXCEPTION", "NBVAL_SKIP",
                 "PYTEST_VALIDATE_IGNORE_OUTPUT")
"""nbval's comment markers (``nbval.plugin.comment_markers``; tests/test_hygiene.py checks the list). ``present``
moves each into the cell's tags, as its tag name (``marker_tag``): nbval reads both the same way, and a tag stays out
of the code a student reads (JupyterLab shows tags only in the cell's property inspector; Colab, VS Code and Kaggle
not at all)."""
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
"""The tag that makes nbval run a cell without comparing its output: every solution has it, since no solution keeps
an output (the strict check under it is what the tests compare)."""


def marker_tag(marker: str) -> str:
    """Return the cell tag nbval reads as comment ``marker``: ``NBVAL_IGNORE_OUTPUT`` -> ``nbval-ignore-output``."""
    return marker.lower().replace("_", "-")


def _is_marker(line: str) -> bool:
    """True for a line that nbval reads as a marker: a comment whose whole text is one of ``NBVAL_MARKERS``."""
    return line.strip().startswith("#") and line.strip().lstrip("#").strip() in NBVAL_MARKERS


def presented_source(source: str, lang: str = "en") -> tuple[str, list[str]]:
    """Return ``source`` as a student reads it, and the tags it needs: nbval's markers removed (their tags returned
    instead) and a solution's first line of old (``# Solution: exercise 2``) made a form title
    (``# @title Solution: exercise 2``). Idempotent."""
    lines = source.split("\n")
    tags = [marker_tag(line.strip().lstrip("#").strip()) for line in lines if _is_marker(line)]
    lines = [line for line in lines if not _is_marker(line)]
    legacy = LEGACY_SOLUTION[lang]
    if lines and lines[0].startswith(legacy) and not lines[0].startswith(FORM_TITLE):
        lines[0] = FORM_TITLE + lines[0][len("# ") :]
    return "\n".join(lines), tags


def is_solution_cell(cell: Any, lang: str = "en") -> bool:
    """True for an exercise's solution: a code cell whose first line is the edition's solution title."""
    return cell.get("cell_type") == "code" and cell.source.lstrip().startswith(LANGUAGES[lang].solution)


def collapse(cell: Any) -> None:
    """Show ``cell`` collapsed to its first line, a ``FORM_TITLE``: a form in Colab, hidden code in JupyterLab."""
    cell.metadata["cellView"] = "form"
    jupyter = cell.metadata.setdefault("jupyter", {})
    jupyter["source_hidden"] = True
    jupyter.pop("outputs_hidden", None)  # JupyterLab's Run All uncovers it, and saving drops it (issue 27)


def _add_tags(cell: Any, tags: list[str]) -> None:
    existing = cell.metadata.get("tags", [])
    if missing := [tag for tag in tags if tag not in existing]:
        cell.metadata["tags"] = [*existing, *missing]


def present(cell: Any, lang: str = "en") -> None:
    """Make code ``cell`` of edition ``lang`` what a student should see (idempotent): no nbval marker in its code
    (``presented_source``: tags instead); a solution collapsed (``collapse``) with no stored output, which nbval
    then does not compare (``IGNORE_OUTPUT_TAG``; it still runs the cell, and the strict check under it is compared).
    A Chinese cell's translation record (tools/author/translate.py) gets the same change to the English source it
    records, so that a translation stays current."""
    if cell.get("cell_type") != "code":
        return
    cell.source, tags = presented_source(cell.source, lang)
    _add_tags(cell, tags)
    if is_solution_cell(cell, lang):
        collapse(cell)
        _add_tags(cell, [IGNORE_OUTPUT_TAG])
        cell.outputs = []
    record = cell.metadata.get("translation")
    if lang != "en" and record and "source" in record:
        english = presented_source(record["source"], "en")[0]
        if english != record["source"]:
            record["source"], record["hash"] = english, source_hash(english)

