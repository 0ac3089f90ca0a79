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
    message; any other number gets ``otherwise``, whose ``{value}`` is the number given (``str.format``)."""

    def verify(value: Any) -> None:
        got = need_number(name, value, whole=True)
        if got in mistakes:
            raise wrong(*mistakes[int(got)])
        if got != expected:
            raise wrong(otherwise[0].format(value=got), otherwise[1].format(value=got))

    verify.__qualname__ = verify.__name__ = f"whole_number_{name}"
    return verify
