"""A topic larger than what arXiv serves per query (its ~10,000-result cap): synced whole in
`submittedDate` windows, and resumed after a kill without fetching finished windows again."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest

from reader.store import Store, Topic
from reader.sync import syncer as sync_module
from tests.conftest import ROOT
from tests.corpus import TODAY, recent_papers
from tests.helpers.sync import run_sync

QUERY = "cat:cs.LG OR cat:cs.AI"  # an OR at the top: the window must not bind to its last term
WINDOWED = re.compile(r"\((?P<query>.+)\) AND submittedDate:\[(?P<first>\d{12}) TO (?P<last>\d{12})\]")
HORIZON_START = f"{TODAY - timedelta(weeks=16):%Y%m%d}0000"


def searches(fake) -> list:
    return [r for r in fake.search_requests() if r.params.get("search_query", "").startswith("(")]


@pytest.mark.slow
async def test_a_topic_of_25000_papers_past_a_cap_of_10000_is_synced_whole(fake_arxiv, data_dir):
    fake_arxiv.cap = 10_000
    served = recent_papers(25_000, per_day=250)  # 100 days: all inside the 16-week horizon
    fake_arxiv.queries[QUERY] = served
    store = Store(data_dir)
    store.add_topic("ML", QUERY)
    report = await run_sync(store, fake_arxiv, [Topic("ML", QUERY)], delay=0)
    (result,) = report.topics
    assert result.error is None and result.note is None
    assert result.new == 25_000 and set(store.index().ids) == {p.id for p in served}
    requests = searches(fake_arxiv)
    assert all(int(r.params["start"]) + int(r.params["max_results"]) <= 10_000 for r in requests)
    windows = [WINDOWED.fullmatch(r.params["search_query"]) for r in requests]
    assert all(w is not None and w["query"] == QUERY for w in windows)
    assert windows[0]["first"] == HORIZON_START  # the horizon, then what the cap left of it
    assert len({w["last"] for w in windows if w}) == 3
    # 25 pages of 1,000 would be the floor; each window starts with a page of 200
    assert result.requests == len(requests) <= 25 + 3
    assert result.arxiv_total == 25_000
    state = store.sync_file.sync_state("ML")
    assert state.spans == ((HORIZON_START, f"{TODAY + timedelta(days=1):%Y%m%d}2359"),)


@pytest.mark.slow
def test_a_killed_first_sync_resumes_without_fetching_finished_windows(fake_arxiv, data_dir):
    """SIGKILL in the middle of a windowed first sync (a cap of 1,000, pages of 100, saves every
    500 papers), then a second sync: it asks only for what was not saved."""
    fake_arxiv.cap = 1_000
    served = recent_papers(3_000, per_day=30)
    fake_arxiv.queries[QUERY] = served
    Store(data_dir).add_topic("ML", QUERY)
    script = (
        "import sys; from reader.sync import syncer as sync; from reader.cli import main; "
        "sync.PAGE_SIZE = sync.BULK_PAGE_SIZE = 100; sync.SAVE_EVERY = 500; sync.ARXIV_RESULT_CAP = 1000; "
        "sys.exit(main(['sync']))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "READER_DATA_DIR": str(data_dir),
        "READER_TODAY": TODAY.isoformat(),
        "READER_ARXIV_API_URL": fake_arxiv.api_url,
        "READER_ARXIV_RSS_URL": fake_arxiv.rss_url,
        "READER_ARXIV_DELAY": "0.05",
    }
    process = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(searches(fake_arxiv)) < 23 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL, process.stderr.read() if process.stderr else ""
    killed_after = len(searches(fake_arxiv))
    store = Store(data_dir)
    state = store.sync_file.sync_state("ML")
    (span,) = state.spans  # how far down the killed sync had saved: 500 papers at a time
    saved = len(store.index())
    assert saved >= 1_500 and state.last_sync is None
    assert {p.id for p in served if sync_module._minute_of(p.published) >= span[0]} <= set(store.index().ids)

    fake_arxiv.requests.clear()
    import asyncio

    async def resume():
        sync_module.PAGE_SIZE = sync_module.BULK_PAGE_SIZE = 100
        sync_module.SAVE_EVERY, sync_module.ARXIV_RESULT_CAP = 500, 1000
        return await run_sync(store, fake_arxiv, [Topic("ML", QUERY)], delay=0)

    saved_constants = (sync_module.PAGE_SIZE, sync_module.BULK_PAGE_SIZE, sync_module.SAVE_EVERY, sync_module.ARXIV_RESULT_CAP)
    try:
        report = asyncio.run(resume())
    finally:
        sync_module.PAGE_SIZE, sync_module.BULK_PAGE_SIZE, sync_module.SAVE_EVERY, sync_module.ARXIV_RESULT_CAP = saved_constants
    (result,) = report.topics
    assert result.error is None and len(store.index()) == 3_000
    resumed = searches(fake_arxiv)
    # The top week again (papers are announced days after submission: 7 days of 30 a day, 3
    # pages), then only below what was saved: never the finished windows in between.
    margin_pages = 3
    below = [WINDOWED.fullmatch(r.params["search_query"]) for r in resumed[margin_pages:]]
    assert all(w and w["last"] <= span[0] for w in below), [r.params for r in resumed]
    assert len(resumed) <= margin_pages + (3_000 - saved) // 100 + 3
    assert len(resumed) < killed_after  # less than was fetched before the kill
    assert store.sync_file.sync_state("ML").spans == ((HORIZON_START, f"{TODAY + timedelta(days=1):%Y%m%d}2359"),)
