"""Comprehensive Rules numbers: normalisation, editions and matching.

Rules cite current numbers (the edition named ``current`` in facts/cr_history.yaml). A number a user types
(``rules --cr``, ``cites:``, ``expect_error:``) is read in the current edition unless the user names an
edition (``--cr-edition``, ``cr_edition:``): then it is looked up in the renumbering history, a data file
that says which number meant which rule from which edition to which. Nothing here knows a rule: the
history is data.

>>> resolve("510.1c"), resolve(" 510.1c. ")
('510.1c', '510.1c')
>>> cites_match("510.1", "510.1c"), cites_match("510.1c", "510.1"), cites_match("702.2", "702.22j")
(True, False, False)
>>> h = load_history({"current": "2026-01-16", "checked_from": "2009-07-11", "rules": {
...     "example": {"now": "999.5", "since": "2020-01-01", "was": [{"number": "999.4", "from": "2010-01"}]}}})
>>> resolve("999.4b", "2015-06-01", history=h), resolve("999.4b", history=h), resolve("999.5b", "2021-01-01", history=h)
('999.5b', '999.4b', '999.5b')
>>> resolve("999.5", "2015-06-01", history=h) is None  # 999.5 was another rule then, not recorded
True
>>> unrecorded("999.5", "2015-06-01", history=h).split(": ")[1]
'example, 999.5 now, was 999.4 in that edition'
>>> [m.text() for m in meanings("999.4", history=h)]
['999.4 was example in CR 2010-01 until 2020-01-01 (now 999.5)']
>>> numbered_in("999.5c", "2012-01-01", history=h)
'999.4c'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from .errors import UsageError

__all__ = [
    "History",
    "Numbering",
    "Topic",
    "load_history",
    "shipped_history",
    "check_edition",
    "resolve",
    "unrecorded",
    "meanings",
    "numbered_in",
    "recorded_in",
    "is_rule_number",
    "topic_of",
    "cites_match",
    "any_cites",
]

_NUM = re.compile(r"^(\d{3}(?:\.\d+)?)([a-z]?)$")
_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")


@dataclass(frozen=True)
class Numbering:
    """A number a rule had from the edition ``start`` until the edition ``until`` (exclusive)."""

    topic: str
    number: str
    start: str
    until: str
    now: str
    last_seen: str | None = None

    def text(self) -> str:
        return (
            f"{self.number} was {self.topic.replace('_', ' ')} in CR {self.start}"
            + (f" to {self.last_seen}" if self.last_seen else f" until {self.until}")
            + f" (now {self.now})"
        )


@dataclass(frozen=True)
class Topic:
    name: str
    now: str
    since: str | None
    was: tuple[Numbering, ...]
    stable: bool = False
    derived: bool = False
    letters_shifted: bool = False  # its sub-rules' letters changed across editions: not read in an old one


@dataclass(frozen=True)
class History:
    current: str
    checked_from: str
    topics: tuple[Topic, ...]


def load_history(data: Mapping) -> History:
    """Build the history from the data of facts/cr_history.yaml (a mapping)."""
    current, first = str(data["current"]), str(data["checked_from"])
    topics = []
    for name, entry in sorted((data.get("rules") or {}).items()):
        now = str(entry["now"])
        was = list(entry.get("was") or [])
        since = str(entry["since"]) if entry.get("since") else None
        starts = [str(w["from"]) for w in was] + [since or current]
        numberings = tuple(
            Numbering(
                name,
                str(w["number"]),
                starts[i],
                starts[i + 1],
                now,
                str(w["last_seen"]) if w.get("last_seen") else None,
            )
            for i, w in enumerate(was)
        )
        topics.append(
            Topic(
                name,
                now,
                since,
                numberings,
                bool(entry.get("stable")),
                bool(entry.get("derived")),
                bool(entry.get("letters_shifted")),
            )
        )
    return History(current, first, tuple(topics))


@lru_cache(maxsize=1)
def shipped_history() -> History:
    """The shipped history (facts/cr_history.yaml)."""
    import yaml

    from .catalog import facts_dir

    with open(facts_dir() / "cr_history.yaml", encoding="utf-8") as fh:
        return load_history(yaml.safe_load(fh))


def _norm(number: str) -> str:
    return str(number).strip().rstrip(".")


def is_rule_number(text: str) -> bool:
    """Whether ``text`` is written as a CR number: a section (510), a rule (510.1) or a sub-rule (510.1c),
    with or without the full stop the CR writes after it."""
    return _NUM.match(_norm(text)) is not None


def _split(number: str) -> tuple[str, str]:
    match = _NUM.match(_norm(number))
    return (match.group(1), match.group(2)) if match else (_norm(number), "")


def check_edition(edition: str | None, *, history: History | None = None) -> str | None:
    """``edition`` as a date string, or a UsageError saying what is expected."""
    if edition is None:
        return None
    h = history or shipped_history()
    text = str(edition).strip()
    if not _DATE.match(text) or not _real_date(text):
        raise UsageError(
            f"CR edition {edition!r} is not a date",
            hint=f"write the edition's effective date as YYYY-MM-DD, e.g. 2020-01-24 (the current one is {h.current})",
        )
    if text < h.checked_from:
        raise UsageError(
            f"CR edition {text} is older than the history judgelog keeps (from {h.checked_from})",
            hint=f"name an edition from {h.checked_from} to {h.current}",
        )
    return text


def _real_date(text: str) -> bool:
    """``YYYY-MM-DD`` or ``YYYY-MM`` names a day or a month of the calendar (2099-13-45 does not)."""
    import datetime

    try:
        datetime.date.fromisoformat(text if len(text) == 10 else text + "-01")
    except ValueError:
        return False
    return True


def _old(base: str, edition: str, h: History) -> Numbering | None:
    for topic in h.topics:
        for n in topic.was:
            if n.number == base and n.start <= edition < n.until:
                return n
    return None


def resolve(number: str, edition: str | None = None, *, history: History | None = None) -> str | None:
    """The current number for ``number`` as numbered in ``edition`` (None: the current edition), or None
    when in that edition the number named a rule the history does not record: its current rule had
    another number then (or none yet), or the history of its number is kept for the current edition only
    (unrecorded(), below, says which)."""
    number = _norm(number)
    if edition is None:
        return number
    h = history or shipped_history()
    if edition >= h.current:
        return number
    base, letter = _split(number)
    old = _old(base, edition, h)
    if old:
        return old.now + letter
    topic = topic_of(number, history=h)
    if topic is None or not (topic.stable or (topic.since is not None and edition >= topic.since)):
        return None
    if _letter_unknown(topic, number, edition):
        return None
    return number


def _letter_unknown(topic: Topic, number: str, edition: str) -> bool:
    """Whether ``number`` is a sub-rule of a rule whose letters shifted (letters_shifted), with no entry of its
    own, read in an edition before the current one: what its letter meant then is not recorded."""
    base, letter = _split(number)
    return bool(letter) and topic.letters_shifted and topic.now == base and not (topic.since and edition >= topic.since)


def unrecorded(number: str, edition: str, *, history: History | None = None) -> str:
    """Why ``number`` read in ``edition`` names no rule the history records (resolve() gave None)."""
    h = history or shipped_history()
    number = _norm(number)
    topic = topic_of(number, history=h)
    head = f"CR {number} as numbered in CR {edition} named a rule judgelog's renumbering history does not record"
    if topic is None:
        return head + " (facts/cr_history.yaml has no rule with that number)"
    name = topic.name.replace("_", " ")
    if _letter_unknown(topic, number, edition) and edition < h.current:
        return (
            head + f": the letters of {topic.now}'s sub-rules ({name}) changed across editions, and what"
            f" {number} meant in that edition is not recorded"
        )
    then = numbered_in(topic.now, edition, history=h)
    if then != topic.now:
        return head + f": {name}, {topic.now} now, was {then} in that edition"
    if not topic.was and topic.since and edition < topic.since:
        return head + f": {name}, {topic.now} now, has had that number since CR {topic.since}"
    if topic.was and edition < topic.was[0].start:
        return head + f": {name}, {topic.now} now, is not in that edition's CR (first seen in CR {topic.was[0].start})"
    return head + f": {name}, {topic.now} now, is recorded in the current edition only"


def meanings(number: str, *, history: History | None = None) -> list[Numbering]:
    """Every earlier edition range in which ``number`` (or its rule) named another rule than it does now."""
    h = history or shipped_history()
    base, _ = _split(number)
    return [n for topic in h.topics for n in topic.was if n.number == base]


def topic_of(number: str, *, history: History | None = None) -> Topic | None:
    """The history entry of the current ``number`` (by its rule, e.g. 702.22 for 702.22k)."""
    h = history or shipped_history()
    base, letter = _split(number)
    exact = [t for t in h.topics if t.now == base + letter]
    return exact[0] if exact else next((t for t in h.topics if t.now == base), None)


def recorded_in(number: str, edition: str, *, history: History | None = None) -> bool:
    """Whether the history knows how the current ``number`` was numbered in ``edition``: its number then,
    read in that edition, gives it back (not for a rule checked in the current edition only, one that has had
    its number only since a later edition, or a sub-rule of a rule whose letters shifted, letters_shifted)."""
    h = history or shipped_history()
    return resolve(numbered_in(number, edition, history=h), edition, history=h) == _norm(number)


def numbered_in(number: str, edition: str, *, history: History | None = None) -> str:
    """How the current ``number`` was numbered in ``edition`` (the number itself when it was the same or
    its history is not recorded)."""
    h = history or shipped_history()
    base, letter = _split(number)
    topic = topic_of(number, history=h)
    if topic is None or topic.now != base:
        return _norm(number)
    for n in topic.was:
        if n.start <= edition < n.until:
            return n.number + letter
    return _norm(number)


def cites_match(wanted: str, cited: str, edition: str | None = None) -> bool:
    """True when the citation ``cited`` (a current number) is ``wanted`` or one of its sub-rules, reading
    ``wanted`` in ``edition`` (None: the current edition)."""
    current = resolve(wanted, edition)
    return current is not None and _match(current, cited)


def _match(wanted: str, cited: str) -> bool:
    if cited == wanted:
        return True
    if not wanted or not cited.startswith(wanted):
        return False
    rest = cited[len(wanted) :]
    # 510.1 matches 510.1c; 510 matches 510.1c; but 702.2 must not match 702.22j
    return rest[0] in ".abcdefghijklmnopqrstuvwxyz" and not (wanted[-1].isdigit() and rest[0].isdigit())


def any_cites(wanted: str, cites: Iterable[str], edition: str | None = None) -> bool:
    return any(cites_match(wanted, c, edition) for c in cites)
