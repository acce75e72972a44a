"""Continuous effects with durations (rules/core/continuous.dl, CR 611.2, 613): begun by the begin_effect
primitive from a spec, ended by the engine from their declared duration."""

from __future__ import annotations

import pytest

from judgelog import Engine
from judgelog.errors import ActionError, JudgelogError, UsageError

CONDITION = """## "for as long as it's tapped", for the effects the apply_effect action starts with as_long_as.
@name test_lasting.while_tapped
@cr 611.2b
effect_condition(E) :- continuous_effect(E, apply_effect, O, as_long_as), tapped(O).
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> Engine:
    path = tmp_path_factory.mktemp("continuous") / "while_tapped.dl"
    path.write_text(CONDITION)
    return Engine(rules=[str(path)])


def _board(engine):
    return engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "bears": {"card": "Grizzly Bears", "controller": "alice"},
                "lions": {"card": "Savannah Lions", "controller": "alice"},
            },
        }
    )


def _power(state, o):
    return state.query(f"power({o}, P)")[0]["P"]


def test_as_long_as_ends_for_good_when_the_condition_stops(engine):
    state, _ = _board(engine).apply({"do": "tap", "object": "bears"})
    state, _ = state.apply(
        {"do": "apply_effect", "object": "bears", "power": 2, "toughness": 2, "duration": "as_long_as"}
    )
    assert _power(state, "bears") == 4
    state, events = state.apply({"do": "untap", "object": "bears"})
    assert [e.kind for e in events] == ["untapped", "effect_ended"]
    assert _power(state, "bears") == 2
    state, _ = state.apply({"do": "tap", "object": "bears"})  # 611.2b: it doesn't start again
    assert _power(state, "bears") == 2


def test_as_long_as_that_never_starts_does_nothing(engine):
    state, events = _board(engine).apply(
        {"do": "apply_effect", "object": "bears", "power": 2, "toughness": 2, "duration": "as_long_as"}
    )
    assert [e.kind for e in events] == ["effect_began", "effect_ended"]
    assert _power(state, "bears") == 2 and not state.query("continuous_effect(E, S, O, D)")


def test_timestamp_is_the_number_of_the_event_that_began_it(engine):
    state, _ = _board(engine).apply({"do": "tap", "object": "lions"})
    state, events = state.apply({"do": "apply_effect", "object": "bears", "keyword": "flying"})
    began = [e for e in events if e.kind == "effect_began"][0]
    assert state.query("effect_timestamp(E, T)") == [{"E": began.subject, "T": began.seq}]
    assert state.query("effect_value(E, K, V)") == [{"E": began.subject, "K": "keyword", "V": "flying"}]


def test_one_effect_on_a_set_has_the_timestamp_of_its_first_part(engine):
    """611.2c, 613.7b: apply_effect on a list is one spec begun on each object in one step: one timestamp, the
    number of the first effect_began; an effect begun by the next action has a later one."""
    state, events = _board(engine).apply({"do": "apply_effect", "object": ["bears", "lions"], "power": 1})
    began = [e for e in events if e.kind == "effect_began"]
    assert len(began) == 2
    state, later = state.apply({"do": "apply_effect", "object": "bears", "toughness": 1})
    stamps = {r["E"]: r["T"] for r in state.query("effect_timestamp(E, T)")}
    assert [stamps[e.subject] for e in began] == [began[0].seq, began[0].seq]
    assert stamps[[e for e in later if e.kind == "effect_began"][0].subject] > began[1].seq


def test_an_effect_ends_when_its_object_leaves_the_battlefield(engine):
    state, _ = _board(engine).apply(
        {"do": "apply_effect", "object": "bears", "power": 1, "toughness": 1, "duration": "forever"}
    )
    state, events = state.apply({"do": "leave_battlefield", "object": "bears"})
    assert "effect_ended" in [e.kind for e in events]
    assert not state.query("continuous_effect(E, S, O, D)")


def test_refused_apply_effect_changes_nothing(engine):
    state = _board(engine)
    # an id or a word that names nothing is an input error (judgelog.validation), not a rules refusal
    with pytest.raises(UsageError):
        state.apply({"do": "apply_effect", "object": "wurm", "power": 1})
    with pytest.raises(ActionError) as err:  # a word the rules know, but not a duration
        state.apply({"do": "apply_effect", "object": "bears", "power": 1, "duration": "tapped"})
    assert "611.2a" in err.value.render()
    with pytest.raises(JudgelogError):  # a word nothing knows is refused before the rules are asked
        state.apply({"do": "apply_effect", "object": "bears", "power": 1, "duration": "next_week"})
    assert not state.query("continuous_effect(E, S, O, D)")


def test_effects_of_a_hand_written_state_end_at_the_next_turn_end(engine):
    """Event numbers go on after the largest given timestamp, so "after the effect began" stays true."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
            "facts": [
                "continuous_effect(effect_9, pump, bears, until_end_of_turn)",
                "effect_timestamp(effect_9, 40)",
                "effect_value(effect_9, power, 3)",
                "effect_value(effect_9, toughness, 3)",
            ],
        }
    )
    assert _power(state, "bears") == 5
    state, _ = state.apply({"do": "end_turn"})
    assert _power(state, "bears") == 2


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_an_effect_that_says_nothing_is_refused(engine, tmp_path):
    state = _board(engine)
    with pytest.raises(ActionError) as empty:  # apply_effect with no key: the rules refuse it, naming 611.2
        state.apply({"do": "apply_effect", "object": "bears"})
    assert empty.value.cr == "611.2" and "set_power" in str(empty.value)
    # a rule that begins an effect under one spec name and gives its values under another
    rules = tmp_path / "cry.dl"
    rules.write_text(
        "@name cry\n@cr 702.91a\n"
        "triggers(S, cry, attacks) :- recent_event(N), event(N, attacks, S), has_keyword(S, cry).\n"
        "@name cry.pump\n@cr 702.91a\n"
        "effect(1, begin_effect, cry, S, until_end_of_turn) :- resolving(I), on_stack(I, S, cry).\n"
        "@name cry.power\n@cr 702.91a\n"
        "effect_spec(crie, power, 1) :- resolving(I), on_stack(I, _, cry).\n"
    )
    crier = Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "crier": {
                    "name": "Crier",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "keywords": ["cry"],
                    "controller": "alice",
                },
            },
        }
    )
    attacked, _ = crier.apply({"do": "declare_attackers", "attackers": {"crier": "bob"}})
    with pytest.raises(ActionError) as typo:
        attacked.apply({"do": "resolve"})
    assert "no effect_spec(cry, Key, Value) fact says what the effect does" in str(typo.value)
    assert "same spec name" in typo.value.hint


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_an_effect_granting_a_keyword_without_its_parameter_is_refused(tmp_path):
    # bushido granted by a rule file's effect with no n would trigger and do nothing (702.1)
    rules = tmp_path / "grant.dl"
    rules.write_text(
        "action_known(grant_bushido).\naction_param(grant_bushido, object).\n"
        "@name grant\n@cr 611.2a\n"
        "effect(1, begin_effect, grant, O, until_end_of_turn) :- action(grant_bushido), act_arg(object, O).\n"
        "@name grant.spec\n@cr 613.1f\n"
        "effect_spec(grant, keyword, bushido) :- action(grant_bushido).\n"
        "@name grant.n\n@cr 613.1f\n"
        "effect_spec(grant, n, 2) :- action(grant_bushido), act_arg(n, yes).\n"
        "action_param(grant_bushido, n).\n"
    )
    state = Engine(rules=[str(rules)]).state_from_dict(
        {"players": ["alice", "bob"], "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}}}
    )
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "grant_bushido", "object": "bears"})
    assert "continuous.keyword_needs_parameter" in refused.value.explain() and refused.value.cr == "702.1"
    assert not state.holds("has_keyword(bears, bushido)")
    granted, _ = state.apply({"do": "grant_bushido", "object": "bears", "n": "yes"})
    assert granted.holds("keyword_instance_param(bears, bushido, I, n, 2)")


@pytest.mark.parametrize("keyword, key", [("toxic", "n"), ("landwalk", "land_with")])
def test_apply_effect_without_a_keywords_parameter_is_one_refusal_naming_its_key(engine, keyword, key):
    """702.1: apply_effect granting a keyword written with a parameter, without it, is refused once, in the
    action's words (the key to give, the keyword named), not also with the designer-level refusal about a rule
    file's effect_spec (continuous.keyword_needs_parameter), which a rule file's effect still gets (above)."""
    state = engine.state_from_dict(
        {"players": ["alice", "bob"], "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}}}
    )
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "apply_effect", "object": "bears", "keyword": keyword})
    assert refused.value.violations == (("keyword_parameter_missing", key),), refused.value.violations
    assert str(refused.value).startswith(f"apply_effect refused: {keyword} is written with a parameter"), refused.value
    assert "effect_spec" not in str(refused.value) and refused.value.cr == "702.1"
