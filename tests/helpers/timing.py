"""How long a test may wait before it counts as hung: one factor for a loaded machine.

READER_TEST_TIME_FACTOR multiplies pytest-timeout's limit for every test (the one in
pyproject.toml or a test's own `timeout` mark) and the deadlines tests wait on (HANG): a machine
shared with another heavy job gets more time, never a different suite. Unset, the factor is the
machine's load per core when the worker starts, at least 1: the packaging test's wheel build ran
past its 300 s at a load of 15 a core, and nobody had said so."""

from __future__ import annotations

import os
from collections.abc import Mapping

import pytest


def time_factor(environ: Mapping[str, str], load: float, cores: int) -> float:
    """READER_TEST_TIME_FACTOR when set, else `load` (the last minute's) per core, at least 1."""
    given = environ.get("READER_TEST_TIME_FACTOR")
    if given:
        return float(given)
    return max(1.0, load / max(1, cores))


TIME_FACTOR = time_factor(os.environ, os.getloadavg()[0], os.cpu_count() or 1)


def scaled(seconds: float) -> float:
    """A deadline in seconds, stretched by READER_TEST_TIME_FACTOR."""
    return seconds * TIME_FACTOR


def scale_time_limits(items: list[pytest.Item], default: float, factor: float) -> None:
    """Give each test a `timeout` mark of its limit (its own mark's, else `default`) times `factor`."""
    if factor == 1:
        return
    for item in items:
        mark = item.get_closest_marker("timeout")
        seconds = default
        if mark is not None:
            seconds = float(mark.args[0] if mark.args else mark.kwargs.get("timeout", default))
        if seconds > 0:  # 0: no limit at all, which no factor changes
            item.add_marker(pytest.mark.timeout(seconds * factor), append=False)
