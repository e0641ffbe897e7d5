"""Sync progress: the rate and time-left arithmetic, the plain lines off a terminal, and the Rich
bars in a real pseudo-terminal against the loopback arXiv."""

from __future__ import annotations

import io
import os
import re
import sys

import pytest

from reader.cli import main
from reader.commands.progress import SyncProgress, duration
from reader.sync import syncer as sync_module
from reader.sync.syncer import SyncEvent
from tests.arxiv_server import Fault
from tests.conftest import ROOT
from tests.corpus import TODAY, recent_papers
from tests.terminal import run_in_terminal

QUERY = "ti:agent AND cat:cs.LG"


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_time_left_counts_pages_at_the_observed_pace_and_never_faster_than_the_delay():
    clock = Clock()
    tracker = SyncProgress(delay=3.0, clock=clock)
    tracker.event(SyncEvent("RL for LLM Agents", "syncing RL for LLM Agents"))
    assert tracker.status_line() == "RL for LLM Agents 0 fetched"
    clock.now += 1.0  # the first page took 1 s
    tracker.event(SyncEvent("RL for LLM Agents", "", 200, 3050))
    # 15 pages left (2,850 / 200 a page), each 1 s of request + 3 s of polite wait
    assert tracker.seconds_left(tracker.current) == 60.0
    assert tracker.status_line() == "RL for LLM Agents 200 / 3,050 · 1 min left"
    for _ in range(5):
        clock.now += 5.0  # slower than the delay: a slow server
        tracker.event(SyncEvent("RL for LLM Agents", "", tracker.current.fetched + 200, 3050))
    assert tracker.current.fetched == 1200
    assert tracker.seconds_left(tracker.current) == 10 * 5.0  # 1,850 left: 10 pages at 5 s
    assert tracker.rate(tracker.current) == 1200 / 26.0
    assert tracker.status_line("RL for LLM Agents") == "RL for LLM Agents 1,200 / 3,050 · 50 s left"


def test_the_delay_is_a_floor_on_each_page_and_retries_are_counted():
    clock = Clock()
    tracker = SyncProgress(delay=3.0, clock=clock)
    tracker.event(SyncEvent("Big", "syncing Big"))
    for _ in range(3):
        clock.now += 0.5  # a fast server, yet pages come at most one per 3 s
        tracker.event(SyncEvent("Big", "", tracker.current.fetched + 100, 1000))
    assert tracker.seconds_left(tracker.current) == 7 * 3.0
    tracker.notice("arXiv answered HTTP 503; retrying in 5 s")
    assert tracker.current.retries == 1
    assert tracker.status_line() == "Big 300 / 1,000 · 21 s left · arXiv answered HTTP 503; retrying in 5 s"
    tracker.event(SyncEvent("Other", "syncing Other"))
    assert tracker.topics["Big"].finished and tracker.status_line("Big") == "Big 300 / 1,000"
    tracker.event(SyncEvent("Other", "Other: arXiv answered HTTP 503 (gave up after 5 tries)"))
    assert tracker.status_line() == "Other 0 fetched · failed"


def test_durations_read_as_a_person_says_them():
    assert [duration(s) for s in (0.4, 40, 59.6, 61, 3000, 3600 * 2 + 5 * 60)] == ["0 s", "40 s", "1 min", "1 min", "50 min", "2 h 05 min"]


def env_for(fake, delay: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key.startswith("READER_") or key in ("PATH", "HOME")}
    env.update(
        TERM="xterm-256color",
        PYTHONPATH=str(ROOT),
        READER_ARXIV_API_URL=fake.api_url,
        READER_ARXIV_RSS_URL=fake.rss_url,
        READER_ARXIV_DELAY=delay,
        READER_ARXIV_BACKOFF="0.01",
        READER_TODAY=TODAY.isoformat(),
    )
    return env


def add_topic(fake, count: int) -> None:
    fake.queries[QUERY] = recent_papers(count, per_day=60)
    assert main(["topics", "remove", "RL for LLM Agents"]) == 0
    assert main(["topics", "add", "Agents", QUERY]) == 0


@pytest.mark.slow
def test_sync_in_a_terminal_shows_a_bar_with_counts_time_left_and_retries(fake_arxiv, capsys):
    add_topic(fake_arxiv, 600)
    fake_arxiv.faults = [None, Fault("status", status=503)]  # type: ignore[list-item]  # the 2nd page fails once
    capsys.readouterr()
    run = run_in_terminal(
        [sys.executable, "-m", "reader", "sync", "--topic", "Agents"],
        env=env_for(fake_arxiv, delay="0.3"),
        size=(120, 30),
        deadline=60,
    )
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", run.output)
    assert run.status == 0, screen
    assert "━" in screen  # the bar
    assert re.search(r"Agents\s+[━╺╸]+\s+200 / 600\s+[\d,.]+ papers/s\s+\d+ s left", screen), screen
    assert "600 / 600" in screen and "done" in screen
    assert "arXiv answered HTTP 503; retrying in" in screen
    assert "Agents: 600 new, 0 updated (600 fetched)" in screen


def test_sync_off_a_terminal_prints_plain_lines(fake_arxiv, monkeypatch, capsys):
    add_topic(fake_arxiv, 450)
    monkeypatch.setattr(sync_module, "BULK_PAGE_SIZE", 200)  # a line per page of 200
    for key, value in env_for(fake_arxiv, delay="0").items():
        if key.startswith("READER_"):
            monkeypatch.setenv(key, value)
    capsys.readouterr()
    assert main(["sync", "--topic", "Agents"]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "━" not in err
    lines = err.splitlines()
    assert lines[0] == "syncing Agents"
    assert re.fullmatch(r"Agents 200 / 450 · \d+ s left", lines[1])
    assert re.fullmatch(r"Agents 400 / 450 · \d+ s left", lines[2])
    assert lines[3] == "Agents 450 / 450 · 0 s left"


# Python made the session leader of the terminal it runs in, so that Ctrl+C typed there reaches it
# as it reaches a command run from a shell (run_in_terminal starts it in a new session).
IN_CONTROLLING_TERMINAL = "import fcntl, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); from reader.cli import main; sys.exit(main())"


@pytest.mark.slow
def test_ctrl_c_during_a_sync_says_interrupted_never_done_and_what_was_kept(fake_arxiv, capsys, data_dir):
    from reader.store import Store

    add_topic(fake_arxiv, 600)
    fake_arxiv.faults = [None, Fault("hang", seconds=30)]  # type: ignore[list-item]  # the 2nd page never comes
    capsys.readouterr()
    run = run_in_terminal(
        [sys.executable, "-c", IN_CONTROLLING_TERMINAL, "sync", "--topic", "Agents"],
        env=env_for(fake_arxiv, delay="0"),
        size=(120, 30),
        keys=[("200 / 600", "\x03")],
        deadline=60,
    )
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", run.output)
    assert run.status == 130, screen
    assert re.search(r"Agents\s+[━╺╸ ]+\s+200 / 600\s+.*interrupted", screen), screen
    assert "done" not in screen and "600 / 600" not in screen
    assert "Agents: interrupted after 200 fetched: 200 new, 0 updated kept (the next sync goes on from there)" in screen
    assert "interrupted: synced 0 of 1 topics; kept 200 new, 0 updated" in screen
    assert screen.rstrip().endswith("reader: interrupted")
    assert len(Store(data_dir).index().ids) == 200  # the page that arrived is saved


def test_an_interrupted_sync_off_a_terminal_ends_with_an_interrupted_line():
    from reader.commands.progress import PlainLines

    stream = io.StringIO()
    tracker = SyncProgress(delay=0)
    try:
        with PlainLines(tracker, stream) as lines:
            lines.event(SyncEvent("Agents", "syncing Agents"))
            lines.event(SyncEvent("Agents", "", 200, 600))
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert stream.getvalue().splitlines()[-1] == "Agents 200 / 600 · interrupted"
