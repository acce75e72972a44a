"""Files a scenario names stay private: scenario-named rule files (and what they include) resolve relative
to the scenario and may not leave its folder unless allowed; every file read is a regular file under a
size cap (no device, no FIFO: nothing reads forever or hangs); diagnostics never print a file that is not
rule text. Each run is under a watchdog: a hang fails the test."""

from __future__ import annotations

import os

import pytest
from helpers import run_cli, watchdog

from judgelog import Engine, ScenarioError, safefiles

RULE = """\
## A test rule file.
.decl lucky(p: player) "{p} is lucky"

@name t.lucky
@cr 100.1
lucky(P) :- player(P).
"""


@pytest.fixture(autouse=True)
def no_allowed_dirs(monkeypatch):
    monkeypatch.delenv("JUDGELOG_ALLOW_DIRS", raising=False)


def scenario(folder, rules_line):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "s.yaml"
    path.write_text(f"players: [alice, bob]\n{rules_line}\n", encoding="utf-8")
    return str(path)


def cli(capsys, *argv):
    with watchdog():
        return run_cli(capsys, list(argv))


@pytest.mark.parametrize("entry", ["/dev/zero", "/proc/self/environ", "/etc/passwd"])
def test_a_scenario_may_not_name_files_outside_its_folder(capsys, tmp_path, entry):
    path = scenario(tmp_path, f"rules: [{entry}]")
    run = cli(capsys, "query", path, "player(P)")
    assert run.code == 3
    assert (path, 2, 9, "error", "S100") in run.diagnostics()
    assert f"cannot use rules entry '{entry}': it is outside the scenario's folder" in run.err


def test_devices_and_fifos_are_refused_even_where_allowed(capsys, tmp_path):
    os.mkfifo(tmp_path / "pipe.dl")
    path = scenario(tmp_path, "rules: [pipe.dl, /dev/zero]")
    run = cli(capsys, "query", "--allow-dir", "/dev", path, "player(P)")
    assert run.code == 3
    assert "cannot use rules entry 'pipe.dl': it is not a regular file" in run.err
    assert "cannot use rules entry '/dev/zero': it is not a regular file" in run.err


@pytest.mark.parametrize("argv", [["--rules", "/dev/zero"], ["--rules", "{fifo}"]])
def test_rule_files_given_on_the_command_line_must_be_regular(capsys, tmp_path, argv):
    os.mkfifo(tmp_path / "fifo.dl")
    argv = [a.format(fifo=tmp_path / "fifo.dl") for a in argv]
    run = cli(capsys, "query", *argv, scenario(tmp_path / "s", ""), "player(P)")
    assert run.code == 3 and "it is not a regular file" in run.err, run.err


def test_an_include_of_a_device_is_refused(capsys, tmp_path):
    rules = tmp_path / "inc.dl"
    rules.write_text('.include "/dev/zero"\n' + RULE, encoding="utf-8")
    run = cli(capsys, "check", str(rules))
    assert run.code == 1 and "error[E010]: cannot read /dev/zero: /dev/zero is not a regular file" in run.err


@pytest.mark.slow
def test_an_include_may_not_leave_the_scenarios_folder(capsys, tmp_path):
    (tmp_path / "secret.dl").write_text(RULE, encoding="utf-8")
    inner = tmp_path / "case"
    inner.mkdir()
    (inner / "mine.dl").write_text('.include "../secret.dl"\n', encoding="utf-8")
    path = scenario(inner, "rules: [mine.dl]")
    run = cli(capsys, "query", path, "lucky(P)")
    assert run.code == 3
    assert "mine.dl includes '../secret.dl', and it is outside the scenario's folder" in run.err
    run = cli(capsys, "query", "--allow-dir", str(tmp_path), path, "lucky(P)")
    assert run.code == 0, run.err


@pytest.mark.slow
def test_a_file_given_with_rules_may_be_named_by_the_scenario_too(capsys, tmp_path):
    """rules/ beside scenarios/: a scenario naming ../rules/lucky.dl is accepted when the command line gives
    that file (or its folder) with --rules, and refused otherwise; another file of that folder is not."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "lucky.dl").write_text(RULE, encoding="utf-8")
    (tmp_path / "rules" / "other.dl").write_text(RULE.replace("t.lucky", "t.other"), encoding="utf-8")
    path = scenario(tmp_path / "scenarios", "rules: [../rules/lucky.dl]")
    refused = cli(capsys, "query", path, "lucky(P)")
    assert refused.code == 3 and "it is outside the scenario's folder" in refused.err
    assert "given with --rules" in refused.err
    for given in (tmp_path / "rules" / "lucky.dl", tmp_path / "rules"):
        run = cli(capsys, "query", "--rules", str(given), path, "lucky(P)")
        assert run.code == 0 and "alice" in run.out, run.err
    other = scenario(tmp_path / "scenarios2", "rules: [../rules/other.dl]")
    run = cli(capsys, "query", "--rules", str(tmp_path / "rules" / "lucky.dl"), other, "player(P)")
    assert run.code == 3 and "it is outside the scenario's folder" in run.err


def test_a_symbolic_link_out_of_the_folder_is_outside(capsys, tmp_path):
    (tmp_path / "outside.dl").write_text(RULE, encoding="utf-8")
    inner = tmp_path / "case"
    inner.mkdir()
    (inner / "link.dl").symlink_to(tmp_path / "outside.dl")
    run = cli(capsys, "query", scenario(inner, "rules: [link.dl]"), "lucky(P)")
    assert run.code == 3 and "it is outside the scenario's folder" in run.err


@pytest.mark.slow
def test_inside_the_folder_or_an_allowed_one_is_fine(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "lucky.dl").write_text(RULE, encoding="utf-8")
    inner = tmp_path / "case"
    path = scenario(inner, "rules: [../shared/lucky.dl]")
    engine = Engine()
    with pytest.raises(ScenarioError) as info:
        engine.load(path)
    assert "outside the scenario's folder" in info.value.diagnostics[0].message
    state = engine.load(path, allow_dirs=[str(tmp_path / "shared")])
    assert state.query("lucky(P)") == [{"P": "alice"}, {"P": "bob"}]
    (inner / "own.dl").write_text(RULE, encoding="utf-8")
    assert engine.load(scenario(inner, "rules: [own.dl]")).query("lucky(alice)") == [{}]


def test_a_private_file_is_never_printed(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGELOG_TEST_SECRET", "hunter2-" + "x" * 10)
    path = scenario(tmp_path, "rules: [/proc/self/environ]")
    run = cli(capsys, "query", "--allow-dir", "/proc", path, "player(P)")
    assert run.code == 3
    assert "hunter2" not in run.err + run.out


def test_rule_files_have_a_size_cap(capsys, tmp_path):
    big = tmp_path / "big.dl"
    big.write_text(RULE + "% padding\n" * (safefiles.MAX_RULE_BYTES // 10 + 1), encoding="utf-8")
    run = cli(capsys, "check", str(big))
    assert run.code == 1 and f"is larger than {safefiles.MAX_RULE_BYTES} bytes" in run.err
    run = cli(capsys, "query", scenario(tmp_path, "rules: [big.dl]"), "player(P)")
    assert run.code == 3 and "it is larger than" in run.err


def test_a_scenario_that_is_a_device_or_fifo(capsys, tmp_path):
    os.mkfifo(tmp_path / "s.yaml")
    for path in (str(tmp_path / "s.yaml"), "/dev/zero"):
        run = cli(capsys, "query", path, "player(P)")
        assert run.code == 3 and "is not a regular file" in run.err, run.err


def test_a_verify_scope_that_is_a_device_or_fifo(capsys, tmp_path):
    os.mkfifo(tmp_path / "scope.yaml")
    for path in (str(tmp_path / "scope.yaml"), "/dev/zero"):
        run = cli(capsys, "verify", "--scope", path)  # was: waited for a writer / read the device as YAML
        # an input that could not be loaded (exit 3), as the scenario above
        assert run.code == 3 and f"cannot read the scope file {path}" in run.err and "not a regular file" in run.err
