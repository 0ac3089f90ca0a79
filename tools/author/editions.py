"""The two editions of the lessons: where their notebooks are, and the fixed words each uses (headings, exercise
and solution labels) that the tools and the hygiene checks look for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tools.author.setup_cell import SETUP_CELL, SETUP_CELL_ZH

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ZH_NOTEBOOKS = NOTEBOOKS / "zh"


@dataclass(frozen=True)
class Labels:
    """The fixed words of one language edition, which the tools and the hygiene checks look for."""

    folder: Path
    setup_cell: str
    learn: str
    summary: str
    exercises: str
    going_deeper: str
    exercise: re.Pattern[str]  # an exercise cell starts with this; group 1 is its number
    solution: str  # a solution cell's first line starts with this (a Colab form title: ``FORM_TITLE``)
    placeholder: str  # old structure: the empty cell that replaces solution {number} in the student edition
    solutions: str  # the heading of the last section, which holds every solution (after all the exercises)
    answer: str  # the first line of exercise {number}'s answer cell, which holds a stub the student replaces
    solution_of: str  # the first line of the solution of exercise {number}, under the solutions heading
    unanswered: str  # what the check of an exercise prints for the stub ...
    correct: str  # ... and a solution's own check, strict, for the reference solution (lessons/exercises/)


LANGUAGES = {
    "en": Labels(
        NOTEBOOKS,
        SETUP_CELL,
        "You will learn",
        "## Summary",
        "## Exercises",
        "## Going deeper",
        re.compile(r"\*\*Exercise (\d+)\.\*\*"),
        "# @title Solution",
        "# Exercise {number} — your solution",
        "## Solutions",
        "# Exercise {number}: your answer",
        "# @title Solution: exercise {number}",
        "not answered yet",
        ": the reference solution passes the check.",
    ),
    "zh": Labels(
        ZH_NOTEBOOKS,
        SETUP_CELL_ZH,
        "你将学到",
        "## 小结",
        "## 练习",
        "## 进阶",
        re.compile(r"\*\*练习(\d+)\*\*"),
        "# @title 参考答案",
        "# 练习{number}：在这里写你的答案",
        "## 参考答案",
        "# 练习{number}：你的答案",
        "# @title 参考答案：练习{number}",
        "尚未作答",
        "：参考答案通过了检查。",
    ),
}
"""English (``notebooks/``) and Chinese (``notebooks/zh/``)."""


def language_of(path: Path) -> str:
    """Return ``"zh"`` for a notebook in ``notebooks/zh/``, else ``"en"``."""
    return "zh" if path.resolve().parent.name == "zh" else "en"

