"""Every expect: entry of every bundled scenario passes (each file is one test).

It reads the replays of the bundled scenarios on the default engine that the backends' comparison reads
(tests/replays.py): a scenario's cases are checked as ``judgelog test`` checks them
(judgelog.testing.scenario_cases). That together they use at least 90% of the shipped library's rules, and
some rule of every file, is CI's ``judgelog test --fail-under 90`` (.ci/run), which asks the library's rules in
every state the runtime evaluates (tests/test_coverage.py tests the option on one scenario).
"""

import pytest
from paths import SCENARIOS
from replays import everyday_scenario_params

from judgelog.testing import scenario_cases


@pytest.mark.parametrize("name", everyday_scenario_params())
def test_scenario_expectations(replays, name):
    run = replays.get("pydatalog", name)
    results, _ = scenario_cases(str(SCENARIOS / name), run.start, run.steps)
    assert results, f"{name} has no cases"
    failures = [f"{r.case}: {r.message}" for r in results if not r.passed]
    assert not failures, "\n".join(failures)


@pytest.mark.xdist_group("one-group")
def test_the_tests_of_a_group_run_on_one_worker(request):
    """pytest-xdist's --dist loadgroup names a grouped test `id@group` and gives a group to one worker (a
    pytest that does not let it rename the test leaves every group split: see the pin in pyproject.toml)."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist workers with --dist loadgroup")
    assert request.node.nodeid.endswith("@one-group"), request.node.nodeid
