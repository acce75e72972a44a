"""``judgelog check``: every broken file in tests/broken_rules/ is reported with ``file:line:col:
severity[CODE]``, its source line, a caret under the column and a hint; the shipped library checks clean.

Each broken file holds one kind of problem (``many_errors.dl`` several, to show that all are reported).
The files are self-contained, so most runs use ``--no-library``; one test repeats every file with the
library loaded to show that the library adds nothing.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli
from paths import ROOT
from sampling import everyday_sample

from judgelog.analysis import analyze
from judgelog.errors import RuleError
from judgelog.library import load_program
from judgelog.parser import parse_file, parse_text

BROKEN = "tests/broken_rules"

# file -> the diagnostics `judgelog check --no-library FILE` must print: (line, col, severity, code),
# plus a piece of each message; all are errors, so the exit code is 1.
EXPECTED = {
    "syntax_missing_paren.dl": [(7, 10, "error", "E001", "expected ',' or ')', found ':-'")],
    "undeclared_typo.dl": [(7, 15, "error", "E002", "undeclared predicate 'gaurds'")],
    "arity_mismatch.dl": [(7, 15, "error", "E003", "guards takes 2 argument(s), given 3")],
    "unsafe_head.dl": [(7, 13, "error", "E004", "unsafe variable P in the head of assigner")],
    "unsafe_negation.dl": [(8, 34, "error", "E004", "unsafe variable B in a negated atom")],
    "unsafe_comparison.dl": [(7, 32, "error", "E004", "unsafe variable M in a comparison")],
    "negation_cycle.dl": [(8, 15, "error", "E005", "negation cycle: p -> not q -> not p (not stratifiable)")],
    "duplicate_name.dl": [(12, 1, "error", "E006", "duplicate rule name 'broken.evasive'")],
    "conflicting_decl.dl": [(3, 7, "error", "E009", "predicate 'strength' is declared twice, differently")],
    "include_missing.dl": [(2, 1, "error", "E010", "included file not found: tests/broken_rules/no_such_file.dl")],
    "type_error.dl": [(8, 47, "error", "E013", "argument 'n' of strength is an integer, given 'three'")],
    "aggregate_misuse.dl": [
        (8, 36, "error", "E014", "aggregate count(...) outside a rule head"),
        (12, 19, "error", "E014", "a rule head may hold at most one aggregate"),
        # count() first in a comparison was read as an atom, then "expected '.'", found '>' (E001)
        (18, 31, "error", "E014", "aggregate count(...) outside a rule head"),
        # count() alone as a literal: "undeclared predicate 'count'" (E002)
        (22, 31, "error", "E014", "aggregate count(...) outside a rule head"),
    ],
    "word_ordered_against_number.dl": [
        (8, 26, "error", "E017", "P, bound by life_of as p: player, is compared with a number (>)")
    ],
    "record_undeclared.dl": [(10, 19, "error", "I009", "record names 'marcked', which no .decl declares")],
    "property_undeclared.dl": [
        (10, 20, "error", "I010", "property_violation names the property 'block_keeps_flying', which no property/2")
    ],
    "many_errors.dl": [
        (9, 12, "error", "E002", "undeclared predicate 'chrager'"),
        (13, 23, "error", "E001", "expected '.' at the end of the rule, found 'stops'"),
        (17, 1, "error", "E006", "duplicate rule name 'broken.free'"),
        (17, 12, "error", "E003", "charger takes 1 argument(s), given 2"),
        (21, 42, "error", "E004", "unsafe variable M in a comparison"),
        (25, 6, "error", "E004", "unsafe variable B in the head of free"),
        (25, 34, "error", "E004", "unsafe variable C in a negated atom"),
    ],
}

# files whose only findings are warnings: exit code 0
WARNINGS = {
    "missing_annotations.dl": [
        (6, 1, "warning", "E007", "rule has no @name"),
        (6, 1, "warning", "E008", "rule cites no Comprehensive Rules number"),
    ],
    "derives_input.dl": [(7, 1, "warning", "E012", "'tapped_now' is an input predicate but a rule derives it")],
    "trigger_without_recent_event.dl": [
        (9, 1, "warning", "I003", "triggers rule broken.chant_trigger reads no event just applied")
    ],
    "result_of_undeclared_kind.dl": [
        (10, 1, "warning", "I004", "event_result rule broken.graft_counters reads events of kind enters")
    ],
    "numbered_keyword_redundant.dl": [
        (13, 1, "warning", "I008", "the abilities of frenzy read its number (n, rule broken.frenzy_bonus)")
    ],
    "counter_kind_as_printed.dl": [
        (
            7,
            24,
            "warning",
            "I007",
            "rule broken.grown names the counter kind '+1/+1' as printed: the state calls it p1p1",
        )
    ],
    "keyword_typo.dl": [
        (10, 34, "warning", "I011", "rule broken.may_attack tests the keyword 'hast', which no keyword/1 fact declares")
    ],
    "event_kind_typo.dl": [
        (12, 63, "warning", "I005", "rule broken.battle_cry_trigger reads events of kind 'attack', which neither")
    ],
    "effect_from_effects.dl": [
        (11, 23, "warning", "I012", "rule broken.hungry_entering reads effect(...) to derive hungry_entering, from")
    ],
    "refusal_placeholder.dl": [
        (8, 53, "warning", "I013", "the violation_info text of crew_short names {total}, which no violation_value"),
        (8, 73, "warning", "I013", "the violation_info text of crew_short names {needed}, which no violation_value"),
        (12, 32, "warning", "I013", "rule broken.crew_short_total gives crew_short the value 'totl', which its"),
    ],
}

HINTS = {
    "undeclared_typo.dl": "hint: did you mean 'guards'?",
    "arity_mismatch.dl": "hint: declared at tests/broken_rules/arity_mismatch.dl:2:7: guards(b: object, a: object)",
    "unsafe_negation.dl": "hint: bind B in a positive atom of the body, or write _ if you mean 'any value'",
    "duplicate_name.dl": "hint: first used at tests/broken_rules/duplicate_name.dl:8:1; @name must be unique",
    "syntax_missing_paren.dl": "hint: close the argument list of sentry(...) with ')'",
    "conflicting_decl.dl": "hint: first declared at tests/broken_rules/conflicting_decl.dl:2:7",
    "record_undeclared.dl": "hint: did you mean 'marked'?",
}


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def _blocks(err: str):
    """Split stderr into diagnostic blocks: (header, [following lines])."""
    blocks = []
    for line in err.splitlines():
        if line.startswith(BROKEN) or (line and not line.startswith(" ") and "[E" in line):
            blocks.append((line, []))
        elif blocks:
            blocks[-1][1].append(line)
    return blocks


def _assert_rendered(err: str, path: str) -> None:
    """Every diagnostic shows its source line, a caret under its column and a hint."""
    blocks = _blocks(err)
    assert blocks, err
    for header, rest in blocks:
        file, line, col = header.split(":")[:3]
        source = (ROOT / file).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        assert rest[0] == "    " + source, (header, rest)
        assert rest[1] == "    " + " " * (int(col) - 1) + "^", (header, rest)
        assert any(r.startswith("  hint: ") for r in rest), f"no hint for {header}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_reports_every_error_with_location(capsys, name):
    path = f"{BROKEN}/{name}"
    run = run_cli(capsys, ["check", "--no-library", path])
    assert run.code == 1, run
    want = [(path, line, col, sev, code) for line, col, sev, code, _ in EXPECTED[name]]
    assert run.diagnostics() == want, run.err
    for line, col, sev, code, message in EXPECTED[name]:
        assert f"{path}:{line}:{col}: {sev}[{code}]: {message}" in run.err
    _assert_rendered(run.err, path)
    n = len(EXPECTED[name])
    assert run.out.startswith(f"{n} error(s), 0 warning(s)"), run.out
    if name in HINTS:
        assert HINTS[name] in run.err


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_warnings_only_exit_zero(capsys, name):
    path = f"{BROKEN}/{name}"
    run = run_cli(capsys, ["check", "--no-library", path])
    assert run.code == 0, run
    want = [(path, line, col, sev, code) for line, col, sev, code, _ in WARNINGS[name]]
    assert run.diagnostics() == want, run.err
    for line, col, sev, code, message in WARNINGS[name]:
        assert f"{path}:{line}:{col}: {sev}[{code}]: {message}" in run.err
    _assert_rendered(run.err, path)
    assert run.out.startswith(f"0 error(s), {len(WARNINGS[name])} warning(s)")


def test_include_loop_between_two_files_in_a_subfolder(capsys):
    folder = f"{BROKEN}/include_loop"
    chain = f"{folder}/first.dl -> {folder}/second.dl -> {folder}/first.dl"
    for target in (folder, f"{folder}/first.dl"):
        run = run_cli(capsys, ["check", "--no-library", target])
        assert run.code == 1, run
        assert run.diagnostics() == [(f"{folder}/second.dl", 4, 1, "error", "E011")], run.err
        assert f"{folder}/second.dl:4:1: error[E011]: include loop: {chain}" in run.err
        _assert_rendered(run.err, folder)
    # entering the loop from the other file reports it at the other .include
    run = run_cli(capsys, ["check", "--no-library", f"{folder}/second.dl"])
    assert run.code == 1
    assert run.diagnostics() == [(f"{folder}/first.dl", 2, 1, "error", "E011")], run.err


@pytest.mark.slow
@pytest.mark.parametrize("name", everyday_sample(sorted(EXPECTED), 6))  # every file: -m slow
def test_same_findings_with_the_library_loaded(capsys, name):
    path = f"{BROKEN}/{name}"
    run = run_cli(capsys, ["check", path])
    assert run.code == 1
    want = [(path, line, col, sev, code) for line, col, sev, code, _ in EXPECTED[name]]
    assert run.diagnostics() == want, run.err


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_many_errors_are_all_reported_in_json(capsys):
    path = f"{BROKEN}/many_errors.dl"
    run = run_cli(capsys, ["check", "--no-library", "--format", "json", path])
    assert run.code == 1
    data = run.json()
    assert data["errors"] == 7 and data["warnings"] == 0
    got = sorted((d["line"], d["col"], d["code"]) for d in data["diagnostics"])
    assert got == sorted((line, col, code) for line, col, _, code, _ in EXPECTED["many_errors.dl"])
    assert all(d["file"] == path and d["severity"] == "error" for d in data["diagnostics"])


def test_several_files_in_one_run_report_everything(capsys):
    names = ["undeclared_typo.dl", "negation_cycle.dl"]
    run = run_cli(capsys, ["check", "--no-library"] + [f"{BROKEN}/{n}" for n in names])
    assert run.code == 1
    codes = [d[4] for d in run.diagnostics()]
    assert codes == ["E005", "E002"]  # sorted by file name
    assert run.out.startswith("2 error(s)")


def test_missing_path_is_e010(capsys):
    run = run_cli(capsys, ["check", "--no-library", f"{BROKEN}/does_not_exist.dl"])
    assert run.code == 1
    assert run.diagnostics() == [(f"{BROKEN}/does_not_exist.dl", 1, 1, "error", "E010")]
    assert "no such rule file or folder" in run.err


# -- the shipped library --------------------------------------------------------------------------------
def test_shipped_library_checks_clean(capsys):
    run = run_cli(capsys, ["check", "rules"])
    assert run.code == 0, run.err
    assert run.out.startswith("0 error(s), 0 warning(s)"), run.out
    assert run.err == ""


def test_check_without_paths_checks_the_library(capsys):
    run = run_cli(capsys, ["check"])
    assert run.code == 0, run.err
    assert run.out.startswith("0 error(s), 0 warning(s)")


def test_check_as_a_subprocess():
    """The real command line, in a child process: exit code and streams."""
    proc = subprocess.run(
        [sys.executable, "-m", "judgelog.cli", "check", "--no-library", f"{BROKEN}/negation_cycle.dl"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert f"{BROKEN}/negation_cycle.dl:8:15: error[E005]:" in proc.stderr
    assert proc.stdout.startswith("1 error(s), 0 warning(s)")
    proc = subprocess.run(
        [sys.executable, "-m", "judgelog.cli", "check", "rules"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "0 error(s), 0 warning(s)" in proc.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_check_in_a_terminal_prints_the_diagnostics_then_the_summary():
    """In a terminal (stdout and stderr the same tty) the diagnostics (stderr) come before the summary line
    (stdout), as a compiler's do: the summary is written after the diagnostics are, each stream flushed at
    its line's end. (A tool that shows captured stdout before stderr shows the summary first.)"""
    import os
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "judgelog.cli", "check", "--no-library", f"{BROKEN}/keyword_typo.dl"],
            cwd=ROOT,
            stdout=follower,
            stderr=follower,
            timeout=120,
        )
        os.close(follower)
        chunks = []
        with contextlib.suppress(OSError):  # EIO once the terminal's last writer is gone (Linux)
            while chunk := os.read(leader, 65536):
                chunks.append(chunk)
    finally:
        os.close(leader)
    lines = b"".join(chunks).decode().replace("\r\n", "\n").splitlines()
    assert proc.returncode == 0
    assert lines[0].startswith(f"{BROKEN}/keyword_typo.dl:10:34: warning[I011]"), lines
    assert lines[-1].startswith("0 error(s), 1 warning(s) in 1 rules"), lines


# -- @name / @cr: a warning outside the library, an error inside it ----------------------------------------
def test_missing_annotations_are_errors_when_required():
    rule_file = parse_file(f"{BROKEN}/missing_annotations.dl")
    _, diags = analyze([rule_file], require_annotations=True)
    assert [(d.code, d.severity, d.span.line, d.span.col) for d in diags] == [
        ("E007", "error", 6, 1),
        ("E008", "error", 6, 1),
    ]
    _, diags = analyze([rule_file], require_annotations=False)
    assert [(d.code, d.severity) for d in diags] == [("E007", "warning"), ("E008", "warning")]


def test_facts_need_no_annotations():
    rule_file = parse_text('.decl p(x: atom) "{x}"\np(a).\np(b).\n', "facts.dl")
    _, diags = analyze([rule_file], require_annotations=True)
    assert diags == []


def test_strict_annotations_makes_user_files_strict():
    result = load_program([f"{BROKEN}/missing_annotations.dl"], include_library=False, strict_annotations=True)
    assert [(d.code, d.severity) for d in result.diagnostics] == [("E007", "error"), ("E008", "error")]
    with pytest.raises(RuleError):
        result.raise_for_errors()
    result = load_program([f"{BROKEN}/missing_annotations.dl"], include_library=False)
    assert result.errors == []


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_missing_annotations_in_a_checked_library_folder_are_errors(tmp_path, capsys):
    """``judgelog check`` of a folder laid out like the library checks it as the library: strictly."""
    lib = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", lib)
    shutil.copy(ROOT / BROKEN / "missing_annotations.dl", lib / "keywords" / "unannotated.dl")
    run = run_cli(capsys, ["check", lib])
    assert run.code == 1
    where = f"{lib}/keywords/unannotated.dl:6:1"
    assert run.diagnostics() == [
        (f"{lib}/keywords/unannotated.dl", 6, 1, "error", "E007"),
        (f"{lib}/keywords/unannotated.dl", 6, 1, "error", "E008"),
    ]
    assert f"{where}: error[E007]: rule has no @name" in run.err
    assert run.out.startswith("2 error(s), 0 warning(s)")


@pytest.mark.slow
def test_missing_annotations_inside_the_library_folder_are_errors(tmp_path, monkeypatch, capsys):
    """A file placed in the installed library folder must carry @name and @cr (here: a copy of it)."""
    import judgelog.library as library

    lib = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", lib)
    shutil.copy(ROOT / BROKEN / "missing_annotations.dl", lib / "keywords" / "unannotated.dl")
    monkeypatch.setattr(library, "rules_dir", lambda: lib)
    result = load_program([], include_library=True)
    bad = [(d.code, d.severity, d.span.file, d.span.line) for d in result.diagnostics]
    assert ("E007", "error", "rules/keywords/unannotated.dl", 6) in bad
    assert ("E008", "error", "rules/keywords/unannotated.dl", 6) in bad
    run = run_cli(capsys, ["check"])
    assert run.code == 1
    assert "rules/keywords/unannotated.dl:6:1: error[E007]: rule has no @name" in run.err
    assert "rules/keywords/unannotated.dl:6:1: error[E008]: rule cites no Comprehensive Rules number" in run.err


# -- broken rules elsewhere: Engine and the other verbs ------------------------------------------------------
def test_engine_refuses_broken_rules_listing_every_error():
    from judgelog import Engine

    with pytest.raises(RuleError) as info:
        Engine(rules=[f"{BROKEN}/many_errors.dl"], include_library=False)
    codes = sorted(d.code for d in info.value.diagnostics)
    assert codes == sorted(code for _, _, _, code, _ in EXPECTED["many_errors.dl"])


def test_query_with_broken_rules_is_a_load_error(capsys):
    run = run_cli(
        capsys,
        [
            "query",
            "--rules",
            f"{BROKEN}/negation_cycle.dl",
            "facts/scenarios/banding_blocked_by_one.yaml",
            "creature(X)",
        ],
    )
    assert run.code == 3
    assert f"{BROKEN}/negation_cycle.dl:8:15: error[E005]" in run.err
    assert "Traceback" not in run.err


# -- a file or folder of the library: checked as part of it, never loaded twice ------------------------------
LIBRARY_FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "rules").rglob("*.dl"))


@pytest.mark.parametrize("name", everyday_sample(LIBRARY_FILES, 20))  # every file: -m slow
def test_check_on_each_library_file_is_clean(name, capsys):
    run = run_cli(capsys, ["check", name])
    assert run.code == 0, run.err
    assert "E006" not in run.err
    assert run.out.startswith("0 error(s), 0 warning(s)"), run.out


@pytest.fixture(scope="module")
def library_copy(tmp_path_factory):
    lib = tmp_path_factory.mktemp("checkout") / "rules"
    shutil.copytree(ROOT / "rules", lib)
    return lib


# one file of each folder of rules/ (and two folders): each case checks a whole copy of the library twice (the
# everyday suite every 4th: -m slow the others)
ONE_FILE_PER_FOLDER = sorted({str(Path(f).parent): f for f in LIBRARY_FILES}.values())


@pytest.mark.parametrize("name", everyday_sample(ONE_FILE_PER_FOLDER + ["rules/keywords", "rules/core"], 8))
def test_check_on_a_file_of_another_library_checks_that_library(name, library_copy, capsys):
    """A file of a source checkout's rules/ that is not the installed library: that checkout is checked as
    the library (before, the installed library was loaded beside it: a false E006 for every rule)."""
    path = library_copy.parent / name
    run = run_cli(capsys, ["check", path])
    assert run.code == 0, run.err
    assert run.out.startswith("0 error(s), 0 warning(s)"), run.out
    broken = library_copy / "keywords" / "zz_broken.dl"
    shutil.copy(ROOT / BROKEN / "undeclared_typo.dl", broken)
    try:
        run = run_cli(capsys, ["check", path])
    finally:
        broken.unlink()
    assert run.code == 1  # the checkout is what was checked: its own new error is found
    assert [d[3:] for d in run.diagnostics()] == [("error", "E002")]


@pytest.mark.slow
def test_check_reports_an_undeclared_effect_primitive_as_loading_does(capsys, tmp_path):
    """`judgelog check` finds what every other verb refuses the file for: an effect primitive the interface does
    not declare (I002), with the library loaded (the contract is the library's)."""
    rules = tmp_path / "spellguard.dl"  # (a keyword the library does not play out: no I006 beside the error)
    rules.write_text(
        "@name spellguard.counter\n@cr 702.21a\n"
        "effect(1, counter, I, none, none) :- resolving(I), on_stack(I, _, spellguard).\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["check", rules])
    assert run.code == 1 and run.out.startswith("1 error(s), 0 warning(s)"), run
    assert run.diagnostics() == [(str(rules), 3, 11, "error", "I002")], run.err
    scenario = ROOT / "facts" / "scenarios" / "banding_blocked_by_one.yaml"
    refused = run_cli(capsys, ["query", "--rules", rules, scenario, "player(P)"])
    assert refused.code != 0 and [d[4] for d in refused.diagnostics()] == ["I002"], refused.err


def test_a_negation_cycle_names_each_rule_on_it_with_its_place(capsys, tmp_path):
    """A designer's rule reading grants_keyword to decide a regained keyword closed a cycle through the library
    (keyword_removed -> not effect_keyword_regained -> grants_keyword -> has_subtype -> has_keyword): E005
    pointed at rules/core/continuous.dl and named neither the designer's rule nor the card file on the way."""
    mine = tmp_path / "regained.dl"
    mine.write_text(
        "## Test: regained when anything grants it.\n@name mine.regained\n@cr 613.7\n"
        "effect_keyword_regained(E, O, K) :- continuous_effect(E, _, O, _), grants_keyword(_, O, K).\n",
        encoding="utf-8",
    )
    run = run_cli(capsys, ["check", str(mine)])
    assert run.code != 0 and "error[E005]: negation cycle" in run.err, run.err
    notes = [line.strip() for line in run.err.splitlines() if line.strip().startswith("note:")]
    assert f"note: effect_keyword_regained reads grants_keyword: mine.regained ({mine}:4)" in notes, notes
    assert any("rules/cards/eternal_skylord.dl" in n for n in notes), notes
    # one note for each step of the cycle named in the message
    message = next(line for line in run.err.splitlines() if "error[E005]" in line)
    assert len(notes) == message.count("->")


def test_an_error_at_the_end_of_input_shows_the_line_it_is_missing_from(capsys, tmp_path):
    """A rule cut short at the end of a file is reported after its last character, with its line shown
    (not on the empty line after the last newline)."""
    path = tmp_path / "cut.dl"
    path.write_text('.decl mine(o: object) "{o} is mine"\n\n@name mine.cut\n@cr 100.1\nmine(O) :- creature(O), \n\n')
    run = run_cli(capsys, ["check", path])
    assert run.code != 0
    assert f"{path}:5:24: error[E001]" in run.err and "found end of input" in run.err
    shown = run.err.splitlines()
    at = next(i for i, line in enumerate(shown) if "error[E001]" in line)
    assert shown[at + 1].strip() == "mine(O) :- creature(O),"
    assert shown[at + 2].index("^") == shown[at + 1].index(",") + 1


@pytest.mark.slow  # it checks the whole library with a file of its own, more than once
def test_a_keyword_the_library_plays_out_played_out_again_is_a_warning(capsys, tmp_path):
    """A designer's own flanking.dl beside the library's rules/keywords/flanking.dl: both trigger (I006), told
    in the designer's file; a file that only repeats a keyword's declarations is no problem."""
    mine = tmp_path / "flanking.dl"
    mine.write_text(
        "keyword(flanking).\n\n@name my_flanking.trigger\n@cr 702.25a\n"
        "triggers(A, flanking, B) :- becomes_blocked_by(_, A, B), has_keyword(A, flanking), "
        "not has_keyword(B, flanking).\n"
    )
    run = run_cli(capsys, ["check", str(mine)])
    assert run.code == 0, run.err
    assert run.diagnostics() == [(str(mine), 5, 1, "warning", "I006")], run.err
    assert "played out by rules/keywords/flanking.dl:" in run.err and "--library" in run.err
    mine.write_text("keyword(flanking).\nkeyword_instances(flanking, each).\n")
    run = run_cli(capsys, ["check", str(mine)])
    assert run.code == 0 and "I006" not in run.err, run.err


@pytest.mark.slow  # it checks the whole library with a file of its own, more than once
def test_a_keyword_a_rule_body_alone_names_near_a_known_one_is_a_warning(capsys, tmp_path):
    """has_keyword(X, hast) declared a keyword hast without a word (I011). The library's haste, which rule
    bodies alone test, is what it is near; it is not itself told near hast, tested in fewer rules. A keyword
    its file declares, or one near no known keyword, is no problem."""
    mine = tmp_path / "quick.dl"
    rule = '.decl quick(o: object) "{o} is quick"\n\n@name mine.quick\n@cr 702.10b\nquick(X) :- has_keyword(X, K).\n'
    mine.write_text(rule.replace("K)", "hast)"))
    run = run_cli(capsys, ["check", str(mine)])
    assert run.code == 0, run.err
    assert run.diagnostics() == [(str(mine), 5, 28, "warning", "I011")], run.err
    assert "hint: did you mean 'haste'? a new keyword is declared by its rule file: keyword(hast)." in run.err
    mine.write_text(rule.replace("K)", "hast)") + "keyword(hast).\n")
    assert "I011" not in run_cli(capsys, ["check", str(mine)]).err
    mine.write_text(rule.replace("K)", "evoke)"))  # a keyword the library lacks, not a misspelt one
    run = run_cli(capsys, ["check", str(mine)])
    assert run.code == 0 and "I011" not in run.err, run.err
