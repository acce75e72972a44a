"""Every expect: entry of every bundled scenario passes (each file is one test)."""
import pytest

from judgelog.testing import run_scenario_file

from paths import SCENARIOS

FILES = sorted(str(p) for p in SCENARIOS.glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_scenario_expectations(engine, path):
    results = run_scenario_file(engine, path)
    assert results, f"{path} has no cases"
    failures = [f"{r.case}: {r.message}" for r in results if not r.passed]
    assert not failures, "\n".join(failures)
