"""Checks declared as data: an exercise whose answer is one value, right or one of a few known mistakes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lessons.exercises.core import need_number, wrong

Message = tuple[str, str]
"""A message in English and in Chinese."""


def whole_number(name: str, expected: int, mistakes: dict[int, Message], otherwise: Message
                 ) -> Callable[[Any], None]:
    """The check of an answer ``name`` that is one whole number: ``expected`` is right; a known mistake gets its
    message; any other number gets ``otherwise``. In each message ``{value}`` is the number given (``str.format``).
    A check of several values calls one of these for each."""

    def verify(value: Any) -> None:
        got = int(need_number(name, value, whole=True))
        if got != expected:
            en, zh = mistakes.get(got, otherwise)
            raise wrong(en.format(value=got), zh.format(value=got))

    verify.__qualname__ = verify.__name__ = f"whole_number_{name}"
    return verify
