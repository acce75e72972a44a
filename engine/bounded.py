"""Arithmetic inside pyDatalog that stops at the integer limit (L003).

pyDatalog computes the arithmetic of rule bodies and queries itself (``M = N * N``), where judgelog cannot
look between two steps, and it keeps an exception raised by an operation as the *value* of the variable.
So each operator is compiled as a call to a function of judgelog's that computes the value and, when it
has more digits than :class:`~judgelog.recursion.Limits` allow, records the :class:`LimitError` for the
thread and raises it (pyDatalog goes on with an exception object, which every later operation and
comparison refuses at once: no huge number is ever computed further). :func:`ask` then reports the
recorded error instead of whatever pyDatalog made of the exception value.

>>> op = operator_function("*", 3)
>>> op(12, 12)
144
>>> try:
...     op(100, 100)
... except LimitError as exc:
...     print(exc.code)
L003
>>> take() is not None, take()
(True, None)
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

from .ast import arith
from .codes import L003
from .errors import LimitError

__all__ = ["operator_function", "take", "limit_error"]

_TL = threading.local()


def limit_error(digits: int, what: str) -> LimitError:
    return LimitError(
        L003,
        f"{what} computed an integer of more than {digits} digits",
        hint="bound the arithmetic with a comparison, or raise the limit (Limits(int_digits=...))",
    )


@functools.cache
def operator_function(op: str, digits: int) -> Callable[[int, int], int | None]:
    """``op`` (+ - * / min max) on two values, refusing a result of more than ``digits`` digits."""
    bound = 10**digits

    def apply(left: int, right: int) -> int | None:
        value = arith(op, left, right)  # a word raises TypeError as pyDatalog's own operators do
        if type(value) is int and abs(value) >= bound:
            error = limit_error(digits, "arithmetic")
            _TL.error = error
            raise error
        return value

    apply.__name__ = f"bounded_{op}"
    return apply


def take() -> LimitError | None:
    """The limit error an operation recorded in this thread since the last call (and forget it)."""
    error = getattr(_TL, "error", None)
    _TL.error = None
    return error
