"""Replacement effects that change an amount (CR 614.1a, 616.1): "twice that many counters", "that many plus
one +1/+1 counter", "twice that many tokens", "that much damage plus 2".

The rules say which apply, with ``amount_replacement(R, Prim, A, B, Mul, Add)`` (rules/core/replacement.dl):
if an effect would do the primitive ``Prim`` with ``A`` and ``B`` as its two arguments besides the amount
(the one its ``primitive`` declaration names ``n``; ``any`` matches every value) and an amount of one or more,
the replacement effect ``R`` makes the amount ``amount * Mul + Add`` instead. This module only applies them:
each once (614.5), in the order the affected object's controller or the affected player chooses (616.1: the
one chosen as ``amount_replacement_first`` first, the one chosen as ``amount_replacement_second`` next, then the
others by name), none once the amount is zero.

>>> scales = Replacement("scales", "put_counters", "bears", "p1p1", 1, 1)
>>> season = Replacement("season", "put_counters", "bears", "any", 2, 0)
>>> kinds = ("target", "kind", "n")
>>> [(r.source, was, now) for r, was, now in applied(("bears", "p1p1", 1), kinds, "put_counters", [scales, season])]
[('scales', 1, 2), ('season', 2, 4)]
>>> [(r.source, was, now) for r, was, now in applied(("bears", "p1p1", 1), kinds, "put_counters", [scales, season],
...     order=["season"])]
[('season', 1, 2), ('scales', 2, 3)]
>>> applied(("bears", "m1m1", 1), kinds, "put_counters", [scales])
[]
>>> applied(("bears", "p1p1", 0), kinds, "put_counters", [scales, season])
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import astuple, dataclass
from typing import Any

from .errors import ActionError

__all__ = ["ANY", "FIRST", "SECOND", "Replacement", "Swap", "amount_place", "applied", "replace", "swaps_of"]

ANY = "any"  # a key of an amount replacement that matches every value
FIRST = "amount_replacement_first"  # the choice of the replacement that applies first (616.1)
SECOND = "amount_replacement_second"  # the one that applies next, of three or more (616.1f: the process repeats)


SUBJECTS = ("target", "object", "recipient", "player")  # the argument an amount_replaced event is about


@dataclass(frozen=True)
class Replacement:
    """One ``amount_replacement(source, primitive, a, b, mul, add)`` fact."""

    source: object
    primitive: str
    a: object
    b: object
    mul: object
    add: object

    def meets(self, primitive: str, a: object, b: object) -> bool:
        return self.primitive == primitive and self.a in (a, ANY) and self.b in (b, ANY)

    def of(self, amount: int) -> int:
        mul, add = self.mul, self.add
        for what, value in (("multiplier", mul), ("addend", add)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ActionError(
                    f"the amount replacement of {self.source} on {self.primitive} gives a {what} of {value!r}, "
                    "not a whole number",
                    hint="amount_replacement(R, Prim, A, B, Mul, Add): Mul and Add are whole numbers",
                )
        assert isinstance(mul, int) and isinstance(add, int)
        return max(amount * mul + add, 0)


def amount_place(kinds: Sequence[str]) -> int | None:
    """Which of a primitive's three arguments is its amount (the one declared ``n``), or None.

    >>> amount_place(("target", "kind", "n")), amount_place(("player", "n", "source")), amount_place(("object",))
    (2, 1, None)
    """
    return next((i for i, k in enumerate(kinds) if k == "n"), None)


def applied(
    args: Sequence[object],
    kinds: Sequence[str],
    primitive: str,
    replacements: Iterable[Replacement],
    *,
    order: Sequence[object] = (),
) -> list[tuple[Replacement, int, int]]:
    """The replacements that apply to the effect ``primitive(*args)``, in order (those of ``order`` first, in
    its order, then the others by name), each with the amount it replaces and the amount it makes (empty if
    none applies)."""
    place = amount_place(kinds)
    if place is None:
        return []
    amount = args[place]
    keys = [a for i, a in enumerate(args) if i != place][:2]
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1 or len(keys) < 2:
        return []
    meeting = sorted(
        {r for r in replacements if r.meets(primitive, keys[0], keys[1])},
        key=lambda r: (_rank(order, r.source), str(r.source), repr((r.a, r.b, r.mul, r.add))),
    )
    out: list[tuple[Replacement, int, int]] = []
    for r in meeting:
        if amount < 1:  # "one or more": an event of none is not replaced
            break
        now = r.of(amount)
        out.append((r, amount, now))
        amount = now
    return out


def _rank(order: Sequence[object], source: object) -> int:
    return next((i for i, chosen in enumerate(order) if chosen == source), len(order))


def replace(args: Sequence[object], kinds: Sequence[str], amount: int) -> tuple[object, ...]:
    """``args`` with the amount (the argument declared ``n``) made ``amount``.

    >>> replace(("bears", "p1p1", 1), ("target", "kind", "n"), 4)
    ('bears', 'p1p1', 4)
    """
    place = amount_place(kinds)
    return tuple(amount if i == place else a for i, a in enumerate(args))


@dataclass(frozen=True)
class Swap:
    """One replacement applied to one effect: the amount it replaced, the amount it made, and the rule (name,
    cites) that says it applies."""

    replacement: Replacement
    was: int
    now: int
    cause: tuple[str, tuple[str, ...]]

    def event(self, args: Sequence[object], kinds: Sequence[str]) -> tuple[str, object, dict[str, object]]:
        """The event ``amount_replaced``: about the object or player the effect acts on (else its first
        argument), with the primitive, the replacement's source (``by``) and the amounts."""
        subject = next((a for a, k in zip(args, kinds) if k in SUBJECTS), args[0])
        by = self.replacement
        return (
            "amount_replaced",
            subject,
            {"primitive": by.primitive, "by": by.source, "was": self.was, "now": self.now},
        )


def swaps_of(
    rows: Sequence[dict[str, Any]],
    primitives: dict[str, tuple[str, str, str]],
    replaced: frozenset[str],
    ask: Callable[[str], list[dict[str, Any]]],
    causes_of: Callable[[list[tuple]], list[tuple[str, tuple[str, ...]]]],
) -> dict[int, list[Swap]]:
    """For each of ``rows`` (effects ``P, A, B, C``) an amount replacement applies to, by index, the
    replacements in the order they apply. ``replaced``: the primitives the rules' amount_replacement rules
    name (``*``: one names a variable); ``ask`` answers a query on the state; ``causes_of`` gives the rules
    deriving facts there."""
    if not replaced or not any(r["P"] in replaced or "*" in replaced for r in rows):
        return {}
    found = ask("amount_replacement(R, P, A, B, M, D)")
    if not found:
        return {}
    reps = [Replacement(r["R"], str(r["P"]), r["A"], r["B"], r["M"], r["D"]) for r in found]
    order = [r["R"] for choice in (FIRST, SECOND) for r in ask(f"chosen({choice}, R)")[:1]]
    out: dict[int, list[tuple[Replacement, int, int]]] = {}
    for k, r in enumerate(rows):
        steps = applied((r["A"], r["B"], r["C"]), primitives.get(r["P"], ()), str(r["P"]), reps, order=order)
        if steps:
            out[k] = steps
    used = sorted({rep for steps in out.values() for rep, _, _ in steps}, key=repr)
    why = dict(zip(used, causes_of([("amount_replacement", *astuple(rep)) for rep in used])))
    return {k: [Swap(rep, was, now, why[rep]) for rep, was, now in steps] for k, steps in out.items()}
