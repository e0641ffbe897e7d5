"""A sync that cannot reach arXiv reads no cache index before arXiv answers (at a million papers
that read alone takes seconds), and ends after its one retry. The index here is damaged on
purpose: a store that read it would move it aside and rebuild it, so an index.json left as it
was proves that no part of the sync read it."""

from __future__ import annotations

import socket

import pytest

from reader.arxiv.client import ClientOptions
from reader.store import Store, Topic
from reader.sync.process import sync_in_child, sync_job
from tests.conftest import run
from tests.corpus import TODAY, recent_papers

DAMAGED = b'{"meta":{"1":{"schema":'


@pytest.fixture
def refusing_port() -> int:
    with socket.socket() as probe:  # bound, never listening: connections to it are refused
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def cache_with_damaged_index(data_dir):
    store = Store(data_dir)
    store.save_papers(recent_papers(30), None)
    store.add_topic("Agents", "ti:agents")  # never synced: a sync is due
    (data_dir / "index.json").write_bytes(DAMAGED)
    return data_dir


def assert_index_untouched(data_dir) -> None:
    assert (data_dir / "index.json").read_bytes() == DAMAGED
    assert not list(data_dir.glob("index.json.damaged-*"))


def test_reader_sync_without_arxiv_fails_without_reading_the_index(capsys, monkeypatch, refusing_port, cache_with_damaged_index):
    monkeypatch.setenv("READER_ARXIV_API_URL", f"http://127.0.0.1:{refusing_port}/api/query")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")
    code, out, err = run(capsys, "sync")
    assert code == 1, err
    assert f"FAILED: arXiv cannot be reached (127.0.0.1:{refusing_port} refused the connection)" in out
    assert "index.json" not in out + err
    assert_index_untouched(cache_with_damaged_index)


async def test_the_apps_sync_child_without_arxiv_fails_without_reading_the_index(refusing_port, cache_with_damaged_index):
    url = f"http://127.0.0.1:{refusing_port}"
    options = ClientOptions(api_url=f"{url}/api/query", rss_url=f"{url}/rss/", delay=0, retries=4, backoff=0.01, timeout=2)
    job = sync_job(Store(cache_with_damaged_index), [Topic("Agents", "ti:agents")], today=TODAY, horizon_weeks=16, options=options)
    report = await sync_in_child(job, lambda event: None, lambda message: None)
    assert report.offline
    assert_index_untouched(cache_with_damaged_index)
