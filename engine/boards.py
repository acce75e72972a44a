"""The boards of a scope, each counted once up to renaming (``judgelog verify``).

A board is a sorted tuple of creature specs (controller, power, toughness, keywords, subtype, counters, color,
card type);
creatures are named ``c1``, ``c2``, ... in that order and players ``p1`` (active), ``p2``, ... Boards that
differ only by a renaming of the non-active players are counted once (:func:`is_canonical`), and so are
declarations that differ only by a renaming of identical creatures or of players with the same creatures
(:func:`automorphisms`, :func:`canonical_key`).

Designations are generated from the fields the rules declare (``scenario_field/4``) by their shape: a
``map`` of creatures to players (attackers: the active player's creatures, each at another player or not at
all), ``groups`` of another field's keys (bands: every partition into groups of two or more), a
``map_list`` onto another field's keys (blockers: every other creature blocks one of them or none) and
``pairs`` (every matching). Whether a declaration is legal is for the rules to say: the action that takes
the field (``action_param``) accepts or refuses it.

>>> from judgelog import Engine
>>> from judgelog.scope import load_scope
>>> scope = load_scope({"creatures": 2, "keywords": [], "power": [1], "toughness": [1], "declare": []}, Engine())
>>> [len(b) for b in boards(scope)]
[1, 1, 2, 2, 2]
>>> [(shape.name, count_boards(scope, shape)) for shape in shapes(scope)]
[('n1-s01', 1), ('n1-s10', 1), ('n2-s02', 1), ('n2-s11', 1), ('n2-s20', 1)]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from math import comb
from typing import TYPE_CHECKING

from .scope import Scope

if TYPE_CHECKING:
    from .interface import Field

__all__ = [
    "Spec",
    "boards",
    "board_dict",
    "is_canonical",
    "automorphisms",
    "canonical_key",
    "candidates",
    "players_of",
    "creature_ids",
    "tasks",
    "Task",
    "board_keywords",
    "Shape",
    "shapes",
    "count_boards",
]


@dataclass(frozen=True, order=True)
class Spec:
    controller: int  # index into the players; 0 is the active player
    power: int
    toughness: int
    keywords: tuple[int, ...]  # indexes into scope.keywords
    subtype: str = ""
    counters: tuple[tuple[str, int], ...] = ()
    color: str = ""  # one of the scope's colors, or colorless
    card_type: str = ""  # one of the scope's types besides creature (artifact), or none


def players_of(scope: Scope) -> list[str]:
    return [f"p{i + 1}" for i in range(scope.players)]


def creature_ids(board: Sequence[Spec]) -> list[str]:
    return [f"c{i + 1}" for i in range(len(board))]


def board_keywords(board: Sequence[Spec]) -> int:
    return sum(len(s.keywords) for s in board)


def _specs(scope: Scope) -> list[Spec]:
    kw = range(len(scope.keywords))
    sets = [c for n in range(scope.keywords_per_creature + 1) for c in itertools.combinations(kw, n)]
    counter_sets = [
        tuple((k, n) for k, n in zip([k for k, _ in scope.counters], ns) if n)
        for ns in itertools.product(*[v for _, v in scope.counters])
    ]
    out = [
        Spec(c, p, t, k, s, cs, color, card_type)
        for c in range(scope.players)
        for p in scope.power
        for t in scope.toughness
        for k in sets
        for s in ("",) + scope.subtypes
        for cs in counter_sets
        for color in ("",) + scope.colors
        for card_type in ("",) + scope.types
    ]
    return sorted(set(out))


def is_canonical(board: tuple[Spec, ...], players: int) -> bool:
    """The board is the least of the boards it becomes by renaming the non-active players that keep their
    numbers of creatures in non-increasing order (as a task lists them): one board of each orbit."""
    for perm in itertools.permutations(range(1, players)):
        mapping = (0,) + perm
        other = tuple(sorted(replace(s, controller=mapping[s.controller]) for s in board))
        split = [sum(1 for s in other if s.controller == p) for p in range(1, players)]
        if split == sorted(split, reverse=True) and other < board:  # only renamings a task lists compete
            return False
    return True


@dataclass(frozen=True, order=True)
class Task:
    """A slice of the space: boards of ``creatures`` creatures split between the players as ``split``,
    whose first creature has the keyword set ``first`` (indexes into the scope's keywords)."""

    creatures: int
    split: tuple[int, ...]
    first: tuple[int, ...]

    @property
    def name(self) -> str:
        kw = "-".join(map(str, self.first)) or "none"
        return f"n{self.creatures}-s{''.join(map(str, self.split))}-k{kw}"


def tasks(scope: Scope) -> list[Task]:
    out = []
    sets = [
        c for n in range(scope.keywords_per_creature + 1) for c in itertools.combinations(range(len(scope.keywords)), n)
    ]
    for n in range(scope.min_creatures, scope.creatures + 1):
        for split in itertools.product(range(n + 1), repeat=scope.players):
            if sum(split) != n or list(split[1:]) != sorted(split[1:], reverse=True):
                continue
            for first in sets:
                out.append(Task(n, tuple(split), first))
    return sorted(out)


def boards(scope: Scope, task: Task | None = None) -> Iterator[tuple[Spec, ...]]:
    """Every canonical board of the scope (or of one task), fewest creatures first."""
    specs = _specs(scope)
    wanted = [task] if task is not None else tasks(scope)
    for t in wanted:
        for board in itertools.combinations_with_replacement(specs, t.creatures):
            if board[0].keywords != t.first:
                continue
            split = tuple(sum(1 for s in board if s.controller == p) for p in range(scope.players))
            if split != t.split or not is_canonical(board, scope.players):
                continue
            yield board


def board_dict(scope: Scope, board: Sequence[Spec]) -> dict:
    """The board as a scenario mapping (without designations)."""
    players = players_of(scope)
    objects = {}
    for oid, spec in zip(creature_ids(board), board):
        obj: dict = {
            "name": f"Creature {oid[1:]}",
            "types": [spec.card_type, "creature"] if spec.card_type else ["creature"],
        }
        if spec.subtype:
            obj["subtypes"] = [spec.subtype]
        if spec.color:
            obj["colors"] = [spec.color]
        obj.update(power=spec.power, toughness=spec.toughness)
        if spec.keywords:
            obj["keywords"] = [scope.keywords[i].yaml() for i in spec.keywords]
        obj["controller"] = players[spec.controller]
        if spec.counters:
            obj["counters"] = dict(spec.counters)
        objects[oid] = obj
    return {"players": players, "objects": objects}


def automorphisms(board: Sequence[Spec], players: int = 2) -> list[dict[str, str]]:
    """Renamings of the non-active players and of the creatures that leave the board as it is (identical
    creatures swapped; players with the same creatures swapped, their creatures with them)."""
    ids = creature_ids(board)
    names = [f"p{i + 1}" for i in range(players)]
    slots: dict[Spec, list[int]] = {}
    for i, s in enumerate(board):
        slots.setdefault(s, []).append(i)
    out: list[dict[str, str]] = []
    for perm in itertools.permutations(range(1, players)):
        mapping = (0,) + perm
        renamed = [replace(s, controller=mapping[s.controller]) for s in board]
        if tuple(sorted(renamed)) != tuple(board):
            continue
        base = {names[p]: names[mapping[p]] for p in range(1, players) if mapping[p] != p}
        for targets in itertools.product(*[slots[r] for r in renamed]):
            if len(set(targets)) == len(targets):
                out.append(dict(base, **{ids[i]: ids[t] for i, t in enumerate(targets) if i != t}))
    return out


def _rename(value: object, mapping: dict[str, str]) -> object:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return tuple(sorted((_rename(k, mapping), _rename(v, mapping)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_rename(v, mapping) for v in value)
    return value


def _norm(value: object) -> object:
    """Order-free form of a designation (sets of groups, of pairs)."""
    if isinstance(value, tuple):
        return tuple(sorted((_norm(v) for v in value), key=repr))
    return value


def canonical_key(steps: Sequence[dict], autos: list[dict[str, str]]) -> str:
    """The least renaming of a sequence of declarations and actions: equal for symmetric ones."""
    best = None
    for mapping in autos:
        text = repr(tuple(_norm(_rename(step, mapping)) for step in steps))
        if best is None or text < best:
            best = text
    return best or ""


# -- board shapes (the tasks of the search) and the number of boards ---------------------------------
@dataclass(frozen=True, order=True)
class Shape:
    """A board shape: ``creatures`` creatures, ``split[i]`` of them controlled by player i (non-active
    players in non-increasing order: renaming them gives the same board)."""

    creatures: int
    split: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"n{self.creatures}-s{''.join(map(str, self.split))}"


def shapes(scope: Scope) -> list[Shape]:
    out = []
    for n in range(scope.min_creatures, scope.creatures + 1):
        for split in itertools.product(range(n + 1), repeat=scope.players):
            if sum(split) == n and list(split[1:]) == sorted(split[1:], reverse=True):
                out.append(Shape(n, tuple(split)))
    return sorted(out)


def _multichoose(m: int, k: int) -> int:
    return comb(m + k - 1, k) if k else 1


def count_boards(scope: Scope, shape: Shape) -> int:
    """The boards of one shape up to renaming, counted without listing them (Burnside's lemma over the
    renamings of the non-active players; each player has the same creature specs)."""
    per_player = len(_specs(scope)) // scope.players
    others = list(range(1, scope.players))
    orbit = {(shape.split[0],) + tuple(shape.split[1:][i - 1] for i in perm) for perm in itertools.permutations(others)}
    total = 0
    perms = list(itertools.permutations(others))
    for perm in perms:
        g = dict(zip(others, perm))
        cycles, seen = [], set()
        for p in others:
            if p in seen:
                continue
            cycle, q = [], p
            while q not in seen:
                seen.add(q)
                cycle.append(q)
                q = g[q]
            cycles.append(cycle)
        for v in orbit:
            if any(len({v[p] for p in c}) > 1 for c in cycles):
                continue
            fixed = _multichoose(per_player, v[0])
            for c in cycles:
                fixed *= _multichoose(per_player, v[c[0]])
            total += fixed
    return total // len(perms)


# -- designations by shape ------------------------------------------------------------------------------
def _partitions(items: list[str]) -> Iterator[list[list[str]]]:
    """Set partitions of items into blocks; the blocks of one are kept (bands of one are not declared)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1 :]


def _matchings(items: list[str], ok: Callable[[str, str], bool]) -> Iterator[list[list[str]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    yield from _matchings(rest, ok)
    for i, other in enumerate(rest):
        if ok(first, other):
            for m in _matchings(rest[:i] + rest[i + 1 :], ok):
                yield [[first, other]] + m


def candidates(field: Field, scope: Scope, board: Sequence[Spec], declared: dict[str, object]) -> Iterator[object]:
    """Every value of ``field`` (scenario form) on this board, given the fields declared before it. The
    empty value comes first."""
    ids = creature_ids(board)
    players = players_of(scope)
    ctrl = {oid: players[s.controller] for oid, s in zip(ids, board)}
    ref1 = field.ref(1).what
    ref0 = field.ref(0).what
    if field.shape == "map" and ref1 in ("player", "target"):
        mine = [o for o in ids if ctrl[o] == players[0]]
        options = [[None] + [p for p in players if p != ctrl[o]] for o in mine]
        for choice in itertools.product(*options):
            yield {o: t for o, t in zip(mine, choice) if t is not None}
        return
    if field.shape == "groups":
        keys = sorted(_keys(declared.get(ref0)))
        for part in _partitions(keys):  # groups in the order of their first member (band1, band2, ...)
            yield sorted((sorted(block) for block in part if len(block) > 1), key=lambda b: [ids.index(o) for o in b])
        return
    if field.shape in ("map_list", "map") and ref1 not in ("object", "player", "target"):
        targets = sorted(_keys(declared.get(ref1)))
        if not targets:
            yield {}
            return
        others = [o for o in ids if o not in targets and ctrl[o] != players[0]]
        for choice in itertools.product(*[[None] + targets for _ in others]):
            yield {o: ([t] if field.shape == "map_list" else t) for o, t in zip(others, choice) if t is not None}
        return
    if field.shape == "pairs":
        same = field.name in scope.same_controller
        yield from _matchings(ids, lambda a, b: not same or ctrl[a] == ctrl[b])
        return
    yield {} if field.shape in ("map", "map_list") else []


def _keys(value: object) -> list[str]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return [m for group in value for m in (group if isinstance(group, list) else [group])]
    return []
