"""The suite's own time limits: READER_TEST_TIME_FACTOR stretches every test's pytest-timeout limit."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.helpers.timing import time_factor

pytest_plugins = ["pytester"]

CONFTEST = """
from tests.helpers.timing import scale_time_limits

def pytest_collection_modifyitems(config, items):
    scale_time_limits(items, default=0.5, factor=2)
    for item in items:
        print("limit", item.name, item.get_closest_marker("timeout").args[0])
"""

MODULE = """
import time

import pytest

def test_hangs():
    time.sleep(30)

@pytest.mark.timeout(60)
def test_own_limit():
    pass

@pytest.mark.timeout(0)
def test_no_limit():
    pass
"""


def test_the_factor_stretches_each_limit_and_pytest_timeout_obeys_it(pytester, monkeypatch):
    # In a pytest of its own (the suite's plugins stay out of it): 0.5 s by default, doubled, stops
    # the 30 s wait after 1 s; a test's own 60 s becomes 120 s; 0 (no limit) stays none.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(MODULE)
    result = pytester.runpytest_subprocess("-s", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["limit test_hangs 1.0", "limit test_own_limit 120.0", "limit test_no_limit 0"])
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout*"])
    result.assert_outcomes(passed=2, failed=1)


def test_the_factor_is_the_machines_load_per_core_unless_it_is_given():
    assert time_factor({}, load=8.0, cores=2) == 4.0  # a second heavy job: four runnable a core
    assert time_factor({}, load=0.5, cores=2) == 1.0  # a quiet machine: the limits as written
    assert time_factor({"READER_TEST_TIME_FACTOR": "3"}, load=8.0, cores=2) == 3.0
    assert time_factor({"READER_TEST_TIME_FACTOR": ""}, load=3.0, cores=0) == 3.0
