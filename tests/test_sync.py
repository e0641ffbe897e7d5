"""Sync against a real loopback HTTP server that plays arXiv."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from reader.store import Store, Topic
from reader.store.index_files import IndexFiles
from reader.sync import syncer as sync_module
from tests.arxiv_server import Fault
from tests.atom import feed_xml
from tests.corpus import recent_papers
from tests.helpers.sync import run_sync

QUERY = 'abs:"reinforcement learning" AND abs:agent'


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(sync_module, "PAGE_SIZE", 50)
    monkeypatch.setattr(sync_module, "BULK_PAGE_SIZE", 50)


@pytest.fixture
def store(data_dir):
    return Store(data_dir)


def stored(store):
    return store.load_papers()


async def test_first_sync_pages_to_the_horizon_and_reproduces_every_field(fake_arxiv, store, small_pages):
    served = recent_papers(900, per_day=5)  # 180 days back: past the 16-week horizon
    fake_arxiv.queries[QUERY] = served
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    (result,) = report.topics
    assert result.error is None
    searches = [r for r in fake_arxiv.search_requests() if r.params["max_results"] != "0"]
    assert [int(r.params["start"]) for r in searches] == list(range(0, 50 * len(searches), 50))
    assert all(r.params["sortBy"] == "submittedDate" and r.params["sortOrder"] == "descending" for r in searches)
    # 16 weeks at 5 a day is 560 papers: the sync stops at the first page that reaches past them.
    assert 560 <= result.fetched <= 610 and result.fetched == result.new
    cached = stored(store)
    assert len(cached) == result.fetched
    for paper in served[: result.fetched]:
        assert cached[paper.id].to_json() == paper.to_json()
    assert all(store.index().topics_of(p.id) == ["RL"] for p in served[: result.fetched])


async def test_requests_are_polite(fake_arxiv, store, small_pages):
    fake_arxiv.queries[QUERY] = recent_papers(300)
    await run_sync(store, fake_arxiv, [Topic("RL", QUERY)], delay=0.2)
    requests = fake_arxiv.requests
    assert len(requests) >= 4
    assert fake_arxiv.max_in_flight == 1
    assert len({r.client_port for r in requests}) == 1, "one connection, kept alive"
    gaps = [b.started - a.ended for a, b in itertools.pairwise(requests)]
    # The server thread may wait for the GIL a few ms before it stamps a request's end.
    assert min(gaps) >= 0.2 - 0.03, gaps
    assert all(r.user_agent.startswith("reader/") for r in requests)


@pytest.mark.slow
async def test_incremental_sync_stops_at_papers_it_already_has(fake_arxiv, store, small_pages):
    fake_arxiv.queries[QUERY] = recent_papers(900)
    await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    newer = recent_papers(7, id_base=50000)  # today's new arrivals, ahead of everything known
    fake_arxiv.queries[QUERY] = newer + fake_arxiv.queries[QUERY]
    fake_arxiv.requests.clear()
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert (report.topics[0].new, report.topics[0].updated) == (7, 0)
    searches = [r for r in fake_arxiv.search_requests() if r.params["max_results"] != "0"]
    assert len(searches) <= 2
    assert all(p.id in stored(store) for p in newer)


async def test_one_copy_per_paper_across_topics_and_versions(fake_arxiv, store):
    papers = recent_papers(30)
    v2 = dataclasses.replace(papers[5], version=papers[5].version + 1, title="A revised title")
    fake_arxiv.queries["ti:a"] = papers[:20]
    fake_arxiv.queries["ti:b"] = papers[10:30]
    report = await run_sync(store, fake_arxiv, [Topic("A", "ti:a"), Topic("B", "ti:b")])
    assert [(t.new, t.updated) for t in report.topics] == [(20, 0), (10, 0)]
    index = store.index()
    assert len(index) == 30
    assert index.topics_of(papers[15].id) == ["A", "B"]
    fake_arxiv.queries["ti:a"] = [v2] + papers[:5] + papers[6:20]
    await run_sync(store, fake_arxiv, [Topic("A", "ti:a")])
    cached = stored(store)
    assert len(cached) == 30
    assert cached[v2.id].version == v2.version and cached[v2.id].title == "A revised title"


async def test_503_with_retry_after_is_honoured(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(20)
    fake_arxiv.faults = [Fault("status", 503, {"Retry-After": "1"})]
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.topics[0].error is None and report.topics[0].new == 20
    first, second = fake_arxiv.requests[:2]
    assert second.started - first.ended >= 0.99


async def test_429_without_retry_after_backs_off_longer(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(20)
    fake_arxiv.faults = [Fault("status", 429)]
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)], backoff=0.1)
    assert report.topics[0].new == 20
    first, second = fake_arxiv.requests[:2]
    assert second.started - first.ended >= 0.6 - 0.01  # six times the 0.1 s backoff


async def test_timeout_is_retried(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(20)
    fake_arxiv.faults = [Fault("hang", seconds=1.5)]
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)], timeout=0.5)
    assert report.topics[0].error is None and report.topics[0].new == 20


@pytest.mark.parametrize("kind", ["reset", "truncate", "html", "invalid"])
async def test_broken_responses_are_retried(fake_arxiv, store, kind):
    fake_arxiv.queries[QUERY] = recent_papers(20)
    fake_arxiv.faults = [Fault(kind)]
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.topics[0].error is None and report.topics[0].new == 20


async def test_spurious_empty_page_in_the_middle_is_retried(fake_arxiv, store, small_pages):
    fake_arxiv.queries[QUERY] = recent_papers(120)
    # The first page answers normally; the second comes back empty once.
    original = fake_arxiv.answer
    calls = {"n": 0}

    def flaky(path, params):
        calls["n"] += 1
        if calls["n"] == 2:
            return 200, {}, feed_xml([], total=0, start=int(params["start"]), per_page=0)
        return original(path, params)

    fake_arxiv.answer = flaky
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.topics[0].error is None
    assert report.topics[0].new == 120
    starts = [r.params["start"] for r in fake_arxiv.search_requests() if r.params["max_results"] != "0"]
    assert starts == ["0", "50", "50", "100"]


async def test_error_feed_fails_the_topic_with_arxivs_message_and_keeps_the_cache(fake_arxiv, store):
    fake_arxiv.queries["ti:a"] = recent_papers(10)
    await run_sync(store, fake_arxiv, [Topic("A", "ti:a")])
    before = {pid: p.to_json() for pid, p in stored(store).items()}
    report = await run_sync(store, fake_arxiv, [Topic("Bad", "ti:unknown-to-the-server")])
    (result,) = report.topics
    assert (
        result.error
        == f"arXiv says: Invalid query string: '{sync_module.window_query('ti:unknown-to-the-server', '202608120000', '202612032359')}'"
    )
    assert {pid: p.to_json() for pid, p in stored(store).items()} == before


async def test_retries_run_out_with_a_clear_message_and_nothing_lost(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(10)
    await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    before = {pid: p.to_json() for pid, p in stored(store).items()}
    fake_arxiv.faults = [Fault("status", 503)] * 4
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)], retries=3)
    assert report.topics[0].error == "arXiv answered HTTP 503 (gave up after 4 tries)"
    assert {pid: p.to_json() for pid, p in stored(store).items()} == before
    assert store.index().topics_of(next(iter(before))) == ["RL"]


async def test_a_response_far_too_large_is_refused(fake_arxiv, store, monkeypatch):
    from reader.arxiv import client as client_module

    monkeypatch.setattr(client_module, "MAX_RESPONSE_BYTES", 4 * 1024 * 1024)
    fake_arxiv.queries[QUERY] = recent_papers(10)
    fake_arxiv.faults = [Fault("huge", seconds=50)]
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert "exceeded 4 MB" in report.topics[0].error
    assert stored(store) == {}


async def test_a_server_that_never_answers_is_bounded_by_timeouts(fake_arxiv, store):
    fake_arxiv.faults = [Fault("hang", seconds=3)] * 2
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)], timeout=0.3, retries=1)
    assert report.topics[0].error == "arXiv did not answer in time (nothing for 0.3 s) (gave up after 2 tries)"


async def test_share_of_all_new_papers_is_asked_once_and_cached(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(10)
    window_query = "submittedDate:[202611050000 TO 202612022359]"
    fake_arxiv.totals[window_query] = 24321
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.total_new_last4 == 24321
    counts = [r for r in fake_arxiv.search_requests() if r.params["max_results"] == "0"]
    assert [r.params["search_query"] for r in counts] == [window_query]
    fake_arxiv.requests.clear()
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.total_new_last4 == 24321
    assert not [r for r in fake_arxiv.search_requests() if r.params["max_results"] == "0"]


async def test_announced_replacements_bring_newer_versions(fake_arxiv, store):
    from tests.atom import rss_xml

    papers = recent_papers(12)
    fake_arxiv.queries[QUERY] = papers
    store.add_topic("RL", QUERY)
    await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    categories = store.sync_file.synced_categories()
    assert categories and set(categories) <= {p.primary_category for p in papers}
    replaced = dataclasses.replace(papers[7], version=papers[7].version + 1, title="Revised after review")
    stranger = dataclasses.replace(papers[0], id="2611.99999", version=3)  # not cached: ignored
    fake_arxiv.by_id[replaced.id] = replaced
    fake_arxiv.rss["+".join(categories)] = rss_xml([(replaced, "replace"), (stranger, "replace"), (papers[1], "new")])
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.versions.error is None and report.versions.updated == 1
    assert report.changed_ids == [replaced.id]
    cached = stored(store)[replaced.id]
    assert (cached.version, cached.title) == (replaced.version, "Revised after review")
    assert "2611.99999" not in stored(store)
    id_requests = [r for r in fake_arxiv.search_requests() if r.params.get("id_list")]
    assert [r.params["id_list"] for r in id_requests][-1] == replaced.id


async def test_no_connection_at_all_fails_fast_and_skips_the_other_topics(store):
    import socket
    import time as clock

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class Closed:
        api_url = f"http://127.0.0.1:{port}/api/query"
        rss_url = f"http://127.0.0.1:{port}/rss/"

    started = clock.monotonic()
    report = await run_sync(store, Closed, [Topic("A", "ti:a"), Topic("B", "ti:b")], retries=4, backoff=0.2)
    assert clock.monotonic() - started < 2  # one retry, not four with growing waits
    assert report.offline
    assert [t.error for t in report.topics] == [f"arXiv cannot be reached (127.0.0.1:{port} refused the connection)"] * 2


async def test_a_sync_leaves_the_index_whole_in_index_json_and_its_columns(fake_arxiv, store, small_pages, monkeypatch):
    # Its saves append to index.log (issue 32); once at its end index.json and index.columns are
    # written whole, so that the next start or listing folds no log in.
    from reader.store import index_log

    monkeypatch.setattr(index_log, "MIN_ROWS", 10_000)  # every save of this sync appends
    fake_arxiv.queries[QUERY] = recent_papers(300, per_day=5)
    store.save_papers(recent_papers(400, per_day=5)[350:], None)  # a cache before: index.json with a log
    appended = []
    real_append = index_log.append
    monkeypatch.setattr(index_log, "append", lambda path, line: appended.append(len(line)) or real_append(path, line))
    report = await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert report.topics[0].new == 300 and appended  # the sync's saves appended
    assert not (store.data_dir / "index.log").exists()
    read = []
    monkeypatch.setattr(IndexFiles, "_read_index_json", lambda self: read.append(1) or None)
    index = Store(store.data_dir).index()
    assert read == [] and len(index) == 350 and sum(1 for mask in index.masks if mask) == 300


async def test_a_sync_ends_with_the_search_index_current(fake_arxiv, store, small_pages, monkeypatch):
    from reader.core.query import parse
    from reader.search_index import SearchIndex
    from reader.sync import search_keeper

    monkeypatch.setattr(search_keeper, "BATCH_SHARDS", 2)  # batches indexed while the sync goes on, then the rest
    fake_arxiv.queries[QUERY] = recent_papers(900, per_day=5)
    (result,) = (await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])).topics
    assert result.error is None and len(store.shards()) > 2
    index = SearchIndex.open(store.data_dir)
    try:
        cached = set(stored(store))
        assert all(index.matching(parse(f"id:{pid}")) == {pid} for pid in cached)
        assert index.refresh(store) == 0  # every shard was indexed as it is now
    finally:
        index.close()


async def test_a_search_index_that_cannot_be_kept_during_a_sync_leaves_the_sync_whole(fake_arxiv, store, small_pages, monkeypatch):
    import sqlite3

    from reader.search_index import SearchIndex
    from reader.sync import search_keeper

    def locked(self, *args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(search_keeper, "BATCH_SHARDS", 2)
    monkeypatch.setattr(SearchIndex, "refresh", locked)  # derived: the next refresh (app, list --query) does it
    fake_arxiv.queries[QUERY] = recent_papers(300, per_day=5)
    (result,) = (await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])).topics
    assert result.error is None and len(stored(store)) == 300


def _index_rows(index) -> set[tuple]:
    """Every indexed paper's row as its partition holds it (id, shard, fingerprint, date key)."""
    from reader.search_index import PARTITIONS

    rows: set[tuple] = set()
    for part in range(PARTITIONS):
        rows |= set(index._read(part, lambda db: db.execute("SELECT id, shard, fingerprint, date FROM papers").fetchall()))
    return rows


async def test_a_sync_feeds_its_batches_to_search_index_processes_started_once(fake_arxiv, store, small_pages, monkeypatch, tmp_path):
    import os
    import subprocess

    from reader.core.query import parse
    from reader.search_index import SearchIndex, processes
    from reader.sync import search_keeper

    monkeypatch.setattr(search_keeper, "BATCH_SHARDS", 2)
    monkeypatch.setattr(processes, "OFFLOAD_BYTES", 0)  # every batch, however small, goes to child processes
    started: list[list[str]] = []
    real_popen = subprocess.Popen

    def popen(argv, *args, **kwargs):
        if "reader.search_index.build" in argv:
            started.append(argv)
        return real_popen(argv, *args, **kwargs)

    refreshes = []
    real_refresh = SearchIndex.refresh

    def refresh(self, store, shards=None, **kwargs):
        refreshes.append(sorted(shards or []))
        return real_refresh(self, store, shards, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setattr(SearchIndex, "refresh", refresh)
    fake_arxiv.queries[QUERY] = recent_papers(900, per_day=5)
    (result,) = (await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])).topics
    monkeypatch.setattr(subprocess, "Popen", real_popen)
    monkeypatch.setattr(SearchIndex, "refresh", real_refresh)
    assert result.error is None and len(refreshes) >= 2  # batches while it fetched, and the rest at its end
    assert 0 < len(started) <= (os.cpu_count() or 1)  # one process a core for all of them
    kept, scratch = SearchIndex.open(store.data_dir), SearchIndex(tmp_path / "scratch")
    try:
        cached = stored(store)
        assert scratch.refresh(store) == len(cached) > 500 and kept.refresh(store) == 0
        assert _index_rows(kept) == _index_rows(scratch) and {row[0] for row in _index_rows(kept)} == set(cached)
        for query in ("id:" + next(iter(cached)), "learning", '"reinforcement learning"', "cat:cs.LG ANDNOT reward"):
            assert kept.matching(parse(query)) == scratch.matching(parse(query))
        assert kept.cards(cached) == scratch.cards(cached)
    finally:
        kept.close()
        scratch.close()


async def test_a_sync_whose_search_index_processes_cannot_start_indexes_in_its_own(fake_arxiv, store, small_pages, monkeypatch):
    import sys

    from reader.search_index import SearchIndex, processes
    from reader.sync import search_keeper

    monkeypatch.setattr(search_keeper, "BATCH_SHARDS", 2)
    monkeypatch.setattr(processes, "OFFLOAD_BYTES", 0)
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")  # every child's start fails
    fake_arxiv.queries[QUERY] = recent_papers(600, per_day=5)
    (result,) = (await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])).topics
    monkeypatch.undo()
    index = SearchIndex.open(store.data_dir)
    try:
        assert result.error is None and index.refresh(store) == 0
        assert index.paper_count() == len(stored(store)) > 0
    finally:
        index.close()


def _served_builds() -> list[int]:
    """This process's children that are kept search-index builds (Linux: /proc)."""
    import os
    from pathlib import Path

    found = []
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"reader.search_index.build" in argv and b"--serve" in argv:
            found.append(int(entry.name))
    return found


async def test_a_sync_that_fails_after_its_topics_leaves_no_search_index_process(fake_arxiv, store, monkeypatch):
    """The announcements' batches start the kept build processes too: a sync that fails (or is
    cancelled) after them ends them, as one that succeeds does."""
    import asyncio
    from pathlib import Path

    from reader.search_index import processes
    from reader.sync import search_keeper

    if not Path("/proc/self/stat").exists():
        pytest.skip("reads /proc")
    monkeypatch.setattr(search_keeper, "BATCH_SHARDS", 1)
    monkeypatch.setattr(processes, "OFFLOAD_BYTES", 0)  # every batch goes to the processes

    async def refresh_versions(self, categories):  # a batch of shards saved, then a failure
        newer = [dataclasses.replace(paper, version=paper.version + 1) for paper in self.store.load_papers().values()]
        await asyncio.to_thread(self.store.save_papers, newer, None, on_shard=self.on_shard)
        batch = self.search._job
        assert batch is not None
        await asyncio.to_thread(batch.result)  # (indexed by the processes, which stay for the next batch)
        raise RuntimeError("the announcements failed")

    monkeypatch.setattr(sync_module.Syncer, "refresh_versions", refresh_versions)
    fake_arxiv.queries[QUERY] = recent_papers(60, per_day=5)
    with pytest.raises(RuntimeError):
        await run_sync(store, fake_arxiv, [Topic("RL", QUERY)])
    assert _served_builds() == []
