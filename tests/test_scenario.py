"""Scenario files: strict YAML, validation with file:line:col and hints, JSON; the ``query`` and ``test``
verbs' output shapes and the command line's exit codes (0 ok, 1 negative, 2 usage, 3 load error).
"""

from __future__ import annotations

import json
import textwrap

import pytest
from helpers import run_cli
from paths import SCENARIOS

from judgelog import Engine, ScenarioError
from judgelog.scenario import load_scenario
from judgelog.validation import board_problems
from judgelog.yamlsrc import load_text

BANDING = str(SCENARIOS / "banding_blocked_by_one.yaml")

GOOD = """\
name: Two bears
players: [alice, bob]
objects:
  bear: {card: Grizzly Bears, controller: alice}
  bear2: {card: Grizzly Bears, controller: bob, tapped: true}
"""


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def problems(engine, path: str):
    """(line, col, code, message, hint) of every diagnostic raised while loading ``path``."""
    with pytest.raises(ScenarioError) as info:
        engine.load(path)
    diags = info.value.diagnostics
    assert diags, info.value
    for d in diags:
        assert d.span.file == path
    return [(d.span.line, d.span.col, d.code, d.message, d.hint) for d in diags]


# -- strict YAML --------------------------------------------------------------------------------------
def test_no_on_yes_stay_strings():
    doc = load_text("a: no\nb: on\nc: yes\nd: off\ne: y\nf: true\ng: false\nh: [no, yes]\n", "s.yaml")
    assert doc.value == {
        "a": "no",
        "b": "on",
        "c": "yes",
        "d": "off",
        "e": "y",
        "f": True,
        "g": False,
        "h": ["no", "yes"],
    }


def test_players_named_no_on_yes(engine, tmp_path):
    path = write(
        tmp_path,
        "norway.yaml",
        """\
        players: [no, on, yes]
        active: on
        objects:
          bear: {card: Grizzly Bears, controller: yes}
        """,
    )
    state = engine.load(path)
    assert state.query("player(P)") == [{"P": "no"}, {"P": "on"}, {"P": "yes"}]
    assert state.query("active_player(P)") == [{"P": "on"}]
    assert state.query("controller(bear, P)") == [{"P": "yes"}]


def test_a_tab_is_a_yaml_error_with_its_line(engine, tmp_path):
    path = write(tmp_path, "tabs.yaml", "players: [alice, bob]\nobjects:\n\tbear: {card: Grizzly Bears}\n")
    [(line, col, code, message, hint)] = problems(engine, path)
    assert (line, col, code) == (3, 1, "S001")
    assert message.startswith("YAML syntax error:")
    assert "tab" in hint


def test_broken_yaml_is_s001(engine, tmp_path):
    path = write(tmp_path, "broken.yaml", "players: [alice, bob\nactive: alice\n")
    [(line, _, code, message, _)] = problems(engine, path)
    assert code == "S001" and line >= 1


def test_duplicate_key_is_s003(engine, tmp_path):
    path = write(
        tmp_path,
        "dup.yaml",
        """\
        players: [alice, bob]
        objects:
          bear: {card: Grizzly Bears, controller: alice}
          bear: {card: Craw Wurm, controller: bob}
        """,
    )
    [(line, col, code, message, hint)] = problems(engine, path)
    assert (line, col, code, message) == (4, 3, "S003", "duplicate key 'bear'")
    assert hint == "first given at line 3"


def test_a_value_yaml_cannot_read_is_s002(engine, tmp_path):
    path = write(tmp_path, "tag.yaml", "players: [alice, bob]\nlife: {alice: !!int twenty}\n")
    [(line, col, code, message, _)] = problems(engine, path)
    assert (line, col, code) == (2, 15, "S002")
    assert "cannot read this value" in message
    path = write(tmp_path, "key.yaml", "players: [alice, bob]\n? [a, b]\n: 1\n")
    [(line, col, code, message, _)] = problems(engine, path)
    assert (line, col, code, message) == (2, 3, "S002", "a mapping key must be a plain word")


# -- schema ---------------------------------------------------------------------------------------------
def test_unknown_key_with_did_you_mean(engine, tmp_path):
    path = write(
        tmp_path,
        "key.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Hero, controler: alice}
        """,
    )
    found = problems(engine, path)
    assert (3, 31, "S100", "unknown key 'controler' in object 'hero'", "did you mean 'controller'?") in found


def test_unknown_top_level_key(engine, tmp_path):
    path = write(tmp_path, "top.yaml", "players: [alice, bob]\nobjets: {}\n")
    assert problems(engine, path) == [(2, 1, "S100", "unknown key 'objets' in a scenario", "did you mean 'objects'?")]


def test_unknown_card_with_did_you_mean(engine, tmp_path):
    path = write(
        tmp_path,
        "card.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Heor, controller: alice}
        """,
    )
    found = problems(engine, path)
    assert (3, 16, "S100", "unknown card 'Benalish Heor'", "did you mean 'Benalish Hero'?") in found


def test_unknown_attacker_and_blocker_ids(engine, tmp_path):
    path = write(
        tmp_path,
        "ids.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Hero, controller: alice}
          bears: {card: Grizzly Bears, controller: bob}
        combat:
          attackers: {heroo: bob}
          blockers: {bear: [hero], bears: [wurm]}
        """,
    )
    found = {(line, col, message, hint) for line, col, code, message, hint in problems(engine, path)}
    assert (6, 22, "attacker 'heroo' does not exist", "did you mean 'hero'?") in found
    assert (7, 20, "blocker 'bear' does not exist", "did you mean 'bears'?") in found
    assert any(line == 7 and "blocked attacker 'wurm' does not exist" in message for line, _, message, _ in found)


def test_attack_target_must_exist(engine, tmp_path):
    path = write(
        tmp_path,
        "target.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Hero, controller: alice}
        combat:
          attackers: {hero: bobb}
        """,
    )
    [(line, _, code, message, hint)] = problems(engine, path)
    assert (line, code, message, hint) == (5, "S100", "attack target 'bobb' does not exist", "did you mean 'bob'?")


def test_player_id_reused_as_object_id(engine, tmp_path):
    path = write(
        tmp_path,
        "pid.yaml",
        """\
        players: [alice, bob]
        objects:
          alice: {card: Benalish Hero, controller: alice}
        """,
    )
    assert problems(engine, path) == [
        (3, 3, "S100", "object id 'alice' is already a player id", "give the object another id")
    ]


def test_non_integer_power(engine, tmp_path):
    path = write(
        tmp_path,
        "power.yaml",
        """\
        players: [alice, bob]
        objects:
          bear: {name: Bear, types: [creature], power: two, toughness: 2, controller: bob}
        """,
    )
    [(line, col, code, message, hint)] = problems(engine, path)
    assert (line, col, code, message) == (3, 48, "S100", "power must be an integer, got 'two'")
    assert hint == "write a whole number, e.g. 2"


def test_yes_is_not_a_boolean(engine, tmp_path):
    path = write(
        tmp_path,
        "tapped.yaml",
        """\
        players: [alice, bob]
        objects:
          bear: {card: Grizzly Bears, controller: bob, tapped: yes}
        """,
    )
    [(line, col, code, message, hint)] = problems(engine, path)
    assert (line, col, code, message) == (3, 56, "S100", "tapped must be true or false, got 'yes'")
    assert hint == "write true or false (yes, no, on and off are strings)"


def test_counter_kind_with_spaces(engine, tmp_path):
    path = write(
        tmp_path,
        "counter.yaml",
        """\
        players: [alice, bob]
        objects:
          bear: {card: Grizzly Bears, controller: bob, counters: {plus one: 1}}
        """,
    )
    [(line, col, code, message, hint)] = problems(engine, path)
    assert (line, col, code, message) == (3, 59, "S100", "invalid counter kind 'plus one'")
    assert '"+1/+1"' in hint


def test_counter_aliases(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {"bear": {"card": "Grizzly Bears", "controller": "alice", "counters": {"+1/+1": 2, "-1/-1": 1}}},
            "player_counters": {"bob": {"poison": 3}},
        }
    )
    assert state.query("counter(X, K, N)") == [
        {"X": "bear", "K": "m1m1", "N": 1},
        {"X": "bear", "K": "p1p1", "N": 2},
        {"X": "bob", "K": "poison", "N": 3},
    ]
    assert state.query("power(bear, P), toughness(bear, T)") == [{"P": 3, "T": 3}]


def test_unknown_predicate_in_a_fact_is_s101(engine, tmp_path):
    path = write(
        tmp_path,
        "facts.yaml",
        """\
        players: [alice, bob]
        objects:
          bear: {card: Grizzly Bears, controller: bob}
        facts:
          - "tapped(bear)"
          - "tappd(bear)"
          - "controller(bear)"
        """,
    )
    found = problems(engine, path)
    assert (6, 5, "S101", "unknown predicate 'tappd' in a fact", "did you mean 'tapped'?") in found
    assert (7, 5, "S101", "controller takes 2 argument(s), given 1", None) in found
    assert len(found) == 2


def test_an_unknown_keyword_in_a_fact_is_s101(engine, tmp_path):
    """An argument declared as a keyword is checked as a keywords: entry is: a typo is an error at the fact,
    not a keyword of its own that has_keyword then holds for."""
    path = write(
        tmp_path,
        "typo.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Hero, controller: alice}
          bears: {card: Grizzly Bears, controller: bob}
        facts: ["granted_keyword(hero, flyng)", "printed_keyword(bears, reach)", "printed_keyword(bears, reech)"]
        """,
    )
    found = problems(engine, path)
    assert found == [
        (5, 9, "S101", "unknown keyword 'flyng' in granted_keyword (its k: keyword)", HINT_FLYING),
        (5, 74, "S101", "unknown keyword 'reech' in printed_keyword (its k: keyword)", HINT_REACH),
    ]


HINT_FLYING = "did you mean 'flying'? no loaded rule file declares it (keyword/1 in rules/core/interface.dl)"
HINT_REACH = "did you mean 'reach'? no loaded rule file declares it (keyword/1 in rules/core/interface.dl)"


def test_every_problem_of_a_file_is_reported(engine, tmp_path):
    path = write(
        tmp_path,
        "many.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Heor, controller: alice}
          bear: {name: Bear, types: [creature], power: two, toughness: 2, controller: bob}
        combat:
          attackers: {heroo: bob}
        """,
    )
    lines = sorted({line for line, *_ in problems(engine, path)})
    assert lines == [3, 4, 6]


def test_inline_keywords_and_parameters(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "wolf": {
                    "name": "Wolf",
                    "types": ["creature"],
                    "subtypes": ["wolf"],
                    "power": 1,
                    "toughness": 1,
                    "controller": "alice",
                    "keywords": [
                        "trample",
                        {"landwalk": "swamp"},
                        {"fabricate": 2},
                        {"bands_with_other": {"subtype": "wolf"}},
                    ],
                }
            },
        }
    )
    assert [a["K"] for a in state.query("has_keyword(wolf, K)")] == [
        "bands_with_other",
        "fabricate",
        "landwalk",
        "trample",
    ]


def test_a_parameter_word_outside_its_declared_vocabulary_is_refused(engine, tmp_path):
    """A typo in a keyword's parameter matched nothing and the keyword silently did nothing (protection from
    "blak" let a black creature block and deal damage); the words a parameter key may be are declared by the
    rules (keyword_param_vocabulary), as are the supertypes an object may have."""
    path = write(
        tmp_path,
        "vocabulary.yaml",
        """\
        players: [alice, bob]
        objects:
          knight: {name: Knight, types: [creature], power: 2, toughness: 2, controller: alice,
                   keywords: [{protection: {color: blak}}, {landwalk: swamps}, {protection: {type: creatures}}]}
          lord: {name: Lord, types: [creature], supertypes: [legend], power: 2, toughness: 2, controller: bob,
                 keywords: [{protection: {color: multicolored}}]}
        """,
    )
    found = {(line, message, hint) for line, _col, code, message, hint in problems(engine, path) if code == "S100"}
    assert (
        4,
        "unknown color 'blak' in the parameter of protection",
        "did you mean 'black'? the color is one of: black, blue, green, red, white",
    ) in found
    assert any(
        m == "unknown land_with 'swamps' in the parameter of landwalk" and h.startswith("did you mean 'swamp'?")
        for _, m, h in found
    )
    assert any(m == "unknown type 'creatures' in the parameter of protection" for _, m, _h in found)
    assert (5, "unknown supertype 'legend'", "did you mean 'legendary'?") in found
    assert any(m == "unknown color 'multicolored' in the parameter of protection" for _, m, _h in found)
    # the words of the vocabularies load: colors, card types, supertypes, land types and compound qualities
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "objects": {
                "knight": {
                    "name": "Knight",
                    "types": ["creature"],
                    "supertypes": ["legendary", "snow"],
                    "power": 2,
                    "toughness": 2,
                    "controller": "alice",
                    "keywords": [
                        {"protection": {"color": "black"}},
                        {"protection": {"type": "artifact"}},
                        {"protection": {"subtype": "goblin"}},
                        {"landwalk": "snow_swamp"},
                        {"landwalk": "nonbasic"},
                        {"landwalk": "artifact"},
                    ],
                }
            },
        }
    )
    assert state.holds("keyword_instance_param(knight, landwalk, _, land_without, basic)")
    assert state.holds("keyword_instance_param(knight, landwalk, _, land_with, snow_swamp)")


# -- JSON ----------------------------------------------------------------------------------------------
def test_json_scenario_is_accepted(engine, tmp_path):
    data = {
        "players": ["alice", "bob"],
        "objects": {"bear": {"card": "Grizzly Bears", "controller": "bob"}},
        "expect": [{"query": "creature(X)", "answers": [{"X": "bear"}]}],
    }
    text = json.dumps(data, indent=2)
    path = write(tmp_path, "s.json", text)
    state = engine.load(path)
    assert state.query("creature(X)") == [{"X": "bear"}]
    # positions are kept for JSON too
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if '"controller": "bob"' in t)
    assert state.origin(("controller", "bear", "bob")).line == line
    assert load_scenario(path).expects[0][0]["query"] == "creature(X)"


def test_json_with_an_error_reports_its_position(engine, tmp_path):
    path = write(
        tmp_path,
        "bad.json",
        '{"players": ["alice", "bob"],\n "objects": {"bear": {"card": "Grizly Bears", "controller": "bob"}}}\n',
    )
    found = problems(engine, path)
    assert (2, 31, "S100", "unknown card 'Grizly Bears'", "did you mean 'Grizzly Bears'?") in found


# -- the command line ------------------------------------------------------------------------------------
def test_cli_typo_in_a_scenario_exits_3_with_location(capsys, tmp_path):
    path = write(
        tmp_path,
        "BAD.yaml",
        """\
        players: [alice, bob]
        objects:
          hero: {card: Benalish Hero, controler: alice}
        """,
    )
    run = run_cli(capsys, ["query", path, "creature(X)"])
    assert run.code == 3
    assert f"{path}:3:31: error[S100]: unknown key 'controler' in object 'hero'" in run.err
    assert "hint: did you mean 'controller'?" in run.err
    assert "      hero: {card: Benalish Hero, controler: alice}" in run.err  # the source line
    assert run.out == ""
    assert "Traceback" not in run.err
    run = run_cli(capsys, ["query", path, "creature(X)", "--format", "json"])
    assert run.code == 3
    data = json.loads(run.err)  # json diagnostics go to stderr
    assert data["diagnostics"][0]["code"] in ("S100",)
    assert {(d["line"], d["col"]) for d in data["diagnostics"]} >= {(3, 31)}


def test_cli_query_output(capsys, tmp_path):
    path = write(tmp_path, "good.yaml", GOOD)
    run = run_cli(capsys, ["query", path, "creature(X)"])
    assert run.code == 0
    assert run.out.splitlines() == ["X", "-----", "bear", "bear2", "(2 answers)"]
    run = run_cli(capsys, ["query", path, "creature(X), controller(X, P)", "--format", "json"])
    assert run.code == 0
    assert run.json() == {
        "schema": "judgelog/query/1",
        "query": "creature(X), controller(X, P)",
        "variables": ["X", "P"],
        "count": 2,
        "truncated": False,
        "answers": [{"X": "bear", "P": "alice"}, {"X": "bear2", "P": "bob"}],
    }
    run = run_cli(capsys, ["query", path, "tapped(bear2)"])
    assert run.code == 0 and run.out.strip() == "yes"


def test_cli_query_without_answers_is_negative(capsys, tmp_path):
    path = write(tmp_path, "good.yaml", GOOD)
    run = run_cli(capsys, ["query", path, "tapped(bear)"])
    assert run.code == 1 and run.out.strip() == "no"
    run = run_cli(capsys, ["query", path, "creature(X), tapped(X), controller(X, alice)", "--format", "json"])
    assert run.code == 1
    assert run.json() == {
        "schema": "judgelog/query/1",
        "query": "creature(X), tapped(X), controller(X, alice)",
        "variables": ["X"],
        "answers": [],
        "count": 0,
        "truncated": False,
    }


def test_cli_test_counts_and_json(capsys, tmp_path):
    path = write(
        tmp_path,
        "cases.yaml",
        GOOD
        + textwrap.dedent("""\
        expect:
          - {query: "creature(X)", answers: [{X: bear}, {X: bear2}]}
          - {query: "creature(X)", count: 2}
          - {holds: "tapped(bear2)"}
          - {absent: "tapped(bear)"}
          - {query: "controller(bear, P)", answers: [{P: bob}]}
        """),
    )
    run = run_cli(capsys, ["test", path])
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[-1] == "4 passed, 1 failed"
    assert sum(line.startswith("PASS ") for line in lines) == 4
    assert sum(line.startswith("FAIL ") for line in lines) == 1
    run = run_cli(capsys, ["test", path, "--format", "json"])
    assert run.code == 1
    data = run.json()
    assert data["passed"] == 4 and data["failed"] == 1
    assert len(data["cases"]) == 5
    for case in data["cases"]:
        assert set(case) == {"file", "case", "passed", "message", "kind", "index", "line"}
        assert case["file"] == path and isinstance(case["passed"], bool)
        assert case["kind"] == "expect" and isinstance(case["index"], int) and isinstance(case["line"], int)
    failed = [c for c in data["cases"] if not c["passed"]]
    assert "answers differ" in failed[0]["message"] and "bob" in failed[0]["message"]


def test_cli_test_all_passing(capsys, tmp_path):
    path = write(tmp_path, "ok.yaml", GOOD + 'expect:\n  - {holds: "creature(bear)"}\n')
    run = run_cli(capsys, ["test", path])
    assert run.code == 0
    assert run.out.splitlines()[-1] == "1 passed, 0 failed"


def test_cli_test_a_file_that_cannot_load_is_a_failed_case(capsys, tmp_path):
    path = write(tmp_path, "bad.yaml", "players: [alice, bob]\nobjets: {}\n")
    run = run_cli(capsys, ["test", path])
    assert run.code == 3  # a file that does not load: an input error, reported as a failed case too
    assert run.out.splitlines()[-1] == "0 passed, 1 failed"
    assert f"{path}:2:1: error[S100]" in run.out


def test_cli_check_a_scenario(capsys, tmp_path):
    bad = write(tmp_path, "bad.yaml", "players: [alice, bob]\nobjets: {}\n")
    run = run_cli(capsys, ["check", bad])
    assert run.code == 3  # the scenario would not load
    assert f"{bad}:2:1: error[S100]: unknown key 'objets' in a scenario" in run.err
    good = write(tmp_path, "good.yaml", GOOD)
    run = run_cli(capsys, ["check", good])
    assert run.code == 0
    assert run.out.startswith("0 error(s), 0 warning(s)")


@pytest.mark.parametrize(
    "argv, code",
    [
        (["frobnicate"], 2),  # unknown verb
        ([], 2),  # no verb
        (["query", BANDING], 2),  # missing argument
        (["query", BANDING, "creature(X"], 2),  # query syntax error
        (["query", BANDING, "creatur(X)"], 2),  # unknown predicate in a query
        (["query", BANDING, "creature(X), not tapped(Y)"], 2),  # unsafe query
        (["query", BANDING, "creature(X)", "--format", "xml"], 2),
        (["query", BANDING, "creature(X)"], 0),
        (["query", BANDING, "tapped(bears)"], 1),  # no answer: a negative result
        (["query", BANDING, "player(nobody)"], 2),  # an id that names nothing: an input error, not "no"
        (["query", "no/such/file.yaml", "creature(X)"], 3),
        (["query", "--rules", "no/such/rules.dl", BANDING, "creature(X)"], 3),
        (["explain", BANDING, "damage_assigner(bears, alice)"], 0),
        (["explain", BANDING, "damage_assigner(bears, bob)"], 1),
    ],
)
def test_exit_codes(capsys, argv, code):
    run = run_cli(capsys, argv)
    assert run.code == code, run
    assert "Traceback" not in run.err
    if code == 2 and argv and argv[0] == "query" and len(argv) > 2 and "--format" not in argv:
        assert "<query>:1:" in run.err  # query problems point into the query text


def test_query_errors_carry_did_you_mean(capsys):
    run = run_cli(capsys, ["query", BANDING, "creatur(X)"])
    assert "<query>:1:1: error[E002]: unknown predicate 'creatur'" in run.err
    assert "hint: did you mean 'creature'?" in run.err
    run = run_cli(capsys, ["query", BANDING, "creature(X"])
    assert "<query>:1:11: error[E001]:" in run.err


@pytest.mark.slow
def test_a_keyword_mentioned_by_a_rule_file_is_accepted_in_scenarios(tmp_path):
    """A designer's new keyword needs no Python: the scenario loader accepts any keyword the rules mention (a
    made-up one, which no library file names)."""
    from judgelog import Engine
    from judgelog.errors import ScenarioError

    rules = tmp_path / "glimmerstep.dl"
    rules.write_text(
        "@name test.glimmerstep_marker\n@cr 702.1\n"
        "cannot_block(B, A) :- attacking(A, _), has_keyword(A, glimmerstep), creature(B), "
        "has_keyword(B, defender).\n"
    )
    data = {
        "players": ["alice", "bob"],
        "objects": {
            "x": {
                "name": "X",
                "types": ["creature"],
                "power": 1,
                "toughness": 1,
                "keywords": ["glimmerstep"],
                "controller": "alice",
            }
        },
    }
    with pytest.raises(ScenarioError) as err:
        Engine().state_from_dict(data)
    assert "unknown keyword 'glimmerstep'" in err.value.render()
    state = Engine(rules=[str(rules)]).state_from_dict(data)
    assert state.holds("has_keyword(x, glimmerstep)")


def test_a_card_given_as_a_mapping_says_where_the_characteristics_go(engine, tmp_path):
    """A designer who writes the card's characteristics under card: is told to write them beside it."""
    path = write(
        tmp_path,
        "inline.yaml",
        "players: [alice, bob]\nobjects:\n  raider: {card: {name: Raider, types: [creature]}, controller: alice}\n",
    )
    (found,) = problems(engine, path)
    line, col, code, message, hint = found
    assert (line, col, code, message) == (3, 18, "S100", "card: takes the name of a catalog card, got a mapping")
    assert "beside controller:" in hint


STACK = """\
players: [alice, bob]
objects:
  forcemage: {card: Trusted Forcemage, controller: alice}
stack:
  - {id: ability_1, source: %s, kind: %s, controller: alice%s}
"""


@pytest.mark.parametrize(
    ("source", "kind", "args", "line", "col", "message", "hint"),
    [
        (
            "ghost",
            "soulbond",
            ", args: {subject: forcemage}",
            5,
            29,
            "stack source 'ghost' is neither an object nor a player",
            "objects:",
        ),
        ("forcemage", "soulbnd", ", args: {subject: forcemage}", 5, 46, "of kind 'soulbnd'", "'soulbond'"),
        ("forcemage", "soulbond", "", 5, 5, "needs the argument(s) subject", "soulbond.resolving reads subject"),
        ("forcemage", "soulbond", ", args: {subject: forcemage, subjet: x}", 5, 102, "argument 'subjet'", "'subject'"),
        ("forcemage", "fabricate", ", args: {subject: forcemage}", 5, 82, "needs the argument(s) n", "fabricate"),
    ],
)
def test_a_stack_entry_names_what_the_rules_know(engine, tmp_path, source, kind, args, line, col, message, hint):
    # otherwise the ability resolves doing nothing, silently
    found = problems(engine, write(tmp_path, "s.yaml", STACK % (source, kind, args)))
    assert any((ln, c) == (line, col) and message in m and hint in (h or "") for ln, c, _code, m, h in found), found


def test_a_stack_entry_of_a_kind_a_rule_reads_through_a_catalog_loads_and_resolves(engine, tmp_path, capsys):
    """A kind may reach ``on_stack(I, O, K)`` through a variable bound by facts of the rule files
    (``cycling_kind(K)``): a written state with a cycling ability on the stack was refused with S100 ("no
    loaded rule triggers or resolves an ability of kind 'cycling'"), though the ability resolves."""
    path = write(
        tmp_path,
        "cycled.yaml",
        """\
        players: [alice, bob]
        active: alice
        facts: ["card_in_zone(stinger2, graveyard)"]
        stack:
          - {id: ability_1, source: stinger2, kind: cycling, controller: alice}
        actions:
          - {do: resolve}
        expect:
          - {query: "event(N, draws, alice)", count: 1}
        """,
    )
    engine.load(path)  # no ScenarioError
    run = run_cli(capsys, ["test", path, "--no-warnings"])
    assert run.code == 0 and "1 passed" in run.out, run.out


def test_a_keyword_written_as_printed_is_suggested_in_lower_snake(engine, tmp_path):
    path = write(
        tmp_path,
        "printed.yaml",
        """\
        players: [alice, bob]
        objects:
          k: {name: K, types: [creature], power: 1, toughness: 1, controller: alice,
              keywords: [first strike, Double-Strike]}
        """,
    )
    hints = [hint for _line, _col, _code, message, hint in problems(engine, path) if "lower_snake" in message]
    assert hints == ["did you mean 'first_strike'?", "did you mean 'double_strike'?"]


@pytest.mark.slow
def test_a_keyword_whose_parameter_may_be_left_out(tmp_path):
    """keyword_param_optional(K): a keyword whose number may be left out, as vanishing's (702.63b; here
    "waning", a made-up keyword, so that the library's own vanishing.dl is not in the way): "waning" alone and
    "waning 3" both load, as instances of their own, and a written state gives them back."""
    from judgelog.writer import write_scenario

    rules = tmp_path / "waning.dl"
    rules.write_text(
        "## Test rules: waning's number may be left out, as vanishing's (702.63b).\n"
        "keyword(waning).\nkeyword_param_form(waning, number, n).\nkeyword_param_optional(waning).\n"
    )
    engine = Engine(rules=[str(rules)])
    spec = {"name": "Spirit", "types": ["creature"], "power": 1, "toughness": 1, "controller": "alice"}
    state = engine.state_from_dict(
        {"players": ["alice", "bob"], "objects": {"spirit": {**spec, "keywords": ["waning", {"waning": 3}]}}}
    )
    assert state.holds("printed_keyword(spirit, waning)")
    assert state.query("keyword_instance_param(spirit, waning, I, n, N)") == [{"I": "printed_2", "N": 3}]
    out = tmp_path / "out.yaml"
    write_scenario(state, out)
    assert engine.load(str(out)).facts == state.facts
    # without the declaration, the parameter is required
    rules.write_text("## Test rules.\nkeyword(waning).\nkeyword_param_form(waning, number, n).\n")
    with pytest.raises(ScenarioError) as info:
        Engine(rules=[str(rules)]).state_from_dict(
            {"players": ["alice", "bob"], "objects": {"spirit": {**spec, "keywords": ["waning"]}}}
        )
    assert "keyword 'waning' needs a parameter" in info.value.render()


def test_a_keyword_parameter_declared_a_number_refuses_a_word_or_too_small_a_number(engine, tmp_path):
    """{ward: {life: two}} loaded and failed only as ward resolved (a comparison of 20 with 'two', exit 2);
    {ward: {life: -3}} was a payment that gains life. keyword_param_number(ward, life, 1) refuses both."""
    path = write(
        tmp_path,
        "ward.yaml",
        """\
        players: [alice, bob]
        objects:
          a: {name: A, types: [creature], power: 2, toughness: 2, controller: alice, keywords: [{ward: {life: two}}]}
          b: {name: B, types: [creature], power: 2, toughness: 2, controller: alice, keywords: [{ward: {life: -3}}]}
          c: {name: C, types: [creature], power: 2, toughness: 2, controller: alice, keywords: [{ward: {life: 2}}]}
        """,
    )
    hint = "e.g. {ward: {life: 2}} (keyword_param_number in its rule file)"
    assert problems(engine, path) == [
        (3, 89, "S100", "the life in the parameter of ward is a whole number of at least 1, got 'two'", hint),
        (4, 89, "S100", "the life in the parameter of ward is a whole number of at least 1, got -3", hint),
    ]


@pytest.mark.slow
def test_a_vocabulary_of_numbers_refuses_a_number_outside_it(tmp_path):
    """A designer's vocabulary may hold numbers (vocabulary_word(v, 1)): a value outside it is an S100 error
    naming the words, not an internal error from the "did you mean" search, which compared only words."""
    rules = tmp_path / "upkeep.dl"
    rules.write_text(
        "## Test rules: a life cost of 1 to 3.\n"
        "keyword(upkeep_tax).\nkeyword_param_form(upkeep_tax, mapping, life).\n"
        "keyword_param_vocabulary(upkeep_tax, life, life_amount).\n"
        "vocabulary_word(life_amount, 1). vocabulary_word(life_amount, 2). vocabulary_word(life_amount, 3).\n"
    )
    engine = Engine(rules=[str(rules)])
    path = write(
        tmp_path,
        "tax.yaml",
        """\
        players: [alice, bob]
        objects:
          d: {name: D, types: [land], controller: alice, keywords: [{upkeep_tax: {life: 5}}]}
        """,
    )
    assert problems(engine, path) == [
        (3, 61, "S100", "unknown life 5 in the parameter of upkeep_tax", "the life is one of: 1, 2, 3")
    ]
    spec = {"name": "D", "types": ["land"], "controller": "alice", "keywords": [{"upkeep_tax": {"life": 2}}]}
    state = engine.state_from_dict({"players": ["alice", "bob"], "objects": {"d": spec}})
    assert state.holds("has_keyword(d, upkeep_tax)")


def test_a_stack_entry_needs_an_argument_its_kind_reads_through_a_helper(tmp_path):
    """A designer's rampage reads N through a predicate of its own (my_resolving(I, O) from on_stack, then
    ability_arg(I, n, N)): an entry without n is refused as one whose rule reads it in the same body is; a key
    read only by one of the rules deriving a predicate (a last known value, when the creature is gone) is not
    needed."""
    rules = tmp_path / "my_rampage.dl"
    rules.write_text(
        """\
.decl my_resolving(i: ability, o: object) "{i} of {o} resolves"
.decl my_n(i: ability, n: int) "{i} has N {n}"
.decl my_size(i: ability, n: int) "{i} counts {n}"
@name my.trigger
@cr 702.23a
triggers(A, my_rampage, blocked) :- becomes_blocked(_, A), has_keyword(A, flanking).
@name my.resolving
@cr 702.23a
my_resolving(I, O) :- action(resolve), resolving(I), on_stack(I, O, my_rampage).
@name my.n
@cr 702.23a
my_n(I, N) :- my_resolving(I, _), ability_arg(I, n, N).
@name my.size_now
@cr 702.23b
my_size(I, P) :- my_resolving(I, O), power(O, P).
@name my.size_known
@cr 702.23b
my_size(I, P) :- my_resolving(I, O), not permanent(O), ability_arg(I, power, P).
"""
    )
    engine = Engine(rules=[str(rules)])
    assert dict(engine.interface.abilities.needs["my_rampage"]) == {"n": "my.n"}
    path = write(tmp_path, "s.yaml", STACK % ("forcemage", "my_rampage", ", args: {power: 2}"))
    found = problems(engine, path)
    assert any("needs the argument(s) n" in m and "my.n reads n" in (h or "") for _l, _c, _code, m, h in found), found


# -- cards in a zone and a battle's protector, written on objects: ----------------------------------------
NINJA_BY_HAND = """\
players: [alice, bob]
objects:
  bears: {card: Grizzly Bears, controller: alice}
facts:
  - card_in_zone(ninja, hand)
  - card_value(ninja, name, "Ninja of the Deep Hours", none, none, none)
  - card_value(ninja, card_type, creature, none, none, none)
  - card_value(ninja, subtype, human, none, none, none)
  - card_value(ninja, subtype, ninja, none, none, none)
  - card_value(ninja, color, blue, none, none, none)
  - card_value(ninja, base_power, 2, none, none, none)
  - card_value(ninja, base_toughness, 2, none, none, none)
  - card_value(ninja, printed_keyword, ninjutsu, none, none, none)
  - card_value(ninja, owner, alice, none, none, none)
  - card_in_zone(lions, graveyard)
  - card_value(lions, name, "Savannah Lions", none, none, none)
  - card_value(lions, card_type, creature, none, none, none)
  - card_value(lions, subtype, cat, none, none, none)
  - card_value(lions, color, white, none, none, none)
  - card_value(lions, base_power, 2, none, none, none)
  - card_value(lions, base_toughness, 1, none, none, none)
  - card_value(lions, owner, bob, none, none, none)
"""

NINJA_ON_OBJECTS = """\
players: [alice, bob]
objects:
  bears: {card: Grizzly Bears, controller: alice}
  ninja: {name: Ninja of the Deep Hours, types: [creature], subtypes: [human, ninja], colors: [blue], power: 2,
          toughness: 2, keywords: [ninjutsu], zone: hand, owner: alice}
  lions: {card: Savannah Lions, zone: graveyard, controller: bob}
"""


def test_a_card_in_a_zone_written_on_objects_is_the_facts_written_by_hand(engine, tmp_path):
    by_hand = engine.load(write(tmp_path, "hand.yaml", NINJA_BY_HAND))
    path = write(tmp_path, "objects.yaml", NINJA_ON_OBJECTS)
    on_objects = engine.load(path)  # was: unknown key 'zone' in object 'ninja'
    assert on_objects.facts == by_hand.facts
    assert on_objects.holds("card_in_zone(lions, graveyard)") and not on_objects.holds("permanent(ninja)")
    origins = load_scenario(path).origins  # each fact points at the key it came from
    assert origins[("card_in_zone", "ninja", "hand")].line == 5
    assert origins[("card_value", "ninja", "owner", "alice", "none", "none", "none")].line == 5
    owner = origins[("card_value", "lions", "owner", "bob", "none", "none", "none")]
    assert (owner.line, owner.col) == (6, 62)  # its controller: (its owner, 108.4a)


def test_zone_battlefield_is_the_default(engine, tmp_path):
    written = engine.load(write(tmp_path, "a.yaml", GOOD.replace("alice}", "alice, zone: battlefield}")))
    assert written.facts == engine.load(write(tmp_path, "b.yaml", GOOD)).facts


def test_a_battle_object_takes_its_protector(engine, tmp_path):
    text = """\
    players: [alice, bob]
    objects:
      siege: {name: Siege, types: [battle], subtypes: [siege], controller: alice, protector: bob,
              counters: {defense: 3}}
    """
    state = engine.load(write(tmp_path, "s.yaml", text))  # was: unknown key 'protector' in object 'siege'
    assert state.holds("protector(siege, bob)") and board_problems(state) == []
    by_fact = text.replace(", protector: bob", "") + 'facts: ["protector(siege, bob)"]\n'
    assert state.facts == engine.load(write(tmp_path, "f.yaml", by_fact)).facts
    # its controller as its protector: the board is answered as written, with a warning (310.11a, 704.5x)
    mine = engine.load(write(tmp_path, "t.yaml", text.replace("protector: bob", "protector: alice")))
    [warning] = board_problems(mine)
    assert warning.code == "S201" and "310.11a" in warning.message and mine.holds("protector(siege, alice)")


def test_a_keyword_that_is_an_action_argument_says_which_action_takes_it(engine, tmp_path):
    text = "players: [alice, bob]\nobjects:\n  initiate: {card: Grizzly Bears, controller: alice, keywords: [exert]}\n"
    [(line, col, code, message, hint)] = problems(engine, write(tmp_path, "k.yaml", text))
    assert (line, col, code, message) == (3, 65, "S100", "unknown keyword 'exert'")
    # was: "known keywords: ..." without a word of the action that takes it
    assert "an argument of the action declare_attackers" in hint and "docs/authoring.md" in hint
    assert "{do: declare_attackers, exert: ...}" in hint


def test_a_designation_written_as_a_key_of_an_object_says_where_the_scenario_takes_it(engine, tmp_path):
    path = write(
        tmp_path,
        "moved.yaml",
        """\
        players: [alice, bob]
        objects:
          bears: {name: Grizzly Bears, types: [creature], power: 2, toughness: 2, controller: alice,
                  attacking: bob}
          split: {card: Bonesplitter, controller: alice, attached_to: bears}
        """,
    )
    found = {message: (line, col, hint) for line, col, _code, message, hint in problems(engine, path)}
    assert found["unknown key 'attacking' in object 'bears'"] == (
        4,
        11,
        "write it under `combat:` as `attackers: {bears: attack target}`",
    )
    assert found["unknown key 'attached_to' in object 'split'"][2] == (
        "write it at the top of the scenario as `attachments: {split: permanent it is attached to}`"
    )


def test_a_designation_naming_a_list_or_a_card_in_a_zone_says_so(engine, tmp_path):
    """`attachments: {split: [bears, lions]}` said "['bears', 'lions'] does not exist", and a card in a graveyard
    "does not exist" (known: ...), where both exist: a map field takes one id, and a card in a zone is no
    permanent."""
    path = write(
        tmp_path,
        "att.yaml",
        """\
        players: [alice, bob]
        objects:
          bears: {name: Grizzly Bears, types: [creature], power: 2, toughness: 2, controller: alice}
          dead: {name: Dead Bear, types: [creature], power: 2, toughness: 2, owner: alice, zone: graveyard}
          split: {card: Bonesplitter, controller: alice}
          split2: {card: Bonesplitter, controller: alice}
        attachments: {split: [bears, dead], split2: dead}
        """,
    )
    found = problems(engine, path)
    assert [(line, col, code) for line, col, code, _m, _h in found] == [(7, 22, "S100"), (7, 45, "S100")]
    assert found[0][3] == "permanent it is attached to is one id, got ['bears', 'dead']"
    assert found[1][3].startswith("permanent it is attached to 'dead' is a card in a zone (its zone:)")


def test_a_stack_entry_may_have_a_player_as_its_source():
    """A player's own triggered ability (start your engines!'s speed trigger, 702.179) has the player as its
    source: a state written with it on the stack loads back, and it resolves."""
    engine = Engine()
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "facts": ["speed(alice, 2)"],
            "stack": [{"id": "ability_1", "source": "alice", "kind": "speed", "controller": "alice"}],
        }
    )
    assert state.query("on_stack(I, S, K)") == [{"I": "ability_1", "S": "alice", "K": "speed"}]
    state, _ = state.apply({"do": "resolve"})
    assert state.query("speed(alice, N)") == [{"N": 3}]


def test_a_designation_of_a_card_takes_a_card_in_a_zone_and_is_written_back_as_a_fact(engine, tmp_path):
    text = """\
    players: [alice, bob]
    objects:
      ghost: {card: Blind Hunter, zone: exile, owner: alice}
      bears: {card: Grizzly Bears, controller: bob}
    haunts: {ghost: bears}
    """
    state = engine.load(write(tmp_path, "h.yaml", text))  # was: 'ghost' is a card in a zone, not a permanent
    assert state.holds("haunting(ghost, bears)") and state.holds("card_in_zone(ghost, exile)")
    by_fact = text.replace("    haunts: {ghost: bears}\n", '    facts: ["haunting(ghost, bears)"]\n')
    assert state.facts == engine.load(write(tmp_path, "f.yaml", by_fact)).facts
    # the writer puts the card under facts:, and the designation naming it too (it loads back)
    written = state.to_scenario()
    assert "haunts" not in written and "haunting(ghost, bears)" in written["facts"]
    assert engine.state_from_dict(written).facts == state.facts
    # a designation of permanents still refuses a card in a zone
    pairs = text.replace("haunts: {ghost: bears}", "attachments: {ghost: bears}")
    [(_line, _col, code, message, _hint)] = problems(engine, write(tmp_path, "p.yaml", pairs))
    assert code == "S100" and "is a card in a zone" in message


def test_a_mapping_parameter_has_one_key_unless_its_keys_are_declared_together(engine, tmp_path):
    """{prototype: {power: 3, toughness: 2, ...}} gives a printed_keyword_param fact for each key
    (keyword_param_together); a keyword without the declaration still takes one key ({protection: {color: black,
    type: artifact}} is refused, not read as two qualities of one instance)."""
    path = write(
        tmp_path,
        "together.yaml",
        """\
        players: [alice, bob]
        objects:
          a: {name: A, types: [creature], power: 6, toughness: 4, controller: alice,
              keywords: [{prototype: {power: 3, toughness: 2, color: red}}]}
        """,
    )
    state = engine.load(path)
    assert state.query("printed_keyword_param(a, prototype, K, V)") == [
        {"K": "color", "V": "red"},
        {"K": "power", "V": 3},
        {"K": "toughness", "V": 2},
    ]
    bad = write(
        tmp_path,
        "two_keys.yaml",
        """\
        players: [alice, bob]
        objects:
          a: {name: A, types: [creature], power: 2, toughness: 2, controller: alice,
              keywords: [{protection: {color: black, type: artifact}}]}
        """,
    )
    assert [p[2] for p in problems(engine, bad)] == ["S100"]
    wrong = write(
        tmp_path,
        "wrong_key.yaml",
        """\
        players: [alice, bob]
        objects:
          a: {name: A, types: [creature], power: 2, toughness: 2, controller: alice,
              keywords: [{prototype: {power: 3, tougness: 2}}]}
        """,
    )
    assert [(p[3], p[4]) for p in problems(engine, wrong)] == [
        ("unknown key 'tougness' in the parameter of prototype", "did you mean 'toughness'?")
    ]


def test_a_characteristic_kept_off_the_battlefield_as_a_carrier_is_the_card_s_in_its_new_zone(engine):
    """kept_off_battlefield_as(What, Carrier): a permanent leaving the battlefield keeps the carrier's values as
    its card's (a prototyped Blitz Automaton is a red 3/2 there and a colorless 6/4 card, CR 718.4); a permanent
    with no carrier fact keeps what it had."""
    state = engine.state_from_dict({"players": ["alice", "bob"]})
    for oid, extra in (("proto", {"prototype": "paid"}), ("plain", {})):
        obj = {"id": oid, "card": "Blitz Automaton", "controller": "alice"}
        state, _ = state.apply({"do": "enter", "object": obj, **extra})
        state, _ = state.apply({"do": "destroy", "object": oid})
    assert state.query("card_value(O, base_power, P, _, _, _)") == [{"O": "plain", "P": 6}, {"O": "proto", "P": 6}]
    assert state.query("card_value(O, color, C, _, _, _)") == []
    assert state.query("last_known(proto, power, P, _)") == [{"P": 3}]
