"""Bad input is a user's error, never "internal error" (exit 4): expectations of the wrong shape, a word
compared with a number while explaining, names an ASCII terminal cannot show; and `query` accepts the
predicates a scenario's own rule files declare (as `test` does)."""

from __future__ import annotations

import io
import os
import sys

import pytest
from helpers import run_cli
from paths import ROOT

from judgelog import Engine, QueryError
from judgelog.cli import main
from judgelog.errors import JudgelogError

LEVELS = """\
## Test rules: levels that should be numbers.
.decl level(o: atom, v: atom) "{o} is at level {v}" input
.decl big(o: atom, v: atom) "{o} is big at {v}"

@name t.big
@cr 100.1
big(O, N) :- level(O, N), N > 3.
"""


@pytest.mark.parametrize(
    "entry, message",
    [
        ("{holds: 5}", "holds must be a query written as text"),
        ("{explain: 5}", "explain must be a query written as text"),
        ("{absent: {a: 1}}", "absent must be a query written as text"),
        ('{query: "player(P)", answers: [{P: [1]}]}', "answers map variable names to words or numbers"),
        ('{query: "player(P)", count: two}', "count must be a whole number"),
        ('{absent: "player(alice)", unless_refused: 1}', "unless_refused: takes true or false, got 1"),
    ],
)
def test_expectations_of_the_wrong_shape_fail_as_cases(capsys, tmp_path, entry, message):
    path = tmp_path / "e.yaml"
    path.write_text(f"players: [alice, bob]\nexpect:\n  - {entry}\n", encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    # was 4 (TypeError, AttributeError); found when the file loads (judgelog.validation): exit 3, a failed case
    assert run.code == 3, run.err
    assert message in run.out and "internal error" not in run.err
    run = run_cli(capsys, ["check", str(path)])  # was: 0 error(s)
    [(file, line, _col, severity, code)] = run.diagnostics()
    assert run.code == 3 and (file, line, severity, code) == (str(path), 3, "error", "S103"), run.err
    assert message in run.err


@pytest.mark.slow
def test_explaining_with_a_word_where_a_number_is_compared(capsys, tmp_path):
    rules = tmp_path / "levels.dl"
    rules.write_text(LEVELS, encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text('players: [alice]\nfacts: ["level(x, 5)", "level(y, ten)"]\n', encoding="utf-8")
    run = run_cli(capsys, ["explain", "--rules", str(rules), str(path), "big(y, ten)"])
    assert run.code == 2 and "a comparison mixes numbers and words" in run.err  # was 4 (TypeError)
    run = run_cli(capsys, ["explain", "--rules", str(rules), str(path), "big(x, 5)"])
    assert run.code == 0 and "5 > 3" in run.out


def test_names_an_ascii_terminal_cannot_show(monkeypatch, tmp_path):
    path = tmp_path / "u.yaml"
    path.write_text(
        'players: [alice]\nobjects: {hero: {name: "\u00c6ther Hero", types: [creature], power: 1, '
        "toughness: 1, controller: alice}}\n",
        encoding="utf-8",
    )
    for argv in (["query", str(path), "name(O, N)"], ["explain", str(path), 'name(hero, "\u00c6ther Hero")']):
        out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
        monkeypatch.setattr(sys, "stdout", out)
        assert main(argv) == 0  # was 4 (UnicodeEncodeError)
        out.flush()
        assert b"\\xc6ther Hero" in out.buffer.getvalue()


@pytest.mark.slow
def test_query_accepts_the_predicates_of_the_scenarios_own_rules(capsys, tmp_path):
    (tmp_path / "levels.dl").write_text(LEVELS, encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text('players: [alice]\nrules: [levels.dl]\nfacts: ["level(x, 5)"]\n', encoding="utf-8")
    run = run_cli(capsys, ["query", str(path), "big(O, N)"])
    assert run.code == 0 and "x  5" in run.out, run.err  # was: unknown predicate 'big' (exit 2)


# -- smaller defects ---------------------------------------------------------------------------------------
def test_do_and_test_agree_on_expect_error(capsys, tmp_path):
    """An action refused for another reason than the one expected fails under both verbs."""
    path = tmp_path / "b.yaml"
    text = (ROOT / "facts" / "scenarios" / "bolster_least_toughness.yaml").read_text(encoding="utf-8")
    assert 'expect_error: "legal options: elves, lions"' in text
    path.write_text(
        text.replace('expect_error: "legal options: elves, lions"', 'expect_error: "no such reason"'), encoding="utf-8"
    )
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 1 and "does not mention 'no such reason'" in run.out
    run = run_cli(capsys, ["do", str(path)])
    assert run.code == 1 and "does not mention 'no such reason'" in run.err  # was: 0, the text ignored


def test_an_unless_refused_entry_passes_only_when_an_action_is_refused(capsys, tmp_path):
    """`unless_refused: true` (what judgelog verify writes): an action refused leaves the entry not reached, a
    pass that says so; an entry without it still fails; when every action applies, the entry is checked."""
    path = tmp_path / "u.yaml"
    body = (
        "players: [alice, bob]\nactive: alice\nobjects:\n  bears: {card: Grizzly Bears, controller: alice}\n"
        "actions:\n  - {do: put_counters, target: bears, kind: p1p1, n: 1}\n  - {do: bolster, player: bears, n: 1}\n"
        'expect:\n  - {absent: "counter(bears, p1p1, 1)", unless_refused: true}\n  - {holds: "player(alice)"}\n'
    )
    path.write_text(body, encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 1 and run.out.strip().endswith("1 passed, 1 failed"), run.out
    assert "not reached: action[1] (line 7) bolster was refused" in run.out, run.out
    path.write_text(body.replace("  - {do: bolster, player: bears, n: 1}\n", ""), encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])  # applied: the entry is checked, and fails
    assert run.code == 1 and "counter(bears, p1p1, 1) holds" in run.out, run.out


def test_a_string_with_a_newline_is_written_and_read_back(engine, tmp_path):
    from judgelog.writer import write_scenario

    state = engine.state_from_dict(
        {
            "players": ["alice"],
            "objects": {
                "hero": {
                    "name": "Two\nLines\tand a tab",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "controller": "alice",
                }
            },
        }
    )
    path = tmp_path / "out.yaml"
    write_scenario(state, str(path))
    assert engine.load(str(path)).facts == state.facts  # was: unterminated string


def test_a_very_long_sum_is_a_positioned_error(engine, capsys, tmp_path):
    state = engine.state_from_dict({"players": ["alice"]})
    with pytest.raises(QueryError) as info:
        state.query("X = " + " + ".join(["1"] * 20_000))
    [diag] = info.value.diagnostics
    assert diag.code == "E001" and diag.span.col > 1 and "arithmetic too long" in diag.message
    rules = tmp_path / "long.dl"
    rules.write_text('.decl n(v: int) ""\nn(X) :- X = ' + " + ".join(["1"] * 20_000) + ".\n", encoding="utf-8")
    run = run_cli(capsys, ["check", "--no-library", str(rules)])
    assert run.code == 1 and "error[E001]: arithmetic too long" in run.err
    assert "nested too deeply" not in run.err


@pytest.mark.slow  # it builds the library twice
def test_an_edited_include_is_read_again_by_a_new_engine(tmp_path):
    main_file, part = tmp_path / "main.dl", tmp_path / "part.dl"
    main_file.write_text('.include "part.dl"\n', encoding="utf-8")
    part.write_text('.decl favourite(p: player) ""\nfavourite(alice).\n', encoding="utf-8")
    first = Engine(rules=[str(main_file)]).state_from_dict({"players": ["alice", "bob"]})
    assert first.query("favourite(P)") == [{"P": "alice"}]
    part.write_text('.decl favourite(p: player) ""\nfavourite(bob).\n', encoding="utf-8")
    os.utime(part, (os.path.getmtime(part) + 10, os.path.getmtime(part) + 10))
    again = Engine(rules=[str(main_file)]).state_from_dict({"players": ["alice", "bob"]})
    assert again.query("favourite(P)") == [{"P": "bob"}]  # was: alice (the old include)


def test_a_parameter_named_twice_in_a_declaration(capsys, tmp_path):
    rules = tmp_path / "d.dl"
    rules.write_text('.decl pair(a: atom, a: atom) "{a} and {a}"\n', encoding="utf-8")
    run = run_cli(capsys, ["check", "--no-library", str(rules)])
    assert run.code == 1 and (str(rules), 1, 7, "error", "E001") in run.diagnostics()
    assert "parameter 'a' of pair is named twice" in run.err


def test_control_characters_in_names_make_well_formed_xml(engine, tmp_path):
    import xml.etree.ElementTree as ET

    from judgelog.graph import write_graph

    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "hero": {
                    "name": "Bell\x07 and\x1b[31m",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "controller": "alice",
                }
            },
            "combat": {"attackers": {"hero": "bob"}},
        }
    )
    for ext in (".svg", ".graphml"):
        path = tmp_path / f"g{ext}"
        write_graph(state, str(path))
        ET.parse(path)  # was: not well-formed (invalid token)
        assert "\\x07" in path.read_text(encoding="utf-8")


def test_a_state_after_a_planeswalker_left_combat_is_written_and_read_back(engine, tmp_path):
    """The creatures attacking a planeswalker or battle that left the battlefield still attack (506.4c); the
    state is written with the attack as a fact and loads back with the same facts and answers."""
    from judgelog.replay import run_actions
    from judgelog.writer import write_scenario

    text = (ROOT / "facts" / "scenarios" / "sba_planeswalker_battle_token.yaml").read_text(encoding="utf-8")
    assert "  - {do: end_turn}" in text
    source = tmp_path / "pw.yaml"
    lines = [line for line in text.splitlines() if "{do: end_turn}" not in line]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    state, _ = run_actions(engine.load(str(source)))
    assert state.query("attacking(bears, T)") == [{"T": "walker"}] and not state.holds("permanent(walker)")
    path = tmp_path / "out.yaml"
    write_scenario(state, str(path))  # was: "attack target 'walker' does not exist" (do -o: exit 3)
    again = engine.load(str(path))
    assert again.facts == state.facts
    for query in ("attacking(A, T)", "blocked(A)", "permanent(O)", "event(N, K, S)"):
        assert again.query(query) == state.query(query)


@pytest.mark.parametrize(
    "action, message",
    [
        ("{do: tap, object: ghost}", "tap: object must name an object; 'ghost' is not one"),
        ("{do: amass, n: -5}", "amass: n must be 0 or more, got -5"),
        ("{do: put_counters, target: hero, kind: p1p1, n: -5}", "put_counters: n must be 0 or more, got -5"),
        ("{do: set_types, object: hero, types: creature}", "set_types: types must be a list such as [a, b]"),
        ("{do: gain_ability, object: hero, keyword: Flying}", "gain_ability: unknown keyword 'Flying'"),
        ('{do: declare_attackers, attackers: "hero"}', "attackers must be a mapping such as {a: b}, got 'hero'"),
        ("{do: declare_attackers, attackers: [hero]}", "attackers must be a mapping such as {a: b}, got ['hero']"),
        ("{do: declare_attackers, attackers: {hero: bob}, bands: [hero]}", "bands must be a list of lists"),
    ],
)
def test_an_action_with_an_invalid_argument_is_refused_before_anything_runs(capsys, tmp_path, action, message):
    path = tmp_path / "a.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  hero: {name: Hero, types: [creature], power: 2, toughness: 2, controller: alice}\n"
        f"actions:\n  - {action}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.yaml"
    run = run_cli(capsys, ["do", str(path), "-o", str(out)])
    # was: 0, the argument ignored (no attack, no types) or a negative amount applied; a file written
    assert run.code == 3 and message in run.err, run.err
    [(file, line, _col, severity, code)] = run.diagnostics()
    assert (file, line, severity, code) == (str(path), 6, "error", "S102")
    assert not out.exists()


def test_explain_with_holds_false_is_a_positioned_load_error(capsys, tmp_path):
    """{explain: Q, holds: false} is no form of the language (docs/scenarios.md): refused at holds:, with
    the entry that says it (absent:), by test and check alike."""
    path = tmp_path / "e.yaml"
    path.write_text('players: [alice, bob]\nexpect:\n  - {explain: "player(carol)", holds: false}\n', encoding="utf-8")
    for verb in ("test", "check"):
        run = run_cli(capsys, [verb, str(path)])  # was: "needs exactly one of", with a hint to write holds:
        assert run.code == 3 and f"{path}:3:32: error[S103]: holds: false cannot qualify explain" in run.out + run.err
        assert '{absent: "player(carol)"}' in run.out + run.err


def test_an_integer_too_long_to_print_is_a_positioned_scenario_error(capsys, tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(
        "players: [alice]\nobjects:\n  hero: {name: Hero, types: [creature], power: "
        + "9" * 5000
        + ", toughness: 1, controller: alice}\n",
        encoding="utf-8",
    )
    for argv in (["query", str(path), "power(O, P)"], ["check", str(path)]):
        run = run_cli(capsys, argv)  # was: Python's advice to call sys.set_int_max_str_digits()
        assert run.code == 3 and (str(path), 3, 48, "error", "S002") in run.diagnostics(), run.err
        assert "integer too large (5000 digits, at most 100)" in run.err


def test_an_unquoted_rule_name_in_a_query_says_to_quote_it(capsys):
    run = run_cli(
        capsys,
        ["query", str(ROOT / "facts/scenarios/persist_returns_with_counter.yaml"), "event_cause(N, persist.return)"],
    )
    assert run.code != 0 and "E001" in run.err
    assert 'a dotted name (a rule\'s @name) is a quoted string: "persist.return"' in run.err
    quoted = run_cli(
        capsys,
        ["query", str(ROOT / "facts/scenarios/persist_returns_with_counter.yaml"), 'event_cause(N, "persist.return")'],
    )
    assert quoted.code == 0 and "(1 answer)" in quoted.out


def test_a_rule_file_that_is_not_utf8_is_refused_at_its_first_bad_byte(capsys, tmp_path):
    path = tmp_path / "latin1.dl"
    path.write_bytes(b"% caf\xe9\n")
    run = run_cli(capsys, ["check", path])
    assert run.code == 1 and f"{path}:1:6: error[E010]" in run.out + run.err
    assert "not UTF-8 text (byte 0xe9)" in run.out + run.err and "codec" not in run.out + run.err


def test_a_missing_library_folder_names_the_option(capsys, tmp_path):
    run = run_cli(capsys, ["check", "--library", tmp_path / "nowhere"])
    assert run.code != 0 and "check the path given to --library" in run.out + run.err


@pytest.mark.parametrize(
    "method, value", [("query", 42), ("query", None), ("holds", ["x"]), ("explain", 42), ("why_not", 3.5)]
)
def test_a_question_of_the_wrong_type_is_a_usage_error(engine, method, value):
    """state.query(42) raised TypeError from deep inside; a value that is no query or atom is the caller's
    error, said as one."""
    from judgelog import UsageError

    state = engine.load(str(ROOT / "facts" / "scenarios" / "banding_blocked_by_one.yaml"))
    with pytest.raises(UsageError) as info:
        getattr(state, method)(value)
    assert type(value).__name__ in str(info.value) and info.value.hint


@pytest.mark.parametrize("text", ["", "\n\n", "# a board to write\n", "---\n", "null\n"])
def test_an_empty_scenario_file_is_refused_not_read_as_a_board(capsys, tmp_path, text):
    """A file of nothing read as `{}`: every verb answered for two default players (query listed alice and bob,
    exit 0), which hid a file saved empty or the wrong file named. `{}` is still a board of its own."""
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    run = run_cli(capsys, ["query", str(path), "player(P)"])
    assert run.code == 3 and "error[S100]: the file holds no scenario" in run.err, (run.code, run.out, run.err)
    assert f"{path}:1:1:" in run.err and "hint:" in run.err
    path.write_text("{}\n", encoding="utf-8")
    run = run_cli(capsys, ["query", str(path), "player(P)"])
    assert run.code == 0 and "alice" in run.out and "bob" in run.out


def test_an_action_expected_to_be_refused_may_name_what_is_not_there(capsys, tmp_path):
    """An unknown player or object in an action marked expect_error failed the whole file as it loaded (S102,
    no case run): naming what is not there is what such an action tests. Its refusal is checked as it is
    applied; a misspelt action or argument key is still a load error."""
    path = tmp_path / "s.yaml"
    body = (
        "players: [alice, bob]\nactive: alice\nobjects:\n  bears: {card: Grizzly Bears, controller: alice}\n"
        "actions:\n"
        "  - {do: bolster, n: 1, player: carol, expect_error: \"unknown constant 'carol'\"}\n"
        '  - {do: put_counters, target: beers, kind: p1p1, n: 1, expect_error: "beers"}\n'
        "  - {do: put_counters, target: bears, kind: p1p1, n: 1}\n"
        'expect:\n  - holds: "counter(bears, p1p1, 1)"\n'
    )
    path.write_text(body, encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 0 and run.out.strip().endswith("3 passed, 0 failed"), run.out + run.err
    # the refusal still has to say what the scenario expects
    path.write_text(body.replace("player: carol", "player: bears"), encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 1 and "does not mention \"unknown constant 'carol'\": bolster refused" in run.out, run.out
    # without expect_error the same action is a load error, with its place
    path.write_text(body.replace(", expect_error: \"unknown constant 'carol'\"", ""), encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 3 and f"{path}:6:" in run.out and "unknown constant 'carol'" in run.out, run.out
    # a misspelt argument key is a load error even where a refusal is expected
    path.write_text(body.replace("player: carol", "playr: carol"), encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 3 and "bolster takes no argument 'playr'" in run.out


def test_an_argument_of_a_few_words_names_them(capsys, tmp_path):
    """`step: second` was an unknown constant with the hint "did you mean 'scion'?" (the nearest word of the
    library); the rules declare the words combat_damage's step may be (action_param_value/3)."""
    path = tmp_path / "s.yaml"
    body = (
        "players: [alice, bob]\nactive: alice\nobjects:\n  hero: {card: Benalish Hero, controller: alice}\n"
        "combat:\n  attackers: {hero: bob}\nactions:\n  - {do: combat_damage, step: STEP}\n"
        'expect:\n  - query: "life(bob, N)"\n    answers: [{N: 19}]\n'
    )
    for step, hint in (("second", "the rules read step only as one of these words"), ("regualr", "'regular'")):
        path.write_text(body.replace("STEP", step), encoding="utf-8")
        run = run_cli(capsys, ["test", str(path)])
        assert run.code == 3 and f"combat_damage: step must be first_strike or regular, got '{step}'" in run.out
        assert hint in run.out and "scion" not in run.out, run.out
    path.write_text(body.replace("STEP", "regular"), encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 0, run.out


def test_a_band_member_that_is_not_attacking_is_told_so_not_that_it_does_not_exist(capsys, tmp_path):
    """`bands: [[hero, wurm]]` with the Hero among the objects but not under attackers: said "band member
    (an attacker) 'hero' does not exist", hint "known: wurm" (702.22c: only attacking creatures band)."""
    path = tmp_path / "s.yaml"
    board = (
        "players: [alice, bob]\nactive: alice\nobjects:\n  wurm: {card: Craw Wurm, controller: alice}\n"
        "  hero: {card: Benalish Hero, controller: alice}\n"
        "combat:\n  attackers: {wurm: bob}\n  bands: [[MEMBER, wurm]]\n"
    )
    path.write_text(board.replace("MEMBER", "hero"), encoding="utf-8")
    run = run_cli(capsys, ["query", str(path), "attacking(A, P)"])
    assert run.code == 3 and "band member (an attacker) 'hero' is not listed under attackers:" in run.err, run.err
    assert "list it under attackers: first" in run.err and "does not exist" not in run.err
    path.write_text(board.replace("MEMBER", "heroo"), encoding="utf-8")  # a name that is nothing: as before
    run = run_cli(capsys, ["query", str(path), "attacking(A, P)"])
    assert run.code == 3 and "'heroo' does not exist" in run.err


def test_a_did_you_mean_looks_first_at_the_words_that_stand_where_the_typo_stands(capsys):
    """`event(N, lost_game, bob)` was answered "did you mean 'lose_game'?" (an effect primitive), which is
    accepted and never holds, so an absent: with it always passes; the event kind is loses_game. The words
    the rules write at that place, the state's facts hold there and the event log's kinds come first."""
    scenario = str(ROOT / "facts" / "scenarios" / "combat_declare_and_damage.yaml")
    run = run_cli(capsys, ["query", scenario, "event(N, lost_game, bob)"])
    assert run.code == 2 and "did you mean 'loses_game'?" in run.err, run.err
    run = run_cli(capsys, ["query", scenario, "event(N, attaks, X)"])
    assert run.code == 2 and "did you mean 'attacks'?" in run.err, run.err


@pytest.mark.parametrize(
    "verb,hint",
    [
        ("why-not", "judgelog explain SCENARIO ATOM --why-not"),
        ("run", "judgelog do SCENARIO"),
        ("quer", "judgelog query"),
    ],
)
def test_an_unknown_verb_says_which_one_was_meant(capsys, verb, hint):
    run = run_cli(capsys, [verb, "x.yaml"])
    err = run.err
    assert run.code == 2
    assert "invalid choice" in err and f"hint: did you mean: {hint}" in err


def test_an_action_without_a_required_argument_is_refused_where_it_is_written(capsys, tmp_path):
    """action_param_required: {do: tap} names no object; the scenario is refused at the action's do: (S102,
    exit 3), naming the argument, before any rule runs; the Python API refuses it as a usage error."""
    scenario = tmp_path / "tap.yaml"
    scenario.write_text("players: [alice, bob]\nactive: alice\nobjects: {}\nactions:\n  - {do: tap}\n")
    run = run_cli(capsys, ["do", scenario])
    assert run.code == 3
    assert f"{scenario}:5:10: error[S102]: tap needs object" in run.err
    assert "hint: e.g. {do: tap, object: ...}" in run.err
    state = Engine().state_from_dict({"players": ["alice", "bob"], "active": "alice"})
    with pytest.raises(JudgelogError, match="activate needs ability and object"):
        state.apply({"do": "activate"})


def test_a_load_error_printed_in_python_shows_its_first_diagnostics(engine, capsys, tmp_path):
    """str(ScenarioError) was only "6 problem(s) in <dict>": a program printing it saw no detail. It shows the
    first three diagnostics and how many more; the command line still prints every one, without "and N more"."""
    from judgelog import ScenarioError

    board = {
        "players": ["alice"],
        "active": "alice",
        "objects": {"x": {"types": ["creatur"], "controller": "bob", "power": "a"}, "y": {"colour": 1}},
    }
    with pytest.raises(ScenarioError) as info:
        engine.state_from_dict(board)
    text = str(info.value)
    assert text.startswith("6 problem(s) in <dict>:\n<dict>:1:1: error[S100]: object 'x' needs a card or a name")
    assert "unknown type 'creatur'" in text and "hint: did you mean 'creature'?" in text
    assert "controller 'bob'" not in text and text.endswith("\nand 3 more")
    path = tmp_path / "board.yaml"
    path.write_text("players: [alice]\nactive: alice\nobjects:\n  x: {types: [creatur], controller: bob}\n")
    run = run_cli(capsys, ["query", str(path), "player(P)"])
    assert run.code == 3 and "problem(s)" not in run.err and "and 1 more" not in run.err
    assert "unknown type 'creatur'" in run.err and "controller 'bob' is not a player" in run.err


@pytest.mark.parametrize(
    "entry, col, message, hint",
    [
        ("{card: Grizzly Bears, zone: hnad, owner: alice}", 34, "unknown zone 'hnad'", "did you mean 'hand'?"),
        ("{card: Grizzly Bears, zone: [hand], owner: alice}", 34, "unknown zone ['hand']", "zone: one of battlefield"),
        ("{card: Grizzly Bears, zone: hand, owner: alice, tapped: true}", 54, "tapped: is for a permanent", "no zone:"),
        ("{card: Grizzly Bears, zone: hand, owner: alice, damage: 1}", 54, "damage: is for a permanent", "no zone:"),
        ("{card: Grizzly Bears, zone: graveyard}", 6, "object 'x' (zone: graveyard) needs an owner", "add owner:"),
        ("{card: Grizzly Bears, zone: hand, owner: alcie}", 47, "owner 'alcie' is not a player", "'alice'"),
        ("{card: Grizzly Bears, zone: exile, owner: alice, controller: bob}", 55, "no controller (108.4a", "owner:"),
        ("{card: Grizzly Bears, controller: alice, protector: bob}", 47, "is for a battle (310.8)", "battle"),
        ("{name: S, types: [battle], controller: alice, protector: bbo}", 63, "protector 'bbo' is not a player", "bob"),
    ],
)
def test_a_card_in_a_zone_or_a_protector_written_wrong_is_an_error(capsys, tmp_path, entry, col, message, hint):
    path = tmp_path / "z.yaml"
    path.write_text(f"players: [alice, bob]\nobjects:\n  x: {entry}\n", encoding="utf-8")
    run = run_cli(capsys, ["query", str(path), "player(P)"])
    assert run.code == 3 and message in run.err and hint in run.err.split("hint:")[1], run.err
    [(file, line, got_col, severity, code)] = run.diagnostics()
    assert (file, line, got_col, severity, code) == (str(path), 3, col, "error", "S100")


def test_an_object_an_action_brings_is_not_put_in_another_zone(capsys, tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "players: [alice, bob]\nactions:\n"
        "  - {do: enter, object: {id: g, card: Grizzly Bears, controller: alice, zone: hand}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["do", str(path)])
    assert run.code == 1 and "an object an action brings is put onto the battlefield, got zone: 'hand'" in run.err
    assert "internal error" not in run.err


def test_a_word_of_the_board_compared_as_an_action_runs_is_bad_input_at_its_place(capsys, tmp_path):
    """A facts: entry gives ward's life cost as a word: resolving ward compared 20 with 'two' and exited 2
    (usage) with no place; it is the board's error (exit 3) at the action, naming the fact that holds it."""
    path = tmp_path / "ward.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: bob\nobjects:\n"
        "  ra: {card: Royal Assassin, controller: bob}\n"
        "  wk: {name: Knight, types: [creature], power: 2, toughness: 2, controller: alice, tapped: true}\n"
        'facts: ["printed_keyword(wk, ward)", "printed_keyword_param(wk, ward, life, two)"]\n'
        "actions:\n"
        "  - {do: activate, object: ra, ability: royal_assassin, choose: {target: wk}}\n"
        "  - {do: resolve, choose: {ward: pay}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["do", str(path)])
    assert run.code == 3, run.err
    assert run.diagnostics()[0] == (str(path), 9, 5, "error", "S102")
    assert "resolve could not be applied: a comparison mixes numbers and words (20 >= 'two')" in run.err
    assert f"note: printed_keyword_param(wk, ward, life, two) holds 'two' ({path}:6:" in run.err


def test_one_counter_kind_given_twice_through_its_alias_is_an_error_at_the_second(capsys, tmp_path):
    """`counters: {"+1/+1": 1, p1p1: 2}` gave the bears 3 counters with no word: the alias and the name are one
    kind, and a total can't be told from one number told twice. The second is refused (S100) at its key."""
    path = tmp_path / "c.yaml"
    path.write_text(
        "players: [alice, bob]\nobjects:\n"
        '  x: {card: Grizzly Bears, controller: alice, counters: {"+1/+1": 1, p1p1: 2}}\n'
        "player_counters: {bob: {poison: 1, ' poison': 2}}\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["query", str(path), "counter(O, K, N)"])
    assert run.code == 3, run.err
    assert "counters '+1/+1' and 'p1p1' are the same kind (p1p1), given twice" in run.err
    assert "hint: give the kind once, with the number of counters: p1p1: N" in run.err
    assert [(d[1], d[2], d[4]) for d in run.diagnostics()] == [(3, 70, "S100"), (4, 36, "S100")]
