"""judgelog verify: a follow-up action the clingo search cannot follow goes to the reference enumerator on its
own (the rest of its task stays on the search, with the same answers), each fallback note is printed once, and
a progress line per finished task goes to stderr when it is not a terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli
from test_verify import BUGS, _library_without, _scope_file

from judgelog import Engine
from judgelog.boards import shapes, tasks
from judgelog.scope import load_scope
from judgelog.verify import merge, run_task
from judgelog.verify_search import search_shape

TAP = {"do": "tap", "object": "$creature"}
PUT = {"do": "put_counters", "target": "$creature", "kind": "+1/+1", "n": 1}  # put_counters: not in the search
STEAL = {"do": "gain_control", "object": "$creature", "player": "$player"}
STEAL_LIST = {"do": "gain_control", "object": ["$creature"], "player": "$player"}  # a list: not in the search


@pytest.fixture(scope="module")
def soulbond_broken(tmp_path_factory) -> Path:
    """The library with soulbond's pair kept when a creature changes control (pair_breaks, 702.95e)."""
    return _library_without(tmp_path_factory.mktemp("broken-soulbond"), BUGS / "soulbond_keeps_pair.dl")


def _searched_and_listed(engine: Engine, data: dict) -> tuple[dict, dict]:
    scope = load_scope(data, engine)
    searched = merge(scope, [search_shape(engine, scope, s) for s in shapes(scope)])
    listed = merge(scope, [run_task(engine, scope, t) for t in tasks(scope)])
    return searched, listed


@pytest.mark.slow
def test_only_the_follow_up_the_search_cannot_follow_goes_to_the_reference_enumerator(tmp_path, capsys):
    scope = {"creatures": 2, "keywords": ["banding", "flying"], "power": [1], "toughness": [1]}
    scope["follow_up"] = [TAP, PUT]
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope), "--format", "json"])
    data = run.json()
    assert run.code == 0 and data["boards"] == 27
    assert {f["task"] for f in data["fallback"]} == {"n1-s01", "n1-s10", "n2-s02", "n2-s11", "n2-s20"}
    for f in data["fallback"]:
        assert "the effect primitive put_counters in a step of the follow-up action put_counters" in f["reason"]
        assert f["follow_ups"] == ["{do: put_counters, kind: +1/+1, n: 1, target: $creature}"]  # not tap
    text = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope)]).out
    assert (
        "the follow-up action {do: put_counters, kind: +1/+1, n: 1, target: $creature} checked by the reference "
        "enumerator, the rest of the task by the search" in text
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "follow_up, referenced",
    [
        # the counterexample is found by the search (gain_control), the other follow-up by the enumerator
        ([STEAL, PUT], "put_counters"),
        # the counterexample is found only after the follow-up the enumerator checks (a list argument)
        ([TAP, STEAL_LIST], "gain_control"),
    ],
)
def test_a_split_task_finds_the_reference_enumerators_counterexamples(soulbond_broken, follow_up, referenced):
    data = {
        "creatures": 2,
        "keywords": ["soulbond"],
        "power": [1],
        "toughness": [1],
        "declare": ["pairs"],
        "same_controller": ["pairs"],
        "follow_up": follow_up,
    }
    searched, listed = _searched_and_listed(Engine(properties=True, library=str(soulbond_broken)), data)
    assert searched["boards"] == listed["boards"] > 0
    assert [c["property"] for c in searched["counterexamples"]] == ["pair_breaks"]
    assert searched["counterexamples"] == listed["counterexamples"]
    assert searched["fallback"] and all(
        [f.split(",")[0] for f in follow_ups] == ["{do: " + referenced]
        for _task, _why, follow_ups in searched["fallback"]
    )


@pytest.mark.slow  # about a second or two
def test_a_fallback_note_is_printed_once(tmp_path, capsys):
    # two follow-up actions with the same list argument give one reason: one note per task, not two
    scope = {"creatures": 1, "keywords": [], "keywords_per_creature": 0, "power": [1], "toughness": [1]}
    scope["follow_up"] = [STEAL_LIST, dict(STEAL_LIST, player="p2")]
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope)])
    assert run.code == 0, run.out + run.err
    notes = [line for line in run.out.splitlines() if line.startswith("note: task n1-")]
    assert notes and len(notes) == len(set(notes)), notes


TINY = {"creatures": 1, "keywords": [], "keywords_per_creature": 0, "power": [1], "toughness": [1]}


@pytest.mark.slow  # about a second or two
def test_a_progress_line_per_finished_task_goes_to_stderr_off_a_terminal(tmp_path, capsys):
    path = _scope_file(tmp_path, TINY)
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path])  # capsys' stderr is not a terminal
    quiet = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "--quiet"])
    assert run.code == quiet.code == 0
    lines = run.err.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["verify: task n1-s01 done", "verify: task n1-s10 done"]
    assert lines[0].startswith("verify: task n1-s01 done (1 board, ") and lines[0].endswith(" s) — 1 of 2")
    assert lines[1].endswith(" s) — 2 of 2")
    assert run.out == quiet.out and "no counterexample among 2 boards (2 tasks)" in run.out  # stdout as before
    assert quiet.err == ""


@pytest.mark.slow  # about a second or two
def test_a_resumed_run_counts_the_saved_tasks_in_its_progress_lines(tmp_path, capsys):
    path = _scope_file(tmp_path, TINY)
    argv = ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"]
    run_cli(capsys, argv)
    (tmp_path / "out" / "tasks" / "n1-s10.json").unlink()  # as if interrupted in the second task
    again = run_cli(capsys, argv)
    assert again.code == 0 and again.err.splitlines()[0].startswith("verify: task n1-s10 done (1 board, ")
    assert again.err.splitlines()[0].endswith("— 2 of 2") and len(again.err.splitlines()) == 1


@pytest.mark.slow  # a few seconds
def test_a_task_with_follow_ups_left_for_several_reasons_gets_one_note(tmp_path, capsys):
    """Two follow-up actions the search cannot follow, for two reasons: one note per task names both reasons
    and lists the follow-ups once (a note per reason repeated the whole list)."""
    scope = dict(TINY, follow_up=[STEAL_LIST, PUT])
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope)])
    assert run.code == 0, run.out + run.err
    notes = [line for line in run.out.splitlines() if line.startswith("note: task ")]
    assert notes and len({line.split(":")[1] for line in notes}) == len(notes), notes  # one a task
    for line in notes:
        assert "(a mapping or a list)" in line and "put_counters" in line.split(";")[1], line
        assert line.count("{do: put_counters") == 1 and line.count("{do: gain_control") == 1, line
