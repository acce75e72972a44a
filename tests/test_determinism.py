"""Determinism: the same input gives byte-identical output in two separate processes, with different hash
seeds (``PYTHONHASHSEED=1`` and ``2``, so that any output that follows the iteration order of a set or of a
dict built from one would differ), for every verb, in text and in JSON, and for every file a verb writes.

Each process runs the whole list of commands in-process (``judgelog.cli.main``) and prints one JSON document
with every command's exit code, stdout, stderr and written files; the two processes run side by side.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from paths import ROOT, SCENARIOS

S = {
    name: str(SCENARIOS / f"{name}.yaml")
    for name in (
        "banding_both_sides",
        "banding_two_with_one_without",
        "amass_choose_between_armies",
        "fabricate_servos",
        "soulbond_servos_enter",
        "populate_army_token",
        "proliferate_kinds",
        "combat_declare_and_damage",
        "soulbond_three_creatures",
        "trample_with_and_without_banding",
    )
}

DESIGNER_SCENARIOS = ("soul_warden_order", "modular_and_bloodthirst_counters_add_up", "renown_double_strike")

COMMANDS = []
for fmt in ("text", "json"):
    f = ["--format", fmt]
    COMMANDS += [
        # --quiet: off a terminal verify prints a progress line per task with its time, which no two runs share
        ["verify", "--quiet", "--scope", str(ROOT / "facts" / "verify" / "small.yaml")] + f,
        ["query", S["banding_both_sides"], "damage_assigner(S, P)"] + f,
        ["query", S["banding_both_sides"], "can_block(B, A), blocked_by(A, X)"] + f,
        [
            "query",
            S["banding_both_sides"],
            "permanent(A), permanent(B), permanent(C), permanent(D), permanent(E)",
            "--limit",
            "7",
        ]
        + f,
        ["query", S["soulbond_servos_enter"], "token(T), name(T, N)"] + f,
        ["explain", S["banding_both_sides"], "damage_assigner(wurm, bob)"] + f,
        ["explain", S["banding_both_sides"], "damage_assigner(wurm, alice)", "--why-not"] + f,
        ["explain", S["soulbond_three_creatures"], "power(silverheart, 8)"] + f,
        [
            "test",
            S["amass_choose_between_armies"],
            S["fabricate_servos"],
            S["soulbond_servos_enter"],
            S["populate_army_token"],
            S["proliferate_kinds"],
            S["combat_declare_and_damage"],
            # a designer's rule file (triggers ordered), and counters from two keywords' enters results
            *(str(ROOT / "tests" / "scenarios" / f"{name}.yaml") for name in DESIGNER_SCENARIOS),
        ]
        + f,
        ["do", S["fabricate_servos"], "-o", f"fabricate_{fmt}.yaml"] + f,
        ["do", S["soulbond_servos_enter"], "-o", f"soulbond_{fmt}.yaml"] + f,
        ["do", S["populate_army_token"]] + f,
        ["do", S["combat_declare_and_damage"]] + f,
        ["choices", S["banding_two_with_one_without"], "bands"] + f,
        ["choices", S["banding_both_sides"], "blocks"] + f,
        ["choices", S["soulbond_three_creatures"], "resolve", "--actions", "1"] + f,
        ["choices", S["proliferate_kinds"], "proliferate"] + f,
        ["report", S["combat_declare_and_damage"], "-o", f"report_{fmt}.html"] + f,
        ["graph", S["banding_both_sides"], "-o", f"both_{fmt}.dot"] + f,
        ["graph", S["banding_both_sides"], "-o", f"both_{fmt}.json"] + f,
        ["graph", S["trample_with_and_without_banding"], "-o", f"trample_{fmt}.svg"] + f,
        ["graph", S["trample_with_and_without_banding"], "-o", f"trample_{fmt}.graphml"] + f,
        ["audit"] + f + ["--dot", f"rules_{fmt}.dot"],
        ["audit", S["banding_both_sides"]] + f,
        ["audit", "--diff", S["banding_both_sides"], S["trample_with_and_without_banding"]] + f,
        ["rules"] + f,
        ["rules", "--cr", "702.22"] + f,
        ["rules", "damage_assigner"] + f,
        ["check", str(ROOT / "tests" / "broken_rules" / "many_errors.dl")] + f,
        ["do", "contradictory.yaml", "-o", f"contradictory_{fmt}.yaml"] + f,
        ["query", "contradictory.yaml", "life(P, N)"] + f,
    ]

# facts that contradict each other (written to each process's folder): which of two life totals an effect
# changes, in which order two partners are unpaired, must not depend on a set's order either
CONTRADICTORY = """\
name: Contradictory facts (five life totals for one player, two soulbond partners for one creature)
players: [alice, bob]
active: alice
objects:
  wurm: {card: Craw Wurm, controller: alice}
  hero: {card: Benalish Hero, controller: alice}
  forcemage: {card: Trusted Forcemage, controller: alice}
  bears: {card: Grizzly Bears, controller: alice}
combat:
  attackers: {wurm: bob, hero: bob}
pairs: [[forcemage, bears], [forcemage, hero]]
facts: ["life(bob, 7)", "life(bob, 9)", "life(bob, 3)", "life(bob, 12)", "life(bob, 30)"]
actions:
  - {do: combat_damage}
  - {do: leave_battlefield, object: forcemage, to: graveyard}
"""

DRIVER = textwrap.dedent("""
    import contextlib, io, json, os, sys
    from judgelog.cli import main

    results = []
    for argv in json.loads(sys.argv[1]):
        out, err = io.StringIO(), io.StringIO()
        before = set(os.listdir("."))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        files = {}
        for name in sorted(set(os.listdir(".")) - before):
            with open(name, encoding="utf-8") as handle:
                files[name] = handle.read()
        results.append({"argv": argv, "code": code, "out": out.getvalue(), "err": err.getvalue(), "files": files})
    json.dump(results, sys.stdout)
""")


# every test reads the one pair of processes (two_runs): pytest-xdist keeps them on one worker (--dist
# loadgroup in pyproject.toml), which starts the pair once instead of once per worker
# (and the pair runs for a minute: slow)
pytestmark = [pytest.mark.xdist_group("determinism"), pytest.mark.slow]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    procs = []
    for seed in ("1", "2"):
        cwd = tmp_path_factory.mktemp(f"hashseed{seed}")
        (cwd / "contradictory.yaml").write_text(CONTRADICTORY, encoding="utf-8")
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env.pop("JUDGELOG_DEBUG", None)
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", DRIVER, json.dumps(COMMANDS)],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    runs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        runs.append(json.loads(out))
    return runs


@pytest.mark.parametrize(
    "index",
    range(len(COMMANDS)),
    ids=[" ".join(a[:1] + a[2:3] + a[-2:]).replace(str(SCENARIOS) + os.sep, "") for a in COMMANDS],
)
def test_same_output_with_another_hash_seed(two_runs, index):
    first, second = two_runs[0][index], two_runs[1][index]
    assert first["argv"] == COMMANDS[index]
    assert first["code"] in (0, 1), first["err"]
    assert "Traceback" not in first["err"] and "internal error" not in first["err"]
    assert first["out"] or first["files"]
    if "--format" in first["argv"] and first["argv"][first["argv"].index("--format") + 1] == "json" and first["out"]:
        json.loads(first["out"])
    assert first["out"] == second["out"]
    assert first["err"] == second["err"]
    assert first["code"] == second["code"]
    assert first["files"] == second["files"]


def test_every_verb_is_covered():
    from judgelog.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "verb")
    assert {argv[0] for argv in COMMANDS} == set(sub.choices)
