"""Shared test helpers, first written for tests/test_app_search.py, tests/test_app_outside.py, tests/test_app_add_paper.py, tests/test_app_notices.py."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

from tests.helpers.app import ready
from tests.helpers.timing import scaled


async def filter_by(pilot, text: str) -> None:
    await pilot.app.main.list_filter.run(text, None).wait()
    await ready(pilot)  # its matches go up as a message; the list's order may arrange them in a worker of its own


HANG = scaled(30.0)  # seconds: only stops a test whose change never shows (the benchmark times it)


async def reader_cli(data_dir, *args: str) -> None:
    """`reader ARGS` in a child process, as in another terminal; the app runs on meanwhile."""
    argv = [sys.executable, "-m", "reader", "--data-dir", str(data_dir), *args]
    await asyncio.to_thread(subprocess.run, argv, check=True, capture_output=True, timeout=scaled(60))


async def filter_says(pilot, said: str):
    """The filter box, once its subtitle says `said` or a while has passed (the tests assert on it):
    the filter runs once typing pauses, on a loaded machine later."""
    box = pilot.app.query_one("#filter")
    for _ in range(100):
        await ready(pilot)
        if said in str(box.border_subtitle):
            break
        await pilot.pause(0.05)
    return box


async def until(pilot, shown) -> None:
    """Wait, pressing nothing, until `shown()` holds."""
    deadline = time.monotonic() + HANG
    while not shown():
        assert time.monotonic() < deadline, "the change never showed"
        await pilot.pause(0.05)
    await pilot.pause()


async def settled(pilot, done) -> None:
    """Every worker finished (those each one started too) until `done()` holds."""
    for _ in range(50):
        if done():
            return
        await ready(pilot)
    assert done()


def screen_text(app) -> str:
    """Every character on the terminal now, as the user sees it."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
