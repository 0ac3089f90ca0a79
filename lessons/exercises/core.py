"""The exercises' core: verdicts, the readers of a student's values, the registry, and ``result``/``check``/
``grade``/``hint``.

A check module (``lesson01.py`` ...) declares its exercises with ``declare`` (a check function and all that goes
with it) or ``register(Exercise(...))`` (a check made by ``kinds``). A check raises ``Wrong`` with what is wrong,
``NotAnswered`` for the stub, and returns for a right answer; ``result`` turns that into one sentence.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

import utils


class NotAnswered(Exception):
    """The answer is still the stub: a value is ``None``, or the function raised ``NotImplementedError``."""


class Wrong(Exception):
    """The answer is wrong; the exception's text says what is wrong, in the edition's language."""


def say(en: str, zh: str) -> str:
    """The text in the edition's language."""
    return utils.localized(en, zh)


def wrong(en: str, zh: str) -> Wrong:
    """``Wrong`` with the message in the edition's language."""
    return Wrong(say(en, zh))


def call(shown: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Return ``fn(*args, **kwargs)``; the stub's ``NotImplementedError`` is ``NotAnswered``, any other error Wrong."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as error:
        raise NotAnswered from error
    except Exception as error:  # the student's code failed: say where and how
        said = str(error).strip().rstrip(".")
        raise wrong(f"`{shown}` raised {type(error).__name__}: {said}",
                    f"`{shown}`抛出了{type(error).__name__}：{said}") from error


def need_callable(answer: Any, name: str) -> None:
    """Wrong unless ``answer`` (named ``name`` in the answer cell) is a function or class."""
    if not callable(answer):
        raise wrong(f"`{name}` is {brief(answer)}, not a function: define it with `def {name}(...)`",
                    f"`{name}`是{brief(answer)}，不是函数：请用`def {name}(...)`定义它")


def brief(value: Any) -> str:
    """A short repr for messages: devices and dtypes as their strings, tensors by shape."""
    if isinstance(value, torch.Tensor):
        shape = tuple(value.shape)
        return say(f"a tensor of shape {shape}", f"形状为{shape}的张量") if value.dim() else repr(value.item())
    if isinstance(value, (torch.device, torch.dtype)):
        return str(value)
    if isinstance(value, np.generic):
        return repr(value.item())
    return repr(value)


def listed(items: Sequence[Any]) -> str:
    """``items`` as one phrase in the edition's language: "a, b" in English, "a、b" in Chinese."""
    return utils.localized(", ", "、").join(str(item) for item in items)  # the separator: no sentence


def as_number(value: Any) -> float | None:
    """``value`` as a float if it is a real number in any type (Python's, numpy's, a 0-dim tensor), else None;
    booleans are not numbers here."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.dtype != torch.bool:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def as_whole(value: Any) -> int | None:
    """``value`` as an int if it is a whole number in any type (``315688.0`` included), else None."""
    number = as_number(value)
    return int(number) if number is not None and number.is_integer() else None


def as_sequence(value: Any) -> list[Any] | None:
    """``value`` as a list if it is a list, tuple, numpy array or 1-dim tensor, else None."""
    if isinstance(value, torch.Tensor) and value.dim() == 1:
        return value.tolist()
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    return list(value) if isinstance(value, (list, tuple)) else None


def need_number(name: str, value: Any, whole: bool = False) -> float:
    """``value`` as a number (an int with ``whole``); Wrong, naming ``name``, if it is not one."""
    got = as_whole(value) if whole else as_number(value)
    if got is None:
        kind_en, kind_zh = ("a whole number", "整数") if whole else ("a number", "数")
        raise wrong(f"`{name}` is {brief(value)}; give {kind_en}", f"`{name}`是{brief(value)}；请给出一个{kind_zh}")
    return got


# ---- the registry ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exercise:
    """One exercise: what its answer cell defines, how it is checked, a hint, and how it is graded."""

    lesson: str
    """The notebook's two-digit number, e.g. ``"02"``."""
    number: int
    """The exercise's number in its notebook (1, 2, ...)."""
    answers: tuple[str, ...]
    """The names the answer cell defines: a function or class (its stub raises ``NotImplementedError``), or values
    (their stub is ``None``); passed to the check in this order."""
    verify: Callable[..., None]
    """Raises ``Wrong`` (or ``NotAnswered``) for the answers; returns for a right one. Where the exercise has cases,
    it takes them as ``cases=``."""
    hint_en: str
    hint_zh: str
    context: tuple[str, ...] = ()
    """Names from the notebook that the check needs besides the answers, passed by keyword (e.g. ``big_batch``)."""
    explain_en: str = ""
    """The part that asks why, graded by a person (nbgrader's manually graded answer); empty if none."""
    explain_zh: str = ""
    points: int = 2
    """Points of the checked part in nbgrader."""
    explain_points: int = 1
    """Points of the explanation, where there is one."""
    cases: Any = None
    """The visible cases (literal data) a function or class answer runs on; None for values."""
    hidden: str = ""
    """The name, in the check's module, of its hidden cases: an assignment inside the module's
    ``# BEGIN HIDDEN CASES`` block (``lessons/exercises/hidden.py``); empty where there are none."""

    @property
    def hint(self) -> str:
        """The hint in the edition's language."""
        return say(self.hint_en, self.hint_zh)

    @property
    def explain(self) -> str:
        """The question graded by a person, in the edition's language ("" if none)."""
        return say(self.explain_en, self.explain_zh)

    @property
    def has_hidden(self) -> bool:
        """Whether the check has hidden cases: other inputs for a function or class answer."""
        return bool(self.hidden)

    def hidden_cases(self) -> Any:
        """The hidden cases from the check's module; LookupError where this copy of the module has them stripped
        (the student handout and an nbgrader course's ``lessons/`` hold none: a teacher's setup error)."""
        found = getattr(sys.modules[self.verify.__module__], self.hidden, None)
        if found is None:
            raise LookupError(f"exercise {self.lesson}/{self.number}: this copy of {self.verify.__module__} has no "
                              f"hidden cases ({self.hidden}): the student handout and nbgrader's course leave them "
                              "out; grade with the course's hidden test cell, which holds them")
        return found


EXERCISES: dict[tuple[str, int], Exercise] = {}
"""Every exercise, by (lesson, number), as the check modules register them."""


def register(found: Exercise) -> Exercise:
    """Add ``found`` to ``EXERCISES``; ValueError if its (lesson, number) is taken."""
    if (found.lesson, found.number) in EXERCISES:
        raise ValueError(f"exercise {found.lesson}/{found.number} is declared twice")
    EXERCISES[(found.lesson, found.number)] = found
    return found


def declare(lesson: str, number: int, answers: tuple[str, ...], *, hint_en: str, hint_zh: str,
            **fields: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorator: register the decorated check function as exercise ``number`` of ``lesson`` (``fields``: the rest
    of ``Exercise``)."""

    def add(verify: Callable[..., None]) -> Callable[..., None]:
        register(Exercise(lesson, number, answers, verify, hint_en, hint_zh, **fields))
        return verify

    return add


def exercise(lesson: str, number: int) -> Exercise:
    """Return exercise ``number`` of notebook ``lesson`` ("02"); ValueError naming the known ones otherwise."""
    try:
        return EXERCISES[(lesson, number)]
    except KeyError:
        known = ", ".join(f"{e.lesson}/{e.number}" for e in EXERCISES.values())
        raise ValueError(f"no exercise {number} in notebook {lesson!r}; known: {known}") from None


# ---- verdicts --------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _untouched_rng() -> Iterator[None]:
    """Leave PyTorch's CPU generator and NumPy's global one as they were: a check never changes what runs next."""
    state = np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        yield
    np.random.set_state(state)


def _cases(found: Exercise, hidden: bool | Sequence[Any]) -> dict[str, Any]:
    """The ``cases=`` keyword for the check: the visible cases, the module's hidden ones (``hidden=True``) or those
    given (``hidden=[...]``, as nbgrader's hidden test cell passes them); none for an exercise without cases."""
    if found.cases is None:
        if hidden is not True and hidden is not False:
            raise TypeError(f"exercise {found.lesson}/{found.number} has no cases to replace")
        return {}
    if hidden is True:
        return {"cases": found.hidden_cases() if found.has_hidden else found.cases}
    return {"cases": found.cases if hidden is False else hidden}


def result(lesson: str, number: int, *answers: Any, hidden: bool | Sequence[Any] = False,
           **context: Any) -> tuple[str, str]:
    """Return ``(status, sentence)`` for the answers: status ``"correct"``, ``"wrong"`` or ``"unanswered"``, the
    sentence in the edition's language. ``hidden=True`` runs the hidden cases instead of the visible ones (an
    exercise without cases runs its checks as ever), ``hidden=[...]`` the cases given."""
    found = exercise(lesson, number)
    if len(answers) != len(found.answers) or set(context) != set(found.context):
        names = ", ".join([*found.answers, *(f"{n}={n}" for n in found.context)])
        raise TypeError(f"exercises.check({lesson!r}, {number}, ...) takes {names}")
    cases = _cases(found, hidden)  # outside the try: stripped hidden cases fail loudly, never as a verdict
    unanswered = [name for name, value in zip(found.answers, answers, strict=True) if value is None]
    try:
        if unanswered:
            raise NotAnswered
        with _untouched_rng():
            found.verify(*answers, **context, **cases)
    except NotAnswered:
        return "unanswered", _unanswered(found, unanswered)
    except Wrong as error:
        wrong = label(number, "wrong")
        return "wrong", say(f"{wrong}: not yet. {error}.", f"{wrong}：还不对。{error}。")
    except Exception as error:  # an answer of a kind no case foresaw: still a sentence, never a traceback
        wrong = label(number, "wrong")
        said = f"{type(error).__name__}: {str(error).strip().rstrip('.')}"
        return "wrong", say(f"{wrong}: not yet. Your answer could not be checked ({said}): is it of the kind "
                            "the exercise asks for?",
                            f"{wrong}：还不对。无法检查你的答案（{said}）：它是练习要求的那种答案吗？")
    return "correct", _correct(found)


MARKS = {"correct": "✓", "wrong": "✗", "unanswered": "○"}
"""The mark before each verdict: a verdict is seen at a glance, by its shape as well as its word (not by colour)."""


def label(number: int, status: str) -> str:
    """Return "✓ Exercise 2" (the mark of ``status``, then the exercise) in the edition's language."""
    return say(f"{MARKS[status]} Exercise {number}", f"{MARKS[status]} 练习{number}")


def _unanswered(found: Exercise, unanswered: list[str]) -> str:
    """The sentence for a stub: ``unanswered`` are the answers still ``None`` (none for a function's stub)."""
    left = listed([f"`{name}`" for name in unanswered])
    mark = label(found.number, "unanswered")
    return say(
        f"{mark}: not answered yet" + (f" ({left} still None)" if left and len(found.answers) > 1 else "")
        + ": replace the stub in the cell above with your answer, run it, then run this check again.",
        f"{mark}：尚未作答" + (f"（{left}仍是None）" if left and len(found.answers) > 1 else "")
        + "：把上面单元格里的占位代码换成你的答案，运行它，再运行这个检查。",
    )


def _correct(found: Exercise) -> str:
    """The sentence for a right answer, pointing to the explanation where the exercise also asks why."""
    mark = label(found.number, "correct")
    if not found.explain_en:
        return say(f"{mark}: correct.", f"{mark}：正确。")
    extra = say(f" The question \"{found.explain_en}\" is not for the check: answer it in words, for your teacher "
                "or with a classmate.",
                f"问题“{found.explain_zh}”不由检查判断：请用文字回答，交给老师，或和同学讨论。")
    return say(f"{mark}: correct.", f"{mark}：正确。") + extra


def passes(found: Exercise) -> str:
    """The sentence under a solution's own check (``strict=True``): it speaks of the reference solution, so that
    after "Run all" no "correct" stands beside an exercise the student left blank."""
    mark = label(found.number, "correct")
    return say(f"{mark}: the reference solution passes the check.", f"{mark}：参考答案通过了检查。")


def check(lesson: str, number: int, *answers: Any, strict: bool = False, **context: Any) -> None:
    """Print whether the answers to exercise ``number`` of notebook ``lesson`` are right, or what is wrong, in one
    sentence; never raises for a wrong or missing answer. ``strict=True`` is for a solution's own check (under
    ``## Solutions``): it raises AssertionError with that sentence unless the answer is right, and for a right one
    prints that the reference solution passes (the student's own check, higher up, is the one that says "correct")."""
    status, sentence = result(lesson, number, *answers, **context)
    if strict and status != "correct":
        raise AssertionError(sentence)
    print(passes(exercise(lesson, number)) if strict else sentence)


def grade(lesson: str, number: int, *answers: Any, hidden: bool | Sequence[Any] = False, **context: Any) -> None:
    """nbgrader's autograded test: raise AssertionError with the check's sentence unless the answers are right;
    print the sentence for a right one. ``hidden=`` runs the hidden cases (see ``result``): the course's
    ``### BEGIN HIDDEN TESTS`` region, which the released notebook leaves out, defines them and passes them."""
    status, sentence = result(lesson, number, *answers, hidden=hidden, **context)
    if status != "correct":
        raise AssertionError(sentence)
    print(sentence)


def hint(lesson: str, number: int) -> None:
    """Print a hint for exercise ``number`` of notebook ``lesson``."""
    print(say(f"Hint for exercise {number}: ", f"练习{number}的提示：") + exercise(lesson, number).hint)
