"""No silent wrong answers: a typo in a query, an atom, an action or a choice is an input error with a
did-you-mean, never a rules answer; a refused action says which action, what happened before it, the rule
and CR sentence that refused it, and the legal options."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import run_cli
from paths import SCENARIOS

import judgelog
from judgelog import Engine
from judgelog.errors import ActionError, QueryError, UsageError

BAND = str(SCENARIOS / "banding_blocked_by_one.yaml")


# -- queries and atoms ----------------------------------------------------------------------------------
def test_query_naming_an_unknown_object_exits_2_with_a_did_you_mean(capsys):
    run = run_cli(capsys, ["query", BAND, "damage_assigner(worm, P)"])
    assert run.code == 2, run.err
    assert "unknown object 'worm'" in run.err and "did you mean 'wurm'?" in run.err
    assert run.out == ""
    run = run_cli(capsys, ["query", BAND, "damage_assigner(wurm, P)"])  # the real answer is a rules answer
    assert run.code == 0, run.err


def test_an_unknown_ability_with_none_in_the_state_says_so_in_english(capsys):
    """`--why-not` naming an ability id where no ability exists: the hint read "abilitys: none"."""
    run = run_cli(capsys, ["explain", BAND, "resolving(ability_9)", "--why-not"])
    assert run.code == 2, run.err
    assert "unknown ability 'ability_9'" in run.err and "abilitys" not in run.err
    assert "hint: the state has no ability now (an ability gets its id as it goes on the stack" in run.err
    run = run_cli(capsys, ["query", BAND, "on_stack(I, xyzzy, K)"])  # a list of ids, in the plural
    assert run.code == 2 and "hint: objects: " in run.err, run.err


def test_explain_naming_an_unknown_object_exits_2(capsys):
    run = run_cli(capsys, ["explain", BAND, "damage_assigner(worm, alice)"])
    assert run.code == 2 and "did you mean 'wurm'?" in run.err
    run = run_cli(capsys, ["explain", "--why-not", BAND, "blocked_by(wurm, baers)"])
    assert run.code == 2 and "did you mean 'bears'?" in run.err
    run = run_cli(capsys, ["explain", BAND, "damage_assigner(wurm, bob)"])  # holds or not: a rules answer
    assert run.code in (0, 1)


def test_a_real_negative_answer_still_exits_1(capsys):
    run = run_cli(capsys, ["query", BAND, "tapped(bears)"])
    assert run.code == 1 and run.out.strip() == "no"


def test_constants_of_the_rules_are_known_but_not_as_object_ids(capsys):
    """`worm` is a creature type the rules know: fine where a word stands, an error where an object does."""
    run = run_cli(capsys, ["query", BAND, "subtype(O, worm)"])
    assert run.code == 1, run.err  # no Worm on the board: a real "no"
    run = run_cli(capsys, ["query", BAND, "subtype(O, wurmm)"])
    assert run.code == 2 and "unknown constant 'wurmm'" in run.err


def test_the_api_check():
    from judgelog.constants import check_constants

    state = Engine().load(BAND)
    check_constants(state, "damage_assigner(wurm, P), player(P)")
    with pytest.raises(QueryError) as info:
        check_constants(state, "controller(wurm, alicee)")
    assert info.value.diagnostics[0].hint == "did you mean 'alice'?"


# -- actions -------------------------------------------------------------------------------------------
def test_an_action_on_an_unknown_object_is_a_usage_error_and_changes_nothing():
    state = Engine().load(BAND)
    with pytest.raises(UsageError) as info:
        state.apply({"do": "tap", "object": "worm"})
    assert "did you mean 'wurm'?" in info.value.render()
    with pytest.raises(UsageError) as info:
        state.apply({"do": "resolve", "choose": {"pairs": "wurm"}})
    assert "did you mean 'pair'?" in info.value.render()
    assert not state.holds("tapped(wurm)")


@pytest.mark.parametrize("word", ["no", "skip", "pass"])
def test_choosing_nothing_in_other_words_suggests_none(word):
    """`none` is how a choice that allows it (may, any, up_to) is declined: "no" is refused as an unknown
    constant whose hint names `none`, not the nearest word of the rules ("non")."""
    state = Engine().load(BAND)
    with pytest.raises(UsageError) as info:
        state.apply({"do": "proliferate", "player": "alice", "choose": {"recipients": [word]}})
    text = info.value.render()
    assert f"unknown constant {word!r}" in text and "did you mean 'none'?" in text, text


def test_a_keyword_parameter_written_as_in_keywords_is_refused_with_the_form_an_action_takes():
    state = Engine().load(BAND)
    with pytest.raises(UsageError) as info:
        state.apply({"do": "apply_effect", "object": "wurm", "keyword": {"bushido": 2}})
    assert "write the keyword's parameter as an argument of its own: keyword: bushido, n: 2" in info.value.render()
    after, _ = state.apply({"do": "apply_effect", "object": "wurm", "keyword": "bushido", "n": 2})
    assert after.query("keyword_instance_param(wurm, bushido, I, n, N)") == [{"I": "effect_1", "N": 2}]


@pytest.mark.slow
def test_a_new_word_an_action_does_not_declare_says_how_its_rule_file_would(tmp_path):
    rules = tmp_path / "chant.dl"
    rules.write_text(
        "action_known(chant). action_param(chant, word).\n"
        "@name chant.say\n@cr 601.2\neffect(1, signal, chanted, W, none) :- action(chant), act_arg(word, W).\n"
    )
    state = Engine(rules=[str(rules)]).load(BAND)
    with pytest.raises(UsageError) as info:
        state.apply({"do": "chant", "word": "zzqx"})
    assert "its rule file declares action_param_type(chant, word, word)" in info.value.render()
    with pytest.raises(UsageError) as info:
        state.apply({"do": "chant", "word": "wurn"})
    assert "did you mean 'wurm'?" in info.value.render() and "action_param_type" not in info.value.render()
    rules.write_text(rules.read_text() + "action_param_type(chant, word, word).\n")
    _, events = Engine(rules=[str(rules)]).load(BAND).apply({"do": "chant", "word": "zzqx"})
    assert ("chanted", "zzqx") in [(e.kind, e.subject) for e in events]


def test_an_object_that_left_the_battlefield_is_refused_by_the_rules():
    state = Engine().load(BAND)
    gone, _ = state.apply({"do": "leave_battlefield", "object": "bears"})
    with pytest.raises(ActionError) as info:
        gone.apply({"do": "gain_control", "object": "bears", "player": "bob"})
    assert "109.1" in str(info.value)


def test_every_event_word_of_the_engine_is_known():
    from judgelog.effects import EVENT_WORDS

    package = Path(judgelog.__file__).resolve().parent
    text = "".join((package / f"{name}.py").read_text() for name in ("effects", "runtime", "stack"))
    kinds = set(re.findall(r'emit\("(\w+)"', text)) | set(re.findall(r'Event\(self\.next_seq, "(\w+)"', text))
    assert kinds and kinds <= EVENT_WORDS, kinds - EVENT_WORDS
    # and every detail key: an emit's keyword arguments, the keys of the stack's details (a query naming one in
    # an expect: entry, event_detail(N, trigger, R), is refused as an unknown constant otherwise)
    keys = {k for call in re.findall(r"emit\(([^)]*)\)", text) for k in re.findall(r"\b(\w+)=", call)}
    keys |= set(re.findall(r'\{"(\w+)": ', text)) & set(re.findall(r'details[^\n]*"(\w+)"', text))
    assert {"kind", "trigger", "activation"} <= keys
    assert keys <= EVENT_WORDS, keys - EVENT_WORDS


# -- refusals that explain ---------------------------------------------------------------------------------
REFUSED = """\
name: A block the rules refuse
players: [alice, bob]
active: alice
objects:
  hero: {card: Benalish Hero, controller: alice}
  pegasus: {card: Mesa Pegasus, controller: alice}
  bears: {card: Grizzly Bears, controller: bob}
actions:
  - {do: declare_attackers, attackers: {hero: bob, pegasus: bob}}
  - {do: declare_blockers, blockers: {bears: [pegasus]}}
"""


def test_a_refused_action_says_which_what_before_the_rule_and_the_options(tmp_path, capsys):
    path = tmp_path / "refused.yaml"
    path.write_text(REFUSED)
    run = run_cli(capsys, ["do", path])
    assert run.code == 1
    first = run.err.splitlines()[0]
    assert first.startswith(f"{path}:10:5: error[A001]: action[1]: declare_blockers refused"), run.err
    assert "702.9b" in first  # the CR number
    assert re.search(r"refused by rule \S+ \[CR 702\.9b\] rules/\S+\.dl:\d+: ", run.err), run.err
    assert "legal options: bears -> hero" in run.err  # bears can block the hero, not the flyer
    assert "events before it:" in run.err and "attacks" in run.err.split("events before it:")[1]
    run = run_cli(capsys, ["do", "--format", "json", path])
    import json

    data = json.loads(run.err)
    assert (
        data["action"] == 1 and (data["line"], data["col"], data["code"]) == (10, 5, "A001") and data["cr"] == "702.9b"
    )
    assert data["refused_by"][0]["sentence"] and data["events"]


def test_the_test_verb_shows_the_same(tmp_path, capsys):
    path = tmp_path / "refused.yaml"
    path.write_text(REFUSED + 'expect:\n  - {holds: "blocked(hero)"}\n')
    run = run_cli(capsys, ["test", path])
    assert run.code == 1
    assert "action[1] (" in run.out and "refused by rule" in run.out and "legal options" in run.out


def test_actions_past_the_end_is_a_usage_error(capsys):
    run = run_cli(capsys, ["query", "--actions", "9", str(SCENARIOS / "combat_declare_and_damage.yaml"), "player(P)"])
    assert run.code == 2 and "has 6 action(s)" in run.err, run.err


def test_an_argument_in_a_shape_the_actions_rules_do_not_read_is_refused():
    """The shapes are the ones the rules of that action read: destroy reads one object (act_arg), while
    leave_battlefield reads a list as well (through action_object/1); combat_damage's assign is a mapping of
    mappings. Written otherwise, every rule would ignore the argument and the action would do nothing."""
    board = {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": {
            "bears": {"card": "Grizzly Bears", "controller": "alice"},
            "lions": {"card": "Savannah Lions", "controller": "alice"},
        },
    }
    state = Engine().state_from_dict(board)
    with pytest.raises(UsageError, match=r"destroy: object must be one id or number") as refused:
        state.apply({"do": "destroy", "object": ["bears", "lions"]})
    assert "one action for each" in (refused.value.hint or "")
    with pytest.raises(UsageError, match=r"assign must be a mapping of mappings"):
        state.apply({"do": "combat_damage", "assign": {"bears": 2}})
    after, events = state.apply({"do": "leave_battlefield", "object": ["bears", "lions"]})
    assert {e.subject for e in events if e.kind == "dies"} == {"bears", "lions"}
    assert not after.query("permanent(bears)") and state.query("permanent(bears)")


def test_an_absent_expectation_naming_an_unknown_id_fails_and_says_how_to_ask_instead(tmp_path, capsys):
    """A misspelled id must not make "absent" pass: a name near a known one is refused when the file loads,
    with its did-you-mean; an id such as a token's servo_1, which an action could have made, when the
    expectation is checked, saying how to expect that an object was never made."""
    path = tmp_path / "absent.yaml"

    def run_with(*expects: str):
        board = "players: [alice, bob]\nobjects:\n  bears: {card: Grizzly Bears, controller: alice}\n"
        path.write_text(f"name: absent\n{board}expect:\n" + "".join(f"  - {e}\n" for e in expects), encoding="utf-8")
        return run_cli(capsys, ["test", path])

    run = run_with('{absent: "permanent(beras)"}', '{holds: "permanent(beras)"}')
    assert run.code == 3
    absent, holds = run.out.split("error[S103]: ")[1:]
    assert "unknown object 'beras'" in absent and "did you mean 'bears'?" in absent  # the likely fix alone
    assert "unknown object 'beras'" in holds and "token(X)" not in holds
    run = run_with('{absent: "permanent(servo_1)"}')
    assert run.code == 1
    assert "unknown object 'servo_1'" in run.out and "to check that an object was never made" in run.out


def test_a_recorded_predicates_name_is_not_an_object_id():
    """The event of a record ("recorded combat_step") has the predicate's name as its subject: the ids an
    unknown-object hint lists are the objects' and players' only."""
    from judgelog.constants import typed_ids

    engine = Engine()
    state = engine.load(engine.example("combat_declare_and_damage.yaml"))
    after, events = state.apply({"do": "declare_attackers", "attackers": {"wurm": "bob"}})
    assert any(e.kind == "recorded" and e.subject == "combat_step" for e in events)
    ids = typed_ids(after)
    assert "combat_step" not in ids["object"] and "wurm" in ids["object"]


def test_a_number_larger_than_a_game_holds_is_an_input_error_at_its_place(tmp_path, capsys):
    """assign: {wurm: {bears: 99999999999999999999}} reached the rules and stopped with L003 ("a recursive rule
    may make new values for ever"): the number is the input's mistake, said at its line and column."""
    board = tmp_path / "huge.yaml"
    board.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  wurm: {card: Craw Wurm, controller: alice}\n  bears: {card: Grizzly Bears, controller: bob}\n"
        "actions:\n  - {do: declare_attackers, attackers: {wurm: bob}}\n"
        "  - {do: declare_blockers, blockers: {bears: [wurm]}}\n"
        "  - {do: combat_damage, assign: {wurm: {bears: 99999999999999999999}}}\n"
    )
    run = run_cli(capsys, ["do", str(board)])
    assert run.code == 3
    assert f"{board}:9:" in run.err and "assign is larger than a game holds" in run.err and "L003" not in run.err
