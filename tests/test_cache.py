"""The parsed and checked rule library is kept in the user's cache folder across processes: used when the
same files are loaded again, never when one of them changed, rebuilt when the entry is corrupt, bypassed by
``--no-cache`` and ``JUDGELOG_NO_CACHE=1``. Every test here has its own cache folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from helpers import run_cli
from paths import SCENARIOS

from judgelog import cache, library
from judgelog.catalog import rules_dir

BANDING = str(SCENARIOS / "banding_blocked_by_one.yaml")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("JUDGELOG_NO_CACHE", raising=False)
    library._load_cached.cache_clear()  # forget this process's copies: every load below is a new "process"
    yield tmp_path / "cache" / "judgelog"
    library._load_cached.cache_clear()


@pytest.fixture
def own_library(tmp_path):
    root = tmp_path / "rules"
    shutil.copytree(rules_dir(), root)
    return root


def entries(folder):
    """The library's entries (the card catalog has one of its own)."""
    import pickle

    def is_library(path):
        with open(path, "rb") as handle:
            return isinstance(pickle.load(handle)[3], library.LoadResult)

    return sorted(p.name for p in folder.glob("*.pickle") if is_library(p)) if folder.exists() else []


def load_without_parsing(monkeypatch, **options):
    """Load with the parser disabled: succeeds only from the cache."""

    def refuse(*args, **kwargs):
        raise AssertionError("parsed although the cache holds this library")

    with monkeypatch.context() as patch:
        patch.setattr(library, "parse_text", refuse)
        library._load_cached.cache_clear()
        library._parsed.cache_clear()  # the files this process parsed already (the parse of each is kept too)
        return library.load_program(**options)


def test_second_load_comes_from_the_cache(folder, monkeypatch):
    first = library.load_program([])
    assert len(entries(folder)) == 1
    again = load_without_parsing(monkeypatch, paths=[])
    assert again is not first
    assert [r.name for r in again.program.rules] == [r.name for r in first.program.rules]
    assert again.program.sources == first.program.sources and again.diagnostics == first.diagnostics


def test_a_changed_rule_file_is_not_served_stale(folder, own_library, monkeypatch):
    before = library.load_program([], library=str(own_library))
    target = own_library / "keywords" / "banding.dl"
    target.write_text(
        target.read_text(encoding="utf-8") + '\n.decl cache_probe(x: object) "{x} probes"\n', encoding="utf-8"
    )
    library._load_cached.cache_clear()
    after = library.load_program([], library=str(own_library))
    assert "cache_probe" in after.program.decls and "cache_probe" not in before.program.decls
    assert len(entries(folder)) == 2


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_an_included_file_outside_the_listed_ones_is_checked(folder, tmp_path, monkeypatch):
    extra = tmp_path / "extra"
    extra.mkdir()
    (tmp_path / "shared.inc").write_text('.decl probe_a(x: object) "{x} is a"\n', encoding="utf-8")
    (extra / "main.dl").write_text('.include "../shared.inc"\n', encoding="utf-8")
    assert "probe_a" in library.load_program([str(extra)]).program.decls
    (tmp_path / "shared.inc").write_text('.decl probe_b(x: object) "{x} is b"\n', encoding="utf-8")
    library._load_cached.cache_clear()
    decls = library.load_program([str(extra)]).program.decls
    assert "probe_b" in decls and "probe_a" not in decls


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_a_corrupt_entry_is_rebuilt(folder, monkeypatch):
    library.load_program([])
    [name] = entries(folder)
    (folder / name).write_bytes(b"\x80\x05not a pickle")
    library._load_cached.cache_clear()
    assert library.load_program([]).errors == []
    with pytest.raises(AssertionError):  # the corrupt entry was not used ...
        (folder / name).write_bytes(b"")
        load_without_parsing(monkeypatch, paths=[])
    library._load_cached.cache_clear()
    library.load_program([])
    load_without_parsing(monkeypatch, paths=[])  # ... and was written again


@pytest.mark.slow
def test_an_entry_for_another_key_is_not_used(folder, monkeypatch):
    library.load_program([])
    [name] = entries(folder)
    other = "0" * 40
    shutil.copy(folder / name, folder / f"{other}.pickle")
    assert cache.lookup(other) is None  # the entry names its own key


@pytest.mark.slow
def test_an_unwritable_cache_folder_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    library._load_cached.cache_clear()
    try:
        assert library.load_program([]).errors == []
    finally:
        library._load_cached.cache_clear()


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_no_cache_option_and_environment(folder, capsys, monkeypatch):
    assert run_cli(capsys, ["query", BANDING, "blocked_by(wurm, B)", "--no-cache"]).code == 0
    assert entries(folder) == []
    monkeypatch.setenv("JUDGELOG_NO_CACHE", "1")
    library._load_cached.cache_clear()
    assert run_cli(capsys, ["query", BANDING, "blocked_by(wurm, B)"]).code == 0
    assert entries(folder) == []
    monkeypatch.delenv("JUDGELOG_NO_CACHE")
    library._load_cached.cache_clear()
    assert run_cli(capsys, ["query", BANDING, "blocked_by(wurm, B)"]).code == 0
    assert len(entries(folder)) == 1


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_the_same_relative_path_in_two_working_folders(folder, tmp_path, monkeypatch):
    decls = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.dl").write_text('.include "shared.inc"\n', encoding="utf-8")
        (tmp_path / name / "shared.inc").write_text(f'.decl probe_{name}(x: object) "{{x}} probes"\n', encoding="utf-8")
    for name in ("a", "b"):
        monkeypatch.chdir(tmp_path / name)
        library._load_cached.cache_clear()
        decls.append({d for d in library.load_program(["main.dl"]).program.decls if d.startswith("probe_")})
    assert decls == [{"probe_a"}, {"probe_b"}]


@pytest.mark.slow
def test_separate_processes_share_the_entry(folder):
    env = dict(os.environ, XDG_CACHE_HOME=str(folder.parent))
    code = "from judgelog.library import load_program; print(len(load_program([]).program.rules))"
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert len(entries(folder)) == 1
    stamp = (folder / entries(folder)[0]).stat().st_mtime_ns
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout == second.stdout and int(first.stdout) > 100
    assert (folder / entries(folder)[0]).stat().st_mtime_ns == stamp  # read, not written again


def test_the_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "judgelog"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the XDG specification says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "judgelog"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "not/absolute")
    monkeypatch.setattr(os.path, "expanduser", lambda p: p.replace("~", "not/absolute"))
    assert cache.cache_dir() is None and not cache.enabled()
    cache.store("0" * 40, 1, depends={})  # nothing written, nothing raised
    assert cache.lookup("0" * 40) is None


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_a_cached_program_keeps_each_rules_own_evaluation_order():
    """The evaluation order of rule bodies survives pickling (rule ids do not): before, an unpickled rule
    whose id had once been another rule's was evaluated with that other rule's body."""
    import pickle

    from judgelog.library import load_program

    program = load_program(()).program
    back = pickle.loads(pickle.dumps(program))
    reordered = [r for r in program.rules if program.body(r) != r.body]
    assert reordered  # the test means something: some bodies are evaluated in another order
    assert [back.body(r) for r in back.rules] == [program.body(r) for r in program.rules]


@pytest.mark.slow
def test_a_start_from_the_cache_needs_no_networkx(folder):
    """A process whose library comes from the cache loads a scenario and proves an answer without importing
    networkx (the graph is built only where one is drawn or analysed; the program keeps what evaluation
    needs of it as plain data): networkx's import alone costs more than the rest of such a start."""
    env = dict(os.environ, XDG_CACHE_HOME=str(folder.parent))
    code = (
        "import sys\n"
        "from judgelog import Engine\n"
        "import judgelog.cli, judgelog.commands\n"
        f"state = Engine().load({str(SCENARIOS / 'banding_blocked_by_one.yaml')!r})\n"
        "print(len(state.explain('damage_assigner(bears, alice)').to_text().splitlines()) > 3)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'networkx')[:1])\n"
    )
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert cold.stdout.splitlines() == ["True", "['networkx']"]  # the first start analyses the rules
    assert warm.stdout.splitlines() == ["True", "[]"]


@pytest.mark.slow
def test_the_library_a_process_reads_from_the_cache_goes_to_the_collectors_oldest_generation(folder):
    """The rule library read from the cache (about 170,000 objects, kept to the process's end) goes straight to
    the collector's oldest generation: else each young collection walks it again until it ages there, a third of
    the Quick start's time. It is not left frozen (the collector would leave it out of the count by which it
    decides when to walk the whole heap)."""
    env = dict(os.environ, XDG_CACHE_HOME=str(folder.parent))
    code = (
        "import gc\n"
        "from judgelog.library import load_program\n"
        "program = load_program().program\n"
        "print(any(o is program for o in gc.get_objects(generation=2)), gc.get_freeze_count())\n"
    )
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)  # stores
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert warm.stdout.split() == ["True", "0"]


def test_the_graph_index_agrees_with_the_graph_and_survives_pickling():
    import pickle

    import networkx as nx

    from judgelog.library import load_program
    from judgelog.program import components

    program = load_program(()).program
    graph = program.graph
    index = pickle.loads(pickle.dumps(program))._index  # saved with the program, built from its graph
    assert index is not None and index == program.index
    assert index.reads == {p: frozenset(graph.predecessors(p)) for p in graph}
    assert index.readers == {p: tuple(sorted(graph.successors(p))) for p in graph}
    positive = graph.edge_subgraph((u, v) for u, v, on in graph.edges(data="positive") if on)
    recursive = [c for c in components(positive) if len(c) > 1 or positive.has_edge(min(c), min(c))]
    assert list(index.positive_components) == recursive and recursive  # the library has recursion
    for pred in ("damage_assigner", "blocks", "band_member"):
        if pred in graph:
            assert program.dependencies([pred]) == {pred} | nx.ancestors(graph, pred)


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_the_backends_analysis_is_saved_with_the_program(folder, monkeypatch):
    """The backends' analysis of the program (judgelog.compiled) comes from the cache entry too; its maps
    keyed by rule ids are made again for the unpickled rules (ids do not survive pickling), so they agree
    with an analysis made afresh."""
    import dataclasses

    from judgelog.compiled import CompiledProgram
    from judgelog.engine import Engine

    library.load_program([])
    again = load_without_parsing(monkeypatch, paths=[])
    program = again.program
    with monkeypatch.context() as patch:
        patch.setattr(CompiledProgram, "_build", classmethod(lambda cls, p: pytest.fail("analysed again")))
        kept = CompiledProgram.of(program)
        engine = Engine()
    assert engine.backend.compiled is kept and kept.program is program
    fresh = CompiledProgram._build(program)
    for f in dataclasses.fields(fresh):
        if f.name not in ("program", "joins"):
            assert getattr(kept, f.name) == getattr(fresh, f.name), f.name
    assert all(kept.rule_index.position[id(r)] == i for i, r in enumerate(program.rules))
    assert all(kept.rule_by_id[id(r)] is r for r in program.rules)
    assert {id(info.rule) for info in kept.rule_probes} <= set(kept.rule_by_id)
    assert kept.joins.wide and all(kept.rule_by_id[k] is wide.rule for k, wide in kept.joins.wide.items())
    assert kept.joins.wide.keys() == fresh.joins.wide.keys()
    assert {p: sorted(repr(w) for w in ws) for p, ws in kept.joins.wide_below.items()} == {
        p: sorted(repr(w) for w in ws) for p, ws in fresh.joins.wide_below.items()
    }
    state = engine.load(BANDING)
    assert state.query("damage_assigner(bears, P)") == [{"P": "alice"}]


def test_the_card_catalog_comes_from_the_cache_and_follows_its_file(folder, tmp_path, monkeypatch):
    from judgelog import catalog

    cards = tmp_path / "cards.yaml"
    shutil.copy(catalog.facts_dir() / "cards.yaml", cards)
    first = catalog._load_cached(str(cards), 1.0)
    with monkeypatch.context() as patch:
        patch.setattr(catalog.CardCatalog, "load", classmethod(lambda cls, path: pytest.fail("read again")))
        again = catalog._load_cached(str(cards), 2.0)  # another process: not this one's copy
    assert again is not first and again.cards == first.cards
    text = cards.read_text(encoding="utf-8")
    assert "  Grizzly Bears:\n" in text
    cards.write_text(text.replace("  Grizzly Bears:\n", "  Grizzly Bearz:\n"), encoding="utf-8")
    edited = catalog._load_cached(str(cards), 3.0)
    assert edited.get("Grizzly Bearz") is not None and edited.get("Grizzly Bears") is None


@pytest.mark.slow
def test_a_json_start_from_the_cache_reads_no_yaml(folder, tmp_path):
    """With the library and the card catalog in the cache, a JSON scenario is answered without importing
    PyYAML (about 10 ms of a start, and the catalog's YAML about 5 more)."""
    import json

    import yaml

    scenario = tmp_path / "banding.json"
    scenario.write_text(json.dumps(yaml.safe_load(open(BANDING, encoding="utf-8"))), encoding="utf-8")
    env = dict(os.environ, XDG_CACHE_HOME=str(folder.parent))
    code = (
        "import sys\n"
        "from judgelog.cli import main\n"
        f"code = main(['query', {str(scenario)!r}, 'damage_assigner(bears, P)'])\n"
        "print(code, 'yaml' in sys.modules)\n"
    )
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "alice" in warm.stdout and cold.stdout == warm.stdout.replace("False", "True")
    assert warm.stdout.splitlines()[-1] == "0 False"


@pytest.mark.slow  # it builds the library anew, seconds each time
def test_a_process_parses_a_file_it_read_before_once(tmp_path, monkeypatch):
    """Without the cache folder, a process that loads the library again with another file besides (an engine
    with --rules, a scenario's own rules:) parses only that file; an edited file is parsed again."""
    monkeypatch.setenv("JUDGELOG_NO_CACHE", "1")
    extra = tmp_path / "extra.dl"
    extra.write_text('.decl mine(o: object) "{o} is mine"\n', encoding="utf-8")
    library._parsed.cache_clear()
    parsed: list[str] = []
    real = library.parse_text

    def counting(text, path, **options):
        parsed.append(path)
        return real(text, path, **options)

    monkeypatch.setattr(library, "parse_text", counting)
    library._load_cached.cache_clear()
    first = library.load_program([])
    assert first.errors == [] and len(parsed) > 100  # every file of the library
    parsed.clear()
    library._load_cached.cache_clear()
    second = library.load_program([str(extra)])
    assert second.errors == [] and [os.path.basename(p) for p in parsed] == ["extra.dl"]
    assert second.program.decl("mine") is not None and len(second.program.rules) == len(first.program.rules)
    extra.write_text('.decl mine(o: object) "{o} is mine, edited"\n', encoding="utf-8")
    os.utime(extra, (1, 1))  # another modification time, whatever the clock's resolution
    parsed.clear()
    library._load_cached.cache_clear()
    assert library.load_program([str(extra)]).program.decl("mine").template == "{o} is mine, edited"
    assert [os.path.basename(p) for p in parsed] == ["extra.dl"]
    library._load_cached.cache_clear()


def test_a_start_from_the_cache_reads_the_interface_saved_with_the_program(folder, monkeypatch):
    """The rule-declared interface is saved with the program (its kept_in_cache): a start from the cache does
    not read it from the rules again, and it is the interface the rules declare."""
    from judgelog import interface as interface_module

    fresh = interface_module.interface_of(library.load_program([]).program)  # made as the entry was stored
    again = load_without_parsing(monkeypatch, paths=[])
    with monkeypatch.context() as patch:
        patch.setattr(interface_module, "abilities_of", lambda program: pytest.fail("read from the rules again"))
        assert interface_module.interface_of(again.program) == fresh
    assert "ninjutsu" in fresh.keywords and fresh.abilities is not None


def test_an_address_is_found_by_the_files_status_once_they_are_left_alone(folder, tmp_path, monkeypatch):
    """The files of a start seen before, unchanged for a while, give their address from a pointer without
    being read; a file changed lately (its times within the clock's step of another change) is read every
    time, and a changed file gives another address."""
    rules = tmp_path / "mine.dl"
    rules.write_text("# one\n", encoding="utf-8")
    read: list[str] = []
    digest = cache.file_digest
    monkeypatch.setattr(cache, "file_digest", lambda path: read.append(path) or digest(path))
    first = cache.address("example", options=(), files=[str(rules)])
    assert cache.address("example", options=(), files=[str(rules)]) == first and len(read) == 2  # just written
    monkeypatch.setattr(cache, "_SETTLED_NS", 0)  # as if left alone for a while
    read.clear()
    assert cache.address("example", options=(), files=[str(rules)]) == first and read == [str(rules)]
    assert cache.address("example", options=(), files=[str(rules)]) == first and read == [str(rules)]  # pointer
    assert list(folder.glob("*.pointer"))
    rules.write_text("# two, longer\n", encoding="utf-8")
    assert cache.address("example", options=(), files=[str(rules)]) != first
