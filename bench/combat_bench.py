#!/usr/bin/env python3
"""judgelog combat benchmark: a whole combat (declare attackers, declare blockers, combat damage) on large
boards, on both backends, side by side in one run.

    python bench/combat_bench.py                 # N = 250, 500, 1000, 2000 (a few minutes on 2 cores)
    python bench/combat_bench.py --sizes 100 500  # other sizes
    python bench/combat_bench.py --json           # the measurements as JSON on stdout

Boards are synthetic (seed-free): Alice and Bob control N creatures each; every other one of Alice's
attacks Bob; Bob's blocks one attacker each in three of every five attacks (never a trampler), so no
creature needs a division; the creatures carry flying, reach, trample, deathtouch, lifelink and first strike in turn, so
that evasion, trample, first-strike steps, deathtouch's note and lifelink's sum all take part. Each action
is timed on the state before it (CPU time of this process: other work on a shared machine does not count),
and both backends must give the same events. The point is the growth: a step proportional to its board
costs about twice as much for twice the creatures (the "per creature" columns stay flat).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

KEYWORDS = ["flying", "reach", "trample", "deathtouch", "lifelink", "first_strike", None]


def board(n: int) -> dict:
    """The scenario: 2 N creatures, N / 2 attackers, about 3/10 N blocks, and the combat's actions."""
    objects = {}
    for side, player in ((0, "alice"), (1, "bob")):
        for i in range(n):
            kw = KEYWORDS[(i + side) % len(KEYWORDS)]
            obj = {"name": f"C{side}_{i}", "types": ["creature"], "power": 1 + i % 4, "toughness": 1 + i % 3}
            obj.update(controller=player, **({"keywords": [kw]} if kw else {}))
            objects[f"c{side}_{i}"] = obj
    attackers = {f"c0_{i}": "bob" for i in range(0, n, 2)}
    blockers = {}
    for k, attacker in enumerate(attackers):
        if k % 5 < 3:
            i = int(attacker.split("_")[1])
            blocker = f"c1_{i}"
            if objects[attacker].get("keywords") == ["flying"] and objects[blocker].get("keywords") not in (
                ["flying"],
                ["reach"],
            ):
                continue  # 702.9b: that block would be refused
            if objects[attacker].get("keywords") == ["trample"]:
                continue  # a blocked trampler divides its damage (assign:): left unblocked
            blockers[blocker] = [attacker]
    actions = [
        {"do": "declare_attackers", "attackers": attackers},
        {"do": "declare_blockers", "blockers": blockers},
        {"do": "combat_damage"},
    ]
    return {"name": f"combat {n}", "players": ["alice", "bob"], "active": "alice", "objects": objects}, actions


def run(engine, n: int) -> tuple[list[float], list[str]]:
    data, actions = board(n)
    state = engine.state_from_dict(data)
    state.query("attacking(A, T)")  # the first sync, as a loaded scenario's first question
    times, events = [], []
    for action in actions:
        start = time.process_time()
        state, made = state.apply(action)
        times.append((time.process_time() - start) * 1000)
        events.extend(str(e) for e in made)
    return times, events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from judgelog import Engine

    engines = {"pydatalog": Engine()}
    from judgelog.errors import UsageError

    try:
        engines["clingo"] = Engine(backend="clingo")
    except UsageError as exc:  # the clingo extra is optional: say why the column is missing
        print(f"clingo column skipped: {exc}", file=sys.stderr)
    rows = []
    for n in args.sizes:
        row: dict = {"n": n}
        seen = {}
        for name, engine in engines.items():
            times, events = run(engine, n)
            row[name] = [round(t, 1) for t in times]
            seen[name] = events
        row["same_events"] = len({tuple(e) for e in seen.values()}) == 1
        rows.append(row)
        if not args.json:
            _print_row(row, list(engines))
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if all(r["same_events"] for r in rows) else 1


def _print_row(row: dict, names: list[str]) -> None:
    parts = [f"N={row['n']:>5}"]
    for name in names:
        attack, block, damage = row[name]
        total = attack + block + damage
        parts.append(
            f"{name}: attack {attack:8.1f} block {block:8.1f} damage {damage:8.1f} ms"
            f" ({total / (2 * row['n']):5.2f} ms per creature)"
        )
    parts.append("same events" if row["same_events"] else "EVENTS DIFFER")
    print("  ".join(parts), flush=True)


if __name__ == "__main__":
    sys.exit(main())
