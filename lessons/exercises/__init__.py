"""Checks for the lessons' exercises: under each exercise a student runs one line that says whether the answer is
right, and if not, what is wrong with it, in one sentence.

    from lessons import exercises

    exercises.check("02", 1, module_device)               # prints "Exercise 1: correct." or what is wrong
    exercises.hint("02", 1)                               # prints a hint: where in the lesson to look
    exercises.check("02", 1, module_device, strict=True)  # a solution's own check: raises AssertionError unless
                                                          # right, prints "the reference solution passes"
    exercises.grade("02", 1, module_device)               # nbgrader's autograded test: raises unless right
    exercises.grade("02", 1, module_device, hidden=True)  # ... on the hidden cases (where this copy has them)

An exercise's answer cell starts with a stub the student replaces: a function or class whose body raises
``NotImplementedError("your code here")``, or values set to ``None``. A check treats the stub as "not answered yet"
and never raises (unless ``strict``), so "Run all" goes on everywhere. Messages are in the edition's language
(``utils.set_language``, which each notebook's setup cell calls).

A check judges behaviour, never names: it runs the student's function or class on cases (edge cases included) and
inspects what came out (values, files written, gradients, forward batch sizes, CUDA events used), so an answer in
any idiom that does what the exercise asks passes. A value is accepted in any numeric type (numpy's and 0-dim
tensors included). Where an exercise asks for a measurement, the value is checked exactly where the lesson's
simulation is deterministic and within a margin stated in the check where it is not. A wrong answer's message says
what is wrong with that answer (which case, what came out, which property fails), never the expected value or the
"why" kept for discussion (``EXERCISES[...].explain``, graded by a person); hints point to the lesson's section.
Function answers also have hidden cases: other inputs, so that an answer fitted to the visible cases does not get
the points; they run in nbgrader's ``### BEGIN HIDDEN TESTS`` region and nowhere a student has them (below). The
checks hold no reference solution (those are at the end of each notebook, under ``## Solutions``); where the truth
is a measurement (10's saved bytes), they measure it as the lesson does. They take about a second, leave the random
number generators as they were, and train nothing themselves. Where the answer is a function that trains (05/1's
resumed run, 06/1's logged loop), they run it, on the lesson's small model or a tiny one, and watch how it works:
the optimizer steps it takes, the values it reads back from the device, what its result depends on.

Where things are:

- ``core.py``: the verdicts (``Wrong``, ``NotAnswered``), the readers of a student's values, the registry
  (``Exercise``, ``declare``, ``EXERCISES``) and ``result``/``check``/``grade``/``hint``;
- ``kinds.py``: checks declared as data (a whole number and its known mistakes);
- ``lessonNN.py``: lesson NN's exercises, each declared once with all that goes with it: the names its answer cell
  defines, the hint and the question to explain in both languages, the notebook's names it needs (``context``),
  its points, its visible cases and, between ``# BEGIN HIDDEN CASES`` and ``# END HIDDEN CASES``, its hidden ones;
- ``hidden.py``: finds and strips those blocks. ``tools/teacher/student_edition.py`` (the handout) and
  ``tools/teacher/nbgrader_course.py`` (the course's copy of ``lessons/``) strip them, and the course writes each
  block, then the grade call with its cases, into the exercise's hidden test region: nbgrader's release leaves
  it out and its autograde puts it back. Where the block is stripped, ``hidden=True`` raises LookupError.

To change one exercise of lesson NN:

1. its check, cases, hint or question: ``lessons/exercises/lessonNN.py`` (a message in both languages, never the
   expected value; hidden cases literal data, in their block);
2. the students' answers that prove it: ``tests/exercise_corpus/lessonNN.py`` (right ones in several idioms, wrong
   ones of the kinds students write; what the notebook defines before the exercise in ``SETUP``, what its check
   cell passes besides the answers in ``CONTEXT``);
3. the exercise's text, answer cell and solution: ``notebooks/NN_*.ipynb`` and its twin ``notebooks/zh/NN_*.ipynb``
   (``tools/author/translate.py`` lists the cells to translate), then regenerate the outputs with
   ``python tools/author/run_notebooks.py NN``;
4. run ``pytest -q -p no:randomly tests/test_exercises.py`` and ``pytest -q notebooks/NN_*.ipynb``.
"""

from __future__ import annotations

from lessons.exercises import (  # noqa: F401 (each module declares its lesson's exercises)
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    lesson10,
    lesson11,
    lesson12,
)
from lessons.exercises.core import (
    EXERCISES,
    Exercise,
    NotAnswered,
    Wrong,
    check,
    exercise,
    grade,
    hint,
    result,
)

__all__ = ["EXERCISES", "Exercise", "NotAnswered", "Wrong", "check", "exercise", "grade", "hint", "result"]
