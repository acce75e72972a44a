"""Every expect: entry of every bundled scenario passes (each file is one test), and together the bundled
scenarios use at least 90% of the shipped library's rules."""

import pytest
from paths import SCENARIOS

from judgelog.coverage import RuleUse, library_rules
from judgelog.testing import run_scenario_file

FILES = sorted(str(p) for p in SCENARIOS.glob("*.yaml"))

# the tests share one run of the bundled scenarios (bundled_run): pytest-xdist keeps them on one worker
# (--dist loadgroup in pyproject.toml), which runs them once instead of once per worker
pytestmark = pytest.mark.xdist_group("bundled_scenarios")


@pytest.fixture(scope="module")
def bundled_run(engine):
    """Run every bundled scenario once, asking the library's rules in every state the runtime evaluates."""
    use = RuleUse(engine, library_rules(engine))
    results = {path: run_scenario_file(engine, path, observer=use.observe) for path in FILES}
    return results, use


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_scenario_expectations(bundled_run, path):
    results = bundled_run[0][path]
    assert results, f"{path} has no cases"
    failures = [f"{r.case}: {r.message}" for r in results if not r.passed]
    assert not failures, "\n".join(failures)


def test_the_tests_of_a_group_run_on_one_worker(request):
    """pytest-xdist's --dist loadgroup names a grouped test `id@group` and gives a group to one worker (a
    pytest that does not let it rename the test leaves every group split: see the pin in pyproject.toml)."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist workers with --dist loadgroup")
    assert request.node.nodeid.endswith("@bundled_scenarios"), request.node.nodeid


@pytest.mark.slow
def test_bundled_scenarios_cover_the_library(engine, bundled_run):
    report = bundled_run[1].report()
    assert report.total > 300
    assert report.percent >= 90.0, report.to_text()
    # every file of the library is exercised at all
    assert all(used > 0 for used, _ in report.per_file.values()), report.to_text()
