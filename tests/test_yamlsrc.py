"""Reading scenario files fast without losing positions: libyaml's parser against the pure-Python one, and
the JSON reader against YAML's marks for the same text."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from paths import ROOT, TESTS
from sampling import everyday_sample

from judgelog import ScenarioError, yamlnodes, yamlsrc
from judgelog.yamlsrc import load_json_text, load_text

YAML_FILES = sorted(p for folder in (ROOT / "facts", TESTS) for p in folder.rglob("*.yaml"))


def pure_python(monkeypatch, text: str, path: str):
    monkeypatch.setattr(yamlnodes, "C_PARSER", False)
    try:
        return load_text(text, path)
    finally:
        monkeypatch.undo()


def outcome(load, text: str, path: str):
    """(value, marks) of a document, or the diagnostics it is refused with."""
    try:
        doc = load(text, path)
    except ScenarioError as exc:
        return "error", [(d.code, d.message, d.location(), d.hint) for d in exc.diagnostics]
    return doc.value, doc.marks


def test_libyaml_is_used():
    assert yamlsrc.C_PARSER  # PyYAML's wheels ship libyaml; without it every file is read the slow way


@pytest.mark.parametrize("path", everyday_sample(YAML_FILES, 8, ids=lambda p: str(p.relative_to(ROOT))))  # all: -m slow
def test_libyaml_gives_the_same_values_marks_and_errors(path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    fast = outcome(load_text, text, path.name)
    slow = outcome(lambda t, p: pure_python(monkeypatch, t, p), text, path.name)
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\n\tb: 2\n",  # a tab: libyaml's message differs, the reported one does not
        "a: [1, 2\n",  # unclosed flow sequence
        "a: 'é' \nb: \"x\\u00e9\"\nc: {d: é}\n",  # columns count characters, not bytes
        "a: 1\r\nb:\r\n  - x\r\n  - y\r\n",  # CRLF line ends
        "\ufeffa: 1\n",  # a byte-order mark
        "a: &x [1, 2]\nb: *x\n",  # aliases
        "a: |\n  two\n  lines\nb: >\n  folded\n",  # block scalars
        "a: !!int twenty\n",  # an explicit tag that does not fit
        "a: 1\na: 2\n",  # a duplicate key
        "players: " + "[" * 3000 + "]" * 3000,  # far deeper than the limit: both parsers stop at the same node
    ],
)
def test_libyaml_and_pure_python_agree_on_edge_cases(text, monkeypatch):
    assert outcome(load_text, text, "t.yaml") == outcome(lambda t, p: pure_python(monkeypatch, t, p), text, "t.yaml")


@pytest.mark.parametrize("path", sorted((ROOT / "facts" / "scenarios").glob("*.yaml"))[:20], ids=lambda p: p.name)
@pytest.mark.parametrize("indent", [None, 2])
def test_json_positions_are_yamls_positions(path, indent):
    data = load_text(path.read_text(encoding="utf-8"), path.name).value
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    as_json, as_yaml = load_json_text(text, "s.json"), load_text(text, "s.json")
    assert as_json.value == as_yaml.value
    assert as_json.marks == as_yaml.marks


_SCALARS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8),
)
_DOCS = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=6), inner, max_size=4
        ),
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(_DOCS, st.sampled_from([None, 1, 4]), st.sampled_from([(", ", ": "), (",", ":")]))
@example(["\u2028", 0], None, (", ", ": "))  # a line break to YAML inside a string (found by this test)
def test_json_positions_match_yaml_on_random_documents(data, indent, separators):
    text = json.dumps({"doc": data}, indent=indent, separators=separators, ensure_ascii=False)
    as_json = load_json_text(text, "r.json")
    assert as_json.value == {"doc": data}
    assert as_json.marks == load_text(text, "r.json").marks


def test_json_syntax_error_has_its_position():
    with pytest.raises(ScenarioError) as info:
        load_json_text('{"players": ["alice",\n  "bob" "carol"]}', "bad.json")
    [diag] = info.value.diagnostics
    assert (diag.code, diag.location(), diag.message) == (
        "S001",
        "bad.json:2:9",
        "JSON syntax error: Expecting ',' delimiter",
    )


def test_json_duplicate_key_and_depth():
    with pytest.raises(ScenarioError) as info:
        load_json_text('{"objects": {"bear": 1,\n "bear": 2}}', "dup.json")
    [diag] = info.value.diagnostics
    assert (diag.code, diag.location(), diag.message, diag.hint) == (
        "S003",
        "dup.json:2:2",
        "duplicate key 'bear'",
        "first given at line 1",
    )
    with pytest.raises(ScenarioError) as info:
        load_json_text('{"a": ' + "[" * 150 + "]" * 150 + "}", "deep.json")
    assert [d.code for d in info.value.diagnostics] == ["S002"]
    with pytest.raises(ScenarioError) as info:
        load_json_text('{"a": ' + "[" * 5000 + "]" * 5000 + "}", "deeper.json")
    assert [d.code for d in info.value.diagnostics] == ["S001"]


def test_a_json_file_is_read_as_json(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"a": 1e5, "b": "x"}', encoding="utf-8")
    doc = yamlsrc.load_path(str(path))
    assert doc.value == {"a": 100000.0, "b": "x"}  # JSON's number, where YAML 1.1 would read "1e5" as a word
    assert doc.span(("b",)).location() == f"{path}:1:17"


def test_a_json_file_that_only_yaml_reads_loads_as_before(tmp_path):
    path = tmp_path / "relaxed.json"
    path.write_text('{players: [alice, bob],\n "active": alice}', encoding="utf-8")
    doc = yamlsrc.load_path(str(path))
    assert doc.value == {"players": ["alice", "bob"], "active": "alice"}
    assert doc.span(("active",)).location() == f"{path}:2:12"


def test_json_positions_are_scanned_only_when_asked_for(tmp_path):
    """A JSON board is loaded and answered without scanning its positions; the spans its facts carry find
    their place when first read, and equal, hash and pickle as the spans a YAML reading gives."""
    import pickle

    from judgelog import Engine

    text = json.dumps(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
            "combat": {"attackers": {"bears": "bob"}},
        },
        indent=2,
    )
    path = tmp_path / "board.json"
    path.write_text(text, encoding="utf-8")
    state = Engine().load(str(path))
    fact = ("controller", "bears", "alice")
    span = state.origin(fact)
    assert span is not None and type(span) is not yamlsrc.Span  # not looked up yet
    assert state.holds("attacking(bears, bob)") and state.query("attacking(A, bob)")
    as_yaml = load_text(text, str(path)).span(("objects", "bears", "controller"))
    assert as_yaml.location() == f"{path}:10:21"
    assert span == as_yaml and as_yaml == span and hash(span) == hash(as_yaml)
    assert (span.file, span.line, span.col) == (as_yaml.file, as_yaml.line, as_yaml.col)
    assert repr(span) == repr(as_yaml) and span.location() == as_yaml.location()
    copied = pickle.loads(pickle.dumps(span))
    assert type(copied) is yamlsrc.Span and copied == as_yaml


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"a": {"b": [1, {"c": 1, "c": 2}]}}', "S003"),  # a duplicate found by json.loads' hook, placed by the scan
        ('{"a": ' + "[" * 99 + "1" + "]" * 99 + "}", None),  # 100 levels: within the limit
        ('{"a": ' + "[" * 100 + "1" + "]" * 100 + "}", "S002"),  # a value 101 levels down
        ('{"a": ' + "[" * 100 + "]" * 100 + "}", None),  # 100 levels, the innermost empty
    ],
)
def test_json_limits_are_checked_when_the_file_is_read(text, code):
    def load(path):
        try:
            doc = load_json_text(text, path)
        except ScenarioError as exc:
            return [d.code for d in exc.diagnostics]
        return doc.marks

    with_scan_deferred = load("l.json")
    assert with_scan_deferred == ([code] if code else load_text(text, "l.json").marks)
