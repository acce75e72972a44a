"""Every verb's ``--format json`` document names its schema and validates against the JSON Schema shipped in
the package (judgelog/schemas/<verb>-1.json); so do errors printed on stderr."""

from __future__ import annotations

import json

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra: pip install -e '.[test]'")

from helpers import run_cli  # noqa: E402
from paths import ROOT, SCENARIOS  # noqa: E402
from sampling import everyday_sample  # noqa: E402

from judgelog.cli import build_parser  # noqa: E402
from judgelog.outputs import load_schema, schema_names  # noqa: E402

BAND = str(SCENARIOS / "banding_blocked_by_one.yaml")
FABRICATE = str(SCENARIOS / "fabricate_servos.yaml")


def verbs():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "verb")
    return sorted(sub.choices)


def validate(verb, document):
    assert document["schema"] == f"judgelog/{verb}/1"
    jsonschema.validate(document, load_schema(verb), cls=jsonschema.Draft202012Validator)


def test_every_verb_has_a_shipped_schema():
    assert set(verbs()) | {"error"} <= set(schema_names()), set(verbs()) - set(schema_names())
    for name in schema_names():
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_the_schemas_are_package_data():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "schemas/*.json" in data["tool"]["setuptools"]["package-data"]["judgelog"]


def _json(capsys, argv, code=(0, 1)):
    run = run_cli(capsys, list(argv[:1]) + ["--format", "json"] + list(argv[1:]))
    assert run.code in code, run.err
    return run


CASES = {
    "query": ["query", BAND, "damage_assigner(S, P)"],
    "query_truncated": ["query", "--limit", "1", BAND, "damage_assigner(S, P)"],
    "query_closed": ["query", BAND, "tapped(bears)"],
    "explain": ["explain", BAND, "damage_assigner(bears, alice)"],
    "explain_why_not": ["explain", "--why-not", BAND, "damage_assigner(bears, bob)"],
    "explain_why_not_nearest": [
        "explain",
        "--why-not",
        str(SCENARIOS / "exalted_attacks_alone.yaml"),
        "triggers(squire, exalted, knight)",
    ],
    "test": ["test", BAND, FABRICATE],
    "check": ["check", "rules", BAND],
    "rules": ["rules", "damage_assigner"],
    "rules_all": ["rules"],
    "rules_cr": ["rules", "--cr", "702.22j"],
    "do": ["do", FABRICATE],
    "choices": ["choices", BAND, "blocks"],
    "choices_bands": ["choices", BAND, "bands"],
    "choices_divisions": ["choices", str(ROOT / "docs" / "examples" / "band.yaml"), "divisions"],  # count: by creature
    "choices_action": ["choices", "--before-actions", str(SCENARIOS / "amass_choose_between_armies.yaml"), "amass"],
    "audit": ["audit"],
    "audit_scenario": ["audit", BAND],
}


@pytest.mark.parametrize("case", everyday_sample(sorted(CASES), 2))  # all: -m slow
def test_each_document_validates(case, capsys):
    argv = CASES[case]
    run = _json(capsys, argv)
    validate(argv[0], json.loads(run.out))


def test_graph_document(tmp_path, capsys):
    run = _json(capsys, ["graph", BAND, "-o", tmp_path / "g.dot"])
    validate("graph", json.loads(run.out))


def test_the_shapes_readers_rely_on(capsys):
    data = json.loads(_json(capsys, CASES["query_truncated"]).out)
    assert data["count"] == 3 and data["truncated"] is True and len(data["answers"]) == 1
    assert data["variables"] == ["S", "P"]
    data = json.loads(_json(capsys, CASES["query_closed"]).out)
    assert data["count"] == 0 and data["answers"] == [] and data["truncated"] is False
    data = json.loads(_json(capsys, CASES["explain"]).out)
    assert data["holds"] is True and data["term"] == {"pred": "damage_assigner", "args": ["bears", "alice"]}
    assert data["proof"]["term"] == data["term"]
    data = json.loads(_json(capsys, CASES["test"]).out)
    kinds = {c["kind"] for c in data["cases"]}
    assert kinds == {"action", "expect"}
    assert all(isinstance(c["index"], int) and isinstance(c["line"], int) for c in data["cases"])


def test_errors_on_stderr_validate(capsys):
    run = run_cli(capsys, ["query", "--format", "json", BAND, "damage_assigner(worm, P)"])
    assert run.code == 2
    validate("error", json.loads(run.err))
    run = run_cli(capsys, ["do", "--format", "json", str(ROOT / "tests" / "refused" / "bolster_missing_choice.yaml")])
    assert run.code == 1
    data = json.loads(run.err)
    validate("error", data)
    assert data["action"] == 0 and data["options"] == ["elves", "lions"]
