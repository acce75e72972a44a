"""Shared fixtures. Tests run against the installed package (``pip install .``)."""

from __future__ import annotations

import gc
import os
import shutil
import tempfile

import pytest
from paths import ROOT
from replays import SCENARIO_GROUP

from judgelog import Engine


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine()


@pytest.fixture
def chdir_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    return ROOT


def pytest_configure(config):
    # never the user's real cache folder (~/.cache/judgelog): one of our own, removed at the end. The
    # pytest-xdist workers inherit the folder of the process that started them (set here before they
    # start), so the library is loaded and stored once per run, not once per worker
    if not hasattr(config, "workerinput"):
        config._judgelog_cache = tempfile.mkdtemp(prefix="judgelog-test-cache-")
        os.environ["XDG_CACHE_HOME"] = config._judgelog_cache
    # Python's cyclic garbage collector less often (a young collection every 100,000 new objects instead of
    # 700, a full one every 100 middle ones instead of 10): a test process keeps the bundled scenarios'
    # replays, facts and proofs (tests/replays.py), which each full collection walks again; with the default
    # thresholds the collector took about a sixth of the scenario comparisons' time
    gc.set_threshold(100_000, 20, 100)
    # the test scenarios name rule files in tests/rules/ (../rules/x.dl): allow tests/ (judgelog.safefiles)
    os.environ["JUDGELOG_ALLOW_DIRS"] = str(ROOT / "tests")
    config.addinivalue_line("markers", "slow: takes a few seconds (deselect with -m 'not slow')")


def _work_unit(item) -> str:
    """What pytest-xdist's --dist loadgroup hands to one worker: the test's xdist_group, else the test."""
    marks = item.iter_markers("xdist_group")
    groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks})
    return "_".join(groups) if groups else item.nodeid


def pytest_collection_modifyitems(config, items):
    # the order pytest-xdist hands the work units to the workers (it takes them one at a time as they finish;
    # pyproject.toml turns off its own reordering, which puts the units with many tests first and the single
    # slow tests last): first the groups of the tests that read the bundled scenarios' replays (the longest
    # units, one per worker: replays compared, tests/replays.py), then the other units holding a test marked
    # slow (verify searches, the hash seeds), then the quick tests, which fill the gaps at the end instead of a
    # long unit starting last while the other worker idles
    slow_units = {_work_unit(item) for item in items if item.get_closest_marker("slow")}

    def rank(item) -> int:
        unit = _work_unit(item)
        if unit.startswith(SCENARIO_GROUP):
            return 0
        return 1 if unit in slow_units else 2

    items.sort(key=rank)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    # what a test leaves alive (the shared replays, facts and proofs, an engine fixture) lives on: it is collected
    # once and set aside (gc.freeze), so that no later collection walks it again. The collection looks only at
    # what was made since the last test. Without it a test process spent about an eighth of the scenario
    # comparisons' time in the collector walking the kept replays
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config):
    folder = getattr(config, "_judgelog_cache", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def replays():
    """The bundled scenarios replayed once per engine configuration in this process (tests/replays.py)."""
    from replays import Replays

    return Replays()
