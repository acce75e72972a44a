"""What a new user met trying judgelog from the docs: each mistake gets a positioned error with a hint that
says what to write instead (the frictions of a new-user trial)."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli
from paths import ROOT

from judgelog import ActionError, Engine, QueryError, UsageError

BAND = str(ROOT / "facts/scenarios/banding_basic.yaml")


@pytest.mark.parametrize(
    ("query", "col", "hint"),
    [
        ("Damage_assigner(craw_wurm, P)", 1, "did you mean damage_assigner(...)?"),
        ("damage_assigner(craw_wurm, P), Blocked(craw_wurm)", 32, "did you mean blocked(...)?"),
        ("P(craw_wurm, X)", 1, "P is a variable (a Capitalised word); predicate names are lower_snake"),
    ],
)
def test_a_capitalised_predicate_is_refused_at_its_word_saying_it_is_a_variable(capsys, query, col, hint):
    run = run_cli(capsys, ["query", BAND, query])
    assert run.code == 2 and run.diagnostics() == [("<query>", 1, col, "error", "E001")]
    assert "expected a predicate name" in run.err and hint in run.err
    assert "comparison operator" not in run.err
    if query.startswith("P("):
        assert "did you mean" not in run.err  # p is no predicate: nothing to suggest


def test_a_single_quoted_string_is_one_error_saying_to_use_double_quotes(capsys):
    run = run_cli(capsys, ["query", BAND, "damage_assigner(craw_wurm, 'bob')"])
    assert run.code == 2 and run.diagnostics() == [("<query>", 1, 28, "error", "E001")]
    assert "strings are written in double quotes" in run.err
    assert 'write "bob", or a bare word when it is an id: bob' in run.err
    with pytest.raises(QueryError) as refused:
        Engine().load(BAND).query("damage_assigner(craw_wurm, 'bob')")
    assert len(refused.value.diagnostics) == 1


@pytest.mark.parametrize(
    ("atom", "col", "code", "message", "hint"),
    [
        ("damage_assigner(craw_wurm, P)", 28, "Q002", "P is a variable", "judgelog query SCENARIO"),
        ("blocked(craw_wurm), tapped(craw_wurm)", 21, "E001", "found 2 literals", "judgelog query SCENARIO"),
        ("not blocked(craw_wurm)", 1, "E001", "found a negation", '"blocked(craw_wurm)" --why-not'),
    ],
)
def test_explain_of_what_is_not_one_ground_atom_is_positioned_with_a_hint(capsys, atom, col, code, message, hint):
    run = run_cli(capsys, ["explain", BAND, atom])
    assert run.code == 2 and run.diagnostics() == [("<atom>", 1, col, "error", code)]
    assert message in run.err and hint in run.err.split("hint:")[1]


def test_the_text_of_a_query_error_carries_its_first_diagnostic_and_hint():
    state = Engine().load(BAND)
    with pytest.raises(QueryError) as refused:
        state.query("damage_asigner(craw_wurm, P)")
    text = str(refused.value)
    assert text.startswith("invalid query damage_asigner(craw_wurm, P):")
    assert "error[E002]: unknown predicate 'damage_asigner'" in text and "did you mean 'damage_assigner'?" in text
    assert refused.value.message == "invalid query damage_asigner(craw_wurm, P)"  # the short form stays


@pytest.mark.slow  # seconds: a library of its own or the command line
def test_a_scenario_that_is_not_utf8_is_refused_at_its_first_bad_byte(capsys, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"players: [alice, b\xe9b]\n")
    run = run_cli(capsys, ["query", path, "player(P)"])
    assert run.code == 3 and run.diagnostics() == [(str(path), 1, 19, "error", "S000")]
    assert "not UTF-8 text (byte 0xe9)" in run.err and "save the file as UTF-8" in run.err and "codec" not in run.err
    run = run_cli(capsys, ["check", "--format", "json", path])
    (diag,) = run.json()["diagnostics"]
    assert (diag["code"], diag["line"], diag["col"]) == ("S000", 1, 19) and "UTF-8" in diag["hint"]


def test_a_folder_given_as_a_scenario_names_its_scenario_files(capsys, tmp_path):
    for name in ("b.yaml", "a.json", "notes.txt"):
        (tmp_path / name).write_text("players: [alice]\n")
    run = run_cli(capsys, ["query", tmp_path, "player(P)"])
    assert run.code == 3 and "is a folder, not a scenario file" in run.err
    hint = run.err.split("hint:")[1]
    assert f"{tmp_path / 'a.json'}, {tmp_path / 'b.yaml'}" in hint and "judgelog test" in hint
    assert "notes.txt" not in hint


def test_a_folder_with_no_scenario_is_told_so(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("nothing\n")
    run = run_cli(capsys, ["test", tmp_path])
    assert run.code == 3 and f"no scenario file (.yaml, .yml, .json) in {tmp_path}" in run.err
    assert "0 passed" not in run.out


def test_a_json_scenario_that_only_yaml_reads_loads_as_documented(capsys, tmp_path):
    path = tmp_path / "comma.json"
    path.write_text('{"players": ["alice", "bob"],}\n')  # a trailing comma: read as YAML (docs/scenarios.md)
    assert run_cli(capsys, ["query", path, "player(P)"]).code == 0
    path.write_text('{"players": ["alice", "bob"],\n "objects": {]}\n')  # neither reads it: the JSON error
    run = run_cli(capsys, ["query", path, "player(P)"])
    assert run.code == 3 and "JSON syntax error" in run.err and run.diagnostics()[0][1:3] == (2, 14)


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["query", BAND, "player(P)", "--formt", "json"], "did you mean --format?"),
        (["audit", BAND, "--onyl", "overrides"], "did you mean --only?"),
    ],
)
def test_a_misspelt_option_gets_a_did_you_mean_among_its_verbs_options(capsys, argv, hint):
    run = run_cli(capsys, argv)
    assert run.code == 2 and "unrecognized arguments" in run.err and f"hint: {hint}" in run.err


def test_an_option_of_another_verb_is_not_suggested(capsys):
    run = run_cli(capsys, ["test", BAND, "--onyl", "x"])  # --only is audit's, not test's
    assert run.code == 2 and "--only" not in run.err.split("unrecognized arguments")[1].replace("--onyl", "")


@pytest.mark.parametrize(
    ("argv", "message", "hint"),
    [
        (["query", "--format", "json"], "the following arguments are required: scenario, query", None),
        (["query", BAND, "player(P)", "--formt", "x", "--format=json"], "unrecognized arguments", "--format?"),
        (["explian", "--format", "json"], "invalid choice: 'explian'", "judgelog explain"),
        (["graph", BAND, "-o", "x.svg", "--form", "json", "--actions", "many"], "argument --actions", None),
    ],
)
def test_a_usage_error_with_format_json_is_one_json_error_document(capsys, argv, message, hint):
    import jsonschema

    from judgelog.outputs import load_schema

    run = run_cli(capsys, argv)
    error = json.loads(run.err)  # the whole of stderr is one document: no usage line, no text
    jsonschema.validate(error, load_schema("error"))
    assert run.code == 2 and run.out == "" and error["error"] == "UsageError" and message in error["message"]
    assert (hint is None and "hint" not in error) or hint in error["hint"]
    text = run_cli(capsys, [w for w in argv if "json" not in w and w not in ("--format", "--form")])
    assert text.code == 2 and text.err.startswith("usage: judgelog") and "judgelog: error:" in text.err


@pytest.mark.parametrize("verb", [["do"], ["query", "player(P)"], ["explain", "player(alice)"]])
def test_actions_n_on_a_scenario_without_actions_says_it_has_none_and_where_they_go(capsys, tmp_path, verb):
    path = tmp_path / "board.yaml"
    path.write_text("players: [alice, bob]\n")
    run = run_cli(capsys, [verb[0], path, *verb[1:], "--actions", "5"])
    assert run.code == 2 and f"--actions 5: {path} has no actions" in run.err
    assert "from 0 to 0" not in run.err and "top-level `actions:` list" in run.err.split("hint:")[1]


def test_state_query_refuses_an_unknown_object_as_the_cli_does_and_keeps_board_agnostic_constants(capsys):
    state = Engine().load(BAND)
    with pytest.raises(QueryError) as refused:
        state.query("blocked(craw_wurn)")
    run = run_cli(capsys, ["query", BAND, "blocked(craw_wurn)"])
    ((code, message, hint),) = [(d.code, d.message, d.hint) for d in refused.value.diagnostics]
    assert code == "Q001" and hint == "did you mean 'craw_wurm'?"
    assert run.code == 2 and f"error[Q001]: {message}" in run.err and f"hint: {hint}" in run.err
    # a player, a keyword no object has, a number: constants of the game, not of this board, are asked
    assert state.query("has_keyword(X, shadow)") == [] and state.query("power(X, 77)") == []
    assert state.query("controller(X, bob), blocks(X, A)") == state.query("blocks(X, A), controller(X, bob)") != []


def test_state_derived_of_a_misspelt_predicate_says_did_you_mean_as_judgelog_rules_does(capsys):
    with pytest.raises(QueryError) as refused:
        Engine().load(BAND).derived("damage_asigner")
    assert refused.value.hint == "did you mean 'damage_assigner'?" and "did you mean 'damage_assigner'?" in str(
        refused.value
    )
    run = run_cli(capsys, ["rules", "damage_asigner"])
    assert run.code == 2 and f"hint: {refused.value.hint}" in run.err


def test_rules_of_a_keyword_name_point_to_its_audit(capsys):
    """`judgelog rules flying` asks for a predicate; flying is the @name group of rules/keywords/flying.dl, so the
    hint names the verb that lists a keyword's rules instead of a did-you-mean to an unrelated predicate."""
    run = run_cli(capsys, ["rules", "flying"])
    hint = "hint: flying names a keyword's rules, not a predicate: judgelog audit --keyword flying"
    assert run.code == 2 and hint in run.err
    assert run_cli(capsys, ["audit", "--keyword", "flying"]).code == 0  # the command the hint gives runs


def test_an_activation_whose_source_left_the_battlefield_says_so_not_no_such_ability(capsys, tmp_path):
    path = tmp_path / "food.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nactions:\n"
        "  - {do: create_predefined_token, token: food, as: [pie]}\n"
        "  - {do: activate, object: pie, ability: food}\n"
        "  - {do: activate, object: pie, ability: food}\n"
    )
    run = run_cli(capsys, ["do", "--format", "json", path])
    error = json.loads(run.err)
    assert run.code == 1 and error["action"] == 2 and error["cr"] == "400.7"
    assert "no longer on the battlefield" in error["message"] and "no activated ability" not in error["message"]
    assert [r["rule"] for r in error["refused_by"]] == ["activate.source_gone_refused"]


def test_a_granted_keyword_without_its_parameter_is_refused_naming_the_key_it_takes(tmp_path):
    """Swampwalk granted with the land's type under another key: the refusal names landwalk's own key
    (land_with), not an example of another keyword's; the state is unchanged."""
    from judgelog.errors import JudgelogError

    path = tmp_path / "b.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n  giant: {card: Hill Giant, controller: alice}\n",
        encoding="utf-8",
    )
    state = Engine().load(str(path))
    with pytest.raises(JudgelogError) as refused:
        state.apply({"do": "apply_effect", "object": "giant", "keyword": "landwalk", "subtype": "swamp"})
    assert "under the key named here" in str(refused.value) and "(land_with; CR 702.1)" in str(refused.value)
    assert not state.holds("keyword_param(giant, landwalk, land_with, swamp)")
    after, _ = state.apply({"do": "apply_effect", "object": "giant", "keyword": "landwalk", "land_with": "swamp"})
    assert after.holds("keyword_param(giant, landwalk, land_with, swamp)")


REMOVED = str(ROOT / "facts/scenarios/judge_banding_blocker_removed_active_player_divides_again.yaml")


@pytest.mark.parametrize("verb", ["query", "explain"])
def test_a_negative_answer_after_the_files_actions_says_so_and_how_to_ask_the_board_as_written(capsys, verb):
    """A judge asking about a file with actions gets the state after them: a "no" there names them (the board
    as written may be what was meant); with --before-actions, or a positive answer, nothing is added."""
    note = "(asked after the file's 1 action: --before-actions asks the board as written)"
    after = run_cli(capsys, [verb, REMOVED, "tapped(alice)"])
    assert after.code == 1 and after.out.rstrip().endswith(note)
    before = run_cli(capsys, [verb, REMOVED, "tapped(alice)", "--before-actions"])
    assert before.code == 1 and note not in before.out
    held = run_cli(capsys, [verb, REMOVED, "blocking(X, _)" if verb == "query" else "creature(bears)"])
    assert held.code == 0 and note not in held.out


def test_no_warnings_keeps_a_scenarios_warnings_off_stderr_and_the_answers_alike(capsys):
    """A judge asking about a board with a card not modelled in full (S200) gets the warning on every command;
    --no-warnings leaves it out and changes nothing else."""
    path = ROOT / "facts" / "scenarios" / "crew_exact_power_too_little_and_tapped_creatures.yaml"
    warned = run_cli(capsys, ["query", path, "tapped(X)"])
    quiet = run_cli(capsys, ["query", path, "tapped(X)", "--no-warnings"])
    assert "warning[S200]" in warned.err and "warning" not in quiet.err
    assert quiet.code == warned.code == 0 and quiet.out == warned.out


def test_test_takes_no_warnings_too(capsys):
    """`judgelog test` on a folder of boards prints each file's warnings; --no-warnings leaves them out of stderr
    and of the JSON document, and the results are the same."""
    path = ROOT / "facts" / "scenarios" / "crew_exact_power_too_little_and_tapped_creatures.yaml"
    warned = run_cli(capsys, ["test", path])
    quiet = run_cli(capsys, ["test", path, "--no-warnings"])
    assert "warning[S200]" in warned.err and "warning" not in quiet.err
    assert quiet.code == warned.code == 0 and quiet.out == warned.out
    document = json.loads(run_cli(capsys, ["test", path, "--no-warnings", "--format", "json"]).out)
    assert "warnings" not in document and document["failed"] == 0 and document["passed"] > 0
    assert json.loads(run_cli(capsys, ["test", path, "--format", "json"]).out)["warnings"]


def test_a_refused_choice_says_what_the_choice_decides(tmp_path):
    """Soulbond's two abilities both ask `pair`; a refusal names the ability's own choice (choice_text), so a
    judge who named the soulbond creature for ability (2) reads that it names the creature that entered."""
    path = tmp_path / "pair.yaml"
    path.write_text(
        "players: [alice, bob]\nactive: alice\nobjects:\n"
        "  w: {card: Wolfir Silverheart, controller: alice}\n"
        "actions:\n"
        "  - {do: enter, object: {id: bears, name: Bears, types: [creature], power: 2, toughness: 2,"
        " controller: alice}}\n"
        "  - {do: resolve, choose: {pair: w}}\n"
    )
    with pytest.raises(ActionError) as err:
        Engine().load(path).run_actions()
    message = str(err.value)
    assert "'w' is not a legal choice for pair: soulbond (2)" in message and "the one that entered" in message
    assert "legal options: bears, none" in message


TRAMPLED = """\
name: A trampler blocked by a 2/2, its damage dealt
objects:
  wurm: {name: Big Trampler, types: [creature], power: 6, toughness: 6, keywords: [trample], controller: alice}
  bears: {card: Grizzly Bears, controller: bob}
combat:
  attackers: {wurm: bob}
  blockers: {bears: [wurm]}
actions:
  - {do: combat_damage, assign: {wurm: {bears: 2, bob: 4}}}
"""


@pytest.mark.parametrize("what", ["divisions", "combat_damage"])
def test_choices_with_nothing_left_after_the_files_actions_says_how_to_ask_the_board_as_written(capsys, tmp_path, what):
    path = tmp_path / "trampled.yaml"
    path.write_text(TRAMPLED)
    run = run_cli(capsys, ["choices", path, what])  # the damage was dealt by the file's own action
    assert run.code == 1 and "asked after the file's 1 action: --before-actions asks the board as written" in run.err
    assert "hint:" in run.err and "Traceback" not in run.err
    before = run_cli(capsys, ["choices", path, what, "--before-actions"])
    assert "asked after" not in before.out + before.err
    if what == "divisions":
        assert before.code == 0 and "wurm (6 among bears, bob; by alice)" in before.out
    else:  # the action's assign: is listed by the decision divisions, before the actions as after them
        assert before.code == 1 and "wurm; CR 510.1c" in before.err
        assert "its assign: argument is the decision 'divisions'" in run.err + before.err


@pytest.mark.parametrize(
    ("call", "message", "hint"),
    [
        (lambda s: s.apply({"do": "destory", "object": "hero"}), "unknown action 'destory'", "did you mean 'destroy'?"),
        (lambda s: s.apply({"do": "destroy", "object": "zed"}), "'zed' is not one", "objects: bears, hero, wurm"),
        (lambda s: s.apply({"do": "destroy", "obj": "hero"}), "no argument 'obj'", "arguments: "),
        (lambda s: Engine(backend="clingoo"), "unknown backend 'clingoo'", "backends: pydatalog, clingo"),
    ],
)
def test_a_usage_error_in_python_shows_its_hint_in_its_text(call, message, hint):
    state = Engine().load(ROOT / "facts/scenarios/banding_blocked_by_one.yaml")
    with pytest.raises(UsageError) as refused:
        call(state)
    text = str(refused.value)  # what a traceback shows: the hint too, on a line of its own
    assert text.splitlines()[0].endswith(message) and text.splitlines()[1] == f"  hint: {refused.value.hint}"
    assert hint in refused.value.hint and refused.value.message == text.splitlines()[0]


def test_expect_error_is_matched_against_a_usage_errors_message_not_its_hint(capsys, tmp_path):
    path = tmp_path / "hinted.yaml"
    path.write_text(
        "objects:\n  hero: {card: Benalish Hero, controller: alice}\n"
        "actions:\n  - {do: destroy, object: zed, expect_error: 'objects: hero'}\n"
    )
    run = run_cli(capsys, ["test", path])  # the text names the hint's list only: not what the refusal says
    assert run.code == 1 and "does not mention 'objects: hero'" in run.out


@pytest.mark.parametrize(
    ("text", "where", "began"),
    [
        (
            "objects:\n  a: {card: Grizzly Bears, controller: alice\n",
            (3, 1),
            "a flow mapping that begins at line 2, column 6 (is its closing '}' missing?)",
        ),
        (
            "objects:\n  a: [1, 2\n  b: 3\n",
            (3, 4),
            "a flow sequence that begins at line 2, column 6 (is its closing ']' missing?)",
        ),
        (
            'name: "bad\nobjects: {}\n',
            (3, 1),
            "a quoted string that begins at line 1, column 7 (is its closing quote missing?)",
        ),
    ],
)
def test_a_yaml_error_past_an_unclosed_bracket_or_quote_says_where_it_began(capsys, tmp_path, text, where, began):
    path = tmp_path / "unclosed.yaml"
    path.write_text(text)
    run = run_cli(capsys, ["query", path, "player(P)"])
    assert run.code == 3 and run.diagnostics() == [(str(path), *where, "error", "S001")]
    assert f"the error is in {began}" in run.err.split("hint:")[1] and "Traceback" not in run.err
