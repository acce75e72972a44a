"""Shared fixtures. Tests run against the installed package (``pip install .``)."""
from __future__ import annotations

import pytest

from judgelog import Engine
from paths import ROOT


@pytest.fixture(scope="session")
def engine() -> Engine:
    return Engine()


@pytest.fixture
def chdir_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    return ROOT


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes a few seconds (deselect with -m 'not slow')")
