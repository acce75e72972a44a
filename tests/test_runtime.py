"""The runtime: keyword actions, triggered abilities, the stack and state-based actions are defined by rule
files and applied by the generic engine. A designer adds a triggered ability (tests/rules/soul_warden.dl) as
data, with no Python; the library's keyword actions (rules/actions/bolster.dl, support.dl) are data too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import yaml
from helpers import creature, run_cli, upkeep_board
from paths import ROOT, SCENARIOS, TESTS
from replays import NAMES, group_of, group_params, scenario_param

from judgelog import Engine
from judgelog.errors import ActionError, UsageError
from judgelog.library import load_program
from judgelog.runtime import run_actions
from judgelog.writer import write_scenario

RULES = TESTS / "rules"
MY_RULES = [RULES / "soul_warden.dl"]
MY_SCENARIOS = TESTS / "scenarios"
SOUL_WARDEN = {
    "name": "Soul Warden",
    "types": ["creature"],
    "subtypes": ["human", "cleric"],
    "colors": ["white"],
    "power": 1,
    "toughness": 1,
}


@pytest.fixture(scope="module")
def designer() -> Engine:
    """The shipped library plus the designer's three rule files."""
    return Engine(rules=[str(p) for p in MY_RULES])


def _board(engine: Engine, **extra) -> object:
    data = {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": {
            "bears": {"card": "Grizzly Bears", "controller": "alice"},
            "lions": {"card": "Savannah Lions", "controller": "alice"},
            "elves": {"card": "Llanowar Elves", "controller": "alice"},
            "hero": {"card": "Benalish Hero", "controller": "bob"},
        },
    }
    data.update(extra)
    return engine.state_from_dict(data)


def _stack(state):
    """The stack, top first, as (source, controller) pairs."""
    rows = state.query("on_stack(I, S, _), stack_position(I, N), ability_controller(I, P)")
    return [(r["S"], r["P"]) for r in sorted(rows, key=lambda r: -r["N"])]


# -- the designer's files are clean rule files --------------------------------------------------------


def test_designer_rule_files_check_clean_with_names_and_citations():
    result = load_program([str(p) for p in MY_RULES])
    mine = [
        d
        for d in result.diagnostics
        if d.span is not None and d.span.file.endswith(("bolster.dl", "support.dl", "soul_warden.dl"))
    ]
    assert not mine, "\n".join(d.render() for d in mine)
    rules = [
        r
        for r in result.program.rules
        if r.body and r.span.file.endswith(("bolster.dl", "support.dl", "soul_warden.dl"))
    ]
    assert len(rules) > 20  # the library's bolster.dl and support.dl, and the designer's soul_warden.dl
    assert all(r.name and r.cites for r in rules)


# -- the scenarios, through the command line ----------------------------------------------------------------


@pytest.mark.slow
def test_designer_scenarios_pass_with_judgelog_test(capsys):
    run = run_cli(capsys, ["test", MY_SCENARIOS])
    assert run.code == 0, run.out + run.err
    last = run.out.strip().splitlines()[-1]
    passed, failed = [int(w) for w in last.replace(",", "").split() if w.isdigit()]
    assert failed == 0 and passed >= 20, last


@pytest.mark.slow
def test_designer_scenarios_pass_with_rules_flags_too(capsys):
    """--rules naming the same files as the scenarios' rules: key loads each file once."""
    argv = ["test", "--format", "json"]
    for p in MY_RULES:
        argv += ["--rules", p]
    # two scenarios naming the same rule file in their rules: key, one naming none (every designer scenario
    # passes by its rules: key alone: test_designer_scenarios_pass_with_judgelog_test)
    files = [MY_SCENARIOS / f"{name}.yaml" for name in ("soul_warden", "soul_warden_order", "state_based")]
    run = run_cli(capsys, argv + files)
    assert run.code == 0, run.out + run.err
    data = run.json()
    assert data["failed"] == 0 and data["passed"] >= 3
    assert {c["file"].rsplit("/", 1)[-1] for c in data["cases"]} >= {
        "soul_warden.yaml",
        "soul_warden_order.yaml",
        "state_based.yaml",
    }


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_scenario_without_rules_key_uses_rules_flag(capsys, tmp_path):
    text = (MY_SCENARIOS / "soul_warden.yaml").read_text().replace("rules: [../rules/soul_warden.dl]\n", "")
    path = tmp_path / "soul_warden_no_rules.yaml"
    path.write_text(text)
    assert run_cli(capsys, ["test", path]).code == 1  # nothing triggers without its rule file
    run = run_cli(capsys, ["test", "--rules", RULES / "soul_warden.dl", path])
    assert run.code == 0, run.out


@pytest.mark.slow
def test_judgelog_command_in_a_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "judgelog.cli", "test", str(SCENARIOS / "bolster_least_toughness.yaml")],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("0 failed")


# -- bolster and support in Python ------------------------------------------------------------------


def test_bolster_choice_is_derived_and_refusals_name_the_cr(designer):
    state = _board(designer)
    with pytest.raises(ActionError) as missing:
        state.apply({"do": "bolster", "player": "alice", "n": 2})
    assert missing.value.options == ("elves", "lions")  # a missing choice lists the options
    assert "legal options: elves, lions" in str(missing.value)
    with pytest.raises(ActionError) as illegal:
        state.apply({"do": "bolster", "player": "alice", "n": 2, "choose": {"creature": "bears"}})
    assert illegal.value.cr == "701.39a" and "701.39a" in str(illegal.value)
    new, events = state.apply({"do": "bolster", "player": "alice", "n": 2, "choose": {"creature": "lions"}})
    assert new.query("power(lions, P), toughness(lions, T)") == [{"P": 4, "T": 3}]
    assert [(e.kind, e.subject, e.rule) for e in events] == [
        ("chosen", "lions", "bolster.choice"),
        ("counters_put", "lions", "bolster.put_counters"),
    ]
    assert all("701.39a" in e.cites for e in events)
    # the only creature with the least toughness is taken without a choice
    newer, _ = new.apply({"do": "bolster", "player": "alice", "n": 1})
    assert newer.query("counter(elves, p1p1, N)") == [{"N": 1}]
    # with no creature there is nothing to choose and bolster does nothing
    empty = designer.state_from_dict({"players": ["alice", "bob"], "objects": {}})
    same, events = empty.apply({"do": "bolster", "player": "alice", "n": 2})
    assert events == [] and same.facts == empty.facts


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_support_up_to_n_other_targets(designer):
    state = _board(designer)
    new, events = state.apply({"do": "support", "n": 2, "source": "bears", "choose": {"targets": ["lions", "hero"]}})
    assert sorted(e.subject for e in events if e.kind == "counters_put") == ["hero", "lions"]
    assert sorted(e.subject for e in events if e.kind == "chosen") == ["hero", "lions"]  # choices are logged
    assert new.query("counter(X, p1p1, 1)") == [{"X": "hero"}, {"X": "lions"}]
    none, events = state.apply({"do": "support", "n": 2, "source": "bears", "choose": {"targets": []}})
    assert events == [] and none.facts == state.facts
    with pytest.raises(ActionError, match=r"at most 1 .*701\.41a"):
        state.apply({"do": "support", "n": 1, "source": "bears", "choose": {"targets": ["lions", "hero"]}})
    with pytest.raises(ActionError, match="not a legal choice") as own:
        state.apply({"do": "support", "n": 1, "source": "bears", "choose": {"targets": ["bears"]}})
    assert "bears" not in own.value.options


# -- states are values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        {"do": "bolster", "player": "alice", "n": 2, "choose": {"creature": "bears"}},  # illegal choice
        {"do": "bolster", "player": "alice", "n": 2},  # missing choice
        {"do": "bolster", "player": "bears", "n": 2},  # violation
        {"do": "support", "n": 1, "choose": {"targets": ["lions", "hero"]}},  # too many
        {"do": "bolster", "player": "alice", "n": 2, "choose": {"creature": "lions", "targets": ["hero"]}},
    ],
    ids=["illegal", "missing", "violation", "too_many", "unused_choice"],
)
def test_refused_action_leaves_the_state_identical(designer, action):
    state = _board(designer)
    before, events_before = state.facts, state.events
    with pytest.raises(ActionError):
        state.apply(action)
    assert state.facts == before and state.events == events_before
    assert state.query("counter(X, K, N)") == []


def test_a_refused_step_two_undoes_step_one(designer):
    """All of an action's effects are applied to a working copy: a refusal after an effect changes nothing."""
    state = _board(designer, stack=[{"id": "ab1", "source": "bears", "kind": "soul_warden", "controller": "alice"}])
    before = state.facts
    with pytest.raises(ActionError, match="nothing to choose"):
        state.apply({"do": "resolve", "choose": {"pair": "lions"}})  # the ability gains life, then refuses
    assert state.facts == before


def test_a_choice_the_rules_say_cant_be_made_is_refused_with_their_reason(engine):
    """choice_unavailable/4: `pay` for a cost of more life than the player has is refused citing 119.4 (it
    said "nothing to choose for cumulative_upkeep: no rule offers it"); `none`, declining it, is taken."""
    state = upkeep_board(engine)
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "resolve", "choose": {"cumulative_upkeep": "pay"}})
    assert refused.value.cr == "119.4"
    assert "pay can't be chosen for cumulative_upkeep: a player can pay life only if" in refused.value.message
    assert "nothing to choose" not in refused.value.message
    after, events = state.apply({"do": "resolve", "choose": {"cumulative_upkeep": "none"}})
    assert [(e.kind, e.subject) for e in events if e.kind == "moved"] == [("moved", "chasm")]
    assert after.query("life(alice, L)") == [{"L": 1}]


def test_applying_leaves_the_original_state_unchanged(designer):
    state = _board(designer)
    before = state.facts
    new, _ = state.apply({"do": "bolster", "player": "alice", "n": 2, "choose": {"creature": "elves"}})
    assert state.facts == before and new.facts != before
    assert state.query("counter(X, K, N)") == []
    assert new.query("counter(X, K, N)") == [{"X": "elves", "K": "p1p1", "N": 2}]
    again, _ = state.apply({"do": "bolster", "player": "alice", "n": 1, "choose": {"creature": "lions"}})
    assert again.query("counter(X, K, N)") == [{"X": "lions", "K": "p1p1", "N": 1}]
    assert new.query("counter(X, K, N)") == [{"X": "elves", "K": "p1p1", "N": 2}]


# -- the round trip: do -o OUT.yaml loads back to the final state --------------------------------------------


def _scenarios_with_actions():
    # read as the module is collected, in every test process: libyaml's safe loader when PyYAML has it
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    bundled = [p for p in sorted(SCENARIOS.glob("*.yaml")) if "actions" in (yaml.load(p.read_text(), loader) or {})]
    mine = sorted(MY_SCENARIOS.glob("*.yaml"))
    # a bundled scenario's tests share its replay (tests/replays.py): they run on one pytest-xdist worker
    return [pytest.param(p, id=f"tests/{p.name}") for p in mine] + [
        pytest.param(p, id=f"facts/{p.name}", marks=pytest.mark.xdist_group(group_of(p.name))) for p in bundled
    ]


# the bundled scenarios whose do -o goes through the command line (the others write their replayed final
# state with the function the command calls, judgelog.writer.write_scenario: the command would replay
# the actions again on an engine of its own); every test scenario goes through the command line
DO_THROUGH_THE_CLI = 8  # every 8th bundled scenario with actions
WITH_ACTIONS = _scenarios_with_actions()
BUNDLED_WITH_ACTIONS = [p.values[0] for p in WITH_ACTIONS if p.values[0].parent != MY_SCENARIOS]


@pytest.mark.slow
@pytest.mark.parametrize("path", WITH_ACTIONS)
def test_do_output_loads_back_to_the_final_state(capsys, tmp_path, engine, replays, path):
    out = tmp_path / "out.yaml"
    if path.parent == MY_SCENARIOS:
        final, events = run_actions(engine.load(str(path)))
        through_cli = True
    else:
        replayed = replays.get("pydatalog", path.name)
        if not replayed.as_written:  # a bundled scenario someone is still writing
            pytest.skip("its actions do not go as written now")
        final, events = replayed.final()
        through_cli = BUNDLED_WITH_ACTIONS.index(path) % DO_THROUGH_THE_CLI == 0
    if through_cli:
        run = run_cli(capsys, ["do", path, "-o", out])
        assert run.code == 0, run.err
        assert ([e.to_text() for e in events] or ["(no events)"]) == run.out.rstrip("\n").splitlines()[:-1]
    else:
        write_scenario(final, out)
    loaded = engine.load(str(out))
    assert loaded.facts == final.facts
    assert loaded.query("event(N, K, X)") == final.query("event(N, K, X)")


def test_round_trip_with_a_stack_and_pairs(capsys, tmp_path):
    path = MY_SCENARIOS / "soul_warden.yaml"
    final, _ = run_actions(Engine().load(str(path)))
    out = tmp_path / "sub" / "out.yaml"
    out.parent.mkdir()
    assert run_cli(capsys, ["do", path, "-o", out]).code == 0
    written = yaml.safe_load(out.read_text())
    assert written["pairs"] == [["forcemage", "vanguard"]]
    assert written["stack"] == [
        {
            "id": "ability_1",
            "source": "warden_a",
            "kind": "soul_warden",
            "controller": "alice",
            "args": {"subject": "bears"},
        }
    ]
    assert len(written["rules"]) == 1  # the scenario's rules: key, relative to the new file
    assert (out.parent / written["rules"][0]).resolve() == (RULES / "soul_warden.dl").resolve()
    loaded = Engine().load(str(out))
    assert loaded.facts == final.facts
    # the written state goes on: the rest of the stack resolves with the same rules
    done, events = loaded.apply({"do": "resolve"})
    assert done.query("life(P, L)") == [{"P": "alice", "L": 21}, {"P": "bob", "L": 19}]
    assert done.query("on_stack(I, S, K)") == []
    assert [e.kind for e in events] == ["life_gained", "resolved"]


def test_round_trip_with_cards_in_zones_and_a_protector(capsys, tmp_path):
    path = tmp_path / "zones.yaml"
    path.write_text(
        "players: [alice, bob]\nobjects:\n"
        "  bears: {card: Grizzly Bears, controller: alice}\n"
        "  lions: {card: Savannah Lions, zone: hand, owner: alice}\n"
        "  giant: {card: Hill Giant, zone: graveyard, owner: bob, keywords: [{bushido: 1}]}\n"
        "  siege: {name: Siege, types: [battle], subtypes: [siege], controller: alice, protector: bob,\n"
        "          counters: {defense: 3}}\n"
        "actions:\n  - {do: leave_battlefield, object: bears, to: exile}\n",
        encoding="utf-8",
    )
    final, _ = run_actions(Engine().load(str(path)))
    out = tmp_path / "out.yaml"
    assert run_cli(capsys, ["do", path, "-o", out]).code == 0  # was: 3, unknown key 'zone'
    loaded = Engine().load(str(out))
    assert loaded.facts == final.facts
    assert loaded.holds("card_in_zone(lions, hand)") and loaded.holds("card_in_zone(bears, exile)")
    assert loaded.query("card_value(giant, printed_keyword_param, bushido, K, V, _)") == [{"K": "n", "V": 1}]
    assert loaded.holds("protector(siege, bob)")


# -- triggered abilities and the stack ------------------------------------------------------------------


def _wardens(engine, active="alice", **objects):
    data = {
        "players": ["alice", "bob"],
        "active": active,
        "objects": {"warden_a": dict(SOUL_WARDEN, controller="alice"), "warden_b": dict(SOUL_WARDEN, controller="bob")},
    }
    data["objects"].update(objects)
    return engine.state_from_dict(data)


@pytest.mark.parametrize(
    "active, stack",
    [
        ("alice", [("warden_b", "bob"), ("warden_a", "alice")]),
        ("bob", [("warden_a", "alice"), ("warden_b", "bob")]),
    ],
)
def test_triggers_go_on_the_stack_in_apnap_order(designer, active, stack):
    state = _wardens(designer, active=active)
    new, events = state.apply(
        {"do": "enter", "object": {"id": "bears", "card": "Grizzly Bears", "controller": "alice"}}
    )
    assert _stack(new) == stack  # the active player's first, so the non-active player's is on top (603.3b)
    assert [e.kind for e in events] == ["enters", "put_on_stack", "put_on_stack"]
    assert all(e.rule == "stack.triggered" and e.cites == ("603.3", "603.3b") for e in events[1:])
    resolved, _ = new.apply({"do": "resolve"})
    top_controller = stack[0][1]
    assert resolved.query(f"life({top_controller}, L)") == [{"L": 21}]


def test_order_chooses_the_order_of_one_players_triggers(designer):
    state = designer.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "first": dict(SOUL_WARDEN, controller="alice"),
                "second": dict(SOUL_WARDEN, controller="alice"),
            },
        }
    )
    enter = {
        "do": "create_token",
        "object": {
            "id": "spirit",
            "name": "Spirit",
            "types": ["creature"],
            "power": 1,
            "toughness": 1,
            "controller": "alice",
        },
    }
    a, _ = state.apply(dict(enter, order=["first", "second"]))
    b, _ = state.apply(dict(enter, order=["second", "first"]))
    assert [s for s, _ in _stack(a)] == ["first", "second"]  # order: lists the top of the stack first
    assert [s for s, _ in _stack(b)] == ["second", "first"]
    default, _ = state.apply(enter)
    assert sorted(s for s, _ in _stack(default)) == ["first", "second"]
    with pytest.raises(UsageError):
        state.apply(dict(enter, order="first"))


def test_a_trigger_sees_a_creature_that_died_at_once_and_triggers_only_once(designer):
    """603.6a: a 0/0 entering triggers Soul Warden though it dies to 704.5f before the trigger is put on
    the stack; and state-based actions after an event do not make that event trigger again."""
    state = _wardens(designer)
    zero = {
        "do": "create_token",
        "object": {
            "id": "zero",
            "name": "Zero",
            "types": ["creature"],
            "power": 0,
            "toughness": 0,
            "controller": "alice",
        },
    }
    new, events = state.apply(zero)
    assert [e.kind for e in events] == [
        "enters",
        "token_created",
        "moved",
        "dies",
        "ceased_to_exist",
        "put_on_stack",
        "put_on_stack",
    ]
    assert new.query(
        "on_stack(I, S, _), ability_arg(I, subject, X)",
    ) == [{"I": "ability_1", "S": "warden_a", "X": "zero"}, {"I": "ability_2", "S": "warden_b", "X": "zero"}]
    counters = {
        "do": "enter",
        "object": {"id": "bears", "card": "Grizzly Bears", "controller": "alice", "counters": {"p1p1": 1, "m1m1": 1}},
    }
    new, events = state.apply(counters)  # 704.5q happens after the enters event: still two triggers
    assert [e.kind for e in events].count("counters_removed") == 2
    assert len(_stack(new)) == 2


def test_no_trigger_for_itself_and_resolve_needs_a_stack(designer):
    state = designer.state_from_dict({"players": ["alice", "bob"], "objects": {}})
    new, events = state.apply({"do": "enter", "object": dict(SOUL_WARDEN, id="warden", controller="alice")})
    assert [e.kind for e in events] == ["enters"]  # "another creature"
    with pytest.raises(ActionError, match="stack is empty") as err:
        new.apply({"do": "resolve"})
    assert err.value.cr == "608.1"


# -- state-based actions and events --------------------------------------------------------------------


def test_state_based_actions_and_their_events(engine):
    state = engine.load(str(MY_SCENARIOS / "state_based.yaml"))
    final, events = run_actions(state)
    by_kind = {(e.kind, e.subject): e for e in events}
    assert by_kind[("dies", "elves")].rule == "sba.zero_toughness"
    assert by_kind[("dies", "elves")].cites == ("704.5f",)
    assert ("destroyed", "elves") not in by_kind  # 704.5f is not destruction
    assert by_kind[("destroyed", "bears")].rule == "sba.destroy_lethal_damage"
    assert by_kind[("destroyed", "bears")].cites == ("704.5g",)
    assert by_kind[("counters_removed", "wurm")].cites == ("704.5q", "122.3")
    assert final.query("counter(wurm, K, N)") == [{"K": "m1m1", "N": 1}]
    assert ("ceased_to_exist", "spirit") in by_kind
    assert not final.holds("permanent(spirit)") and not final.holds("token(spirit)")
    # nothing but the events and its last known values (card_value, last_known: for an ability it left on the
    # stack, 608.2h)
    kept = ("event", "event_detail", "card_value", "last_known")
    assert not any(f[1] == "spirit" for f in final.facts if f[0] not in kept)
    assert final.holds("last_known(spirit, quality, type, creature)")
    assert final.holds("has_quality(spirit, type, creature)") and not final.holds("card_in_zone(spirit, _)")


def test_events_are_facts_that_name_their_rule(engine):
    final, _ = run_actions(engine.load(str(MY_SCENARIOS / "state_based.yaml")))
    assert final.query("event(N, dies, X)") == [{"N": 3, "X": "elves"}, {"N": 6, "X": "bears"}]
    assert final.query("event(N, dies, X), event_cause(N, R)") == [
        {"N": 3, "X": "elves", "R": "sba.zero_toughness"},
        {"N": 6, "X": "bears", "R": "sba.destroy_lethal_damage"},
    ]
    assert final.query("event(N, moved, spirit), event_detail(N, to, Z)") == [{"N": 10, "Z": "exile"}]
    # numbering goes on from the state's last event
    again, events = final.apply({"do": "tap", "object": "wurm"})
    assert [(e.seq, e.kind, e.rule) for e in events] == [(12, "tapped", "actions.tap")]


# -- errors of the command line -----------------------------------------------------------------------


def _scenario(tmp_path, actions: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(
        textwrap.dedent("""\
        players: [alice, bob]
        objects:
          lions: {card: Savannah Lions, controller: alice}
          elves: {card: Llanowar Elves, controller: alice}
        actions:
        """)
        + actions
    )
    return str(path)


def test_unknown_action_is_an_input_error_with_did_you_mean(capsys, tmp_path):
    """Found when the file loads, before anything runs: exit 3, file:line:col."""
    path = _scenario(tmp_path, "  - {do: bolstr, n: 1}\n")
    run = run_cli(capsys, ["do", path])
    assert run.code == 3
    assert f"{path}:6:10: error[S102]: unknown action 'bolstr'" in run.err and "did you mean 'bolster'?" in run.err


def test_unknown_argument_is_an_input_error_with_did_you_mean(capsys, tmp_path):
    run = run_cli(capsys, ["do", _scenario(tmp_path, "  - {do: bolster, playr: alice, n: 1}\n")])
    assert run.code == 3
    assert "did you mean 'player'?" in run.err


def test_missing_choice_lists_the_options_on_the_command_line(capsys, tmp_path):
    run = run_cli(capsys, ["do", _scenario(tmp_path, "  - {do: bolster, n: 1}\n")])
    assert run.code == 1
    assert "a choice is required for creature" in run.err
    assert "legal options: elves, lions" in run.err and "701.39a" in run.err


def test_do_prints_the_event_log_with_rules_and_crs(capsys, tmp_path):
    run = run_cli(capsys, ["do", MY_SCENARIOS / "soul_warden.yaml"])
    assert run.code == 0, run.err
    lines = run.out.rstrip("\n").splitlines()
    assert lines[0] == "  1. enters bears (controller=alice, token=false)  [actions.enter, CR 110.1, 603.6a]"
    assert (
        "put_on_stack ability_1 (controller=alice, kind=soul_warden, source=warden_a, subject=bears, "
        "trigger=soul_warden)  "
        "[stack.triggered, CR 603.3, 603.3b]" in lines[1]  # the rule that made it trigger: trigger=...
    )
    assert lines[3] == "  4. life_gained bob (n=1)  [soul_warden.gain_life, CR 608.2, 119.3, 603.3a]"
    assert lines[4] == "  5. resolved ability_2  [stack.resolve, CR 608.2, 608.2n]"
    run = run_cli(capsys, ["do", "--format", "json", SCENARIOS / "bolster_least_toughness.yaml"])
    events = run.json()["events"]
    assert {e["rule"] for e in events} == {"bolster.choice", "bolster.put_counters"}
    assert all(e["cites"] == ["701.39a", "122.6"] for e in events if e["kind"] == "counters_put")
    assert all(e["cites"] == ["701.39a"] for e in events if e["kind"] == "chosen")


# -- docs/authoring.md shows only real, tested text ------------------------------------------------------

DOC = ROOT / "docs" / "authoring.md"


def _doc_blocks():
    import re

    text = DOC.read_text()
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M)]


def _contains_lines(haystack: str, block: str) -> bool:
    lines = block.rstrip("\n").split("\n")
    hay = haystack.split("\n")
    return any(hay[i : i + len(lines)] == lines for i in range(len(hay) - len(lines) + 1))


def test_doc_rule_and_scenario_blocks_are_copied_from_tested_files():
    library = list((ROOT / "rules").glob("*/*.dl")) + list((ROOT / "facts" / "scenarios").glob("*.yaml"))
    sources = {p: p.read_text() for p in list(RULES.glob("*.dl")) + list(MY_SCENARIOS.glob("*.yaml")) + library}
    blocks = [(lang, body) for lang, body in _doc_blocks() if lang in ("prolog", "yaml")]
    assert len(blocks) >= 10
    for _lang, body in blocks:
        assert any(_contains_lines(text, body) for text in sources.values()), f"not copied from a file:\n{body}"
    for path in (
        ROOT / "rules" / "actions" / "bolster.dl",
        RULES / "soul_warden.dl",
        ROOT / "rules" / "keywords" / "skulk.dl",
    ):
        assert any(body == path.read_text() for _, body in blocks), path.name  # the worked examples are complete


@pytest.mark.slow
def test_doc_console_blocks_are_real_output(capsys, chdir_root):
    import shlex

    blocks = [body for lang, body in _doc_blocks() if lang == "console"]
    assert len(blocks) >= 4
    for body in blocks:
        runs, current = [], None
        for line in body.rstrip("\n").split("\n"):
            if line.startswith("$ "):
                current = (shlex.split(line[2:]), [])
                runs.append(current)
            else:
                current[1].append(line)
        for argv, expected in runs:
            assert argv[0] == "judgelog"
            run = run_cli(capsys, argv[1:])
            got = (run.out + run.err).rstrip("\n").split("\n")
            i = 0
            for want in expected:  # in order; "..." skips lines; a line ending in "..." is a prefix
                if want == "...":
                    continue
                prefix = want.endswith("...")
                while i < len(got) and not (got[i].startswith(want[:-3]) if prefix else got[i] == want):
                    i += 1
                assert i < len(got), f"{' '.join(argv)}: line not in the output: {want!r}\n{run.out}{run.err}"
                i += 1


def test_doc_python_block_runs(chdir_root):
    import ast

    body = [b for lang, b in _doc_blocks() if lang == "python"][0]  # the first: the designer's walk-through
    scope: dict = {}
    lines = body.rstrip("\n").split("\n")
    for i, line in enumerate(lines):
        if not line.strip() or line.startswith("#"):
            continue
        code, _, comment = line.partition("  # ")
        node = ast.parse(code.strip())
        if isinstance(node.body[0], ast.Expr):
            value = eval(code.strip(), scope)
            shown = comment.strip() or (
                lines[i + 1][2:] if i + 1 < len(lines) and lines[i + 1].startswith("# ") else ""
            )
            if shown[:1] in "[({'":
                assert repr(value) == shown, code
        else:
            exec(code.strip(), scope)


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_a_refusal_without_violation_info_says_what_to_add(tmp_path):
    rules = tmp_path / "lure.dl"
    rules.write_text(
        "@name lure.requirement\n@cr 509.1c\n"
        "block_requirement(B, A, lure) :- attacking(A, _), has_keyword(A, lure), defending_player(A, P),\n"
        "    creature_controlled_by(B, P).\n"
    )
    state = Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "lurer": {
                    "name": "Lurer",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "keywords": ["lure"],
                    "controller": "alice",
                },
                "bears": {"card": "Grizzly Bears", "controller": "bob"},
            },
        }
    )
    attacked, _ = state.apply({"do": "declare_attackers", "attackers": {"lurer": "bob"}})
    with pytest.raises(ActionError) as refused:
        attacked.apply({"do": "declare_blockers", "blockers": {}})
    assert "declare_blockers refused: lure (bears)" in str(refused.value)
    assert 'add violation_info(lure, "CR", "text")' in refused.value.hint
    blocked, _ = attacked.apply({"do": "declare_blockers", "blockers": {"bears": ["lurer"]}})
    assert blocked.query("blocked_by(lurer, B)") == [{"B": "bears"}]


def test_a_misnamed_choice_of_a_resolving_ability_is_named_in_the_hint(designer):
    state = designer.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "stalwart": {
                    "name": "Stalwart",
                    "types": ["creature"],
                    "power": 2,
                    "toughness": 2,
                    "keywords": ["mentor"],
                    "controller": "alice",
                },
                "bears": {"card": "Llanowar Elves", "controller": "alice"},
                "lions": {"card": "Llanowar Elves", "controller": "alice"},
            },
        }
    )
    attacked, _ = state.apply(
        {"do": "declare_attackers", "attackers": {"stalwart": "bob", "bears": "bob", "lions": "bob"}}
    )
    with pytest.raises(ActionError) as misnamed:
        attacked.apply({"do": "resolve", "choose": {"targets": "lions"}})
    assert misnamed.value.options == ("bears", "lions")
    assert "choose: names 'targets', but the choice is called 'target'" in misnamed.value.hint


_BEARS_CANT_BLOCK_A_FLIER = textwrap.dedent(
    """\
    players: [alice, bob]
    active: alice
    objects:
      dragon: {card: Shivan Dragon, controller: alice}
      bears: {card: Grizzly Bears, controller: bob}
    combat:
      attackers: {dragon: bob}
    actions:
      - {do: declare_blockers, blockers: {bears: dragon}}
    """
)


def test_judgelog_test_says_once_why_an_action_was_refused(capsys, tmp_path):
    """Every expectation after a refused action fails (none could be checked); the refusal, with its rule and
    CR number, is told by the first of them, and the others say they were not checked."""
    path = tmp_path / "refused.yaml"
    path.write_text(
        _BEARS_CANT_BLOCK_A_FLIER
        + textwrap.dedent(
            """\
            expect:
              - {query: "blocked(A)", answers: [{A: dragon}]}
              - {absent: "unblocked(A)"}
              - {query: "controller(bears, P)", answers: [{P: bob}]}
            """
        ),
        encoding="utf-8",
    )
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 1 and run.out.count("FAIL ") == 3 and "0 passed, 3 failed" in run.out, run.out
    assert run.out.count("702.9b") == 2  # the refusal and the rule that refused it, once
    assert run.out.count("not checked: action[0] (line 9) declare_blockers was refused") == 2


def test_judgelog_test_tells_a_refusal_no_expectation_follows(capsys, tmp_path):
    """A refused action with no expect: entry after it printed only "0 passed, 0 failed": the refusal is a
    failed case of its own, saying why as `do` does (and an unless_refused entry still passes alone)."""
    board = _BEARS_CANT_BLOCK_A_FLIER
    path = tmp_path / "refused.yaml"
    path.write_text(board, encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 1 and "0 passed, 1 failed" in run.out, run.out
    assert f"FAIL {path}: action[0] (line 9) declare_blockers refused" in run.out
    assert "702.9b" in run.out
    path.write_text(board + 'expect:\n  - {absent: "blocked(dragon)", unless_refused: true}\n', encoding="utf-8")
    run = run_cli(capsys, ["test", str(path)])
    assert run.code == 0 and "1 passed, 0 failed" in run.out, run.out


def test_do_applies_the_first_n_actions_as_the_other_verbs_do(capsys, tmp_path):
    scenario = SCENARIOS / "banding_declared_blockee_dies.yaml"
    whole = run_cli(capsys, ["do", scenario, "--format", "json"])
    first = run_cli(capsys, ["do", scenario, "--actions", "1", "--format", "json", "-o", tmp_path / "after1.yaml"])
    assert whole.code == first.code == 0, whole.err + first.err
    events, head = json.loads(whole.out)["events"], json.loads(first.out)["events"]
    assert 0 < len(head) < len(events) and events[: len(head)] == head
    written = yaml.safe_load((tmp_path / "after1.yaml").read_text(encoding="utf-8"))
    assert "in_band(hero, band1)" in written["facts"] and "actions" not in written  # the state, not the file
    too_many = run_cli(capsys, ["do", scenario, "--actions", "9"])
    assert too_many.code == 2 and "has 4 action(s)" in too_many.err


DEFAULTS = """
action_known(cheer).
action_param(cheer, player).
action_param(cheer, n).

@name cheer.player_default
@cr 119.3
action_param_default(cheer, player, P) :- action(cheer), active_player(P).

action_param_default(cheer, n, 1).

@name cheer.gain
@cr 119.3
effect(1, gain_life, P, N, none) :- action(cheer), act_arg(player, P), act_arg(n, N).
"""


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_an_argument_left_out_takes_the_default_the_rules_give(tmp_path):
    """action_param_default: the runtime asserts act_arg for an argument the action leaves out, from a fact or
    a rule of the action's file; an argument given wins; two defaults for one key are an error of the rules,
    and the state is unchanged."""
    from judgelog.errors import RuleError

    rules = tmp_path / "cheer.dl"
    rules.write_text(DEFAULTS, encoding="utf-8")
    engine = Engine(rules=[str(rules)])
    state = engine.state_from_dict({"players": ["alice", "bob"], "active": "bob", "life": {"alice": 20, "bob": 20}})
    life = "life(P, L)"
    after, _ = state.apply({"do": "cheer"})
    assert after.query(life) == [{"P": "alice", "L": 20}, {"P": "bob", "L": 21}]  # bob: the active player
    after, _ = state.apply({"do": "cheer", "player": "alice", "n": 3})
    assert after.query(life) == [{"P": "alice", "L": 23}, {"P": "bob", "L": 20}]
    rules.write_text(DEFAULTS + "action_param_default(cheer, n, 2).\n", encoding="utf-8")
    twice = Engine(rules=[str(rules)]).state_from_dict({"players": ["alice"], "life": {"alice": 20}})
    with pytest.raises(RuleError, match="two defaults for 'n'"):
        twice.apply({"do": "cheer"})
    assert twice.apply({"do": "cheer", "n": 5})[0].query(life) == [{"P": "alice", "L": 25}]


TITHE = """
## A test action: the player sacrifices exactly N permanents they control (all of them if fewer).
action_known(tithe).
action_param(tithe, player).
action_param(tithe, n).

@name tithe.choice
@cr 701.21a
choice(sacrifice, O) :- action(tithe), step(1), act_arg(player, P), permanent(O), controller(O, P).

@name tithe.mode
@cr 701.21a
choice_mode(sacrifice, exactly) :- action(tithe).

@name tithe.max
@cr 701.21a
choice_max(sacrifice, N) :- action(tithe), act_arg(n, N).

@name tithe.sacrifice
@cr 701.21a
effect(1, move, O, graveyard, sacrificed) :- action(tithe), step(1), chosen(sacrifice, O).
"""


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_a_choice_of_exactly_n_takes_n_or_every_option_when_there_are_fewer(tmp_path):
    """choice_mode ``exactly`` with choice_max N: N options must be chosen; with N or fewer options there is
    no choice (all of them); fewer or more than that is refused, and the state is left as it was."""
    rules = tmp_path / "tithe.dl"
    rules.write_text(TITHE, encoding="utf-8")
    state = _board(Engine(rules=[str(rules)]))

    def gone(new):
        return sorted(r["O"] for r in new.query("card_in_zone(O, graveyard)"))

    two, _ = state.apply({"do": "tithe", "player": "alice", "n": 2, "choose": {"sacrifice": ["bears", "elves"]}})
    assert gone(two) == ["bears", "elves"]
    for wrong in (["bears"], ["bears", "elves", "lions"]):
        with pytest.raises(ActionError, match="sacrifice") as refused:
            state.apply({"do": "tithe", "player": "alice", "n": 2, "choose": {"sacrifice": wrong}})
        assert "choose exactly 2" in refused.value.message or "at most 2" in refused.value.message
    with pytest.raises(ActionError, match="a choice is required for sacrifice"):
        state.apply({"do": "tithe", "player": "alice", "n": 2})
    every, _ = state.apply({"do": "tithe", "player": "bob", "n": 2})  # bob controls one permanent: no choice
    assert gone(every) == ["hero"]
    with pytest.raises(ActionError, match="choose exactly 1 for sacrifice"):
        state.apply({"do": "tithe", "player": "bob", "n": 2, "choose": {"sacrifice": []}})
    assert gone(state) == []


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_an_at_end_of_combat_ability_resolves_while_the_attackers_are_still_attacking():
    """end_combat (rules/actions/combat_actions.dl, no Python): the end of combat step begins and "at end of
    combat" abilities trigger (511.2) while the creatures are still in combat; the step ends, and they are
    removed from combat (511.3), only once the stack is empty (500.2): end_combat stops with step_waits, and
    given again after the ability resolves it ends combat."""
    engine = Engine(rules=[str(RULES / "drill_sergeant.dl")])
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "bears": {"card": "Grizzly Bears", "controller": "alice"},
                "sergeant": {"name": "Drill Sergeant", "types": ["artifact"], "controller": "alice"},
            },
            "combat": {"attackers": {"bears": "bob"}},
        }
    )
    begun, events = state.apply({"do": "end_combat"})
    kinds = [e.kind for e in events]
    assert kinds.index("end_of_combat_began") < kinds.index("put_on_stack") < kinds.index("step_waits")
    assert "combat_ended" not in kinds
    waits = next(e for e in events if e.kind == "step_waits")
    assert waits.subject == "end_combat" and waits.rule == "stack.step_cannot_end" and "500.2" in waits.cites
    assert begun.query("attacking(A, T)") == [{"A": "bears", "T": "bob"}]
    assert begun.query("combat_step(S)") == [{"S": "end_of_combat"}]
    resolved, _ = begun.apply({"do": "resolve"})
    assert resolved.query("counter(bears, p1p1, N)") == [{"N": 1}]
    ended, events = resolved.apply({"do": "end_combat"})
    assert [e.kind for e in events if e.kind in ("end_of_combat_began", "combat_ended")] == ["combat_ended"]
    assert ended.query("attacking(A, T)") == [] and ended.query("combat_step(S)") == []
    # without the card nothing triggers: one end_combat begins and ends the step
    plain = Engine().state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
            "combat": {"attackers": {"bears": "bob"}},
        }
    )
    after, events = plain.apply({"do": "end_combat"})
    kinds = [e.kind for e in events]
    assert kinds.index("end_of_combat_began") < kinds.index("combat_ended") and "step_waits" not in kinds
    assert after.query("attacking(A, T)") == []


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_turn_begins_for_the_next_player_who_untaps_and_whose_upkeep_triggers(tmp_path):
    """begin_turn (rules/actions/turn.dl, no Python): the next player in turn order still in the game
    becomes the active player and untaps their permanents only (502.3); "at the beginning of your upkeep"
    abilities of that player trigger (503.1a); a turn can't begin with an ability on the stack (500.2)."""
    engine = Engine(rules=[str(RULES / "upkeep_tithe.dl")])
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob", "carol"],
            "active": "alice",
            "life": {"alice": 20, "bob": 20, "carol": 20},
            "objects": {
                "bears": {"card": "Grizzly Bears", "controller": "alice", "tapped": True},
                "hero": {"card": "Benalish Hero", "controller": "bob", "tapped": True},
                "shrine": {"name": "Upkeep Shrine", "types": ["artifact"], "controller": "bob"},
                "carols": {"name": "Upkeep Shrine", "types": ["artifact"], "controller": "carol"},
            },
        }
    )
    with pytest.raises(ActionError, match="the turn has not ended") as refused:
        state.apply({"do": "begin_turn"})  # alice's turn has its end and cleanup steps first (500.1)
    assert refused.value.cr == "500.1"
    bobs, events = state.apply({"do": "end_turn"})[0].apply({"do": "begin_turn"})
    assert bobs.query("active_player(P)") == [{"P": "bob"}]
    assert bobs.query("tapped(X)") == [{"X": "bears"}]
    assert [(e.kind, e.subject) for e in events if e.kind in ("untapped", "upkeep_began")] == [
        ("untapped", "hero"),
        ("upkeep_began", "bob"),
    ]
    assert _stack(bobs) == [("shrine", "bob")]  # bob's shrine triggered, carol's did not
    with pytest.raises(ActionError, match="still on the stack") as refused:
        bobs.apply({"do": "end_turn"})
    assert refused.value.cr == "500.2"
    resolved, _ = bobs.apply({"do": "resolve"})
    assert resolved.query("life(bob, L)") == [{"L": 21}]
    resolved, _ = resolved.apply({"do": "end_turn"})
    carols, _ = resolved.apply({"do": "begin_turn"})  # after bob: carol
    assert carols.query("active_player(P)") == [{"P": "carol"}] and _stack(carols) == [("carols", "carol")]
    lost = resolved.with_facts(set(resolved.facts) | {("lost_game", "carol")})
    alices, _ = lost.apply({"do": "begin_turn"})  # carol has left the game: alice's turn (800.4a)
    assert alices.query("active_player(P)") == [{"P": "alice"}]
    with pytest.raises(ActionError, match="that player has left the game") as refused:
        lost.apply({"do": "begin_turn", "player": "carol"})  # named, she is refused too
    assert refused.value.cr == "800.4a"
    again, _ = resolved.apply({"do": "begin_turn", "player": "bob"})  # an extra turn for bob (500.7)
    assert again.query("active_player(P)") == [{"P": "bob"}] and _stack(again) == [("shrine", "bob")]


def test_no_state_based_action_is_performed_before_the_untap_step(engine):
    """502.4, 704.3: no player receives priority in the untap step, so begin_turn performs no state-based
    action between the turn beginning and the untap step (follow_up_before_priority): Bob's Bears, 0/0 once
    their +0/+2 "until your next turn" has ended (500.5), untap with his permanents and die in the upkeep."""
    state = engine.load(SCENARIOS / "untap_step_no_state_based_actions_until_the_upkeep.yaml")
    after, events = run_actions(state)
    order = [
        (e.kind, e.subject)
        for e in events
        if e.kind in ("turn_began", "effect_ended", "untapped", "upkeep_began", "dies")
    ]
    assert order == [
        ("turn_began", "bob"),
        ("effect_ended", "effect_1"),
        ("untapped", "bears"),
        ("untapped", "giant"),
        ("upkeep_began", "bob"),
        ("dies", "bears"),
    ]
    assert after.query("card_in_zone(bears, Z)") == [{"Z": "graveyard"}]


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_abilities_triggered_before_the_untap_step_wait_for_the_upkeep(tmp_path):
    """117.5, 502.4, 603.3b: an ability that triggers as the turn begins (tests/rules/turn_began_watcher.dl) or
    in the untap step (an "untapped" trigger, here) is put on the stack only as a player would receive
    priority, after the untap step and the beginning of the upkeep, with the upkeep's (tests/rules/upkeep_tithe.dl)
    in APNAP order: the active player's first (each in the order they triggered), then the other's on top."""
    untaps = tmp_path / "untap_watcher.dl"
    untaps.write_text(
        "@name untap_watcher.trigger\n@cr 603.2\n"
        "triggers(S, untap_watcher, O) :- recent_event(N), event(N, untapped, O), permanent(S),\n"
        '    name(S, "Untap Watcher").\n',
        encoding="utf-8",
    )
    engine = Engine(rules=[str(RULES / "turn_began_watcher.dl"), str(RULES / "upkeep_tithe.dl"), str(untaps)])
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "spy": {"name": "Untap Watcher", "types": ["artifact"], "controller": "alice"},
                "watcher": {
                    "name": "Turn Watcher",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "controller": "bob",
                    "tapped": True,
                },
                "shrine": {"name": "Upkeep Shrine", "types": ["artifact"], "controller": "bob"},
            },
        }
    )
    bobs, events = state.apply({"do": "end_turn"})[0].apply({"do": "begin_turn"})
    kinds = [
        e.kind for e in events if e.kind in ("turn_began", "untapped", "upkeep_began", "put_on_stack", "step_waits")
    ]
    assert kinds == ["turn_began", "untapped", "upkeep_began", "put_on_stack", "put_on_stack", "put_on_stack"]
    assert [(e.details["kind"], e.rule) for e in events if e.kind == "put_on_stack"] == [
        ("turn_began_watcher", "stack.triggered"),
        ("upkeep_shrine", "stack.triggered"),
        ("untap_watcher", "stack.triggered"),
    ]
    assert _stack(bobs) == [("spy", "alice"), ("shrine", "bob"), ("watcher", "bob")]
    assert bobs.query("event(N, upkeep_began, bob)") and not bobs.query("tapped(watcher)")


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_follow_up_before_priority_holds_triggers_unless_it_is_stopped(tmp_path):
    """follow_up_before_priority() is generic (no action named in the runtime): an action in two parts whose
    first triggers an ability has it put on the stack after the second (117.5); when the follow-up is stopped
    (follow_up_stopped), a player receives priority after the first part, and it is put on the stack then."""
    rules = tmp_path / "twice.dl"
    rules.write_text(
        textwrap.dedent(
            """\
            action_known(twice).
            action_param(twice, continued).
            @name twice.first
            @cr 117.5
            effect(1, signal, ping, game, none) :- action(twice), not act_arg(continued, yes).
            @name twice.second
            @cr 117.5
            effect(1, signal, pong, game, none) :- action(twice), act_arg(continued, yes).
            @name twice.goes_on
            @cr 117.5
            follow_up(continued, yes) :- action(twice), not act_arg(continued, yes).
            @name twice.no_priority
            @cr 117.5
            follow_up_before_priority() :- action(twice), not act_arg(continued, yes).
            @name twice.stopped
            @cr 117.5
            follow_up_stopped(test) :- permanent(O), name(O, "Stopper").
            @name twice.heard
            @cr 603.2
            triggers(S, heard, game) :- recent_event(N), event(N, ping, game), permanent(S), name(S, "Listener").
            """
        ),
        encoding="utf-8",
    )
    engine = Engine(rules=[str(rules)])
    listener = {"name": "Listener", "types": ["artifact"], "controller": "alice"}
    state = engine.state_from_dict({"players": ["alice", "bob"], "active": "alice", "objects": {"ear": listener}})
    _, events = state.apply({"do": "twice"})
    assert [e.kind for e in events] == ["ping", "pong", "put_on_stack"]
    stopper = {"name": "Stopper", "types": ["artifact"], "controller": "bob"}
    stopped = engine.state_from_dict(
        {"players": ["alice", "bob"], "active": "alice", "objects": {"ear": listener, "stop": stopper}}
    )
    _, events = stopped.apply({"do": "twice"})
    assert [e.kind for e in events] == ["ping", "put_on_stack"]


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_a_choice_max_that_is_not_a_number_is_refused_with_a_hint(tmp_path):
    """A rule file that derives choice_max from an argument it did not type as a count gets an ActionError
    naming the choice, never a TypeError from comparing a word with a number."""
    rules = tmp_path / "pick.dl"
    rules.write_text(
        "action_known(pick).\naction_param(pick, n).\n"
        "@name pick.choice\n@cr 701.1\nchoice(thing, O) :- action(pick), permanent(O).\n"
        "@name pick.mode\n@cr 701.1\nchoice_mode(thing, up_to) :- action(pick).\n"
        "@name pick.max\n@cr 701.1\nchoice_max(thing, N) :- action(pick), act_arg(n, N).\n",
        encoding="utf-8",
    )
    state = Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
        }
    )
    with pytest.raises(ActionError, match="choice_max of bears, not a number") as refused:
        state.apply({"do": "pick", "n": "bears", "choose": {"thing": ["bears"]}})
    assert "action_param_type" in (refused.value.hint or "")
    _, events = state.apply({"do": "pick", "n": 1, "choose": {"thing": ["bears"]}})  # a number: the choice is made
    assert [(e.kind, e.subject) for e in events] == [("chosen", "bears")]


def test_a_refusal_in_a_follow_up_application_says_so():
    """One combat_damage action runs the first-strike step and then, as the rules ask (follow_up/2), the regular
    one with the same division: a division naming creatures that died in the first step is refused in the
    second (where the attacker still has a blocker to assign its damage to), and the refusal says it was that
    application, with its arguments."""
    from judgelog.errors import ActionError

    state = Engine().state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "ds": creature("Doubler", 4, 4, "alice", "double_strike"),
                "b1": {"card": "Grizzly Bears", "controller": "bob"},
                "b2": {"card": "Grizzly Bears", "controller": "bob"},
                "wall": {"card": "Grizzly Bears", "controller": "bob", "toughness": 9},
            },
        }
    )
    state, _ = state.apply({"do": "declare_attackers", "attackers": {"ds": "bob"}})
    state, _ = state.apply({"do": "declare_blockers", "blockers": {"b1": ["ds"], "b2": ["ds"], "wall": ["ds"]}})
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "combat_damage", "assign": {"ds": {"b1": 2, "b2": 2}}})
    assert "when applied again with" in str(refused.value) and "step: regular" in str(refused.value)
    assert refused.value.hint and "step: regular" in refused.value.hint
    after, _ = state.apply(
        {"do": "combat_damage", "step": "first_strike", "assign": {"ds": {"b1": 2, "b2": 2, "wall": 0}}}
    )
    assert not after.holds("permanent(b1)") and not after.holds("permanent(b2)")
    after, _ = after.apply({"do": "combat_damage", "step": "regular", "assign": {"ds": {"wall": 4}}})
    assert after.holds("damage_marked(wall, 4)")


def _left_sources(state) -> set:
    """The sources of the abilities on the stack that are no longer on the battlefield (a dies trigger's)."""
    on = {f[1] for f in state.facts if f[0] == "permanent"}
    return {f[2] for f in state.facts if f[0] == "on_stack"} - on


def _written_and_loaded_back(tmp_path, engine, replays, names) -> int:
    """Write every state of the scenarios' replays whose stack holds an ability of a card that has left the
    battlefield, load it back, and check it has the same facts: how many there were."""
    written = 0
    for name in names:
        run = replays.get("pydatalog", name)
        for state in run.states:
            if not _left_sources(state):
                continue
            out = tmp_path / f"{name}.{written}.yaml"
            write_scenario(state, out)
            loaded = engine.load(str(out))
            assert loaded.facts == state.facts, name
            written += 1
    return written


DIES_TRIGGERS = [n for n in NAMES if n.startswith(("persist_", "undying_", "afterlife_"))]


@pytest.mark.parametrize(  # every 4th in the everyday suite, all with -m slow
    "name", [scenario_param(n, *(() if i % 4 == 0 else (pytest.mark.slow,))) for i, n in enumerate(DIES_TRIGGERS)]
)
def test_a_state_with_a_dies_trigger_waiting_is_written_and_loads_back(tmp_path, engine, replays, name):
    """`do -o` refused every state whose stack held an ability of a card that had left the battlefield
    (persist, undying, afterlife: "stack source 'geist' is not an object of the scenario"), the state in
    which the docs say to read the abilities' ids for `order:`. The card is written in its zone (facts:
    card_in_zone), which the stack's sources may name; the state loads back the same."""
    assert _written_and_loaded_back(tmp_path, engine, replays, [name]) >= 1, name


@pytest.mark.slow
@pytest.mark.parametrize("names", group_params())
def test_every_bundled_state_with_an_ability_of_a_card_that_left_loads_back(tmp_path, engine, replays, names):
    """The same over every bundled scenario (a group per worker): some of each group hold such states."""
    assert _written_and_loaded_back(tmp_path, engine, replays, names) >= 2


def test_a_triggered_abilitys_place_on_the_stack_is_explained_by_the_rule_that_put_it_there(capsys):
    """`explain "stack_position(ability_2, 2)"` stopped at [fact] with the action's line: the stack facts an
    action makes now say which rule made them (stack.triggered, 603.3 and APNAP 603.3b)."""
    path = SCENARIOS / "persist_returns_with_counter.yaml"
    state = Engine().load(str(path))
    replayed, _ = run_actions(state, limit=3)
    [(aid, pos)] = [(f[1], f[2]) for f in replayed.facts if f[0] == "stack_position"]
    [(source, kind)] = [(f[2], f[3]) for f in replayed.facts if f[0] == "on_stack"]
    for fact in (f"stack_position({aid}, {pos})", f"on_stack({aid}, {source}, {kind})"):
        run = run_cli(capsys, ["explain", path, fact, "--actions", "3"])
        assert run.code == 0 and "made by stack.triggered [CR 603.3, 603.3b]" in run.out, run.out


PEEK = """\
## Test rules: an action that brings an object and may not put it onto the battlefield.
.decl peeked_name(o: object, n: string) "{o} was seen as {n} before it entered" input

action_known(peek).
action_param(peek, object). action_param_type(peek, object, new_object).

@name peek.offer
@cr 614.12
choice(keep, yes) :- pending_object(O), printed_keyword(O, flying).

@name peek.offer_no
@cr 614.12
choice(keep, no) :- pending_object(O), printed_keyword(O, flying).

@name peek.record
@cr 614.12
effect(1, record, peeked_name, O, N) :- action(peek), pending_object(O), name(O, N).

@name peek.enter
@cr 614.12
effect(1, put_onto_battlefield, O, card, none) :- action(peek), act_arg(object, O), pending_object(O),
    chosen(keep, yes).
"""


@pytest.mark.slow
@pytest.mark.parametrize("keep", ["yes", "no"])
def test_an_object_about_to_enter_shows_its_characteristics_and_leaves_none_if_it_does_not(tmp_path, keep):
    """614.12: the rules see the pending object's characteristics (a choice about it is offered, its name is
    read), without `permanent`; one that is not put onto the battlefield leaves no fact of it behind."""
    rules = tmp_path / "peek.dl"
    rules.write_text(PEEK)
    state = Engine(rules=[str(rules)]).state_from_dict({"players": ["alice", "bob"], "active": "alice"})
    bird = {"id": "bird", "name": "Bird", "types": ["creature"], "power": 1, "toughness": 1}
    after, _ = state.apply(
        {"do": "peek", "object": {**bird, "keywords": ["flying"], "controller": "alice"}, "choose": {"keep": keep}}
    )
    assert ("peeked_name", "bird", "Bird") in after.facts
    about_bird = {f for f in after.facts if len(f) > 1 and f[1] == "bird" and f[0] != "peeked_name"}
    if keep == "yes":
        assert ("permanent", "bird") in about_bird and ("printed_keyword", "bird", "flying") in about_bird
    else:
        assert about_bird == set(), about_bird
    assert not after.query("pending_object(O)")


TAP_WATCH = """\
## Test rules: an activated ability with {T} in its cost, and an ability that triggers when a permanent taps.
@name watch.ability
@cr 602.1
activated_ability(O, ping) :- has_keyword(O, pinger), creature(O).

activation_taps(ping).

@name watch.trigger
@cr 603.2
triggers(O, tap_watch, X) :- recent_event(N), event(N, tapped, X), has_keyword(O, watcher).

keyword(pinger). keyword(watcher).
"""


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_an_activated_ability_goes_on_the_stack_as_activated_below_what_its_cost_triggers(tmp_path):
    """602.2a: the activated ability is put on the stack as it is activated; the ability that triggered on its
    cost being paid (the source tapping) goes on the stack afterwards, on top (603.3). The put_on_stack event
    of the activated one cites the activating rule (602.2a), with the detail `activation`."""
    rules = tmp_path / "tap_watch.dl"
    rules.write_text(TAP_WATCH)
    state = Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "pinger": {**creature("Pinger", 1, 1, "alice", "pinger")},
                "watcher": {**creature("Watcher", 1, 1, "alice", "watcher")},
            },
        }
    )
    after, events = state.apply({"do": "activate", "object": "pinger", "ability": "ping"})
    stacked = [e for e in events if e.kind == "put_on_stack"]
    assert [e.details["kind"] for e in stacked] == ["ping", "tap_watch"]
    assert stacked[0].rule == "activate.activates" and "602.2a" in stacked[0].cites
    assert stacked[0].details["activation"] == "activate.activates" and "activation" not in stacked[1].details
    assert stacked[1].rule == "stack.triggered"
    top = after.query("top_of_stack(I), on_stack(I, S, K)")
    assert [r["K"] for r in top] == ["tap_watch"]
    with pytest.raises(ActionError, match="602.2b"):  # tapped now: {T} can't be paid again
        after.apply({"do": "resolve"})[0].apply({"do": "resolve"})[0].apply(
            {"do": "activate", "object": "pinger", "ability": "ping"}
        )


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_an_ability_without_tap_in_its_cost_goes_on_the_stack_and_sickness_lasts_into_the_next_turn(tmp_path):
    """602.2a: an activated ability whose cost has no {T} goes on the stack too (the activation is an event of
    its own, ability_activated). 302.6: a creature that entered in Alice's turn can't pay {T} in Bob's turn
    (her most recent turn began before it entered); it can once her next turn has begun."""
    rules = tmp_path / "boost.dl"
    rules.write_text(
        TAP_WATCH
        + "\n@name watch.boost\n@cr 602.1\nactivated_ability(O, boost) :- has_keyword(O, pinger), creature(O).\n"
    )
    state = Engine(rules=[str(rules)]).state_from_dict({"players": ["alice", "bob"], "active": "alice"})
    state, _ = state.apply({"do": "enter", "object": {"id": "pinger", **creature("Pinger", 1, 1, "alice", "pinger")}})
    after, events = state.apply({"do": "activate", "object": "pinger", "ability": "boost"})
    assert [e.kind for e in events] == ["ability_activated", "put_on_stack"]
    assert [r["K"] for r in after.query("on_stack(I, pinger, K)")] == ["boost"]
    with pytest.raises(ActionError, match="302.6"):  # it entered this turn
        state.apply({"do": "activate", "object": "pinger", "ability": "ping"})
    bobs_turn = state.apply({"do": "end_turn"})[0].apply({"do": "begin_turn"})[0]
    assert bobs_turn.query("active_player(bob)") and bobs_turn.query("new_to_its_controller(pinger)")
    with pytest.raises(ActionError, match="302.6"):
        bobs_turn.apply({"do": "activate", "object": "pinger", "ability": "ping"})
    alices_turn = bobs_turn.apply({"do": "end_turn"})[0].apply({"do": "begin_turn"})[0]
    assert not alices_turn.query("new_to_its_controller(pinger)")
    alices_turn.apply({"do": "activate", "object": "pinger", "ability": "ping"})


def test_activating_an_ability_the_object_lacks_lists_the_ones_it_has_and_the_closest(tmp_path):
    """602.1: an `activate` naming an ability the object doesn't have was refused without saying what it has:
    the refusal lists the object's activated abilities (refusal_alternative/2), the closest name as the hint,
    and "none" for an object with none."""
    rules = tmp_path / "boost.dl"
    rules.write_text(
        TAP_WATCH
        + "\n@name watch.boost\n@cr 602.1\nactivated_ability(O, boost) :- has_keyword(O, pinger), creature(O).\n"
    )
    objects = {"pinger": creature("Pinger", 1, 1, "alice", "pinger"), "bear": creature("Bear", 2, 2, "alice")}
    state = Engine(rules=[str(rules)]).state_from_dict(
        {"players": ["alice", "bob"], "active": "alice", "objects": objects}
    )
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "activate", "object": "pinger", "ability": "pnig"})
    assert str(refused.value).endswith("(pnig; CR 602.1); legal options: boost, ping")
    assert refused.value.options == ("boost", "ping") and refused.value.hint == "did you mean 'ping'?"
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "activate", "object": "bear", "ability": "ping"})
    assert str(refused.value).endswith("(ping; CR 602.1); legal options: none") and refused.value.hint is None


def test_the_ended_line_of_the_log_names_the_damage_that_wore_off_not_a_count(engine):
    """514.2: the end of the turn removes the 3 damage marked on bears; the event log said
    "ended damage_marked (n=1)", read as 1 damage. The line names the facts that ended; the event keeps its
    kind, subject and n (how many facts) and adds the detail facts."""
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"bears": creature("Bears", 2, 4, "bob"), "wall": creature("Wall", 0, 5, "bob")},
            "facts": ["damage_marked(bears, 3)", "damage_marked(wall, 2)"],
        }
    )
    _after, events = state.apply({"do": "end_turn"})
    ended = next(e for e in events if e.kind == "ended" and e.subject == "damage_marked")
    assert ended.to_text().split("  [")[0].endswith(". ended damage_marked(bears, 3); damage_marked(wall, 2)")
    assert ended.to_dict()["details"] == {"n": 2, "facts": "damage_marked(bears, 3); damage_marked(wall, 2)"}


DESTROYER = """\
## Test rules: "destroy target creature" written without a word about indestructible.
@name destroyer.resolves
@cr 701.8a
effect(1, destroy, O, destroyer, none) :- action(resolve), resolving(I), on_stack(I, _, destroyer),
    ability_arg(I, subject, O).

@name destroyer.activated
@cr 602.1
activated_ability(O, destroyer) :- has_keyword(O, destroyer), creature(O).

keyword(destroyer).
"""


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_destroy_effect_leaves_an_indestructible_permanent_alone_whichever_rule_says_it(tmp_path):
    """702.12b: the designer's destroy rule says nothing of indestructible; cannot_undergo(destroy, O) leaves
    the effect out, and the event `unaffected` names the rule (sba.cannot_be_destroyed)."""
    rules = tmp_path / "destroyer.dl"
    rules.write_text(DESTROYER)
    state = Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "killer": creature("Killer", 1, 1, "alice", "destroyer"),
                "angel": creature("Angel", 4, 4, "bob", "indestructible"),
                "bears": {"card": "Grizzly Bears", "controller": "bob"},
            },
        }
    )
    for victim, survives in (("angel", True), ("bears", False)):
        stacked = state.with_facts(
            state.facts
            | {("on_stack", "ab", "killer", "destroyer"), ("stack_position", "ab", 1)}
            | {("ability_arg", "ab", "subject", victim), ("ability_controller", "ab", "alice")}
        )
        after, events = stacked.apply({"do": "resolve"})
        assert bool(after.query(f"permanent({victim})")) is survives
        unaffected = [(e.subject, e.details["primitive"], e.rule) for e in events if e.kind == "unaffected"]
        assert unaffected == ([(victim, "destroy", "sba.cannot_be_destroyed")] if survives else [])


def _timed_pump(tmp_path, timing: str):
    """Alice's creature x with a made-up activated ability, pump, declared activation_timing(pump, TIMING)."""
    rules = tmp_path / "pumper.dl"
    rules.write_text(
        "@name pumper.ability\n@cr 602.1\nactivated_ability(O, pump) :- has_keyword(O, pumper), creature(O).\n"
        f"activation_timing(pump, {timing}).\nkeyword(pumper).\n"
    )
    return Engine(rules=[str(rules)]).state_from_dict(
        {"players": ["alice", "bob"], "active": "alice", "objects": {"x": creature("X", 1, 1, "alice", "pumper")}}
    )


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_an_activation_timing_the_rules_do_not_know_refuses_the_activation(tmp_path):
    """A typo in activation_timing (sorcery_speed) would leave the ability unrestricted: refused, naming it."""
    state = _timed_pump(tmp_path, "sorcery_speed")
    with pytest.raises(ActionError, match="sorcery_speed") as refused:
        state.apply({"do": "activate", "object": "x", "ability": "pump"})
    assert ("activate_unknown_timing", "sorcery_speed") in refused.value.violations


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_an_ability_activated_only_during_your_upkeep(tmp_path):
    """activation_timing(K, your_upkeep), declared by a rule file alone (602.5, 503.1): refused in a main phase and
    in another player's upkeep, activated in its controller's upkeep (after begin_turn, before main_phase)."""
    state = _timed_pump(tmp_path, "your_upkeep")
    activate = {"do": "activate", "object": "x", "ability": "pump"}
    for turn in (None, "bob"):
        if turn is not None:
            state, _ = state.apply({"do": "end_turn"})
            state, _ = state.apply({"do": "begin_turn", "player": turn})
        with pytest.raises(ActionError, match="upkeep") as refused:
            state.apply(activate)
        assert ("activate_upkeep_timing", "pump") in refused.value.violations
    state, _ = state.apply({"do": "end_turn"})
    state, _ = state.apply({"do": "begin_turn", "player": "alice"})
    _, events = state.apply(activate)
    assert [e.subject for e in events if e.kind == "ability_activated"] == ["x"]


@pytest.mark.slow
def test_an_effect_whose_number_is_a_word_is_refused(tmp_path):
    """effect_spec(S, power, big): power is a number (effect_key_number), so the step beginning the effect is
    refused saying so, and the state is unchanged (without the check the effect began and did nothing)."""
    from judgelog.errors import ActionError

    rules = tmp_path / "pump.dl"
    rules.write_text(
        "action_known(pump). action_param(pump, object).\n"
        "@name pump.begin\n@cr 611.2\n"
        "effect(1, begin_effect, pump, O, until_end_of_turn) :- action(pump), act_arg(object, O).\n"
        "@name pump.value\n@cr 613.4c\neffect_spec(pump, power, big) :- action(pump).\n"
    )
    engine = Engine(rules=[str(rules)])
    state = engine.state_from_dict(
        {"players": ["alice", "bob"], "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}}}
    )
    with pytest.raises(ActionError, match=r"effect_spec\(pump, power, big\) gives power a value that is not a number"):
        state.apply({"do": "pump", "object": "bears"})
    assert state.query("power(bears, P)") == [{"P": 2}]


def test_a_choice_the_rules_do_not_offer_says_why(engine):
    """Mentor aimed at an attacker with protection from creatures as it goes on the stack: refused, and the
    hint follows the rules that don't offer it down to the exception that holds (protection, 702.16b)."""
    from judgelog.errors import ActionError

    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "stalwart": creature("Stalwart", 2, 2, "alice", "mentor"),
                "ward": {
                    "name": "Ward",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "keywords": [{"protection": {"type": "creature"}}],
                    "controller": "alice",
                },
                "squire": creature("Squire", 1, 1, "alice"),  # two legal targets: the choice is asked
                "page": creature("Page", 1, 1, "alice"),
            },
        }
    )
    attackers = {"stalwart": "bob", "ward": "bob", "squire": "bob", "page": "bob"}
    # mentor's target is chosen as the ability is put on the stack (601.2c): the attack's targets:
    with pytest.raises(ActionError) as info:
        state.apply({"do": "declare_attackers", "attackers": attackers, "targets": {"stalwart": "ward"}})
    hint = str(info.value.hint)
    assert info.value.options == ("page", "squire")
    # the exception is named in the message itself, not only at the end of the hint
    assert (
        "as it is put on the stack: untargetable(ward, stalwart, alice) holds by protection.untargetable [CR 702.16b"
        in info.value.message
    )
    assert hint.startswith("the rules don't offer it: targets.trigger_target_option"), hint
    assert hint.endswith("holds by protection.untargetable [CR 702.16b, 115.1]"), hint
    # none named while two were legal: named as it resolves, among those (the Ward was never one of them)
    state, _ = state.apply({"do": "declare_attackers", "attackers": attackers})
    with pytest.raises(ActionError) as info:
        state.apply({"do": "resolve", "choose": {"target": "ward"}})
    assert info.value.options == ("page", "squire")
    hint = str(info.value.hint)
    assert hint.startswith("the rules don't offer it: targets.target_named_on_resolution"), hint
    assert "fails at ability_arg(I, target_option, ward)" in hint, hint


def test_a_payment_a_player_cant_make_is_refused_saying_why_and_none_is_taken(engine):
    """Ward's payment when the player asked to pay has too little life (119.4): `{ward: pay}` and `{ward: none}`
    were refused as "no rule offers it in this action now"; ward's file says why pay can't be chosen
    (choice_unavailable/4), and none, like a bare resolve, counters the ability."""
    knight = {**creature("Knight", 2, 2, "alice"), "keywords": [{"ward": {"life": 2}}], "tapped": True}
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "bob",
            "life": {"bob": 1},
            "objects": {"ra": {"card": "Royal Assassin", "controller": "bob"}, "wk": knight},
        }
    )
    state, _ = state.apply({"do": "activate", "object": "ra", "ability": "royal_assassin", "choose": {"target": "wk"}})
    with pytest.raises(ActionError) as info:
        state.apply({"do": "resolve", "choose": {"ward": "pay"}})
    assert "pay can't be chosen for ward: a player can pay life only if their life total is" in str(info.value)
    assert "no rule offers it" not in str(info.value) and info.value.cr == "119.4"
    for given in ({"choose": {"ward": "none"}}, {}):
        after, _ = state.apply({"do": "resolve", **given})
        assert after.holds("permanent(wk)") and after.holds("life(bob, 1)")
        assert not after.holds("on_stack(_, ra, royal_assassin)")


def test_a_state_runs_its_files_actions_as_the_verbs_do(engine):
    """`state.run_actions()`: the file's actions applied in order (what `judgelog do` shows); the loaded state
    is a value and stays as the file describes it."""
    state = engine.load(engine.example("fabricate_servos.yaml"))
    final, events = state.run_actions()
    assert events and final is not state
    made = {e.subject for e in events if e.kind == "enters"}
    assert made and all(final.holds(f"permanent({o})") for o in made)
    assert not any(state.holds(f"permanent({o})") for o in made)
    first, first_events = state.run_actions(limit=1)
    assert len(first_events) <= len(events)


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_requirement_on_what_a_creature_attacks_is_obeyed_as_far_as_it_can_be(tmp_path):
    """508.1d through the extension point of rules/core/combat.dl, from a rule file alone: "attacks that player
    if able" (attack_target_required) and "attacks a player other than that player if able"
    (attack_player_other_than). A declared target that obeys fewer of them than another legal target would is
    refused, naming the requirement left unobeyed; the best target, or the only one, is accepted."""
    from judgelog.errors import JudgelogError

    rules = tmp_path / "t.dl"
    rules.write_text(
        "## Test rules.\n"
        '.decl lured_to(a: object, p: player) "{a} attacks {p} if able" input\n'
        '.decl kept_from(a: object, p: player) "{a} attacks a player other than {p} if able" input\n\n'
        "@name t.lured\n@cr 508.1d\nattack_target_required(A, P, lured) :- lured_to(A, P).\n\n"
        "@name t.kept\n@cr 508.1d\nattack_player_other_than(A, P, kept_away) :- kept_from(A, P).\n\n"
        'violation_info(lured, "508.1d", "it attacks that player if able").\n'
        'violation_info(kept_away, "508.1d", "it attacks a player other than that one if able").\n',
        encoding="utf-8",
    )
    engine = Engine(rules=[str(rules)])
    board = {
        "players": ["alice", "bob", "carol"],
        "active": "alice",
        "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
    }
    lured, kept = "it attacks that player if able", "it attacks a player other than that one if able"
    for facts, refused, accepted, why in (
        (["lured_to(bears, carol)"], "bob", "carol", [lured]),
        (["kept_from(bears, bob)"], "bob", "carol", [kept]),
        (["lured_to(bears, bob)", "kept_from(bears, bob)"], None, "bob", []),  # either target obeys one
        (["lured_to(bears, bob)", "kept_from(bears, carol)"], "carol", "bob", [kept, lured]),  # bob obeys both
    ):
        state = engine.state_from_dict({**board, "facts": facts})
        if refused is not None:
            with pytest.raises(JudgelogError) as no:
                state.apply({"do": "declare_attackers", "attackers": {"bears": refused}})
            assert str(no.value) == "declare_attackers refused: " + "; ".join(f"{w} (bears; CR 508.1d)" for w in why)
        after, _ = state.apply({"do": "declare_attackers", "attackers": {"bears": accepted}})
        assert after.holds(f"attacking(bears, {accepted})"), facts
    both = engine.state_from_dict({**board, "facts": ["lured_to(bears, bob)", "kept_from(bears, carol)"]})
    assert both.query("attack_target_score(bears, T, N)") == [{"T": "bob", "N": 2}]  # carol obeys none


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_sorcery_timing_of_a_card_in_a_graveyard_reads_its_owner(tmp_path):
    """A card off the battlefield has no controller; its owner activates its abilities (602.2), so
    activation_timing(K, sorcery) reads the owner's turn: Bob's card in his graveyard is refused on Alice's
    turn, Alice's is activated. (Before, the timing read a controller and so never applied to such a card.)"""
    rules = tmp_path / "digger.dl"
    rules.write_text(
        "@name digger.ability\n@cr 602.1\n"
        'activated_ability(O, dig) :- card_in_zone(O, graveyard), card_value(O, name, "Digger", _, _, _).\n'
        "activation_timing(dig, sorcery).\n"
    )
    digger = {"name": "Digger", "types": ["creature"], "power": 1, "toughness": 1, "zone": "graveyard"}
    state = Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"mine": {**digger, "owner": "alice"}, "theirs": {**digger, "owner": "bob"}},
        }
    )
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "activate", "object": "theirs", "ability": "dig"})
    assert ("activate_sorcery_timing", "dig") in refused.value.violations
    _, events = state.apply({"do": "activate", "object": "mine", "ability": "dig"})
    assert [e.subject for e in events if e.kind == "ability_activated"] == ["mine"]
