"""judgelog verify: properties as rules, the boards of a scope, the reference enumerator, counterexamples that
`judgelog test` fails and `judgelog explain` proves, deliberately broken rule files (tests/verify_bugs/)
found, and the same output on a 2-worker Dask cluster."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml
from helpers import Run, run_cli
from paths import TESTS

from judgelog import Engine
from judgelog.boards import automorphisms, boards, canonical_key, count_boards, shapes, tasks
from judgelog.catalog import rules_dir
from judgelog.cli import main
from judgelog.scope import load_scope, property_keywords
from judgelog.verify import counterexample_scenario, merge, properties_of, run_task
from judgelog.verify_search import search_shape

BUGS = TESTS / "verify_bugs"


def _scope_file(tmp_path: Path, data: dict, name: str = "scope.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def _library_without(tmp_path: Path, bug: Path) -> Path:
    """A copy of the library without the rules the bug file's `## drops:` line names, plus the bug file."""
    lib = tmp_path / "lib"
    shutil.copytree(rules_dir(), lib, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    text = bug.read_text()
    drops = [line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("## drops:")]
    names = {n for group in drops for n in group}
    removed = set()
    for path in lib.rglob("*.dl"):
        lines = path.read_text().splitlines(keepends=True)
        out, skipping = [], False
        for line in lines:
            if line.startswith("@name ") and line.split()[1] in names:
                removed.add(line.split()[1])
                skipping = True
                continue
            if skipping:
                if not line.startswith(("@", "#")) and line.rstrip().endswith("."):
                    skipping = False
                continue
            out.append(line)
        path.write_text("".join(out))
    assert removed == names, f"rules to drop not found: {sorted(names - removed)}"
    (lib / "broken").mkdir()
    shutil.copy(bug, lib / "broken" / bug.name)
    return lib


@pytest.fixture(scope="module")
def broken_library(tmp_path_factory) -> Callable[[str], Path]:
    """``broken_library(NAME)``: :func:`_library_without` the bug file ``verify_bugs/NAME``, made once per
    module and test process and shared by the tests that break the library the same way (each must only read
    it). A library at a new path is parsed and analysed again, for verify's engine and for ``judgelog test``'s
    (1-3 s each): one folder per bug lets a later test's engines come from the process's cache."""
    made: dict[str, Path] = {}

    def library(name: str) -> Path:
        if name not in made:
            made[name] = _library_without(tmp_path_factory.mktemp("broken-" + Path(name).stem), BUGS / name)
        return made[name]

    return library


# -- properties and scope ---------------------------------------------------------------------------------
def test_properties_are_declared_by_rules_and_functional_predicates_count():
    props = properties_of(Engine(properties=True))
    assert {
        "damage_divided",
        "band_mates",
        "band_legality",
        "paired_with_each_other",
        "pair_breaks",
        "functional:damage_assigner",
    } <= set(props)
    assert props["band_legality"].stage == "declaration"
    assert "702.22c" in props["band_legality"].cites
    assert props["functional:damage_assigner"].functional == (0,)


def test_default_keywords_come_from_the_rules_the_properties_read():
    engine = Engine(properties=True)
    seen = property_keywords(engine.program)
    assert seen <= engine.interface.keywords
    scope = load_scope({"subtypes": ["wolf"]}, engine)
    chosen = {k.keyword for k in scope.keywords}
    assert chosen <= seen and "banding" in chosen
    # left out: keywords whose parameter is a word, when the scope gives no words for it
    face = engine.interface
    assert all({f for f, _ in face.keyword_forms.get(k, ())} == {"word"} for k in seen - chosen)
    # a parameter takes the scope's words: no subtype, no "bands with other [subtype]" choice
    with_words = {k.keyword for k in scope.keywords}
    without = {k.keyword for k in load_scope({}, engine).keywords}
    assert without < with_words


def test_symmetric_boards_and_declarations_are_counted_once():
    scope = load_scope(
        {"creatures": 2, "keywords": [], "power": [1], "toughness": [1], "declare": []}, Engine(properties=True)
    )
    found = list(boards(scope))
    # one creature (either player's), two creatures: both p2's, one each, both p1's
    assert len(found) == 5 and len(set(found)) == 5
    two = next(b for b in found if len(b) == 2 and b[0] == b[1])
    autos = automorphisms(two)
    assert len(autos) == 2
    assert canonical_key([{"do": "x", "object": "c1"}], autos) == canonical_key([{"do": "x", "object": "c2"}], autos)
    assert canonical_key([{"do": "x", "object": "c1"}], [{}]) != canonical_key([{"do": "x", "object": "c2"}], [{}])


def test_bad_scope_is_refused_with_a_hint(tmp_path, capsys):
    path = _scope_file(tmp_path, {"creatures": 2, "keywords": ["bandng"]})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and "unknown keyword 'bandng'" in run.err and "banding" in run.err  # an input error
    path = _scope_file(tmp_path, {"creaturs": 2})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and "did you mean 'creatures'" in run.err
    path.write_text("players: [2\n")  # not YAML: the syntax error's own code
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and f"{path}:2:1: error[S001]: the scope is not valid YAML" in run.err


@pytest.mark.slow
def test_an_edited_rule_file_makes_the_saved_results_stale(tmp_path, capsys):
    """verify -o DIR resumes from the results saved there only when they were computed from the same rule
    files: a library edited between two runs (a flying rule broken) is searched again, not reported clean."""
    scope = _scope_file(
        tmp_path, {"creatures": 2, "min_creatures": 2, "keywords": ["flying", "reach"], "power": [1], "toughness": [1]}
    )
    shutil.copytree(rules_dir(), tmp_path / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    args = ["verify", "--workers", "1", "--scope", scope, "--library", tmp_path / "lib", "-o", tmp_path / "out"]
    assert run_cli(capsys, args).code == 0
    shutil.rmtree(tmp_path / "lib")
    _library_without(tmp_path, BUGS / "flying_blocked_by_anyone.dl")  # the same folder, now broken
    again = run_cli(capsys, args)
    assert again.code == 1 and "evasion_blocks" in again.out
    assert (tmp_path / "out" / "evasion_blocks.yaml").exists()
    # mended again: a clean run leaves no counterexample of the earlier one in the folder
    shutil.rmtree(tmp_path / "lib")
    shutil.copytree(rules_dir(), tmp_path / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    assert run_cli(capsys, args).code == 0
    assert not (tmp_path / "out" / "evasion_blocks.yaml").exists()


@pytest.mark.parametrize(
    "text, where, message",
    [
        ("players: 2\ncreatures: 2\nkeywords: [bandng]\n", ":3:11:", "unknown keyword 'bandng' in keywords"),
        ("players: 2\ncreaturs: 2\n", ":2:11:", "unknown key 'creaturs'"),
        # was accepted and never read
        ("blockers_per_attacker: 1\n", ":1:24:", "'blockers_per_attacker' is not a scope key: verify declares every"),
        ("creatures: -1\n", ":1:12:", "creatures must be a whole number >= 1"),
        ("counters: {p1p1: [0, x]}\n", ":1:18:", "counters.p1p1 must be a whole number"),
        # a keyword listed whose parameter the scope gives no value: was dropped ("keywords: none", exit 0)
        ("creatures: 1\nkeywords:\n  - flying\n  - protection\n", ":4:5:", "keyword 'protection' takes a parameter"),
        # were exit 2 with no place ("error: unknown property", "<input>: error[S102]")
        ("creatures: 1\nproperties: [evasion_blockz]\n", ":2:14:", "unknown property 'evasion_blockz'"),
        (
            "creatures: 1\nfollow_up:\n  - {do: remove_from_combat, object: $nothing}\n",
            ":3:38:",
            "unknown variable '$nothing' in follow-up action 'remove_from_combat'",
        ),
        (
            "creatures: 1\nfollow_up:\n  - {do: remove_from_combat, object: c7}\n",
            ":3:5:",
            "remove_from_combat: object must name an object; 'c7' is not one",
        ),
        (
            "creatures: 2\nfollow_up:\n  - {do: gain_control, object: [$creature, $creatur], player: $player}\n",
            ":3:44:",
            "unknown variable '$creatur' in follow-up action 'gain_control'",
        ),
        # inside a mapping (choose:): was "unknown constant '$creature'" for every variable, the right ones too
        (
            "creatures: 2\nfollow_up:\n  - {do: populate, choose: {token: $creatre}}\n",
            ":3:36:",
            "unknown variable '$creatre' in follow-up action 'populate'",
        ),
        ("creatures: 1\ncolors: [black, blak]\n", ":2:17:", "unknown color 'blak' in colors"),
        ("creatures: 1\ntypes: [artefact]\n", ":2:9:", "unknown type 'artefact' in types"),
    ],
)
def test_a_bad_scope_names_the_line_and_column_of_its_value(tmp_path, capsys, text, where, message):
    path = tmp_path / "scope.yaml"
    path.write_text(text)
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and f"{path}{where} error[S104]: {message}" in run.err, run.err


def test_without_leaves_keywords_out_of_a_scope(tmp_path, capsys):
    engine = Engine(properties=True)
    every = load_scope({"keywords": "default"}, engine)
    less = load_scope({"keywords": "default", "without": ["trample", "banding"]}, engine)
    assert {k.keyword for k in every.keywords} - {k.keyword for k in less.keywords} == {"trample", "banding"}
    path = _scope_file(tmp_path, {"creatures": 1, "without": ["trampel"]})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and "unknown keyword 'trampel' in without" in run.err and "'trample'" in run.err


def test_a_scope_file_that_cannot_be_read_is_an_input_error(tmp_path, capsys):
    """A missing scope file or a folder is an input that could not be loaded (exit 3, as a missing scenario
    file), said in words (no ``[Errno 21]``); an unknown --property is a usage error (exit 2)."""
    out = ["-o", tmp_path / "out"]
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "nothing.yaml", *out])
    assert run.code == 3 and f"no such scope file: {tmp_path / 'nothing.yaml'}" in run.err, run.err
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path, *out])
    assert run.code == 3 and f"{tmp_path} is a folder, not a scope file" in run.err and "Errno" not in run.err
    path = _scope_file(tmp_path, {"creatures": 1, "keywords": ["flying"]})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "--property", "evasion_blockz", *out])
    assert run.code == 2 and "unknown property 'evasion_blockz' (--property)" in run.err
    assert "did you mean 'evasion_blocks'" in run.err


def test_no_library_is_one_error_naming_the_missing_interface(tmp_path, capsys):
    """verify --no-library printed one I001 line per predicate of the engine's contract (about 150): it is one
    error saying the library's interface is missing, with how to load it."""
    run = run_cli(capsys, ["verify", "--no-library", "--workers", "1", "-o", tmp_path / "out"])
    assert run.code == 3 and run.err.count("error[I001]") == 1, run.err
    assert "the library's interface is missing: the loaded rules declare none of the" in run.err
    assert "hint: load the library's core, rules/core/" in run.err and "leave out --no-library" in run.err
    assert len(run.err.splitlines()) == 2
    # most of it missing (one core file given): one error too, naming a few and counting the rest
    core = rules_dir() / "core" / "state.dl"
    run = run_cli(capsys, ["verify", "--no-library", "--rules", core, "--workers", "1", "-o", tmp_path / "out"])
    assert run.code == 3 and run.err.count("error[I001]") == 1 and " more\n" in run.err, run.err


@pytest.mark.slow
def test_a_listed_keyword_is_searched_as_the_header_says_or_refused(tmp_path, capsys):
    """A keyword of a scope's list is never dropped in silence: one whose parameter no word of the scope gives
    is refused (with how to give one); a numbered one without its number is tried with 1, as the header
    says; keywords_per_creature: 0 gives no creature a keyword, and the header says so."""
    path = _scope_file(tmp_path, {"creatures": 1, "keywords": ["protection"]})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and "no board would have it" in run.err, run.err
    assert "{protection: {color: ...}}" in run.err and "subtypes: [...]" in run.err
    path = _scope_file(tmp_path, {"creatures": 1, "keywords": ["protection"], "subtypes": ["wolf"]})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 0 and "keywords: protection(subtype=wolf)\n" in run.out, run.err
    path = _scope_file(tmp_path, {"creatures": 1, "keywords": ["rampage", {"bushido": 2}], "power": [1]})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 0 and "keywords: rampage(n=1), bushido(n=2)\n" in run.out
    path = _scope_file(tmp_path, {"creatures": 1, "keywords": ["flying", "trample"], "keywords_per_creature": 0})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 0 and "keywords: none (keywords_per_creature: 0)\n" in run.out


def test_a_scope_with_no_board_is_refused_not_passed(tmp_path, capsys):
    # "no counterexample among 0 boards" with exit 0 would read as a pass
    path = _scope_file(tmp_path, {"creatures": 2, "min_creatures": 3})
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "out"])
    assert run.code == 3 and "min_creatures (3) is more than creatures (2)" in run.err
    assert f"{path}:" in run.err and "Traceback" not in run.err


@pytest.mark.slow
def test_the_default_scope_is_searched_by_clingo_not_the_reference():
    """The shipped default scope finishes in seconds only while the clingo search follows every board of
    it: a task the search cannot follow goes to the reference enumerator (hours at 4 creatures). The
    smallest shapes meet every keyword the scope allows, on either side of the combat."""
    from judgelog.scope import load_scope_file

    engine = Engine(properties=True)
    scope = load_scope_file(None, engine)
    for shape in shapes(scope):
        if shape.creatures <= 2:
            result = search_shape(engine, scope, shape)
            assert result["fallback"] == [], (shape.name, result["fallback"])


# three banding creatures, a through-band block, then one of them removed from combat (702.22h, 506.4): the
# shipped library passes this scope, and a rule file that forgets the through-band block fails it
BAND_BLOCK_SCOPE = {
    "creatures": 3,
    "min_creatures": 3,
    "keywords": ["banding"],
    "power": [1],
    "toughness": [1],
    "declare": ["attackers", "bands", "blockers"],
    "follow_up": [{"do": "remove_from_combat", "object": "$creature"}],
    "properties": ["band_block_kept"],
}


# -- the shipped library --------------------------------------------------------------------------------
SMALL = {
    "creatures": 2,
    "keywords": ["banding", "trample"],
    "power": [1],
    "toughness": [1],
    "same_controller": ["pairs"],
    "follow_up": [{"do": "remove_from_combat", "object": "$creature"}],
}


class Verified(NamedTuple):
    scope: Path
    out: Path
    run: Run


def _verified(folder: Path, *options: str) -> Verified:
    """A fresh ``judgelog verify --workers 1`` of SMALL, its output captured (a module fixture has no capsys)."""
    scope, out = _scope_file(folder, SMALL), folder / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["verify", "--workers", "1", "--scope", str(scope), "-o", str(out), *options])
    return Verified(scope, out, Run(code, stdout.getvalue(), stderr.getvalue()))


# the SMALL scope verified once per module in each format: the tests that compare another run (resumed, on a
# Dask cluster, on the other backend) with a fresh single-process run share it (the tests of one format carry
# its xdist_group, so pytest-xdist runs them on one worker, which verifies the scope once)
SHARES_SMALL_TEXT = pytest.mark.xdist_group("verify-small-text")
SHARES_SMALL_JSON = pytest.mark.xdist_group("verify-small-json")


@pytest.fixture(scope="module")
def small_text(tmp_path_factory) -> Verified:
    return _verified(tmp_path_factory.mktemp("small_text"))


@pytest.fixture(scope="module")
def small_json(tmp_path_factory) -> Verified:
    return _verified(tmp_path_factory.mktemp("small_json"), "--format", "json")


@SHARES_SMALL_TEXT
def test_shipped_library_passes_a_small_scope(small_text):
    run = small_text.run
    assert run.code == 0, run.out
    last = run.out.strip().splitlines()[-1]
    assert last == "no counterexample among 27 boards (5 tasks)"  # 3 + 3 + 6 + 9 + 6 (test_board_count...)


@pytest.mark.slow
def test_shipped_library_keeps_through_band_blocks(tmp_path, capsys):
    scope = BAND_BLOCK_SCOPE
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope), "-o", tmp_path / "out"])
    assert run.code == 0, run.out


# -- deliberately broken rule files -----------------------------------------------------------------------
def _find(tmp_path, capsys, scope: dict, prop: str, *, rules=(), library=None):
    found, run = _find_each(tmp_path, capsys, scope, [prop], rules=rules, library=library)
    return found[prop], run


def _find_each(tmp_path, capsys, scope: dict, props: list[str], *, rules=(), library=None):
    """One verify run that finds a counterexample to each of ``props``; the scenario written for each fails
    `judgelog test` and its entry is proved by `judgelog explain`. The scenarios (as data) by property."""
    out = tmp_path / "out"
    argv = ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope), "-o", out]
    extra = [a for r in rules for a in ("--rules", r)] + (["--library", library] if library else [])
    run = run_cli(capsys, argv + extra)
    assert run.code == 1, run.out + run.err
    found = {}
    for prop in props:
        assert f"COUNTEREXAMPLE {prop}" in run.out, run.out
        path = out / (prop + ".yaml")
        extra = ["--library", library] if library else []  # the scenario names the --rules files itself
        test = run_cli(capsys, ["test", path] + extra)
        assert test.code == 1 and "0 passed, 1 failed" in test.out
        entry = yaml.safe_load(path.read_text())["expect"][0]["absent"]
        proof = run_cli(capsys, ["explain", path, entry] + extra)
        assert proof.code == 0 and "<- property." in proof.out
        found[prop] = yaml.safe_load(path.read_text())
        assert {"active", "life"} <= set(found[prop]), found[prop]  # a whole scenario, as a user writes one
    return found, run


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_board_stage_counterexample_is_a_whole_scenario(tmp_path, capsys):
    """A counterexample found on a board (not on a proposed declaration) is written as a user writes a
    scenario: its active player, life totals and owners, then the actions that reach the violating state and
    the entry; `judgelog test` runs it (the shipped library keeps the property: it passes)."""
    engine = Engine(properties=True)
    creature = {"types": ["creature"], "power": 1, "toughness": 1}
    c = {
        "property": "evasion_blocks",
        "stage": "board",
        "witnesses": ["c1", "c2"],
        "board": {
            "players": ["p1", "p2"],
            "objects": {
                "c1": {"name": "Creature 1", **creature, "keywords": ["flying"], "controller": "p1"},
                "c2": {"name": "Creature 2", **creature, "controller": "p2"},
            },
        },
        "steps": [
            {"do": "declare_attackers", "attackers": {"c1": "p2"}, "bands": []},
            {"do": "declare_blockers", "blockers": {"c2": ["c1"]}},
        ],
        "proposed": {},
    }
    data = counterexample_scenario(engine, c, properties_of(engine), rules=["rules/properties"])
    assert data["active"] == "p1" and data["life"] == {"p1": 20, "p2": 20}, data
    assert [o["owner"] for o in data["objects"].values()] == ["p1", "p2"]
    assert [a["do"] for a in data["actions"]] == ["declare_attackers", "declare_blockers"]
    assert data["expect"] == [{"absent": "property_violation(evasion_blocks, c1, c2)", "unless_refused": True}]
    shutil.copytree(rules_dir() / "properties", tmp_path / "rules" / "properties")
    path = tmp_path / "found.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    run = run_cli(capsys, ["test", path])
    assert run.code == 0 and "not reached: action[1]" in run.out, run.out + run.err


@pytest.mark.slow
def test_finds_bands_with_other_stricter_than_the_cr(tmp_path, capsys):
    scope = {
        "creatures": 2,
        "min_creatures": 2,
        "keywords": [{"bands_with_other": {"subtype": "wolf"}}],
        "subtypes": ["wolf"],
        "power": [1],
        "toughness": [1],
        "declare": ["attackers", "bands"],
    }
    data, run = _find(tmp_path, capsys, scope, "band_legality", rules=[BUGS / "bands_with_other_strict.dl"])
    objects = data["objects"]
    assert len(objects) == 2 and all(o["subtypes"] == ["wolf"] for o in objects.values())
    # without the broken file the same scope passes
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.slow
def test_finds_through_band_block_forgotten(tmp_path, capsys):
    scope = BAND_BLOCK_SCOPE
    data, _ = _find(tmp_path, capsys, scope, "band_block_kept", rules=[BUGS / "band_block_forgotten.dl"])
    assert data["actions"][-1]["do"] == "remove_from_combat"


@pytest.mark.slow
def test_finds_soulbond_pair_kept_after_control_change(tmp_path, capsys, monkeypatch, broken_library):
    lib = broken_library("soulbond_keeps_pair.dl")
    monkeypatch.chdir(tmp_path)  # --library given relative: the reproduce line names it absolute
    scope = {
        "creatures": 2,
        "min_creatures": 2,
        "keywords": [],
        "power": [1],
        "toughness": [1],
        "declare": ["pairs"],
        "same_controller": ["pairs"],
        "follow_up": [{"do": "gain_control", "object": "$creature", "player": "$player"}],
    }
    data, run = _find(tmp_path, capsys, scope, "pair_breaks", library=Path(os.path.relpath(lib)))
    assert data["pairs"] and data["actions"][-1]["do"] == "gain_control"
    # the scenario can't name the library it breaks: the report and the file say how to run it again
    again = f"judgelog test --library {lib} {tmp_path / 'out' / 'pair_breaks.yaml'}"
    assert f"  reproduce with: {again}" in run.out and again in data["description"]
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.slow
def test_finds_702_22j_reversed(tmp_path, capsys, broken_library):
    """band_division restates who divides the damage of an attacker blocked by a banding creature (702.22j):
    a library in which the attacking player keeps dividing it is found on two creatures."""
    lib = broken_library("banding_division_reversed.dl")
    scope = {
        "creatures": 2,
        "min_creatures": 2,
        "keywords": ["banding"],
        "power": [1],
        "toughness": [1],
        "declare": ["attackers", "blockers"],
    }
    data, _ = _find(tmp_path, capsys, scope, "band_division", library=lib)
    assert any(o.get("keywords") == ["banding"] for o in data["objects"].values())
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.slow
def test_finds_a_flier_blocked_by_anyone(tmp_path, capsys, broken_library):
    """evasion_blocks restates 702.9b from the CR: a library whose flying rule lets every creature block a
    flier passes block_legality (can_block and the refusals read the same broken rule) but not this."""
    lib = broken_library("flying_blocked_by_anyone.dl")
    scope = {"creatures": 2, "min_creatures": 2, "keywords": ["flying", "reach"], "power": [1], "toughness": [1]}
    data, _ = _find(tmp_path, capsys, scope, "evasion_blocks", library=lib)
    keywords = sorted(str(o.get("keywords")) for o in data["objects"].values())
    assert keywords == ["None", "['flying']"], keywords  # the smallest: a flier and a creature without keywords
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.slow
def test_finds_a_blocked_creature_divided_after_its_blockers_left(tmp_path, capsys, broken_library):
    """damage_divided restates 510.1c: a blocked creature no creature blocks any more (its lone blocker removed
    from combat), without trample, assigns no combat damage, so nobody divides it."""
    lib = broken_library("blocked_without_blockers_divided.dl")
    scope = {
        "creatures": 2,
        "min_creatures": 2,
        "keywords_per_creature": 0,
        "power": [1],
        "toughness": [1],
        "declare": ["attackers", "blockers"],
        "follow_up": [{"do": "remove_from_combat", "object": "$creature"}],
        "properties": ["damage_divided"],
    }
    data, _ = _find(tmp_path, capsys, scope, "damage_divided", library=lib)
    assert [a.get("do") for a in data["actions"]] == ["declare_attackers", "declare_blockers", "remove_from_combat"]
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.parametrize(
    ("bug", "keywords", "prop", "found"),
    [
        ("defender_attacks.dl", ["defender"], "attack_legality", ["['defender']"]),
        ("summoning_sick_everyone.dl", ["haste"], "attack_legality", ["None"]),
        ("haste_attacks_untapped.dl", ["haste", "vigilance"], "attack_taps", ["['haste']"]),
    ],
)
@pytest.mark.slow
def test_finds_an_attack_rule_too_strict_or_too_loose(tmp_path, capsys, bug, keywords, prop, found, broken_library):
    """attack_legality restates 508.1a, 702.3b and 302.6 on the proposed attackers: a defender that may attack,
    and a summoning sickness that forgets "since their most recent turn began", are each found on one creature;
    attack_taps restates 508.1f and 702.20b after the declaration: a haste that keeps an attacker untapped."""
    lib = broken_library(bug)
    scope = {"creatures": 1, "keywords": keywords, "power": [1], "toughness": [1], "properties": [prop]}
    data, _ = _find(tmp_path, capsys, scope, prop, library=lib)
    assert sorted(str(o.get("keywords")) for o in data["objects"].values()) == found
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


_ACTION_SCOPE = {"keywords_per_creature": 0, "power": [1], "toughness": [1], "declare": []}


@pytest.mark.parametrize(
    ("bug", "scope", "prop", "found"),
    [
        (
            "proliferate_one_kind.dl",
            {
                "creatures": 1,
                "counters": {"shield": [0, 1]},
                "follow_up": [{"do": "proliferate", "choose": {"recipients": ["$creature"]}}],
            },
            "proliferate_kinds",
            [("None", {"shield": 1}, 1)],
        ),
        (
            "bolster_greatest.dl",
            {
                "creatures": 2,
                "min_creatures": 2,
                "toughness": [1, 2],
                "same_controller": [],
                "follow_up": [{"do": "bolster", "player": "$player", "n": 1, "choose": {"creature": "$creature"}}],
            },
            "bolster_least",
            [("None", None, 1), ("None", None, 2)],
        ),
        (
            "amass_token_always.dl",
            {
                "creatures": 1,
                "subtypes": ["army"],
                "follow_up": [{"do": "amass", "n": 1, "choose": {"army": "$creature"}}],
            },
            "amass_army",
            [("['army']", None, 1)],
        ),
        (
            "support_two_counters.dl",
            {
                "creatures": 2,
                "min_creatures": 2,
                "follow_up": [{"do": "support", "n": 1, "source": "$creature", "choose": {"targets": ["$creature"]}}],
            },
            "support_each",
            [("None", None, 1), ("None", None, 1)],
        ),
    ],
)
@pytest.mark.slow
def test_finds_a_keyword_action_that_puts_the_wrong_counters(tmp_path, capsys, bug, scope, prop, found, broken_library):
    """The keyword action properties restate 701.34a, 701.39a, 701.47a and 701.41a from the action's choice and
    the counters it put: a proliferate that adds a +1/+1 counter whatever the kinds, a bolster onto the greatest
    toughness, an amass that makes an Army token beside an Army, a support that puts two counters are each found
    on one or two creatures (the follow-up action tried with each creature as its choice: the bolster onto the 1/2
    beside a 1/1); the clean library passes the same scope."""
    lib = broken_library(bug)
    scope = {**_ACTION_SCOPE, **scope, "properties": [prop]}
    data, _ = _find(tmp_path, capsys, scope, prop, library=lib)
    objects = sorted((str(o.get("subtypes")), o.get("counters"), o["toughness"]) for o in data["objects"].values())
    assert objects == found, data
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.parametrize(
    ("bug", "keywords", "prop", "found"),
    [
        ("reach_blocks_no_flier.dl", ["flying", "reach"], "evasion_allows", ["['flying']", "['reach']"]),
        ("menace_one_blocker.dl", ["menace"], "evasion_blocks", ["None", "['menace']"]),
        ("shadow_blocks_no_shadow.dl", ["shadow"], "evasion_allows", ["['shadow']", "['shadow']"]),
    ],
)
@pytest.mark.slow
def test_finds_an_evasion_rule_too_strict_or_too_loose(tmp_path, capsys, bug, keywords, prop, found, broken_library):
    """A reach that can't block fliers refuses a legal block (nothing declared breaks a restriction):
    evasion_allows checks the proposed declarations; a menace that lets a lone creature block breaks
    evasion_blocks, which counts the declared blockers."""
    lib = broken_library(bug)
    scope = {"creatures": 2, "min_creatures": 2, "keywords": keywords, "power": [1], "toughness": [1]}
    data, _ = _find(tmp_path, capsys, scope, prop, library=lib)
    assert sorted(str(o.get("keywords")) for o in data["objects"].values()) == found
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.slow
def test_finds_a_menace_that_refuses_two_blockers(tmp_path, capsys, broken_library):
    """evasion_allows restates 702.111b's other half: two creatures with no keyword may block a creature with
    menace; a menace that can't be blocked at all is found on three creatures (fewer can't have two blockers)."""
    lib = broken_library("menace_unblockable.dl")
    scope = {"creatures": 3, "min_creatures": 3, "keywords": ["menace"], "power": [1], "toughness": [1]}
    data, _ = _find(tmp_path, capsys, {**scope, "properties": ["evasion_allows"]}, "evasion_allows", library=lib)
    assert sorted(str(o.get("keywords")) for o in data["objects"].values()) == ["None", "None", "['menace']"]


@pytest.mark.slow
def test_finds_protection_that_restricts_no_blocker(tmp_path, capsys, broken_library):
    """evasion_blocks restates 702.16f: a Wolf blocking a creature with protection from Wolves."""
    lib = broken_library("protection_blocked_by_anyone.dl")
    scope = {
        "creatures": 2,
        "min_creatures": 2,
        "keywords": [{"protection": {"subtype": "wolf"}}],
        "subtypes": ["wolf"],
        "power": [1],
        "toughness": [1],
        "properties": ["evasion_blocks"],
    }
    data, _ = _find(tmp_path, capsys, scope, "evasion_blocks", library=lib)
    protected = [o for o in data["objects"].values() if o.get("keywords")]
    assert [o["keywords"] for o in protected] == [[{"protection": {"subtype": "wolf"}}]]
    assert any("wolf" in (o.get("subtypes") or []) for o in data["objects"].values() if not o.get("keywords"))


@pytest.mark.parametrize(
    ("bug", "keyword", "found"),
    [
        # a black creature refused (too strict), a white one accepted (too loose)
        ("fear_white_blocks.dl", "fear", {"evasion_allows": "black", "evasion_blocks": "white"}),
        # a white creature accepted as the blocker of a black one
        ("intimidate_any_color_blocks.dl", "intimidate", {"evasion_blocks": "white"}),
    ],
)
@pytest.mark.slow
def test_a_scope_with_colors_and_types_reaches_fear_and_intimidate(
    tmp_path, capsys, bug, keyword, found, broken_library
):
    """Fear and intimidate read a creature's colors and card types: a broken rule is found only when the scope
    gives creatures colors (``colors:``) or makes them artifacts (``types:``); without them it passes."""
    lib = broken_library(bug)
    scope = {"creatures": 2, "min_creatures": 2, "keywords": [keyword], "power": [1], "toughness": [1]}
    plain = run_cli(
        capsys,
        ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope, "plain.yaml"), "--library", lib],
    )
    assert plain.code == 0, plain.out  # colorless non-artifact creatures never reach the broken rule
    colored = {**scope, "colors": ["black", "white"], "types": ["artifact"]}
    # one search for every property the bug breaks: each property's smallest counterexample is reported
    found_by, _ = _find_each(tmp_path, capsys, {**colored, "properties": list(found)}, list(found), library=lib)
    for prop, color in found.items():
        data = found_by[prop]
        blockers = [o for o in data["objects"].values() if not o.get("keywords")]
        assert [(o.get("colors"), o["types"]) for o in blockers] == [([color], ["creature"])], data["objects"]
    clean = run_cli(capsys, ["verify", "--workers", "1", "--scope", tmp_path / "scope.yaml", "-o", tmp_path / "clean"])
    assert clean.code == 0, clean.out


@pytest.mark.parametrize(
    ("bug", "keywords", "prop", "fixed"),
    [
        # fixed by refusing the block the broken rule accepted: the entry is not reached, and passes
        ("flying_blocked_by_anyone.dl", ["flying", "reach"], "evasion_blocks", "not reached: action[1]"),
        # fixed by accepting the block the broken rule refused (a proposed declaration, written as its state)
        ("reach_blocks_no_flier.dl", ["flying", "reach"], "evasion_allows", None),
    ],
)
@pytest.mark.slow
def test_a_counterexample_file_is_a_regression_test(tmp_path, capsys, bug, keywords, prop, fixed, broken_library):
    """The written scenario states what the property requires: `judgelog test` fails it on the broken library
    and passes it on the fixed one (the shipped library), whether the fix refuses an action or accepts one."""
    lib = broken_library(bug)
    scope = {"creatures": 2, "min_creatures": 2, "keywords": keywords, "power": [1], "toughness": [1]}
    _find(tmp_path, capsys, {**scope, "properties": [prop]}, prop, library=lib)  # fails on the broken library
    path = tmp_path / "out" / f"{prop}.yaml"
    run = run_cli(capsys, ["test", path])
    assert run.code == 0 and run.out.strip().endswith("1 passed, 0 failed"), run.out
    entry = yaml.safe_load(path.read_text())["expect"][0]
    assert entry.get("unless_refused") is (True if fixed else None), entry  # only a file with actions has it
    if fixed:
        assert fixed in run.out, run.out


# the scope of each broken file below: the smallest that holds the board the property restates the CR on
# two soulbond creatures paired by one player (the declarations of pair_breaks' planted bugs)
_PAIRS = {
    "creatures": 2,
    "min_creatures": 2,
    "keywords": ["soulbond"],
    "power": [1],
    "toughness": [1],
    "declare": ["pairs"],
    "same_controller": ["pairs"],
}
_SMALL_BANDS = {"creatures": 3, "min_creatures": 3, "power": [1], "toughness": [1]}
# two 1/1 creatures, the board of the combat damage properties' planted bugs
_TWO = {"creatures": 2, "min_creatures": 2, "power": [1], "toughness": [1]}


@pytest.mark.parametrize(
    ("bug", "scope", "prop"),
    [
        # 702.22h as a board states its blocks (combat: blockers:), before any declare_blockers records them
        ("band_block_not_propagated.dl", {**_SMALL_BANDS, "keywords": ["banding"]}, "band_blocked_together"),
        # 702.22j for "bands with other": the second blocker must share the quality, else 510.1c
        (
            "bands_with_other_division_loose.dl",
            {**_SMALL_BANDS, "keywords": [{"bands_with_other": {"subtype": "wolf"}}], "subtypes": ["wolf"]},
            "band_division",
        ),
        # 702.95e: "another player gains control of either", both creatures to the same player
        (
            "soulbond_keeps_pair_stolen_together.dl",
            {**_PAIRS, "follow_up": [{"do": "gain_control", "object": ["c1", "c2"], "player": "$player"}]},
            "pair_breaks",
        ),
        # the same, with each creature of the list a placeholder: [$creature, $creature] tries every two
        (
            "soulbond_keeps_pair_stolen_together.dl",
            {
                **_PAIRS,
                "follow_up": [{"do": "gain_control", "object": ["$creature", "$creature"], "player": "$player"}],
            },
            "pair_breaks",
        ),
        # 702.7b: a creature with first strike, not double strike, assigns no damage in the regular step
        ("first_strike_deals_twice.dl", {**_TWO, "keywords": ["first_strike"]}, "damage_steps"),
        # 702.2c: 1 damage from a deathtouch source is lethal to a blocker of toughness 2
        ("deathtouch_lethal_by_toughness.dl", {**_TWO, "keywords": ["deathtouch"], "toughness": [2]}, "lethal_amount"),
        # 509.1h, 506.4: an attacker stays blocked when its only blocker is removed from combat
        (
            "unblocked_when_blockers_leave.dl",
            {**_TWO, "keywords": [], "follow_up": [{"do": "remove_from_combat", "object": "$creature"}]},
            "blocked_stays_blocked",
        ),
        # 702.19b: a blocked creature with trample may assign its excess damage to the player it attacks
        ("trample_stops_at_blockers.dl", {**_TWO, "keywords": ["trample"]}, "damage_recipients"),
    ],
    ids=[
        "702.22h-as-stated",
        "702.22j-bands-with-other",
        "702.95e-both-stolen",
        "702.95e-both-stolen-placeholders",
        "702.7b-first-strike-twice",
        "702.2c-deathtouch-lethal",
        "509.1h-stays-blocked",
        "702.19b-trample-excess",
    ],
)
@pytest.mark.slow
def test_finds_a_rule_the_property_restates_from_the_cr(tmp_path, capsys, bug, scope, prop, broken_library):
    """A library without the rule the bug file drops is found by the property that restates that rule from
    the CR, not from the library's own predicates (which the broken library changes with it)."""
    lib = broken_library(bug)
    data, _ = _find(tmp_path, capsys, {**scope, "properties": [prop]}, prop, library=lib)
    assert data["objects"], data


def test_each_placeholder_of_a_follow_up_ranges_over_the_board_on_its_own():
    """`$creature` twice in one follow-up action (a list's items, or two arguments): each occurrence stands for
    every creature of the board, independently of the other."""
    from judgelog.verify import _follow_ups

    engine = Engine(properties=True)
    follow = [{"do": "gain_control", "object": ["$creature", "$creature"], "player": "$player"}]
    scope = load_scope({"creatures": 2, "keywords": [], "declare": ["pairs"], "follow_up": follow}, engine)
    board = next(b for b in boards(scope) if len(b) == 2)
    actions = list(_follow_ups(scope, board, engine.state_from_dict({"players": ["p1", "p2"]})))
    pairs = sorted((tuple(a["object"]), a["player"]) for a in actions)
    assert pairs == [((x, y), p) for x in ("c1", "c2") for y in ("c1", "c2") for p in ("p1", "p2")]
    assert follow[0]["object"] == ["$creature", "$creature"]  # the template is not changed by a fill


def test_a_placeholder_inside_a_choice_ranges_over_the_board():
    """`choose: {recipients: [$creature]}` (a choice made inside the follow-up action, 701.34a's proliferate): each
    `$creature` of the mapping stands for every creature of the board, as an argument's would; the action with
    its choice is checked by the reference enumerator, and the follow-up is written as its file writes it."""
    from judgelog.verify import _follow_ups
    from judgelog.verify_search import follow_up_text

    engine = Engine(properties=True)
    follow = [{"do": "proliferate", "player": "$player", "choose": {"recipients": ["$creature"]}}]
    scope = load_scope({"creatures": 2, "keywords": [], "declare": [], "follow_up": follow}, engine)
    board = next(b for b in boards(scope) if len(b) == 2)
    actions = list(_follow_ups(scope, board, engine.state_from_dict({"players": ["p1", "p2"]})))
    chosen = sorted((a["choose"]["recipients"][0], a["player"]) for a in actions)
    assert chosen == [(c, p) for c in ("c1", "c2") for p in ("p1", "p2")]
    assert follow[0]["choose"] == {"recipients": ["$creature"]}  # the template is not changed by a fill
    assert follow_up_text(scope.follow_up[0]) == "{do: proliferate, choose: {recipients: [$creature]}, player: $player}"


@pytest.mark.slow
@pytest.mark.parametrize("reference", [False, True], ids=["search", "reference"])
def test_a_board_the_rules_would_not_allow_is_not_checked(tmp_path, capsys, reference):
    """Without same_controller: [pairs], the scope's pairs: include two players' creatures, a board that can't
    be (board_problem, S201): neither the search nor the reference enumerator reports it as breaking
    pair_breaks."""
    scope = {"creatures": 2, "min_creatures": 2, "keywords": [], "power": [1], "toughness": [1], "declare": ["pairs"]}
    argv = ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope), "-o", tmp_path / "out"]
    run = run_cli(capsys, argv + (["--reference"] if reference else []))
    assert run.code == 0 and "no counterexample" in run.out, run.out


@pytest.mark.slow
def test_finds_trample_ignoring_a_block_through_the_band(tmp_path, capsys, broken_library):
    lib = broken_library("trample_ignores_band.dl")
    scope = {
        "creatures": 3,
        "min_creatures": 3,
        "keywords": ["banding", "trample"],
        "power": [1],
        "toughness": [1],
        "declare": ["attackers", "bands", "blockers"],
        "properties": ["trample_lethal_first"],
    }
    data, _ = _find(tmp_path, capsys, scope, "trample_lethal_first", library=lib)
    assert any("bands" in a for a in data["actions"])


@pytest.mark.slow
def test_all_lists_every_distinct_counterexample(tmp_path, capsys):
    scope = {
        "creatures": 2,
        "min_creatures": 2,
        "keywords": [{"bands_with_other": {"subtype": "wolf"}}],
        "subtypes": ["wolf"],
        "power": [1],
        "toughness": [1],
        "declare": ["attackers", "bands"],
        "properties": ["band_legality"],
    }
    path = _scope_file(tmp_path, scope)
    run = run_cli(
        capsys,
        [
            "verify",
            "--workers",
            "1",
            "--scope",
            path,
            "--all",
            "-o",
            tmp_path / "out",
            "--format",
            "json",
            "--rules",
            BUGS / "bands_with_other_strict.dl",
        ],
    )
    found = run.json()["counterexamples"]
    assert run.code == 1 and len(found) >= 1
    assert len({f["file"] for f in found}) == len(found)


def _defender_divides(tmp_path: Path) -> Path:
    """A rule that makes damage_assigner two-valued for a blocked attacker (functional:damage_assigner)."""
    rule = tmp_path / "defender_divides.dl"
    rule.write_text(
        "@name broken.defender_divides\n@cr 510.1c\ndamage_assigner(A, P) :- blocked(A), defending_player(A, P).\n"
    )
    return rule


@pytest.mark.slow
def test_all_writes_at_most_limit_counterexamples_and_says_so(tmp_path, capsys):
    """--all with one broken rule wrote thousands of files on 3 creatures: --limit N (default 100) writes the N
    smallest, says it cut the list, and still counts every counterexample."""
    scope = _scope_file(
        tmp_path,
        {
            "creatures": 2,
            "min_creatures": 2,
            "keywords": ["flying"],
            "power": [1],
            "toughness": [1],
            "declare": ["attackers", "blockers"],
        },
    )
    out = tmp_path / "out"
    # the one property of this test (band_division, restating 510.1c, finds the broken rule too)
    argv = ["verify", "--workers", "1", "--scope", scope, "--rules", _defender_divides(tmp_path), "--all", "-o", out]
    argv += ["--property", "functional:damage_assigner"]
    every = run_cli(capsys, argv + ["--limit", "0", "--format", "json"]).json()
    total = every["found"]
    assert total >= 2 and len(every["counterexamples"]) == total
    run = run_cli(capsys, argv + ["--limit", "1"])
    assert run.code == 1 and f"note: --limit 1: wrote the 1 smallest of {total} counterexamples" in run.out
    assert f"{total} counterexample(s) to 1 property" in run.out
    assert sorted(p.name for p in out.glob("*.yaml")) == ["functional_damage_assigner_1.yaml"]
    data = run_cli(capsys, argv + ["--limit", "1", "--format", "json"]).json()
    assert data["found"] == total and [c["file"] for c in data["counterexamples"]] == [
        str(out / "functional_damage_assigner_1.yaml")
    ]
    assert data["counterexamples"][0] == every["counterexamples"][0]  # the smallest is kept
    assert run_cli(capsys, argv + ["--limit", "-1"]).code == 2


@pytest.mark.slow
def test_a_functional_propertys_witnesses_are_values_not_python_tuples(tmp_path, capsys):
    """functional:PRED's witnesses are the key and two of its values, printed as judgelog prints values (not
    ``('p1',)``), in the text and the JSON alike; the scenario written fails its count."""
    rule = _defender_divides(tmp_path)
    scope = _scope_file(
        tmp_path,
        {
            "creatures": 2,
            "min_creatures": 2,
            "keywords": [],
            "power": [1],
            "toughness": [1],
            "declare": ["attackers", "blockers"],
        },
    )
    argv = ["verify", "--workers", "1", "--scope", scope, "--rules", rule, "-o", tmp_path / "out"]
    argv += ["--property", "functional:damage_assigner"]  # (band_division, restating 510.1c, finds it too)
    run = run_cli(capsys, argv)
    assert run.code == 1 and "witnesses c1, p1, p2 (board)" in run.out, run.out
    assert "(" not in run.out.split("witnesses", 1)[1].split("(board)")[0]
    found = run_cli(capsys, argv + ["--format", "json"]).json()["counterexamples"]
    assert [c["witnesses"] for c in found] == [["c1", "p1", "p2"]]
    test = run_cli(capsys, ["test", tmp_path / "out" / "functional_damage_assigner.yaml"])
    assert test.code == 1 and "0 passed, 1 failed" in test.out


# -- the same result whatever runs it --------------------------------------------------------------------
@SHARES_SMALL_TEXT
def test_resumes_from_the_output_folder(small_text, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(small_text.out, out)  # the fresh run's folder (the shared one is left as it is)
    saved = sorted(os.listdir(out / "tasks"))
    assert len(saved) == len(shapes(load_scope(SMALL, Engine(properties=True))))
    second = run_cli(capsys, ["verify", "--workers", "1", "--scope", small_text.scope, "-o", out])
    assert second.out == small_text.run.out


@pytest.mark.slow
def test_local_workers_beside_another_cluster_print_no_port_warning(tmp_path, capsys):
    """A run on local Dask workers while port 8787 is taken (another cluster's dashboard, another verify) serves
    its scheduler's HTTP on a port of its own: no "Port 8787 is already in use" warning in the output."""
    pytest.importorskip("distributed")
    import socket

    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:
        pass  # already taken by someone else: the same situation
    try:
        scope = _scope_file(tmp_path, {"creatures": 1, "keywords": ["banding"], "power": [1], "toughness": [1]})
        with warnings.catch_warnings(record=True) as caught:  # as the command line prints them, on stderr
            warnings.simplefilter("always")
            run = run_cli(capsys, ["verify", "--workers", "2", "--scope", scope, "-o", tmp_path / "out"])
    finally:
        taken.close()
    assert run.code == 0, run.out + run.err
    assert not [w for w in caught if "already in use" in str(w.message)], [str(w.message) for w in caught]


@pytest.mark.slow
@SHARES_SMALL_JSON
def test_two_dask_workers_give_byte_identical_output(small_json, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    path, single = small_json.scope, small_json.run
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        many = run_cli(
            capsys,
            [
                "verify",
                "--scope",
                path,
                "-o",
                tmp_path / "two",
                "--format",
                "json",
                "--scheduler",
                cluster.scheduler_address,
            ],
        )
    finally:
        cluster.close()
    local = run_cli(capsys, ["verify", "--scope", path, "-o", tmp_path / "local", "--format", "json", "--workers", "2"])
    assert many.code == single.code == local.code == 0
    assert many.out == single.out == local.out


# -- interrupted -------------------------------------------------------------------------------------------
@pytest.mark.slow  # seconds: a library of its own or the command line
def test_interrupted_it_prints_what_was_checked_and_the_counterexamples_so_far(
    tmp_path, capsys, monkeypatch, broken_library
):
    """Ctrl-C during the last task: the two tasks checked are reported with the counterexample found in them
    (written), the last line says how many tasks were checked, and verify exits 130, in text and in JSON."""
    from judgelog import distribute

    lib = broken_library("flying_blocked_by_anyone.dl")
    scope = _scope_file(
        tmp_path, {"creatures": 2, "min_creatures": 2, "keywords": ["flying", "reach"], "power": [1], "toughness": [1]}
    )
    check = distribute.check_task
    calls: list[str] = []

    def interrupted_on_the_third(job, task):  # the third task, on this run and on a resumed one
        calls.append(task.name)
        if len(calls) == 3 or task.name in calls[2:-1]:
            raise KeyboardInterrupt
        return check(job, task)

    monkeypatch.setattr(distribute, "check_task", interrupted_on_the_third)
    argv = ["verify", "--workers", "1", "--scope", scope, "--library", lib, "-o", tmp_path / "out"]
    run = run_cli(capsys, argv)
    assert run.code == 130, run.out + run.err
    assert "COUNTEREXAMPLE evasion_blocks" in run.out and (tmp_path / "out" / "evasion_blocks.yaml").is_file()
    lines = run.out.strip().splitlines()
    assert lines[-2] == (
        f"interrupted: the search is incomplete: 2 of 3 tasks checked (saved in {tmp_path / 'out'}: the same "
        "command resumes from them)"
    )
    assert lines[-1] == "1 counterexample(s) to 1 property among 15 boards (2 of 3 tasks checked)", lines
    data = json.loads(run_cli(capsys, argv + ["--format", "json"]).out)  # resumed: the first two were saved
    assert (data["interrupted"], data["tasks_done"], data["tasks"], data["found"]) == (True, 2, 2, 1)


@pytest.mark.parametrize(
    ("sig", "workers"),
    [
        (signal.SIGTERM, "1"),
        pytest.param(signal.SIGINT, "2", marks=pytest.mark.slow),
        pytest.param(signal.SIGTERM, "2", marks=pytest.mark.slow),
    ],
    ids=["sigterm", "sigint-dask", "sigterm-dask"],
)
def test_a_killed_verify_prints_what_it_had_checked(tmp_path, sig, workers):
    """A verify process sent SIGTERM (a job killed) or SIGINT, in this process or on two Dask workers, prints
    the tasks it had checked and exits 130; it printed nothing before (SIGTERM killed it outright)."""
    import subprocess
    import sys
    import time

    if workers != "1":
        pytest.importorskip("distributed")
    scope = _scope_file(tmp_path, {"creatures": 2, "keywords": ["flying", "reach", "banding", "trample"]})
    out = tmp_path / "out"
    argv = ["verify", "--reference", "--workers", workers, "--scope", str(scope), "-o", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "judgelog", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("tasks/*.json")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None, "verify finished before it could be interrupted"
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stdout + stderr
    assert "interrupted: the search is incomplete: " in stdout, stdout + stderr
    assert stdout.strip().splitlines()[-1].startswith("no counterexample among "), stdout
    # judgelog's own traceback never; Dask workers stopped mid-task may log the scheduler they lost
    assert "judgelog: internal error" not in stderr and (workers != "1" or "Traceback" not in stderr), stderr


@pytest.mark.slow
def test_merge_does_not_depend_on_task_order():
    engine = Engine(properties=True)
    scope = load_scope(
        {"creatures": 2, "keywords": ["banding"], "power": [1], "toughness": [1], "declare": ["attackers", "bands"]},
        engine,
    )
    results = [run_task(engine, scope, t) for t in tasks(scope)]
    assert merge(scope, results) == merge(scope, list(reversed(results)))


@pytest.mark.slow
@SHARES_SMALL_JSON
def test_both_backends_find_the_same(small_json, tmp_path, capsys):
    pytest.importorskip("clingo")
    path, first = small_json.scope, small_json.run
    second = run_cli(
        capsys,
        ["verify", "--workers", "1", "--scope", path, "-o", tmp_path / "b", "--format", "json", "--backend", "clingo"],
    )
    assert first.code == second.code == 0
    assert first.out == second.out


# -- the clingo search against the reference enumerator ------------------------------------------------------
@pytest.mark.parametrize(
    "data",
    [
        {"players": 3, "creatures": 3, "keywords": ["banding", "trample"], "power": [1], "toughness": [1, 2]},
        {"players": 2, "creatures": 3, "keywords": ["flying"], "subtypes": ["wolf"], "power": [1]},
        {"players": 4, "creatures": 2, "keywords": [], "power": [1, 2], "toughness": [1]},
    ],
)
def test_board_count_is_the_reference_enumerators(data):
    scope = load_scope(dict(data, declare=[]), Engine(properties=True))
    for shape in shapes(scope):
        listed = [
            b
            for t in tasks(scope)
            if (t.creatures, t.split) == (shape.creatures, shape.split)
            for b in boards(scope, t)
        ]
        assert count_boards(scope, shape) == len(listed) == len(set(listed)), shape


@pytest.mark.slow
def test_what_the_search_cannot_follow_is_checked_by_the_enumerator_and_said(tmp_path, capsys):
    # leave_battlefield moves the creature (the primitive move): the search does not model it
    scope = {"creatures": 1, "keywords": ["trample"], "power": [1], "toughness": [1]}
    scope["follow_up"] = [{"do": "leave_battlefield", "object": "$creature"}]
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope), "--format", "json"])
    data = run.json()
    assert run.code == 0 and data["boards"] == 4
    assert {f["task"] for f in data["fallback"]} == {"n1-s01", "n1-s10"}
    assert all(
        "the effect primitive move in a step of the follow-up action leave_battlefield" in f["reason"]
        for f in data["fallback"]
    )


@pytest.mark.slow
def test_an_action_the_rules_apply_again_is_named_in_english_in_the_fallback_note(tmp_path, capsys):
    # end_combat's rules apply it again (follow_up/2): the note says so, and names the follow-up action
    scope = {"creatures": 1, "keywords": ["trample"], "power": [1], "toughness": [1]}
    scope["follow_up"] = [{"do": "end_combat"}]
    run = run_cli(capsys, ["verify", "--workers", "1", "--scope", _scope_file(tmp_path, scope)])
    assert run.code == 0
    notes = [line for line in run.out.splitlines() if line.startswith("note: task ")]
    assert len(notes) == 2, notes  # one a task, whatever the number of reasons
    for note in notes:
        assert (
            "the search cannot follow an action the rules apply again (follow_up/2) in a step of the follow-up "
            "action end_combat; " in note
        )
        assert note.endswith(
            "; the follow-up action {do: end_combat} checked by the reference enumerator, the rest of the task by "
            "the search"
        )
    assert "follow follow up" not in run.out


def _both(engine, data, *, all_found=False):
    scope = load_scope(data, engine)
    searched = merge(
        scope, [search_shape(engine, scope, s, all_found=all_found) for s in shapes(scope)], all_found=all_found
    )
    listed = merge(scope, [run_task(engine, scope, t, all_found=all_found) for t in tasks(scope)], all_found=all_found)
    return searched, listed


@pytest.mark.slow
def test_search_finds_the_reference_enumerators_smallest_counterexample():
    data = {
        "creatures": 2,
        "keywords": [{"bands_with_other": {"subtype": "wolf"}}],
        "subtypes": ["wolf"],
        "power": [1],
        "toughness": [1],
        "declare": ["attackers", "bands"],
    }
    searched, listed = _both(Engine(properties=True, rules=[str(BUGS / "bands_with_other_strict.dl")]), data)
    assert searched["boards"] == listed["boards"] > 0
    assert searched["counterexamples"] and searched["counterexamples"] == listed["counterexamples"]
    assert searched["fallback"] == []


@pytest.mark.slow
def test_search_and_reference_agree_on_a_follow_up_action(broken_library):
    lib = broken_library("soulbond_keeps_pair.dl")
    data = {
        "creatures": 2,
        "keywords": ["soulbond"],
        "power": [1],
        "toughness": [1],
        "declare": ["pairs"],
        "same_controller": ["pairs"],
        "follow_up": [{"do": "gain_control", "object": "$creature", "player": "$player"}],
    }
    searched, listed = _both(Engine(properties=True, library=str(lib)), data)
    assert searched["boards"] == listed["boards"] > 0
    assert [c["property"] for c in searched["counterexamples"]] == ["pair_breaks"]
    assert searched["counterexamples"] == listed["counterexamples"]


@pytest.mark.slow
def test_search_and_reference_agree_on_the_shipped_library():
    searched, listed = _both(Engine(properties=True), SMALL)
    assert searched["boards"] == listed["boards"] == 27
    assert searched["counterexamples"] == listed["counterexamples"] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "players, keywords",
    # band declarations multiply the boards of two players; a third player multiplies the control changes. Each
    # apart: both at once (three players and banding, 218 counterexamples) agree too, at twice the work
    [(2, ["soulbond", "banding"]), (3, ["soulbond"])],
)
def test_search_and_reference_find_the_same_counterexamples_up_to_symmetry(players, keywords, broken_library):
    lib = broken_library("soulbond_keeps_pair.dl")
    data = {
        "players": players,
        "creatures": 2,
        "keywords": keywords,
        "power": [1],
        "toughness": [1],
        "same_controller": ["pairs"],
        "follow_up": [
            {"do": "gain_control", "object": "$creature", "player": "$player"},
            {"do": "remove_from_combat", "object": "$creature"},
        ],
    }
    engine = Engine(properties=True, library=str(lib))
    searched, listed = _both(engine, data, all_found=True)
    assert searched["boards"] == listed["boards"]
    assert len(searched["counterexamples"]) > 10
    assert searched["counterexamples"] == listed["counterexamples"]


@pytest.mark.slow
def test_search_finds_the_smallest_counterexample_of_each_broken_property(tmp_path):
    lib = _library_without(tmp_path, BUGS / "soulbond_keeps_pair.dl")  # its own: a second bug file is added
    shutil.copy(BUGS / "bands_with_other_strict.dl", lib / "broken" / "bands_with_other_strict.dl")
    data = {
        "creatures": 2,
        "keywords": [{"bands_with_other": {"subtype": "wolf"}}],
        "subtypes": ["wolf"],
        "power": [1],
        "toughness": [1],
        "same_controller": ["pairs"],
        "follow_up": [{"do": "gain_control", "object": "$creature", "player": "$player"}],
    }
    searched, listed = _both(Engine(properties=True, library=str(lib)), data)
    assert {c["property"] for c in searched["counterexamples"]} == {"band_legality", "pair_breaks"}
    assert searched["counterexamples"] == listed["counterexamples"]


# a property violated by any event of one kind: whether the search follows the follow-up action that makes it
PROBE = """\
property(probe, "no {kind} event (a probe)").
property_cr(probe, "603.2").
@name property.probe
@cr 603.2
property_violation(probe, X, none) :- event(_, {kind}, X).
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind, follow_up",
    [
        # an argument the action leaves out takes the rules' default (deal_damage's source: none)
        ("damage_dealt", {"do": "deal_damage", "target": "$creature", "n": 1}),
        ("effect_began", {"do": "apply_effect", "object": "$creature", "power": 1}),
        # an object the action brings: the search cannot follow it, and says so
        ("enters", {"do": "enter", "object": {"id": "g", "card": "Grizzly Bears", "controller": "p1"}}),
    ],
    ids=["default-argument", "effect", "new-object"],
)
def test_the_search_never_misses_a_follow_up_actions_event(tmp_path, kind, follow_up):
    probe = tmp_path / "probe.dl"
    probe.write_text(PROBE.format(kind=kind), encoding="utf-8")
    data = {"creatures": 1, "keywords": ["flying"], "power": [1], "toughness": [1], "follow_up": [follow_up]}
    searched, listed = _both(Engine(properties=True, rules=[str(probe)]), data)
    assert [c["property"] for c in listed["counterexamples"]] == ["probe"]
    assert searched["counterexamples"] == listed["counterexamples"]


MARK = """\
## Test rules: a designation of one object whose record is a declared event (702.171b: becomes saddled).
.decl marked(o: object) "{o} is marked" input
record_event(marked, record, becomes_marked, none).
action_known(mark). action_param(mark, object).
@name mark.record
@cr 122.1
effect(1, record, marked, O, none) :- action(mark), act_arg(object, O).
"""


@pytest.mark.slow
def test_the_search_gives_a_one_object_designation_its_declared_event(tmp_path):
    """Recording P(A) where record_event declares P's event is that event with no detail (judgelog.effects):
    the search's model of the record primitive (judgelog.verify_asp) makes it too, not a plain `recorded`."""
    rules = tmp_path / "mark.dl"
    rules.write_text(MARK + PROBE.format(kind="becomes_marked"), encoding="utf-8")
    follow_up = {"do": "mark", "object": "$creature"}
    data = {"creatures": 1, "keywords": ["flying"], "power": [1], "toughness": [1], "follow_up": [follow_up]}
    searched, listed = _both(Engine(properties=True, rules=[str(rules)]), data)
    assert [c["property"] for c in listed["counterexamples"]] == ["probe"]
    assert searched["counterexamples"] == listed["counterexamples"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "keyword, follow_up",
    [
        # events of the follow-up are later than the declarations' (the search orders events as the runtime)
        ("flying", {"do": "lose_ability", "object": "$creature", "keyword": "$keyword"}),
        # a block skulk allowed stays legal when the blocker's power grows afterwards (509.1b)
        ("skulk", {"do": "put_counters", "target": "$creature", "kind": "p1p1", "n": 1}),
    ],
)
def test_a_keyword_or_power_changed_after_the_blocks_breaks_no_evasion_property(keyword, follow_up):
    data = {"creatures": 2, "keywords": [keyword], "power": [1], "toughness": [1], "follow_up": [follow_up]}
    searched, listed = _both(Engine(properties=True), data)
    assert searched["boards"] == listed["boards"] > 0
    assert searched["counterexamples"] == listed["counterexamples"] == []
