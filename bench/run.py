#!/usr/bin/env python3
"""judgelog benchmark harness: judgelog vs hand-written pyDatalog vs plain Python, side by side.

    python bench/run.py            # N = 10, 100, 1000, 5000 (about 2-4 minutes on 2 cores)
    python bench/run.py --quick    # N = 10, 100, 1000, fewer repetitions (about 2 minutes on 2 cores)
    python bench/run.py --json     # the same measurements as JSON on stdout

Boards are synthetic (seed 0): N attackers cut into groups of
1-4; every group of 2 or more is an attacking band in which every member but the last has banding;
about half the attackers are blocked directly, each by one or two new blockers; a blocker has banding
with probability 1/5. Every third creature has a +1/+1 counter. alice is the active player and attacks
bob. N counts attackers; the blockers come on top (about 0.75 N), see the "permanents" column.

Operations, each a median of several repetitions:

  (a) load     judgelog: Engine.state_from_dict + the first sync into pyDatalog;
               raw: a fresh Logic(), load() of the hand-written rules, assert_fact of every fact;
               python: building the dict indexes from the fact list.
  (b) full     damage_assigner(S, P): who divides the combat damage of every creature.
  (c) point    damage_assigner(a17, P) (a7 when N = 10).
  (d) explain  judgelog: State.explain of the point answer; raw/python have no explanations: the raw
               column repeats the raw point query, the reference the target is stated against.
  (e) actions  put_counters (one +1/+1 counter on a17) and proliferate over every permanent with a
               counter (only when the rules define action_known(proliferate)); raw: retract/assert of
               the counter facts; python: a new counter dict. judgelog: the first action on a loaded
               board (put_first), the one after it (put_second, once: it brings the questions asked before
               the first action up to date), then one action after another (put_counters, proliferate).
  (f) process  `judgelog query` on a 10-creature scenario, whole process, against
               `python -c "import pyDatalog, networkx, yaml"` (and a raw pyDatalog script).

Times are medians of CPU time (time.process_time; for subprocesses user + sys of the child), so that other
work on a shared machine does not count; wall times are in the --json output. Repetitions per N:
REPS_FULL / REPS_QUICK, and HEAVY_REPS for judgelog's actions at N=5000.

Memory: growth of peak RSS for load + full query at the largest N, judgelog against raw, each in a fresh
subprocess (VmHWM after resetting it through /proc/self/clear_refs; ru_maxrss alone is wrong in a child,
which inherits its parent's peak), and, in the full run, the tracemalloc peak in another subprocess.

"raw" is pyDatalog as a user would call it, with Python's cyclic GC on; "raw-gcoff" is the same with
gc.disable() around each call, which is what judgelog's backend does. Every repetition checks that
judgelog, raw and python agree on the full answer set.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))

SIZES_FULL = (10, 100, 1000, 5000)
SIZES_QUICK = (10, 100, 1000)
REPS_FULL = {10: 15, 100: 9, 1000: 5, 5000: 3}
REPS_QUICK = {10: 5, 100: 3, 1000: 2}
HEAVY_REPS = {5000: 1}  # judgelog's actions at N=5000 take seconds each (see docs/performance.md)
PROCESS_REPS_FULL = 7
PROCESS_REPS_QUICK = 3
ENGINES = ("judgelog", "clingo", "raw", "raw_gcoff", "python")  # clingo: judgelog's clingo backend
OPS = ("load", "full", "point", "explain", "put_first", "put_second", "put_counters", "proliferate")
SEED = 0
CLINGO_ACTIONS_UP_TO = 1000  # larger boards: the runtime's questions on the clingo backend ground N^2 atoms

# ---------------------------------------------------------------------------------------------------------
# synthetic boards


class Board:
    """One synthetic combat, independent of any engine."""

    def __init__(self, n: int, seed: int = SEED, max_blockers: int | None = None):
        rng = random.Random(seed)
        self.n = n
        self.attackers = [f"a{i}" for i in range(n)]
        self.bands: list[list[str]] = []
        self.banding = set()
        i = 0
        while i < n:
            size = rng.randint(1, 4)
            group = self.attackers[i : i + size]
            i += size
            if len(group) >= 2:
                self.bands.append(group)
                self.banding.update(group[:-1])  # 702.22c: all but one member of a band have banding
        self.blocks: dict[str, str] = {}  # blocker -> the attacker it blocks
        rng = random.Random(seed + 1)  # a second stream: a17's band and blockers are the same for every N
        for a in self.attackers:
            if rng.random() < 0.5:
                for _ in range(rng.randint(1, 2)):
                    if max_blockers is not None and len(self.blocks) >= max_blockers:
                        break
                    b = f"b{len(self.blocks)}"
                    self.blocks[b] = a
                    if rng.random() < 0.2:
                        self.banding.add(b)
        self.blockers = list(self.blocks)
        self.creatures = self.attackers + self.blockers
        self.counters = {c: 1 for c in self.creatures[::3]}  # +1/+1 counters
        self.point = f"a{17 % n}" if n <= 17 else "a17"

    def controller(self, c: str) -> str:
        return "bob" if c in self.blocks else "alice"

    def scenario(self) -> dict:
        objects = {}
        for c in self.creatures:
            spec = {
                "name": "Attacker" if c.startswith("a") else "Blocker",
                "types": ["creature"],
                "power": 2,
                "toughness": 2,
                "controller": self.controller(c),
            }
            if c in self.banding:
                spec["keywords"] = ["banding"]
            if c in self.counters:
                spec["counters"] = {"+1/+1": self.counters[c]}
            objects[c] = spec
        return {
            "name": f"bench N={self.n}",
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": objects,
            "combat": {
                "attackers": {a: "bob" for a in self.attackers},
                "bands": [list(b) for b in self.bands],
                "blockers": {b: [a] for b, a in self.blocks.items()},
            },
        }

    def raw_facts(self) -> list[tuple]:
        """The facts the hand-written rules need (judgelog's scenario has more per permanent)."""
        out = [("active", "alice")]
        for a in self.attackers:
            out.append(("attacking", a, "bob"))
        for i, band in enumerate(self.bands):
            out += [("in_band", a, f"band{i + 1}") for a in band]
        for b, a in self.blocks.items():
            out.append(("blocking", b, a))
        for c in self.creatures:
            out.append(("controller", c, self.controller(c)))
        out += [("has_banding", c) for c in sorted(self.banding)]
        out += [("counter", c, "p1p1", n) for c, n in self.counters.items()]
        return out


# ---------------------------------------------------------------------------------------------------------
# plain Python reference


class PyBoard:
    def __init__(self, facts: list[tuple]):
        self.attacking: dict[str, str] = {}
        self.band_of: dict[str, str] = {}
        self.members: dict[str, list[str]] = {}
        self.blocking: dict[str, list[str]] = {}  # blocker -> attackers
        self.blockers_of: dict[str, list[str]] = {}  # attacker -> direct blockers
        self.controller: dict[str, str] = {}
        self.banding = set()
        self.counters: dict[str, dict[str, int]] = {}
        self.active = None
        for f in facts:
            kind = f[0]
            if kind == "attacking":
                self.attacking[f[1]] = f[2]
            elif kind == "in_band":
                self.band_of[f[1]] = f[2]
                self.members.setdefault(f[2], []).append(f[1])
            elif kind == "blocking":
                self.blocking.setdefault(f[1], []).append(f[2])
                self.blockers_of.setdefault(f[2], []).append(f[1])
            elif kind == "controller":
                self.controller[f[1]] = f[2]
            elif kind == "has_banding":
                self.banding.add(f[1])
            elif kind == "counter":
                self.counters.setdefault(f[1], {})[f[2]] = f[3]
            elif kind == "active":
                self.active = f[1]

    def blocked_by(self, a: str) -> set:
        band = self.band_of.get(a)
        mates = self.members[band] if band is not None else (a,)
        return {b for m in mates for b in self.blockers_of.get(m, ())}

    def assigner(self, c: str) -> str:
        if c in self.attacking:
            blockers = self.blocked_by(c)
            if not blockers:
                return None  # 510.1b: an unblocked creature has no damage to divide
            if any(b in self.banding for b in blockers):
                return self.attacking[c]  # 702.22j: the defending player
            return self.active  # 510.1c
        blocked = {
            a for a0 in self.blocking[c] for a in (self.members[self.band_of[a0]] if a0 in self.band_of else (a0,))
        }
        if any(a in self.banding for a in blocked):
            return self.active  # 702.22k
        return self.controller[c]  # 510.1d

    def all_assigners(self) -> set:
        pairs = ((c, self.assigner(c)) for c in list(self.attacking) + list(self.blocking))
        return {(c, p) for c, p in pairs if p is not None}


# ---------------------------------------------------------------------------------------------------------
# raw pyDatalog, hand-written rules (pyDatalog's own rule text and API)

RAW_RULES = """
same_band(A, B) <= in_band(A, G) & in_band(B, G) & (A != B)
blocked_by(A, B) <= blocking(B, A)
blocked_by(A, B) <= same_band(A, C) & blocking(B, C)
blocker_has_banding(A) <= blocked_by(A, B) & has_banding(B)
blocks_banding(B) <= blocking(B, A) & has_banding(A)
blocks_banding(B) <= blocking(B, C) & same_band(C, A) & has_banding(A)
who_assigns(A, P) <= attacking(A, P) & blocker_has_banding(A)
who_assigns(A, P) <= attacking(A, D) & blocked_by(A, B) & active(P) & ~blocker_has_banding(A)
who_assigns(B, P) <= blocking(B, A) & active(P) & blocks_banding(B)
who_assigns(B, P) <= blocking(B, A) & controller(B, P) & ~blocks_banding(B)
"""
RAW_PREDICATES = ("in_band", "blocking", "attacking", "has_banding", "active", "controller", "counter")


class Raw:
    def __init__(self, gc_off: bool):
        from pyDatalog import pyDatalog

        self.pyd = pyDatalog
        self.gc_off = gc_off

    def _gc(self):
        """The raw gc-off column disables the GC exactly as judgelog's backend does (same helper)."""
        from contextlib import nullcontext

        from judgelog.database import quiet_gc

        return quiet_gc() if self.gc_off else nullcontext()

    def load(self, facts: list[tuple]) -> None:
        with self._gc():
            self.pyd.clear()  # a fresh database (same as Logic())
            self.pyd.load(RAW_RULES)
            for f in facts:
                self.pyd.assert_fact(*f)

    def ask(self, text: str) -> set:
        with self._gc():
            answer = self.pyd.ask(text)
        return set() if answer is None else set(answer.answers)

    def full(self) -> set:
        return self.ask("who_assigns(X, P)")

    def point(self, c: str) -> set:
        return {(c, p) for (p,) in self.ask(f"who_assigns('{c}', P)")}

    def add_counter(self, targets: list[tuple[str, int]]) -> None:
        with self._gc():
            for c, n in targets:
                self.pyd.retract_fact("counter", c, "p1p1", n)
                self.pyd.assert_fact("counter", c, "p1p1", n + 1)

    def remove_counter(self, targets: list[tuple[str, int]]) -> None:
        with self._gc():
            for c, n in targets:
                self.pyd.retract_fact("counter", c, "p1p1", n + 1)
                self.pyd.assert_fact("counter", c, "p1p1", n)


# ---------------------------------------------------------------------------------------------------------
# timing helpers


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def timed(
    reps: int, setup: Callable | None = None, run: Callable = None, check: Callable | None = None
) -> tuple[float, float]:
    """Medians (ms) of the CPU time and the wall time of ``run()`` over ``reps`` repetitions; ``setup`` and
    ``check`` are untimed. CPU time (time.process_time) is the reported figure: it does not count the
    time other processes take on a shared machine."""
    cpu, wall = [], []
    for _ in range(reps):
        if setup is not None:
            setup()
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        result = run()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if check is not None:
            check(result)
    return _median_ms(cpu), _median_ms(wall)


class Mismatch(AssertionError):
    pass


def _expect(label: str, expected: set):
    def check(got):
        got = set(got)
        if got != expected:
            missing = sorted(expected - got)[:5]
            extra = sorted(got - expected)[:5]
            raise Mismatch(f"{label}: answers differ from the Python reference; missing {missing}, extra {extra}")

    return check


# ---------------------------------------------------------------------------------------------------------
# one size


_PROLIFERATE_PROBE: dict[int, tuple[dict | None, str | None, str | None]] = {}


def _proliferate_action(state) -> tuple[dict | None, str | None]:
    """The proliferate action over every permanent with a counter, or (None, why it is skipped).

    Which choice proliferate asks for (its name) is found once, by probing the action on a 10-attacker
    board (probing runs the action up to its choice, which on a large board costs as much as applying it);
    the recipients are then every permanent with a counter."""
    engine = state.engine
    if id(engine) not in _PROLIFERATE_PROBE:
        small = engine.state_from_dict(Board(10).scenario())
        known = {r["K"] for r in small.query("action_known(K)")}
        if "proliferate" not in known:
            _PROLIFERATE_PROBE[id(engine)] = (None, None, "skipped: the rules define no action_known(proliferate)")
        else:
            from judgelog.runtime import probe_choice

            action = {"do": "proliferate"}
            try:
                params = {r["K"] for r in small.query("action_param(proliferate, K)")}
            except Exception:  # noqa: BLE001 - the predicate may be undeclared in some rule sets
                params = set()
            if "player" in params:
                action["player"] = "alice"
            try:
                needed = probe_choice(small, action)
            except Exception as exc:  # noqa: BLE001 - rules under construction; report instead of failing
                _PROLIFERATE_PROBE[id(engine)] = (
                    None,
                    None,
                    f"skipped: probing proliferate failed: {type(exc).__name__}: {exc}",
                )
            else:
                _PROLIFERATE_PROBE[id(engine)] = (action, needed.name if needed else None, None)
    action, choice, why = _PROLIFERATE_PROBE[id(engine)]
    if action is None:
        return None, why
    action = dict(action)
    if choice is not None:
        action["choose"] = {choice: sorted({f[1] for f in state.facts if f[0] == "counter"})}
    return action, None


def bench_size(n: int, reps: int, engine, notes: list[str], heavy_reps: int | None = None, clingo_engine=None) -> dict:
    """All operations at one size; ``heavy_reps`` (default ``reps``) for judgelog's actions;
    ``clingo_engine``: the same on judgelog's clingo backend (the clingo column)."""
    heavy_reps = heavy_reps or reps
    from judgelog.backend import quiet_gc  # noqa: F401 - imported to fail early if the backend moved

    board = Board(n)
    data = board.scenario()
    facts = board.raw_facts()
    ref = PyBoard(facts)
    expected = ref.all_assigners()
    point_expected = {(board.point, ref.assigner(board.point))}
    times: dict[str, dict[str, float | None]] = {op: {e: None for e in ENGINES} for op in OPS}
    walls: dict[str, dict[str, float | None]] = {op: {e: None for e in ENGINES} for op in OPS}

    def rec(op: str, eng: str, reps_: int, **kw) -> None:
        times[op][eng], walls[op][eng] = timed(reps_, **kw)

    counts = {
        "attackers": n,
        "blockers": len(board.blockers),
        "permanents": len(board.creatures),
        "answers": len(expected),
    }

    # -- plain Python ----------------------------------------------------------------------------
    rec("load", "python", reps, run=lambda: PyBoard(facts))
    rec("full", "python", reps, run=ref.all_assigners, check=_expect("python", expected))
    rec(
        "point",
        "python",
        reps,
        run=lambda: {(board.point, ref.assigner(board.point))},
        check=_expect("python point", point_expected),
    )

    def py_put():
        new = dict(ref.counters)
        new[board.point] = dict(new.get(board.point, {}))
        new[board.point]["p1p1"] = new[board.point].get("p1p1", 0) + 1
        return new

    def py_proliferate():
        return {c: {k: v + 1 for k, v in kinds.items()} for c, kinds in ref.counters.items()}

    rec("put_counters", "python", reps, run=py_put)
    rec("proliferate", "python", reps, run=py_proliferate)

    # -- raw pyDatalog, gc on and gc off -------------------------------------------------------
    for label, gc_off in (("raw", False), ("raw_gcoff", True)):
        raw = Raw(gc_off)
        rec("load", label, reps, run=lambda: raw.load(facts))
        raw.load(facts)
        rec("full", label, reps, run=raw.full, check=_expect(label, expected))
        rec("point", label, reps, run=lambda: raw.point(board.point), check=_expect(label + " point", point_expected))
        times["explain"][label], walls["explain"][label] = times["point"][label], walls["point"][label]
        put = [(board.point, board.counters.get(board.point, 0))] if board.point in board.counters else []
        rec(
            "put_counters",
            label,
            reps,
            setup=lambda: raw.remove_counter(put) if put else None,
            run=lambda: raw.add_counter(put) if put else raw.pyd.assert_fact("counter", board.point, "p1p1", 1),
        )
        every = sorted(board.counters.items())
        state = {"done": False}

        def prolif_setup():
            if state["done"]:
                raw.remove_counter(every)
            state["done"] = True

        rec("proliferate", label, reps, setup=prolif_setup, run=lambda: raw.add_counter(every))
        raw.pyd.clear()
        raw = None  # free its database before the next one is built (the timed closures are done with it)

    # -- judgelog, on each backend ------------------------------------------------------------------
    for label, eng in (("judgelog", engine), ("clingo", clingo_engine)):
        if eng is not None:
            _bench_judgelog(
                label, eng, board, data, facts, point_expected, expected, counts, rec, reps, heavy_reps, notes, times
            )
            gc.collect()
    return {
        "n": n,
        "reps": reps,
        "action_reps": heavy_reps,
        "counts": counts,
        "ms": times,
        "wall_ms": walls,
        "ratios": _ratios(times),
    }


def _bench_judgelog(
    label, engine, board, data, facts, point_expected, expected, counts, rec, reps, heavy_reps, notes, times
) -> None:
    backend = engine.backend
    empty = frozenset()

    def reset():  # leave judgelog's database empty, so that the timed load asserts every fact
        with backend.session(empty):
            pass

    def load():
        state = engine.state_from_dict(data)
        with state._session():
            pass
        return state

    def clear():  # the clingo backend keeps the last states' ground programs: drop them
        if hasattr(backend, "clear"):
            backend.clear()

    def cold():  # clingo: the state's facts ground, no question asked yet (its answers are kept per state)
        if hasattr(backend, "clear"):
            backend.clear()
            with state._session():
                pass

    rec("load", label, reps, setup=lambda: (reset(), clear()), run=load)
    state = load()
    counts["facts"] = len(state.facts)
    counts["raw_facts"] = len(facts)
    to_set = lambda rows: {(r["S"], r["P"]) for r in rows}  # noqa: E731
    rec(
        "full",
        label,
        reps,
        setup=cold,
        run=lambda: to_set(state.query("damage_assigner(S, P)")),
        check=_expect(label, expected),
    )
    rec(
        "point",
        label,
        reps,
        setup=cold,
        run=lambda: {(board.point, r["P"]) for r in state.query(f"damage_assigner({board.point}, P)")},
        check=_expect(label + " point", point_expected),
    )
    ((_, who),) = point_expected
    atom = f"damage_assigner({board.point}, {who})"

    def check_proof(proof):
        if proof is None:
            raise Mismatch(f"judgelog: explain({atom}) found no proof")

    rec("explain", label, reps, setup=cold, run=lambda: state.explain(atom), check=check_proof)
    put_action = {"do": "put_counters", "target": board.point, "kind": "+1/+1", "n": 1}

    def counters(st) -> dict:
        return {f[1]: f[3] for f in st.facts if f[0] == "counter" and f[2] == "p1p1"}

    def counter(st, c) -> int:
        return counters(st).get(c, 0)

    if label == "clingo" and board.n > CLINGO_ACTIONS_UP_TO:
        note = (
            f"clingo backend: actions not measured above N={CLINGO_ACTIONS_UP_TO}; the runtime's questions "
            "reach predicates that pair every two creatures, which clingo grounds in full (N squared)"
        )
        if note not in notes:
            notes.append(note)
        return
    # (e) first: the first action on a freshly loaded board, with nothing remembered of any other state
    # (the runtime checks the whole board once); then, as in a game, one action after another, each on
    # the state the last one made: a step is then checked for what its change can affect
    # (judgelog.incremental), which is what the put_counters and proliferate rows measure.
    from judgelog.answer_cache import AnswerCache

    def first_setup():
        clear()
        engine.answers = AnswerCache(engine.program)
        fresh["state"] = load()

    fresh: dict = {}
    rec("put_first", label, heavy_reps, setup=first_setup, run=lambda: fresh["state"].apply(put_action))
    chain = {"state": state.apply(put_action)[0]}  # a first action: its standing designations recorded

    def chain_run(act):  # one action on the state the last one made (the check is not timed)
        prev = chain["state"]
        chain["state"], events = prev.apply(act)
        return prev, chain["state"]

    def check_put(result):
        prev, new = result
        if counter(new, board.point) != counter(prev, board.point) + 1:
            raise Mismatch("judgelog: put_counters did not add the counter")

    # the second action brings the questions last asked before the first one up to date, in proportion to the
    # first action's change (the standing designations it recorded, thousands of facts): its own row, once;
    # the put_counters row is the steady state after it
    rec("put_second", label, 1, run=lambda: chain_run(put_action), check=check_put)
    rec("put_counters", label, max(heavy_reps, 3), run=lambda: chain_run(put_action), check=check_put)
    action, why = _proliferate_action(chain["state"])
    if action is None:
        if why not in notes:
            notes.append("proliferate " + why)
        times["proliferate"][label] = None
    else:
        pending: dict = {}

        def prolif_setup():
            pending["action"] = _proliferate_action(chain["state"])[0]

        def check_prolif(result):
            prev, new = counters(result[0]), counters(result[1])
            for c in board.counters:
                if new.get(c, 0) != prev.get(c, 0) + 1:
                    raise Mismatch(f"judgelog: proliferate did not add a counter to {c}")

        try:
            rec(
                "proliferate",
                label,
                heavy_reps,
                setup=prolif_setup,
                run=lambda: chain_run(pending["action"]),
                check=check_prolif,
            )
        except Mismatch:
            raise
        except Exception as exc:  # noqa: BLE001 - rules under construction
            notes.append(f"{label}: proliferate failed at N={board.n}: {type(exc).__name__}: {exc}")
            times["proliferate"][label] = None
    reset()
    state = None  # free the board's state before the next backend's (the timed closures are done with it)


def _ratios(times) -> dict:
    out = {}
    for op, row in times.items():
        j, c, r, rg, p = (row[e] for e in ENGINES)
        out[op] = {
            "judgelog/raw": j / r if j is not None and r else None,
            "judgelog/raw_gcoff": j / rg if j is not None and rg else None,
            "raw/python": r / p if r is not None and p else None,
            "clingo/python": c / p if c is not None and p else None,
        }
    return out


# ---------------------------------------------------------------------------------------------------------
# memory (fresh subprocesses)


def _child_memory(kind: str, n: int, traced: bool) -> dict:
    """Runs in a fresh process: growth of peak RSS (KiB) or the tracemalloc peak (bytes) for load + full."""
    board = Board(n)
    data, facts = board.scenario(), board.raw_facts()
    if kind in ("judgelog", "clingo"):
        from judgelog import Engine

        engine = Engine(backend="clingo" if kind == "clingo" else "pydatalog")
        warm = engine.state_from_dict(Board(3).scenario())  # imports and library loaded before measuring
        warm.query("damage_assigner(S, P)")

        def work():
            state = engine.state_from_dict(data)
            return len(state.query("damage_assigner(S, P)")), state
    else:
        raw = Raw(gc_off=True)
        raw.load(Board(3).raw_facts())
        raw.full()

        def work():
            raw.load(facts)
            return len(raw.full()), raw

    gc.collect()
    if traced:
        import tracemalloc

        tracemalloc.start()
        count, keep = work()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return {"answers": count, "traced_peak_bytes": peak}
    before, method = _peak_reset()
    count, keep = work()
    after = _peak_kib(method)
    return {"answers": count, "rss_growth_kib": after - before, "rss_method": method}


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _peak_reset() -> tuple[int, str]:
    """Start a peak-RSS measurement; returns the baseline (KiB) and the method used.

    ru_maxrss is not usable on its own in a child: Linux carries the parent's high-water mark across
    fork+exec, so a child of a large parent starts with the parent's peak. Resetting VmHWM through
    /proc/self/clear_refs gives a clean baseline; without it, VmHWM (per address space, reset by exec)
    is used as is."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        rss = _status_kib("VmRSS")
        if rss is not None:
            return rss, "VmHWM after clear_refs"
    except OSError:
        pass
    hwm = _status_kib("VmHWM")
    if hwm is not None:
        return hwm, "VmHWM"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ru_maxrss"


def _peak_kib(method: str) -> int:
    if method.startswith("VmHWM"):
        return _status_kib("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure_memory(n: int, traced: bool) -> dict:
    out = {"n": n}
    for kind in ("judgelog", "raw") + (("clingo",) if _has_clingo() else ()):
        row = {}
        modes = (False, True) if traced else (False,)
        for mode in modes:
            cmd = [sys.executable, os.path.abspath(__file__), "--child-memory", kind, str(n)] + (
                ["--traced"] if mode else []
            )
            proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
            row.update(json.loads(proc.stdout.strip().splitlines()[-1]))
        out[kind] = row
    j, r = out["judgelog"]["rss_growth_kib"], out["raw"]["rss_growth_kib"]
    out["rss_ratio"] = j / r if r else float("inf")
    if traced:
        out["traced_ratio"] = out["judgelog"]["traced_peak_bytes"] / out["raw"]["traced_peak_bytes"]
    if "clingo" in out:
        out["clingo_rss_ratio"] = out["clingo"]["rss_growth_kib"] / r if r else float("inf")
    return out


def _has_clingo() -> bool:
    try:
        import clingo  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------------------------------------
# whole process


RAW_SCRIPT = """
import json, sys
from pyDatalog import pyDatalog
pyDatalog.load(RULES)
for f in json.load(open(sys.argv[1])):
    pyDatalog.assert_fact(*f)
for row in sorted(pyDatalog.ask("who_assigns(X, P)").answers):
    print(*row)
"""


def _child_env(tmp: str) -> dict[str, str]:
    """The environment of the timed children: as an installed judgelog runs, from compiled bytecode (pip
    compiles a wheel's modules when it installs them). With PYTHONDONTWRITEBYTECODE set (as on some
    machines), every child would compile judgelog's source again, since an editable checkout has no .pyc
    until one is written; the children write theirs (and read every module's) under ``tmp``, so the source
    tree stays as it is, and the untimed warm-up run of each command writes them."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _judgelog_command() -> list[str]:
    script = os.path.join(os.path.dirname(sys.executable), "judgelog")
    if os.path.exists(script):
        return [script]
    found = shutil.which("judgelog")
    return [found] if found else [sys.executable, "-m", "judgelog.cli"]


def measure_process(reps: int) -> dict:
    board = Board(7, max_blockers=3)  # 10 creatures
    with tempfile.TemporaryDirectory() as tmp:
        scenario = os.path.join(tmp, "ten.json")
        with open(scenario, "w") as fh:
            json.dump(board.scenario(), fh)
        raw_facts = os.path.join(tmp, "facts.json")
        with open(raw_facts, "w") as fh:
            json.dump(board.raw_facts(), fh)
        raw_py = os.path.join(tmp, "raw.py")
        with open(raw_py, "w") as fh:
            fh.write(f"RULES = {RAW_RULES!r}\n" + RAW_SCRIPT)
        commands = {
            "judgelog_query": _judgelog_command() + ["query", scenario, "damage_assigner(S, P)"],
            "judgelog_help": _judgelog_command() + ["--help"],
            "import_baseline": [sys.executable, "-c", "import pyDatalog, networkx, yaml"],
            "raw_script": [sys.executable, raw_py, raw_facts],
            "python_startup": [sys.executable, "-c", "pass"],
        }
        env = _child_env(tmp)
        out = {"creatures": len(board.creatures), "commands": {k: " ".join(v) for k, v in commands.items()}}
        samples: dict[str, list[float]] = {k: [] for k in commands}
        for name, cmd in commands.items():  # one untimed warm-up each (file cache, .pyc)
            subprocess.run(cmd, capture_output=True, env=env, check=name != "judgelog_help")
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(reps):
            for name, cmd in commands.items():
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, env=env, text=True)
                samples[name].append(time.perf_counter() - t0)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
                if name == "judgelog_query" and proc.returncode != 0:
                    raise Mismatch(f"judgelog query failed: {proc.stderr}")
        expected = PyBoard(board.raw_facts()).all_assigners()
        jl = subprocess.run(commands["judgelog_query"] + ["--format", "json"], capture_output=True, text=True)
        answers = {(a["S"], a["P"]) for a in json.loads(jl.stdout)["answers"]}
        rw = subprocess.run(commands["raw_script"], capture_output=True, text=True)
        raw_answers = {tuple(line.split()) for line in rw.stdout.splitlines()}
        if answers != expected or raw_answers != expected:
            raise Mismatch("whole-process answers differ from the Python reference")
    out["ms"] = {k: _median_ms(v) for k, v in cpu.items()}  # CPU time (user + sys) of the child
    out["wall_ms"] = {k: _median_ms(v) for k, v in samples.items()}
    out["ratio_query_vs_import"] = out["ms"]["judgelog_query"] / out["ms"]["import_baseline"]
    out["ratio_query_vs_import_wall"] = out["wall_ms"]["judgelog_query"] / out["wall_ms"]["import_baseline"]
    return out


# ---------------------------------------------------------------------------------------------------------
# whole process on large JSON boards and on the Quick start scenario (start-up: parsing, library cache)

WHOLE_SIZES_FULL = (1000, 5000)
WHOLE_SIZES_QUICK = (1000,)
WHOLE_REPS = {1000: 3, 5000: 1}
PY_SCRIPT = """
import json, sys
sys.path.insert(0, HERE)
from run import PyBoard
for row in sorted(PyBoard(json.load(open(sys.argv[1]))).all_assigners()):
    print(*row)
"""


def _child_cpu(cmd: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """(CPU seconds of the child, wall seconds, the completed process)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, wall, proc


def measure_whole_process(
    sizes=WHOLE_SIZES_FULL, reps: dict[int, int] | None = None, quick_reps: int = PROCESS_REPS_FULL
) -> dict:
    """`judgelog query` as a user runs it, against the raw pyDatalog script and a plain-Python script doing
    the same derivation on the same board, each a fresh process; judgelog with its library cache warm (its
    usual state after the first run) and cold (--no-cache). Also the Quick start command against
    `python -c "import pyDatalog, networkx, yaml"`."""
    reps = reps or WHOLE_REPS
    jl = _judgelog_command()
    out: dict = {"boards": [], "quick_start": {}}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(_child_env(tmp), XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("JUDGELOG_NO_CACHE", None)
        py_script = os.path.join(tmp, "python_ref.py")
        with open(py_script, "w") as fh:
            fh.write(f"HERE = {HERE!r}\n" + PY_SCRIPT)
        raw_py = os.path.join(tmp, "raw.py")
        with open(raw_py, "w") as fh:
            fh.write(f"RULES = {RAW_RULES!r}\n" + RAW_SCRIPT)
        for n in sizes:
            board = Board(n)
            scenario = os.path.join(tmp, f"board{n}.json")
            facts = os.path.join(tmp, f"facts{n}.json")
            with open(scenario, "w") as fh:
                json.dump(board.scenario(), fh)
            with open(facts, "w") as fh:
                json.dump(board.raw_facts(), fh)
            query = jl + ["query", scenario, "damage_assigner(S, P)", "--limit", "0", "--format", "json"]
            commands = {
                "judgelog_query": query,
                "judgelog_query_no_cache": query + ["--no-cache"],
                **({"judgelog_query_clingo": query + ["--backend", "clingo"]} if _has_clingo() else {}),
                "raw_script": [sys.executable, raw_py, facts],
                "python_script": [sys.executable, py_script, facts],
            }
            expected = PyBoard(board.raw_facts()).all_assigners()
            cpu: dict[str, list[float]] = {k: [] for k in commands}
            wall: dict[str, list[float]] = {k: [] for k in commands}
            for name, cmd in commands.items():  # warm-up: file cache, .pyc, and judgelog's library cache
                proc = subprocess.run(cmd, capture_output=True, env=env, text=True)
                if name.startswith("judgelog"):
                    got = {(a["S"], a["P"]) for a in json.loads(proc.stdout)["answers"]}
                else:
                    got = {tuple(line.split()) for line in proc.stdout.splitlines()}
                if got != expected:
                    raise Mismatch(f"whole process N={n}: {name} answers differ from the Python reference")
            for _ in range(reps.get(n, 1)):
                for name, cmd in commands.items():
                    c, w, _proc = _child_cpu(cmd, env)
                    cpu[name].append(c)
                    wall[name].append(w)
            row = {
                "n": n,
                "bytes": os.path.getsize(scenario),
                "reps": reps.get(n, 1),
                "ms": {k: _median_ms(v) for k, v in cpu.items()},
                "wall_ms": {k: _median_ms(v) for k, v in wall.items()},
            }
            row["ratio_vs_raw"] = row["ms"]["judgelog_query"] / row["ms"]["raw_script"]
            out["boards"].append(row)
        quick = os.path.join(os.path.dirname(HERE), "facts", "scenarios", "banding_blocked_by_one.yaml")
        if not os.path.exists(quick):  # an installed judgelog: its bundled copy
            from judgelog import Engine

            quick = Engine.example("banding_blocked_by_one.yaml")
        cmd = jl + ["explain", quick, "damage_assigner(bears, alice)"]
        commands = {
            "judgelog_explain": cmd,
            "judgelog_explain_no_cache": cmd + ["--no-cache"],
            "import_baseline": [sys.executable, "-c", "import pyDatalog, networkx, yaml"],
        }
        cpu = {k: [] for k in commands}
        for c in commands.values():  # a first run of each, not timed
            subprocess.run(c, capture_output=True, env=env, check=True)
        for _ in range(quick_reps):
            for name, c in commands.items():
                cpu[name].append(_child_cpu(c, env)[0])
        out["quick_start"] = {
            "ms": {k: _median_ms(v) for k, v in cpu.items()},
            "command": 'judgelog explain facts/scenarios/banding_blocked_by_one.yaml "damage_assigner(bears, alice)"',
        }
        q = out["quick_start"]["ms"]
        out["quick_start"]["ratio_vs_import"] = q["judgelog_explain"] / q["import_baseline"]
    return out


def whole_process_targets(whole: dict) -> list[dict]:
    targets = []
    for row in whole["boards"]:
        if row["n"] == 1000:
            v = row["ratio_vs_raw"]
            targets.append(
                {
                    "target": "`judgelog query` whole process on the N=1000 JSON board / raw pyDatalog script (CPU)",
                    "value": v,
                    "limit": 1.0,
                    "met": v <= 1.0,
                    "detail": f"--no-cache: {row['ms']['judgelog_query_no_cache'] / row['ms']['raw_script']:.2f}",
                }
            )
    v = whole["quick_start"]["ratio_vs_import"]
    q = whole["quick_start"]["ms"]
    targets.append(
        {
            "target": "Quick start `judgelog explain` whole process / import baseline (CPU)",
            "value": v,
            "limit": 1.2,
            "met": v <= 1.2,
            "detail": f"--no-cache: {q['judgelog_explain_no_cache'] / q['import_baseline']:.2f}",
        }
    )
    return targets


def render_whole_process(whole: dict) -> list[str]:
    lines = [
        "",
        "Whole process on JSON boards (CPU ms, user+sys of the child; medians; judgelog prints every "
        "answer as JSON, the scripts every row):",
        "",
        "| N (file size) | judgelog query | judgelog query --no-cache | judgelog query --backend clingo | "
        "raw pyDatalog script | plain Python script | judgelog/raw | clingo backend/raw |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in whole["boards"]:
        m = row["ms"]
        c = m.get("judgelog_query_clingo")
        lines.append(
            f"| {row['n']} ({row['bytes'] / 1024:.0f} KiB) | {_fmt(m['judgelog_query'])} | "
            f"{_fmt(m['judgelog_query_no_cache'])} | {_fmt(c)} | {_fmt(m['raw_script'])} | "
            f"{_fmt(m['python_script'])} | {_fmt(row['ratio_vs_raw'])} | "
            f"{_fmt(c / m['raw_script'] if c else None)} |"
        )
    q = whole["quick_start"]["ms"]
    lines += [
        "",
        f"Quick start command (`{whole['quick_start']['command']}`), CPU ms: "
        f"{_fmt(q['judgelog_explain'])} with the library cache, {_fmt(q['judgelog_explain_no_cache'])} "
        f'with --no-cache; `python -c "import pyDatalog, networkx, yaml"`: {_fmt(q["import_baseline"])}.',
    ]
    return lines


# ---------------------------------------------------------------------------------------------------------
# choices: every legal band declaration of 14 attackers

CHOICE_ATTACKERS = 14


def measure_choices(reps: int, *, clingo: bool = True) -> dict:
    """`choices bands` (list_choices) on a board of CHOICE_ATTACKERS attackers: the pyDatalog backend checks
    candidate bands one by one, the clingo backend enumerates them with one choice rule."""
    from judgelog import Engine
    from judgelog.choices import list_choices

    board = Board(CHOICE_ATTACKERS)
    out: dict = {"attackers": CHOICE_ATTACKERS, "ms": {}}
    answers = {}
    for name in ("pydatalog", "clingo") if clingo and _has_clingo() else ("pydatalog",):
        engine = Engine(backend=name)
        state = engine.state_from_dict(board.scenario())
        state.query("attacking(A, P)")  # the state loaded: only the enumeration is timed
        cpu, _ = timed(1 if name == "pydatalog" else reps, run=lambda: list_choices(state, "bands"))
        data, _ = list_choices(state, "bands")
        answers[name] = (data["count"], data["legal_bands"])
        out["ms"][name] = cpu
        out["count"] = data["count"]
        out["legal_bands"] = len(data["legal_bands"])
    if len({repr(a) for a in answers.values()}) != 1:
        raise Mismatch("choices bands: the backends list different bands")
    return out


# ---------------------------------------------------------------------------------------------------------
# targets and output


def evaluate_targets(results: list[dict], memory: dict | None, process: dict) -> list[dict]:
    by_n = {r["n"]: r for r in results}
    targets = []

    def add(name, value, limit, ok, detail=""):
        targets.append({"target": name, "value": value, "limit": limit, "met": ok, "detail": detail})

    for n, limit in ((1000, 1.0), (5000, 0.5)):
        if n in by_n:
            v = by_n[n]["ratios"]["full"]["judgelog/raw"]
            add(
                f"full damage_assigner query, judgelog/raw at N={n}",
                v,
                limit,
                v <= limit,
                f"against raw with gc off: {by_n[n]['ratios']['full']['judgelog/raw_gcoff']:.2f}",
            )
    if 1000 in by_n and 5000 in by_n:
        g = by_n[5000]["ms"]["full"]["judgelog"] / by_n[1000]["ms"]["full"]["judgelog"]
        gl = by_n[5000]["ms"]["load"]["judgelog"] / by_n[1000]["ms"]["load"]["judgelog"]
        add("growth of the full query 1000 -> 5000", g, 6.0, g <= 6.0, f"load grows {gl:.1f}x")
    same = [r for r in results if r["n"] > 17] or results  # a17 exists (N=10 asks about a7, another case)
    for op in ("point", "explain"):
        worst = max(r["ms"][op]["judgelog"] / r["ms"]["point"]["raw"] for r in results)
        add(f"{op}: judgelog / raw point query (worst N)", worst, 10.0, worst < 10.0)
        vals = [r["ms"][op]["judgelog"] for r in same]
        flat = max(vals) / min(vals)
        add(
            f"{op} flat in N (slowest / fastest N, a17)",
            flat,
            2.0,
            flat <= 2.0,
            ", ".join(f"N={r['n']}: {r['ms'][op]['judgelog']:.2f} ms" for r in same),
        )
    for eng, name in (("judgelog", "pyDatalog backend"), ("clingo", "clingo backend")):
        if 1000 in by_n and by_n[1000]["ms"]["put_counters"][eng] is not None:
            ms = by_n[1000]["ms"]
            v = ms["put_counters"][eng] / ms["point"][eng]
            add(
                f"put_counters on one creature / point query at N=1000, {name}",
                v,
                20.0,
                v <= 20.0,
                f"{ms['put_counters'][eng]:.1f} ms / {ms['point'][eng]:.2f} ms; first action on the loaded board: "
                f"{_fmt(ms['put_first'][eng])} ms, the one after it: {_fmt(ms['put_second'][eng])} ms",
            )
        if 1000 in by_n and 5000 in by_n and by_n[5000]["ms"]["put_counters"][eng] is not None:
            a, b = by_n[1000]["ms"]["put_counters"][eng], by_n[5000]["ms"]["put_counters"][eng]
            add(f"put_counters flat from N=1000 to N=5000 (ratio), {name}", b / a, 1.5, b / a <= 1.5)
        if 5000 in by_n and by_n[5000]["ms"]["proliferate"][eng] is not None:
            v = by_n[5000]["ms"]["proliferate"][eng] / 1000
            add(f"proliferate over every permanent at N=5000 (s), {name}", v, 1.0, v <= 1.0)
    if 5000 in by_n and by_n[5000]["ratios"]["full"]["clingo/python"] is not None:
        v = by_n[5000]["ratios"]["full"]["clingo/python"]
        add("full damage_assigner query, clingo backend / plain Python at N=5000", v, 10.0, v <= 10.0)
    if memory is not None and "clingo_rss_ratio" in memory:
        v = memory["clingo_rss_ratio"]
        add(f"memory (peak RSS growth) clingo backend/raw at N={memory['n']}", v, 0.5, v <= 0.5)
    if memory is not None:
        v = memory["rss_ratio"]
        add(
            f"memory (peak RSS growth) judgelog/raw at N={memory['n']}",
            v,
            1.2,
            v <= 1.2,
            f"tracemalloc peak ratio {memory['traced_ratio']:.2f}" if memory.get("traced_ratio") else "",
        )
    v = process["ratio_query_vs_import"]
    add(
        "`judgelog query` whole process / import baseline (CPU)",
        v,
        1.5,
        v <= 1.5,
        f"wall: {process['ratio_query_vs_import_wall']:.2f}",
    )
    return targets


def choices_targets(choices: dict) -> list[dict]:
    if "clingo" not in choices["ms"]:
        return []
    v = choices["ms"]["clingo"] / 1000
    return [
        {
            "target": f"`choices bands` for {choices['attackers']} attackers on the clingo backend (s)",
            "value": v,
            "limit": 0.2,
            "met": v <= 0.2,
            "detail": f"pyDatalog backend: {choices['ms']['pydatalog'] / 1000:.1f} s",
        }
    ]


def render_choices(choices: dict) -> list[str]:
    ms = choices["ms"]
    return [
        "",
        f"`choices bands` on {choices['attackers']} attackers ({choices['legal_bands']} legal bands, "
        f"{choices['count']:,} declarations; CPU ms): pyDatalog backend {_fmt(ms['pydatalog'])}, clingo backend "
        f"{_fmt(ms.get('clingo'))}.",
    ]


def machine() -> dict:
    import pyDatalog.pyEngine as engine_mod

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    from importlib.metadata import version

    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "pyDatalog": version("pyDatalog"),
        "pyDatalog_engine": "compiled" if engine_mod.__file__.endswith((".so", ".pyd")) else "pure Python",
    }


def _fmt(v, digits=2) -> str:
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 0.1:
        return f"{v:.{digits}f}"
    return f"{v:.3f}"


def render_text(report: dict) -> str:
    m = report["machine"]
    lines = [
        f"judgelog benchmark ({'quick' if report['quick'] else 'full'}) on {m['nproc']} CPU(s) "
        f"{m['cpu']}, Python {m['python']}, pyDatalog {m['pyDatalog']} ({m['pyDatalog_engine']} engine)",
        f"load average {report['loadavg'][0]:.2f} at the start, {report['loadavg'][1]:.2f} at the end",
        "",
        "Times are medians of CPU time (time.process_time) in ms; ratios are of medians. Wall times are in "
        "the --json output. Repetitions: "
        + ", ".join(
            f"N={r['n']}: {r['reps']}"
            + (f" (judgelog actions: {r['action_reps']})" if r["action_reps"] != r["reps"] else "")
            for r in report["results"]
        )
        + ".",
        "",
        "| N (permanents, judgelog facts / raw facts) | operation | judgelog | clingo backend | raw | "
        "raw gc-off | python | judgelog/raw | judgelog/raw-gcoff | raw/python | clingo/python |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    names = {
        "load": "(a) load",
        "full": "(b) full damage_assigner",
        "point": "(c) point query",
        "explain": "(d) explain (raw: point query)",
        "put_first": "(e) put_counters, first action on the loaded board",
        "put_second": "(e) put_counters, the action after the first (one run)",
        "put_counters": "(e) put_counters, one action after another",
        "proliferate": "(e) proliferate, one action after another",
    }
    for r in report["results"]:
        c = r["counts"]
        label = f"{r['n']} ({c['permanents']}, {c['facts']} / {c['raw_facts']})"
        for op in OPS:
            row, rat = r["ms"][op], r["ratios"][op]
            if all(row[e] is None for e in ENGINES):
                continue
            lines.append(
                f"| {label} | {names[op]} | "
                + " | ".join(_fmt(row[e]) for e in ENGINES)
                + " | "
                + " | ".join(
                    _fmt(rat[k]) for k in ("judgelog/raw", "judgelog/raw_gcoff", "raw/python", "clingo/python")
                )
                + " |"
            )
    mem = report.get("memory")
    if mem:
        lines += [
            "",
            f"Memory at N={mem['n']} (load + full query, fresh process each):",
            "",
            "| | judgelog | raw | judgelog/raw |",
            "|---|---:|---:|---:|",
            f"| peak RSS growth ({mem['judgelog']['rss_method']}) | "
            f"{mem['judgelog']['rss_growth_kib'] / 1024:.1f} MB | "
            f"{mem['raw']['rss_growth_kib'] / 1024:.1f} MB | {_fmt(mem['rss_ratio'])} |",
        ]
        if "clingo" in mem:
            lines.append(
                f"| peak RSS growth, clingo backend | {mem['clingo']['rss_growth_kib'] / 1024:.1f} MB | "
                f"{mem['raw']['rss_growth_kib'] / 1024:.1f} MB | {_fmt(mem['clingo_rss_ratio'])} |"
            )
        if "traced_ratio" in mem:
            lines.append(
                f"| tracemalloc peak | {mem['judgelog']['traced_peak_bytes'] / 2**20:.1f} MB | "
                f"{mem['raw']['traced_peak_bytes'] / 2**20:.1f} MB | {_fmt(mem['traced_ratio'])} |"
            )
    p = report["process"]
    lines += [
        "",
        f"Whole process, {p['creatures']}-creature scenario (medians, ms):",
        "",
        "| command | CPU (user+sys) | wall |",
        "|---|---:|---:|",
    ]
    labels = {
        "judgelog_query": '`judgelog query S "damage_assigner(S, P)"`',
        "judgelog_help": "`judgelog --help`",
        "import_baseline": '`python -c "import pyDatalog, networkx, yaml"`',
        "raw_script": "raw pyDatalog script (load rules, assert, ask)",
        "python_startup": "`python -c pass`",
    }
    for k in labels:
        if k in p["ms"]:
            lines.append(f"| {labels[k]} | {_fmt(p['ms'][k])} | {_fmt(p['wall_ms'][k])} |")
    if report.get("whole_process"):
        lines += render_whole_process(report["whole_process"])
    if report.get("choices"):
        lines += render_choices(report["choices"])
    lines += ["", "Targets:", "", "| target | value | limit | met |", "|---|---:|---:|---|"]
    for t in report["targets"]:
        detail = f" ({t['detail']})" if t["detail"] else ""
        lines.append(f"| {t['target']}{detail} | {_fmt(t['value'])} | {t['limit']} | {'yes' if t['met'] else 'NO'} |")
    if report["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in report["notes"]]
    lines.append(f"\nTotal run time: {report['seconds']:.0f} s; all engines agreed on every answer.")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="N = 10, 100, 1000 with fewer repetitions")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--sizes", help="comma-separated N values (overrides --quick's sizes)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    parser.add_argument(
        "--no-whole-process",
        action="store_true",
        help="skip the whole-process rows on JSON boards (N=1000, and 5000 in the full run)",
    )
    parser.add_argument(
        "--no-clingo", action="store_true", help="skip the clingo backend's column (and its `choices bands` row)"
    )
    parser.add_argument("--child-memory", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    if args.child_memory:
        kind, n = args.child_memory
        print(json.dumps(_child_memory(kind, int(n), args.traced)))
        return 0

    started = time.perf_counter()
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    from judgelog import Engine

    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (SIZES_QUICK if args.quick else SIZES_FULL)
    reps_table = REPS_QUICK if args.quick else REPS_FULL
    engine = Engine()  # the join-size guard (L004) on, as for any user: it sizes atoms with constants
    clingo_engine = Engine(backend="clingo") if _has_clingo() and not args.no_clingo else None
    notes: list[str] = (
        []
        if clingo_engine
        else ["--no-clingo: no clingo column" if args.no_clingo else "clingo is not installed: no clingo column"]
    )
    results = []
    for n in sizes:
        reps = reps_table.get(n, 3)
        if not args.json:
            print(f"N={n} ({reps} repetitions) ...", file=sys.stderr, flush=True)
        results.append(
            bench_size(
                n, reps, engine, notes, HEAVY_REPS.get(n) if not args.quick else None, clingo_engine=clingo_engine
            )
        )
    memory = None
    if not args.no_memory:
        n_mem = max(sizes)
        if not args.json:
            print(f"memory at N={n_mem} ...", file=sys.stderr, flush=True)
        memory = measure_memory(n_mem, traced=not args.quick)
    if not args.json:
        print("whole-process timings ...", file=sys.stderr, flush=True)
    process = measure_process(PROCESS_REPS_QUICK if args.quick else PROCESS_REPS_FULL)
    whole = None
    if not args.no_whole_process:
        if not args.json:
            print("whole-process timings on JSON boards ...", file=sys.stderr, flush=True)
        whole = measure_whole_process(
            WHOLE_SIZES_QUICK if args.quick else WHOLE_SIZES_FULL,
            quick_reps=PROCESS_REPS_QUICK if args.quick else PROCESS_REPS_FULL,
        )
    if not args.json:
        print(f"choices bands, {CHOICE_ATTACKERS} attackers ...", file=sys.stderr, flush=True)
    choices = measure_choices(3 if args.quick else 5, clingo=not args.no_clingo)
    report = {
        "quick": args.quick,
        "machine": machine(),
        "results": results,
        "memory": memory,
        "process": process,
        "whole_process": whole,
        "choices": choices,
        "notes": notes,
    }
    report["targets"] = (
        evaluate_targets(results, memory, process)
        + (whole_process_targets(whole) if whole else [])
        + choices_targets(choices)
    )
    report["seconds"] = time.perf_counter() - started
    report["loadavg"] = (load_start, os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"))
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print(render_text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
