"""judgelog's own pyDatalog database, one per thread, kept apart from any the caller uses.

pyDatalog keeps one global database per thread (its ``Logic`` class). judgelog installs its own for the
duration of each operation and restores the caller's afterwards, so user code calling ``Logic()`` or
asserting facts in the same thread neither sees nor disturbs judgelog's predicates.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from pyDatalog import Logic as _Logic

__all__ = ["quiet_gc", "our_database", "release_later", "THREAD"]

# .logic: judgelog's own pyDatalog database for this thread; .engines: what each backend keeps in it (by backend
# id); .released: the predicate prefixes of backends gone since, whose predicates are dropped on the next entry
THREAD = threading.local()


def release_later(engines: dict, released: list, key: int, prefix: str) -> None:
    """A backend is gone (a ``weakref.finalize`` callback, which may run in any thread, at any time): forget
    what it kept in one thread, and drop its predicates from that thread's database the next time judgelog
    enters it (never during an evaluation). Without it every Engine made and dropped in a long-lived
    process would keep its facts and compiled rules for good."""
    engines.pop(key, None)
    released.append(prefix)


def _drop_released(db: dict, released: list) -> None:
    """Remove the predicates (and with them their clauses) of the backends gone from ``db``."""
    while released:
        prefix = released.pop()
        for name in [n for n in db if n.startswith(prefix)]:
            del db[name]


_GC_LOCK = threading.Lock()
_gc_users = 0  # evaluations (any thread, nested ones too) inside quiet_gc now
_gc_was_enabled = False  # whether the collector was on when the first of them entered


@contextmanager
def quiet_gc() -> Iterator[None]:
    """Disable Python's cyclic GC around evaluation (most of pyDatalog's time on large boards is GC).

    Re-entrant and thread-safe: the first evaluation to enter turns the collector off, the last to leave
    turns it back on if it was on before (a per-call switch let one thread's exit re-enable the collector
    during another's evaluation, and left it off for the whole process when two calls raced)."""
    global _gc_users, _gc_was_enabled
    with _GC_LOCK:
        if _gc_users == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_users -= 1
            if _gc_users == 0 and _gc_was_enabled:
                gc.enable()


@contextmanager
def our_database() -> Iterator[None]:
    """Install judgelog's pyDatalog database for this thread, restoring the caller's afterwards."""
    previous = getattr(_Logic.tl, "logic", None)
    ours = getattr(THREAD, "logic", None)
    if ours is None:
        if previous is None:
            # judgelog is first in this thread: give the user an empty database of their own, so that
            # pyDatalog calls made afterwards without Logic() do not land in judgelog's database
            _Logic()
            previous = _Logic.tl.logic
        _Logic()  # a new, empty database for this thread (also sets up the engine's thread state)
        ours = _Logic.tl.logic
        THREAD.logic = ours
        THREAD.engines = {}
        THREAD.released = []
    elif previous is not ours:
        _Logic.tl.logic = ours
    if THREAD.released:
        _drop_released(ours.Db, THREAD.released)
    try:
        yield
    finally:
        if previous is not None and previous is not ours:
            _Logic.tl.logic = previous
