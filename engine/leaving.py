"""What the rules say of the permanents an effect is about to take off the battlefield.

As a ``move`` or ``destroy`` (``MOVES_THAT_KILL``) is applied, the runtime asks the rules, on the state just
before those effects, three things of the objects they take away (each only if the library declares it):

- ``creature(O)``: which of them are creatures, so a move to a graveyard makes one die (700.4);
- ``last_known_info(O, What, A, B)``: what each was as it last existed there (608.2h, 113.7a), kept as
  ``last_known`` facts;
- ``leaves_battlefield_instead(O, To, Kind, Instead)``: a replacement effect (614.1a) of kind ``Kind`` puts O
  into ``Instead`` if it would be put into ``To`` from the battlefield ("exile it instead"). The rules choose
  one per object and zone (616.1, rules/core/replacement.dl); the primitive applies it once (614.5): it does
  not ask again of the zone it puts the object into instead;
- ``card_moves_instead(O, To, Kind, Instead)``: the same of a card a ``move`` puts from one zone into another,
  neither the battlefield (a discarded card "exiled instead", madness; Rest in Peace's "from anywhere").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .ast import format_value as _q
from .change import Change
from .effects import MOVES_THAT_KILL

__all__ = ["note_leaving"]

Ask = Callable[[str], list[dict[str, Any]]]


def note_leaving(change: Change, rows: Iterable[dict[str, Any]], ask: Ask, declared: Iterable[str]) -> None:
    """Set on ``change`` what the rules say of the objects that the effect ``rows`` take off the battlefield
    (``ask`` answers a query on the state before them; ``declared``: the library's predicates).

    >>> ch = Change([("permanent", "zombie"), ("permanent", "bears")], {})
    >>> answers = {"creature(zombie)": [{}], "leaves_battlefield_instead(O, Z, K, W)": [
    ...     {"O": "zombie", "Z": "graveyard", "K": "unearth", "W": "exile"}]}
    >>> rows = [{"P": "destroy", "A": "zombie"}, {"P": "tap", "A": "bears"}]
    >>> note_leaving(ch, rows, lambda q: answers.get(q, []), ["creature", "leaves_battlefield_instead"])
    >>> ch.creatures, ch.instead
    (frozenset({'zombie'}), {('zombie', 'graveyard'): ('exile', 'unearth')})
    """
    moved = sorted({r["A"] for r in rows if r["P"] in MOVES_THAT_KILL}, key=repr)
    if not moved:
        return
    known = set(moved)
    decls = set(declared)
    if "creature" in decls:  # which dies (700.4) is what the rules say they are now
        change.creatures = frozenset(o for o in moved if ask(f"creature({_q(o)})"))
    if "last_known_info" in decls:  # 608.2h: as it last existed there; one question for all of them
        for r in ask("last_known_info(O, W, A, B)"):
            if r["O"] in known:
                change.last_known.setdefault(r["O"], []).append((r["W"], r["A"], r["B"]))
    for pred in ("leaves_battlefield_instead", "card_moves_instead"):  # 614.1a: "if it would be put into To, ..."
        for r in ask(f"{pred}(O, Z, K, W)") if pred in decls else ():  # "... put it into Instead"
            if r["O"] in known:
                change.instead[(r["O"], r["Z"])] = (r["W"], r["K"])
