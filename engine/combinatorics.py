"""Counting and listing the ways to divide and to group, for the choice lister (judgelog.choices): the
compositions of a number into parts (a division of damage), and the partitions of a set of elements into
legal parts, each part a bit mask of its elements (band declarations).

>>> list(compositions(2, 2))
[(2, 0), (1, 1), (0, 2)]
>>> masks = {0b011: ("a", "b"), 0b110: ("b", "c")}
>>> count_partitions(0b111, masks)  # all alone, {a, b} with c alone, {b, c} with a alone
3
>>> out: list = []
>>> enumerate_partitions(0b111, masks, [], out, limit=10)
>>> out
[[], [['b', 'c']], [['a', 'b']]]
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["compositions", "count_partitions", "enumerate_partitions"]


def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as ``parts`` numbers of at least 0, the first part largest first."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


def count_partitions(
    rest: int, masks: dict[int, tuple], memo: dict[int, int] | None = None, by_low: dict[int, list[int]] | None = None
) -> int:
    """Partitions of the elements into legal parts and elements alone."""
    if memo is None:
        memo = {}
    if by_low is None:  # a part holding the lowest element left has that element as its own lowest
        by_low = {}
        for mask in masks:
            by_low.setdefault(mask & -mask, []).append(mask)
    if rest == 0:
        return 1
    if rest in memo:
        return memo[rest]
    low = rest & -rest
    total = count_partitions(rest & ~low, masks, memo, by_low)  # the lowest element stays alone
    for mask in by_low.get(low, ()):
        if mask & rest == mask:
            total += count_partitions(rest & ~mask, masks, memo, by_low)
    memo[rest] = total
    return total


def enumerate_partitions(rest: int, masks: dict[int, tuple], chosen: list, out: list, limit: int) -> None:
    """Add to ``out`` the partitions of the elements of ``rest`` (each a list of its parts' members, elements
    alone left out), up to ``limit`` of them."""
    if len(out) >= limit:
        return
    if rest == 0:
        out.append([list(masks[m]) for m in chosen])
        return
    low = rest & -rest
    enumerate_partitions(rest & ~low, masks, chosen, out, limit)
    for mask in sorted(masks):
        if mask & low and mask & rest == mask:
            enumerate_partitions(rest & ~mask, masks, chosen + [mask], out, limit)
