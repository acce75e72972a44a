"""``judgelog choices``: the legal options of a decision now, derived from the rules.

- ``resolve`` / ``pair``: the first choice the top of the stack asks for when it resolves.
- any other action kind the rules know (``amass``, ``proliferate``, ``populate``, ...): the first choice that
  action asks for, run with the active player (and ``n: 1`` when the action takes an ``n``).
- ``blocks``: for each potential blocker, the attackers it may block (``can_block``); the number of legal
  block declarations (each blocker blocks one attacker or none) and a sample of them.
- ``bands``: the ways to group the attackers into bands (CR 702.22c), each band checked by the rules
  (``band_violation``); counted exactly, listed up to ``--limit``.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Tuple

from .errors import UsageError

__all__ = ["list_choices"]


def list_choices(state, what: str, *, limit: int = 50, progress=None) -> Tuple[dict, str]:
    """``progress``, when given, has ``tick(i, label)`` and ``done()`` (the command line's progress line on
    stderr); ``bands`` ticks it for every candidate band it checks."""
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    if what == "blocks":
        return _blocks(state, limit)
    if what == "bands":
        return _bands(state, limit, progress)
    return _action_choice(state, what)


def _action_choice(state, what: str) -> Tuple[dict, str]:
    from .runtime import probe_choice

    kind = "resolve" if what in ("pair", "resolve") else what
    known = {a["K"] for a in state.query("action_known(K)")}
    if kind not in known:
        from .analysis import suggest

        near = suggest(what, list(known) + ["bands", "blocks", "pair"])
        raise UsageError(f"unknown decision {what!r}", hint=(f"did you mean {near!r}? " if near else "") +
                         "choices: bands, blocks, pair, resolve, " + ", ".join(sorted(known - {"resolve"})))
    action: Dict = {"do": kind}
    if kind != "resolve":
        params = {p["K"] for p in state.query(f"action_param({kind}, K)")}
        active = state.query("active_player(P)")
        if active and (not params or "player" in params):
            action["player"] = active[0]["P"]
        if "n" in params:
            action["n"] = 1
    needed = probe_choice(state, action)
    if needed is None:
        data = {"decision": what, "choice": None, "options": []}
        return data, f"{what}: nothing to choose now"
    options = [str(o) for o in needed.options]
    data = {"decision": what, "choice": needed.name, "mode": needed.mode, "cr": needed.cr,
            "options": options, "max": needed.limit}
    mode = {"one": "choose exactly one", "may": "choose one or none", "any": "choose any number (none allowed)",
            "up_to": f"choose up to {needed.limit}"}.get(needed.mode, needed.mode)
    lines = [f"{what}: {needed.name} — {mode}" + (f" (CR {needed.cr})" if needed.cr else "")]
    lines += [f"  {o}" for o in options] or ["  (no legal option)"]
    return data, "\n".join(lines)


def _blocks(state, limit: int) -> Tuple[dict, str]:
    rows = state.query("can_block(B, A)")
    options: Dict[str, List[str]] = {}
    for r in rows:
        options.setdefault(r["B"], []).append(r["A"])
    blockers = sorted(options)
    total = 1
    for b in blockers:
        total *= 1 + len(options[b])
    sample = []
    for combo in itertools.islice(itertools.product(*[[None] + options[b] for b in blockers]), limit):
        sample.append({b: a for b, a in zip(blockers, combo) if a is not None})
    data = {"decision": "blocks", "can_block": options, "count": total, "declarations": sample}
    lines = ["blocks: each potential blocker may block one of these attackers, or none (CR 509.1a):"]
    lines += [f"  {b}: {', '.join(options[b])}" for b in blockers] or ["  (no creature can block)"]
    lines.append(f"{total} legal block declaration(s)" + (f"; the first {len(sample)}:" if total > len(sample)
                                                           else ":"))
    for decl in sample:
        lines.append("  {" + ", ".join(f"{b}: [{a}]" for b, a in decl.items()) + "}")
    return data, "\n".join(lines)


def _bands(state, limit: int, progress=None) -> Tuple[dict, str]:
    attackers = sorted({r["A"] for r in state.query("attacking(A, _)")})
    if not attackers:
        raise UsageError("no attackers are declared in this scenario",
                         hint="declare attackers in combat: attackers: {...} or with a declare_attackers action")
    if len(attackers) > 16:
        raise UsageError(f"{len(attackers)} attackers: too many to group (at most 16)")
    legal = _legal_bands(state, attackers, progress)
    index = {a: i for i, a in enumerate(attackers)}
    masks = {sum(1 << index[a] for a in band): band for band in legal}
    full = (1 << len(attackers)) - 1
    count = _count_partitions(full, masks)
    sample: List[List[List[str]]] = []
    _enumerate(full, masks, [], sample, limit)
    data = {"decision": "bands", "attackers": attackers, "legal_bands": [list(b) for b in legal],
            "count": count, "groupings": sample}
    lines = [f"bands: {count} legal way(s) to group {len(attackers)} attacker(s) into bands (CR 702.22c)"
             + (f"; the first {len(sample)}:" if count > len(sample) else ":")]
    for grouping in sample:
        lines.append("  " + (", ".join("[" + ", ".join(b) + "]" for b in grouping) or "(no bands)"))
    return data, "\n".join(lines)


def _legal_bands(state, attackers: List[str], progress=None) -> List[Tuple[str, ...]]:
    """Every set of two or more attackers that the rules accept as one band.

    Candidates grow one attacker at a time; a candidate the rules say cannot grow into a legal band
    (``band_cannot_grow``, e.g. two creatures without banding that share no quality) is not grown further.
    """
    base = frozenset(f for f in state.facts if f[0] != "in_band")
    legal: List[Tuple[str, ...]] = []
    checked = itertools.count()

    def grow(band: Tuple[str, ...], start: int) -> None:
        for i in range(start, len(attackers)):
            bigger = band + (attackers[i],)
            if len(bigger) >= 2:
                if progress is not None:
                    progress.tick(next(checked), f"candidate bands of {len(attackers)} attackers")
                probe = state.with_facts(base | {("in_band", a, "candidate") for a in bigger})
                if not probe.query("band_violation(candidate, C)"):
                    legal.append(bigger)
                elif probe.holds("band_cannot_grow(candidate)"):
                    continue
            grow(bigger, i + 1)

    grow((), 0)
    if progress is not None:
        progress.done()
    return sorted(legal, key=lambda b: (len(b), b))


def _count_partitions(rest: int, masks: Dict[int, tuple], memo=None) -> int:
    """Partitions of the attackers into legal bands and creatures not in a band."""
    if memo is None:
        memo = {}
    if rest == 0:
        return 1
    if rest in memo:
        return memo[rest]
    low = rest & -rest
    total = _count_partitions(rest & ~low, masks, memo)  # the lowest attacker stays out of any band
    for mask in masks:
        if mask & low and mask & rest == mask:
            total += _count_partitions(rest & ~mask, masks, memo)
    memo[rest] = total
    return total


def _enumerate(rest: int, masks, chosen: list, out: list, limit: int) -> None:
    if len(out) >= limit:
        return
    if rest == 0:
        out.append([list(masks[m]) for m in chosen])
        return
    low = rest & -rest
    _enumerate(rest & ~low, masks, chosen, out, limit)
    for mask in sorted(masks):
        if mask & low and mask & rest == mask:
            _enumerate(rest & ~mask, masks, chosen + [mask], out, limit)
