"""A counterexample of ``judgelog verify`` written one way: renamed by the automorphism of its board that
makes it least (judgelog.boards.automorphisms), so that symmetric counterexamples compare equal. Shared by the
reference enumerator (judgelog.verify) and the search (judgelog.verify_search).

>>> slot("c3"), rename({"c1": ["c2"]}, {"c1": "c2", "c2": "c1"})
(3, {'c2': ['c1']})
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .boards import Spec, automorphisms

__all__ = ["canonical", "rename", "slot"]


def slot(oid: str) -> int:
    """The number of a board's object id (``c3`` -> 3; 0 for another id)."""
    return int(oid[1:]) if oid[1:].isdigit() else 0


def rename(value: Any, mapping: dict[str, str]) -> Any:
    """``value`` (steps, a proposal) with its ids renamed by ``mapping``; sets of ids in slot order."""
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        renamed = {rename(k, mapping): rename(v, mapping) for k, v in value.items()}
        if not all(k in mapping for k in value):  # an action: its keys keep their order
            return renamed
        return {k: renamed[k] for k in sorted(renamed, key=slot)}
    if isinstance(value, list):
        items = [rename(v, mapping) for v in value]
        if items and all(isinstance(v, list) for v in items):  # groups and pairs: order-free
            items = sorted((sorted(v, key=slot) for v in items), key=lambda v: [slot(x) for x in v])
        return items
    return value


def canonical(c: dict, board: Sequence[Spec], players: int = 2) -> dict:
    """The counterexample renamed by the automorphism of its board (identical creatures swapped, players
    with the same creatures swapped) that makes it least, so that symmetric counterexamples are written
    one way."""
    best = None
    for mapping in automorphisms(board, players):
        cand = dict(c)
        cand["steps"] = rename(c["steps"], mapping)
        cand["proposed"] = rename(c["proposed"], mapping)
        cand["witnesses"] = [mapping.get(w, w) for w in c["witnesses"]]
        key = (repr(cand["steps"]), repr(cand["proposed"]), cand["witnesses"])
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1] if best else c
