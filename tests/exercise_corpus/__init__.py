"""Students' answers to every exercise of lessons/exercises/, each with the verdict a teacher gives it: one file per
lesson (``lessonNN.py``, beside what it needs), a tiny shared part (``shared.py``).

Each answer is the source of an answer cell, as a student writes it: it defines the names the exercise asks for
(``Exercise.answers``), and runs with the names a notebook has at that point (``PRELUDE``, and ``SETUP`` for the
exercise). For every exercise there are right answers in different idioms and wrong ones of the kinds students
write (off by one, the misconception the lesson teaches against, a number typed instead of computed, a partial
answer, the wrong type). ``hidden`` is the verdict on the hidden cases where it differs: an answer fitted to the
visible cases passes them and fails the hidden ones.

``tests/test_exercises.py`` asserts every verdict in both languages and that no wrong answer's message gives the
expected value (``FORBIDDEN``); ``tests/test_nbgrader_course.py`` grades a submission built from one right and one
wrong answer per exercise with nbgrader.
"""

from __future__ import annotations

from tests.exercise_corpus import (
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
from tests.exercise_corpus.shared import PRELUDE, Answer, Context, right, wrong

__all__ = ["CONTEXT", "CORPUS", "FORBIDDEN", "PRELUDE", "SETUP", "Answer", "Context", "right", "wrong"]

LESSONS = (lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07, lesson08, lesson09, lesson10,
           lesson11, lesson12)

CORPUS: dict[tuple[str, int], list[Answer]] = {key: answers for m in LESSONS for key, answers in m.CORPUS.items()}
"""Every lesson's answers, by (lesson, number)."""

SETUP: dict[tuple[str, int], str] = {key: code for m in LESSONS for key, code in m.SETUP.items()}
"""What the notebook defines before an exercise and the answers use (``run_dir``, ``checkpoint``, ``data`` and
``pet_dir`` come from the test's folders). Each exercise's setup runs before its answer, in the answer's namespace:
the setups of different lessons may define the same name (``make_model``) differently, as their notebooks do."""

CONTEXT: dict[tuple[str, int], Context] = {key: make for m in LESSONS for key, make in m.CONTEXT.items()}
"""What each exercise's check cell passes besides the answers (``Exercise.context``)."""

FORBIDDEN: dict[tuple[str, int], list[str]] = {key: texts for m in LESSONS for key, texts in m.FORBIDDEN.items()}
"""Text a wrong answer's message never shows: the expected value, or the "why" kept for discussion. A message
may quote the student's own answer: these are checked only where that answer does not hold them."""
