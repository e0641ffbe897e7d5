"""The app's sync in a child process (reader/sync/process.py), against the loopback arXiv."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from reader.arxiv.client import ClientOptions
from reader.errors import ReaderError, StoreLockedError
from reader.store import Store, Topic
from reader.sync.process import sync_in_child, sync_job
from reader.sync.syncer import SyncEvent
from tests.arxiv_server import Fault
from tests.corpus import TODAY, recent_papers

QUERY = "ti:agents"


def job_for(store, fake, topics):
    options = ClientOptions(api_url=fake.api_url, rss_url=fake.rss_url, delay=0, retries=0, timeout=2)
    return sync_job(store, topics, today=TODAY, horizon_weeks=16, options=options)


@pytest.mark.slow
async def test_the_child_saves_the_papers_and_reports_events_and_results(fake_arxiv, data_dir):
    served = recent_papers(300, per_day=5)
    fake_arxiv.queries[QUERY] = served
    store = Store(data_dir)
    events: list[SyncEvent] = []
    report = await sync_in_child(job_for(store, fake_arxiv, [Topic("Agents", QUERY)]), events.append, lambda message: None)
    (result,) = report.topics
    assert (result.new, result.error, result.arxiv_total) == (300, None, 300)
    assert sorted(report.changed_ids) == sorted(p.id for p in served)
    assert set(store.load_papers()) == {p.id for p in served}
    assert events[0].message == "syncing Agents" and max(e.fetched for e in events) == 300


async def test_a_refusal_in_the_child_is_its_one_line_message(fake_arxiv, data_dir):
    store = Store(data_dir)
    with store.sync_lock():  # another sync (the CLI's) is running
        with pytest.raises(ReaderError) as refused:
            await sync_in_child(job_for(store, fake_arxiv, [Topic("Agents", QUERY)]), lambda event: None, lambda message: None)
        with pytest.raises(StoreLockedError) as locked, Store(data_dir).sync_lock():
            pass
    assert str(refused.value) == str(locked.value) and not fake_arxiv.search_requests()


async def test_cancelled_the_child_stops_and_lets_go_of_the_store(fake_arxiv, data_dir):
    fake_arxiv.faults = [Fault("hang", seconds=5)]  # the first topic's first request
    fake_arxiv.queries["ti:later"] = recent_papers(50)
    store = Store(data_dir)
    started = asyncio.Event()
    job = job_for(store, fake_arxiv, [Topic("Agents", QUERY), Topic("Later", "ti:later")])
    sync = asyncio.create_task(sync_in_child(job, lambda event: started.set(), lambda message: None))
    await started.wait()  # the child holds the sync lock and waits on arXiv
    sync.cancel()
    await asyncio.gather(sync, return_exceptions=True)
    while True:  # the child stops as its stdin closes and lets go of the lock
        try:
            with store.sync_lock():
                break
        except StoreLockedError:
            await asyncio.sleep(0.05)
    # Had it gone on after the hang, it would have synced the second topic before letting go.
    assert not any("later" in r.params.get("search_query", "") for r in fake_arxiv.requests) and not store.load_papers()


@pytest.mark.slow  # a sync of 300 papers, then their meaning vectors in the child
async def test_the_report_comes_before_the_meaning_vectors_which_follow_in_the_background(fake_arxiv, data_dir):
    from reader.meaning import vectors
    from reader.service.meaning import Meaning
    from reader.store.files import file_lock

    fake_arxiv.queries[QUERY] = recent_papers(300, per_day=5)
    store = Store(data_dir)
    (data_dir / vectors.DIRECTORY).mkdir(parents=True)
    # Another build holds the meaning lock: the child waits for it after the sync, never before its report.
    with file_lock(data_dir / vectors.DIRECTORY / vectors.LOCK, wait=0, what="a build"):
        report = await sync_in_child(job_for(store, fake_arxiv, [Topic("Agents", QUERY)]), lambda event: None, lambda message: None)
        assert report.topics[0].new == 300
        assert vectors.MeaningVectors.open(data_dir) is None and vectors.building(data_dir)
        cached = SimpleNamespace(index=range(300))  # what the service's note asks of its catalog
        meaning = Meaning(data_dir, catalog=lambda: cached, search=None, demo=lambda: None, select=None, load_paper=None)  # type: ignore[arg-type]
        assert meaning.meaning_vectors() == (None, "Meaning is being learned in the background (after a sync); showing word matches")
    deadline = time.monotonic() + 120
    while vectors.building(data_dir) or vectors.MeaningVectors.open(data_dir) is None:  # the child takes the lock, builds, lets go
        assert time.monotonic() < deadline, "the child never built the meaning vectors"
        await asyncio.sleep(0.05)
    index = vectors.MeaningVectors.open(data_dir)
    assert index is not None and len(index.ids) == 300
