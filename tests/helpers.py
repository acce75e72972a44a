"""Helpers shared by the tests: run the command line in-process and capture what it prints; a watchdog; a
creature written out for a scenario given as data."""

from __future__ import annotations

import contextlib
import json
import re
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from judgelog.cli import main

DIAG_RE = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning)"
    r"\[(?P<code>[A-Z]\d{3})\]: (?P<message>.*)$",
    re.MULTILINE,
)


class Run(NamedTuple):
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)

    def diagnostics(self) -> list[tuple]:
        """(file, line, col, severity, code) of every ``file:line:col: severity[CODE]`` line of stderr."""
        return [
            (m["file"], int(m["line"]), int(m["col"]), m["severity"], m["code"]) for m in DIAG_RE.finditer(self.err)
        ]


def run_cli(capsys, argv: Sequence[str]) -> Run:
    """Run ``judgelog ARGV`` in this process; returns the exit code and the captured stdout/stderr."""
    capsys.readouterr()  # drop anything printed before
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


@contextlib.contextmanager
def alarm(seconds: int, failure: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``failure()`` if the block runs longer than ``seconds`` (SIGALRM, main thread): a hang fails the
    test that caused it instead of stalling the suite."""

    def fire(signum, frame):
        raise failure()

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def watchdog(seconds: int = 30) -> contextlib.AbstractContextManager[None]:
    """:func:`alarm` raising TimeoutError."""
    return alarm(seconds, lambda: TimeoutError(f"no answer after {seconds} s"))


def creature(name: str, power: int, toughness: int, controller: str, *keywords: str) -> dict:
    """A scenario object (``objects:`` entry) for a creature that is no catalog card."""
    spec: dict = {"name": name, "types": ["creature"], "power": power, "toughness": toughness}
    if keywords:
        spec["keywords"] = list(keywords)
    return {**spec, "controller": controller}


def upkeep_board(engine) -> object:
    """Alice (1 life) in her upkeep with cumulative upkeep—pay 2 life on the stack, its age counter put."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "bob",
            "life": {"alice": 1},
            "objects": {
                "chasm": {
                    "name": "Age Chasm",
                    "types": ["enchantment"],
                    "controller": "alice",
                    "keywords": [{"cumulative_upkeep": {"life": 2}}],
                },
            },
        }
    )
    for action in ({"do": "end_turn"}, {"do": "begin_turn", "player": "alice"}):
        state = state.apply(action)[0]
    return state
