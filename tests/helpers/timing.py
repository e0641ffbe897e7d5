"""How long a test may wait before it counts as hung: one factor for a loaded machine.

READER_TEST_TIME_FACTOR (default 1) multiplies pytest-timeout's limit for every test (the one in
pyproject.toml or a test's own `timeout` mark) and the deadlines tests wait on (HANG): a machine
shared with another heavy job gets more time, never a different suite."""

from __future__ import annotations

import os

import pytest

TIME_FACTOR = float(os.environ.get("READER_TEST_TIME_FACTOR") or 1)


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
