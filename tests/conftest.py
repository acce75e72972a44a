"""Shared fixtures. Tests run against the installed package (``pip install .``)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from paths import ROOT

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
    # the test scenarios name rule files in tests/rules/ (../rules/x.dl): allow tests/ (judgelog.safefiles)
    os.environ["JUDGELOG_ALLOW_DIRS"] = str(ROOT / "tests")
    config.addinivalue_line("markers", "slow: takes a few seconds (deselect with -m 'not slow')")


def pytest_unconfigure(config):
    folder = getattr(config, "_judgelog_cache", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def replays():
    """The bundled scenarios replayed once per engine configuration in this process (tests/replays.py)."""
    from replays import Replays

    return Replays()
