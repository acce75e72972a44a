"""A scenario's facts: entries checked against the declarations (judgelog.given_facts): an id that names
nothing (S203) and a fact of a derived predicate (S202) are warned of at their entry, and answered as written;
counters of a kind no rule names are warned of too (S204)."""

from __future__ import annotations

from helpers import run_cli

from judgelog import Engine

BOARD = """\
name: facts entries
players: [alice, bob]
active: alice
objects:
  bears: {card: Grizzly Bears, controller: alice}
facts: ["tapped(baers)", "power(bears, 5)", "tapped(bears)", "life(bob, 7)"]
"""


def test_unknown_ids_and_derived_predicates_are_warned_of_at_their_entry(capsys, tmp_path):
    path = tmp_path / "facts.yaml"
    path.write_text(BOARD, encoding="utf-8")
    run = run_cli(capsys, ["query", path, "tapped(X)"])
    assert run.code == 0 and "baers" in run.out and "bears" in run.out  # answered as written
    # life(bob, 7) beside the board's 20 (life: not given): a second value (S205)
    assert [d[1:] for d in run.diagnostics()] == [
        (6, 9, "warning", "S203"),
        (6, 26, "warning", "S202"),
        (6, 62, "warning", "S205"),
    ]
    assert "did you mean 'bears'?" in run.err
    assert "power is derived by the rules (objects.power, objects.power_switched)" in run.err
    assert "life(bob, 7) is a second value beside life(bob, 20): both hold" in run.err


def test_known_ids_need_no_warning(engine):
    """Players, objects, cards kept in a zone and the subjects of the game's history are known."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
            "facts": [
                "card_in_zone(worker, graveyard)",
                "card_value(worker, owner, alice, none, none, none)",
                "event(1, dies, lions)",
                "divided_in_regular_step(lions, bob)",
                "tapped(bears)",
                "lost_game(bob)",
            ],
        }
    )
    assert state.meta.scenario.warnings == []


def test_a_board_from_do_output_loads_back_without_warnings(capsys, tmp_path):
    out = tmp_path / "after.yaml"
    source = Engine.example("combat_declare_and_damage.yaml")
    assert run_cli(capsys, ["do", source, "-o", out]).code == 0
    again = run_cli(capsys, ["query", out, "player(P)"])
    assert again.code == 0 and not [d for d in again.diagnostics() if d[4] in ("S202", "S203")], again.err


def test_counters_of_a_kind_no_rule_names_are_warned_of(capsys, tmp_path):
    """`counters: {p1p2: 1}`: a kind of its own, which counts for nothing (S204, with the nearest kind the
    rules name); the kinds the rules read give no warning."""
    path = tmp_path / "counters.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  bears: {card: Grizzly Bears, controller: alice, counters: {p1p2: 1}}\n"
        "  lions: {card: Savannah Lions, controller: alice, counters: {p1p1: 1, flying: 1}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["query", path, "power(bears, P)"])
    assert run.code == 0, run.err
    assert [d[1:] for d in run.diagnostics()] == [(4, 68, "warning", "S204")], run.err  # at the kind
    assert "'p1p2' counters on bears: no rule names this kind of counter" in run.err
    assert "did you mean 'p1p1'?" in run.err
