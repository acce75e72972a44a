"""Comprehensive Rules numbers: normalisation, old-number aliases and matching.

The seeds were written against old CR editions. Their numbers are accepted everywhere a user types a CR
number (queries, ``--cr`` filters, ``cites:`` expectations) and resolve to the current ones (CR 2026-01-16).

>>> resolve("702.19j")
'702.22j'
>>> resolve("702.92a"), resolve("701.43b"), resolve("510.1c")
('702.95a', '701.47b', '510.1c')
>>> cites_match("702.22", "702.22j"), cites_match("702.22j", "702.22"), cites_match("702.2", "702.22j")
(True, False, False)
"""
from __future__ import annotations

import re
from typing import Iterable

__all__ = ["ALIASES", "resolve", "cites_match", "any_cites"]

# old prefix -> current prefix (seeds: 001 banding 702.19, 003 soulbond 702.92, 000 amass 701.43)
ALIASES = {
    "702.19": "702.22",  # banding, CR 2009-2011
    "702.92": "702.95",  # soulbond as the seed numbers it
    "702.93": "702.95",  # soulbond, CR 2012-2013
    "702.94": "702.95",  # soulbond, CR 2013-2021
    "701.43": "701.47",  # amass, CR 2019-2020
    "701.44": "701.47",  # amass, CR 2020-2025
    "701.27": "701.34",  # proliferate, CR 2020-2025
    "701.30": "701.36",  # populate, CR 2020-2025
    "702.122": "702.123",  # fabricate, CR 2016-2021
}

_NUM = re.compile(r"^(\d{3}(?:\.\d+)?)([a-z]?)$")


def resolve(number: str) -> str:
    """The current number for ``number`` (unchanged when it is not an old alias)."""
    number = number.strip().rstrip(".")
    match = _NUM.match(number)
    if not match:
        return number
    base, letter = match.groups()
    return ALIASES.get(base, base) + letter


def cites_match(wanted: str, cited: str) -> bool:
    """True when the citation ``cited`` is ``wanted`` or one of its sub-rules.

    Rules cite current numbers, so ``cited`` is taken as it is. ``wanted`` (typed by a user) matches as it
    is or translated from an old edition: 702.19b is trample today and banding in the seeds, so it finds
    both, while 702.22 (banding) does not find trample's 702.19b.

    >>> cites_match("702.19b", "702.22b"), cites_match("702.19b", "702.19b"), cites_match("702.22", "702.19b")
    (True, True, False)
    """
    return _match(wanted.strip().rstrip("."), cited) or _match(resolve(wanted), cited)


def _match(wanted: str, cited: str) -> bool:
    if cited == wanted:
        return True
    if not cited.startswith(wanted):
        return False
    rest = cited[len(wanted):]
    # 702.22 matches 702.22j; 510 matches 510.1c; but 702.2 must not match 702.22j
    return rest[0] in ".abcdefghijklmnopqrstuvwxyz" and not (wanted[-1].isdigit() and rest[0].isdigit())


def any_cites(wanted: str, cites: Iterable[str]) -> bool:
    return any(cites_match(wanted, c) for c in cites)
