"""Bounded memos that threads share: remembering a result and dropping the oldest ones, under one lock.

A memo kept with a program (or by the module, or by an engine whose threads ask together) is a dict that
keeps its last few entries, the oldest dropped first. Finding the oldest (``next(iter(memo))``) while
another thread inserts fails with "dictionary changed size during iteration", so every insert and drop
goes through :func:`remember`; reading (``memo.get``) needs no lock.

>>> memo = {}
>>> [remember(memo, n, n * n, keep=2) for n in (1, 2, 3)]
[1, 4, 9]
>>> memo
{2: 4, 3: 9}
"""

from __future__ import annotations

import threading
from typing import TypeVar

__all__ = ["remember"]

_V = TypeVar("_V")
_LOCK = threading.Lock()  # one for every shared memo: each holds it for an insert and a few drops


def remember(memo: dict, key: object, value: _V, *, keep: int) -> _V:
    """``memo[key] = value``, then the oldest entries dropped until ``keep`` are left; returns ``value``."""
    with _LOCK:
        memo[key] = value
        while len(memo) > keep:
            memo.pop(next(iter(memo)), None)
    return value
