"""A corpus of realistic mistakes (tests/mistakes/, one file each): for every one, the exact
``file:line:col``, message and hint, through ``judgelog check`` (exit 1, text and JSON) and through a verb
that has to load the file (exit 3), with the source line and a caret under the column.
"""

from __future__ import annotations

import pytest
from helpers import run_cli
from sampling import everyday_sample

SCENARIO = "facts/scenarios/banding_both_sides.yaml"

# file -> [(line, col, code, message, hint)]: every diagnostic ``check`` reports for it, in order
MISTAKES = {
    "action_typos.yaml": [  # every typo of actions, choices and expectations, all at once, before anything runs
        (8, 10, "S102", "unknown action 'put_counter'", "did you mean 'put_counters'?"),
        (
            9,
            32,
            "S102",
            "put_counters: target must name an object or a player; 'worm' is not one",
            "did you mean 'wurm'?",
        ),
        (10, 38, "S102", "put_counters takes no argument 'knd'", "did you mean 'kind'?"),
        (11, 46, "S102", "gain_control: player must name a player; 'carol' is not one", "players: alice, bob"),
        (
            12,
            47,
            "S102",
            "leave_battlefield: to: unknown constant 'graveyrd': no object, player or value of the "
            "state or the rules is called that",
            "did you mean 'graveyard'?",
        ),
        (13, 28, "S102", "resolve: choose: no rule offers a choice called 'pairs'", "did you mean 'pair'?"),
        (
            15,
            22,
            "S103",
            "absent: unknown object 'worm': no object, player or ability of the state is called that",
            "did you mean 'wurm'?",
        ),
        (16, 31, "S103", "unknown expect key 'cities'", "did you mean 'cites'?"),
        (17, 31, "S103", "unknown expect key 'answer'", "did you mean 'answers'?"),
    ],
    "keyword_misspelled.yaml": [(10, 25, "S100", "unknown keyword 'flyng'", "did you mean 'flying'?")],
    "card_unknown.yaml": [(5, 17, "S100", "unknown card 'Grizly Bears'", "did you mean 'Grizzly Bears'?")],
    "blocker_missing.yaml": [(9, 20, "S100", "blocker 'bear' does not exist", "did you mean 'bears'?")],
    "assign_fraction.yaml": [  # 2.5 is a number, but no damage is fractional
        (
            12,
            col,
            "S102",
            f"combat_damage: assign holds {n}, which is not a whole number",
            "write a whole number, e.g. 2 (CR 107.1a: no fractions)",
        )
        for n, col in (("2.5", 48), ("3.5", 58))
    ],
    "band_unknown_creature.yaml": [
        (9, 18, "S100", "band member (an attacker) 'wrum' does not exist", "did you mean 'wurm'?")
    ],
    "unsafe_variable.dl": [
        (6, 12, "E004", "unsafe variable P in the head of menaced", "P must appear in a positive atom of the body")
    ],
    "negation_cycle.dl": [
        (
            7,
            38,
            "E005",
            "negation cycle: lone_attacker -> not has_company -> not lone_attacker (not stratifiable)",
            "a predicate must not depend on its own negation; break the cycle with an input fact or split the "
            "predicate",
        )
    ],
    "include_loop.dl": [
        (
            2,
            1,
            "E011",
            "include loop: tests/mistakes/include_loop.dl -> tests/mistakes/include_loop.dl",
            "remove one of the .include lines",
        )
    ],
    "include_missing.dl": [
        (
            3,
            1,
            "E010",
            "included file not found: tests/mistakes/helpers_that_do_not_exist.dl",
            "include paths are relative to the including file",
        )
    ],
    "yaml_tabs.yaml": [
        (
            5,
            1,
            "S001",
            "YAML syntax error: found character '\\t' that cannot start any token",
            "YAML does not allow tab characters for indentation; use spaces",
        )
    ],
    "duplicate_object_id.yaml": [(6, 3, "S003", "duplicate key 'bear'", "first given at line 5")],
    "player_id_as_object.yaml": [
        (5, 3, "S100", "object id 'bob' is already a player id", "give the object another id")
    ],
    "power_not_integer.yaml": [(8, 12, "S100", "power must be an integer, got 'two'", "write a whole number, e.g. 2")],
    "counter_kind_spaces.yaml": [
        (
            5,
            61,
            "S100",
            "invalid counter kind 'plus one'",
            'counter kinds are lower_snake words (p1p1, m1m1, loyalty, poison, ...; "+1/+1" and "-1/-1" are accepted)',
        )
    ],
}


def test_the_corpus_is_complete(chdir_root):
    on_disk = sorted(p.name for p in (chdir_root / "tests" / "mistakes").iterdir())
    assert on_disk == sorted(MISTAKES)


@pytest.mark.parametrize("name", everyday_sample(sorted(MISTAKES), 3))  # all: -m slow
def test_check_reports_exactly_this(capsys, chdir_root, name):
    path = f"tests/mistakes/{name}"
    run = run_cli(capsys, ["check", "--format", "json", path])
    assert run.code == (3 if name.endswith(".yaml") else 1), run.err
    got = [(d["line"], d["col"], d["code"], d["message"], d.get("hint")) for d in run.json()["diagnostics"]]
    assert got == MISTAKES[name]
    assert all(d["file"] == path and d["severity"] == "error" for d in run.json()["diagnostics"])


@pytest.mark.parametrize("name", everyday_sample(sorted(MISTAKES), 3, offset=1))  # all: -m slow
def test_check_text_shows_the_line_and_a_caret(capsys, chdir_root, name):
    path = f"tests/mistakes/{name}"
    run = run_cli(capsys, ["check", path])
    assert run.code == (3 if name.endswith(".yaml") else 1)  # a scenario that would not load: exit 3
    assert "Traceback" not in run.err
    source = (chdir_root / path).read_text(encoding="utf-8").splitlines()
    lines = run.err.splitlines()
    for line, col, code, message, hint in MISTAKES[name]:
        header = f"{path}:{line}:{col}: error[{code}]: {message}"
        assert header in lines, run.err
        i = lines.index(header)
        assert lines[i + 1] == "    " + source[line - 1].expandtabs(1)
        assert lines[i + 2] == "    " + " " * (col - 1) + "^"
        after = i + 3
        while lines[after].startswith("  note: "):  # a negation cycle's rules, each with its place
            after += 1
        assert lines[after] == f"  hint: {hint}"
    assert run.out.startswith(f"{len(MISTAKES[name])} error(s), 0 warning(s)")


@pytest.mark.parametrize("name", everyday_sample(sorted(MISTAKES), 3, offset=2))  # all: -m slow
def test_a_verb_that_loads_the_file_exits_3(capsys, chdir_root, name):
    path = f"tests/mistakes/{name}"
    argv = ["query", path, "player(P)"] if name.endswith(".yaml") else ["query", "--rules", path, SCENARIO, "player(P)"]
    run = run_cli(capsys, argv)
    assert run.code == 3, run.err
    assert run.out == ""
    assert [d[:3] for d in run.diagnostics()] == [(path, line, col) for line, col, *_ in MISTAKES[name]]
    for *_, message, hint in MISTAKES[name]:
        assert message in run.err and f"  hint: {hint}" in run.err


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_the_same_in_python(chdir_root):
    from judgelog import Engine, LoadError

    engine = Engine()
    for name, expected in sorted(MISTAKES.items()):
        path = f"tests/mistakes/{name}"
        with pytest.raises(LoadError) as info:
            if name.endswith(".yaml"):
                engine.load(path)
            else:
                Engine(rules=[path])
        got = [(d.span.line, d.span.col, d.code, d.message, d.hint) for d in info.value.diagnostics]
        assert got == expected, name


# -- files that are not there ----------------------------------------------------------------------------
def test_a_missing_scenario(capsys, chdir_root):
    run = run_cli(capsys, ["query", "tests/mistakes/nothere.yaml", "player(P)"])
    assert run.code == 3
    assert run.err == "error: file not found: tests/mistakes/nothere.yaml\n  hint: check the path\n"
    run = run_cli(capsys, ["check", "tests/mistakes/nothere.yaml"])
    assert run.code == 3
    assert run.err.splitlines()[:2] == [
        "<input>: error[S000]: file not found: tests/mistakes/nothere.yaml",
        "  hint: check the path",
    ]


def test_a_missing_rule_file(capsys, chdir_root):
    run = run_cli(capsys, ["query", "--rules", "tests/mistakes/nothere.dl", SCENARIO, "player(P)"])
    assert run.code == 3
    assert run.err.splitlines() == [
        "tests/mistakes/nothere.dl:1:1: error[E010]: no such rule file or folder: tests/mistakes/nothere.dl",
        "  hint: check the path given to --rules",
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ["do", SCENARIO, "-o", "{missing}/out.yaml"],
        ["graph", SCENARIO, "-o", "{missing}/out.dot"],
        ["audit", "--dot", "{missing}/rules.dot"],
    ],
)
def test_an_output_folder_that_does_not_exist(capsys, tmp_path, chdir_root, argv):
    missing = tmp_path / "no_such_folder"
    argv = [a.format(missing=missing) for a in argv]
    run = run_cli(capsys, argv)
    assert run.code == 2  # a usage error, not an internal error (4)
    assert run.err.startswith(f"error: cannot write {missing}/")
    assert "No such file or directory" in run.err


def test_test_and_check_of_a_missing_file_exit_3_like_every_load_error(capsys, chdir_root):
    for argv in (
        ["test", "facts/scenarios/no_such_scenario.yaml"],
        ["query", "facts/scenarios/no_such.yaml", "creature(X)"],
    ):
        run = run_cli(capsys, argv)
        assert run.code == 3, (argv, run.out, run.err)
        assert "no_such" in run.err and "Traceback" not in run.err
