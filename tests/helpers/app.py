"""Shared test helpers, first written for tests/test_app.py."""

from __future__ import annotations

import asyncio

import pytest
from textual.worker import WorkerCancelled, WorkerState

from reader.app import ReaderApp
from reader.arxiv.client import ClientOptions
from reader.config import Settings
from reader.service import View
from reader.store import Store
from tests.corpus import TODAY, record_synced
from tests.sample_papers import sample_papers as recent_papers

QUERY = "ti:agents"


def settings(**changes) -> Settings:
    values = dict(
        api_url="http://127.0.0.1:9/api/query",
        rss_url="http://127.0.0.1:9/rss/",
        delay=0.0,
        timeout=2.0,
        retries=0,
        backoff=0.01,
        today_override=TODAY,
        sync_weeks=16,
        sync_interval_hours=6,
        data_dir=None,
    )
    values.update(changes)
    return Settings(**values)


def full_text_app(store, base: str = "http://127.0.0.1:9", **changes) -> ReaderApp:
    """An app whose every arXiv address (API, feeds, HTML, PDF, ar5iv) is under `base` (the
    loopback arXiv; by default nothing listens there), with the settings `changes`."""
    options = ClientOptions(
        api_url=f"{base}/api/query",
        rss_url=f"{base}/rss/",
        html_url=f"{base}/html/",
        pdf_url=f"{base}/pdf/",
        ar5iv_url=f"{base}/ar5iv/",
        delay=0,
        retries=0,
        timeout=5,
    )
    return ReaderApp(store, settings(**changes), client_options=options, sync_on_start=False)


def make_app(store, fake=None, *, app_settings: Settings | None = None, **kwargs) -> ReaderApp:
    options = ClientOptions(
        api_url=fake.api_url if fake else "http://127.0.0.1:9/api/query", rss_url="http://127.0.0.1:9/rss/", delay=0, retries=0, timeout=2
    )
    return ReaderApp(store, app_settings or settings(), client_options=options, sync_on_start=False, **kwargs)


@pytest.fixture
def papers():
    return recent_papers(40)


@pytest.fixture
def store(data_dir, papers):
    store = Store(data_dir)
    store.add_topic("Agents", QUERY)
    store.add_topic("Other", "ti:other")
    store.save_papers(papers[:30], "Agents")
    store.save_papers(papers[25:40], "Other")
    record_synced(store, "Agents", QUERY)
    record_synced(store, "Other", "ti:other")
    return store


async def ready(pilot):
    """The app at rest: its workers done, the writes handed to the service's writer thread done,
    and what both said back to the UI's thread taken in. A worker's result is a message its
    screen handles after the worker ended, and a handler may start another worker: waited for
    too, until none runs. A worker cancelled meanwhile (an exclusive one a newer one replaced, on
    a loaded machine) is no failure: the newer one is waited for."""
    service = getattr(pilot.app, "service", None)
    for _ in range(20):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            await pilot.pause()
            continue
        if service is not None:
            await asyncio.to_thread(service.flush)
        await pilot.pause()
        if not any(worker.state in (WorkerState.PENDING, WorkerState.RUNNING) for worker in pilot.app.workers):
            break


async def open_paper(pilot):
    """Enter on the highlighted paper: the detail view, its record read and drawn."""
    await pilot.press("enter")
    await ready(pilot)


async def choose(pilot, view: View) -> None:
    """Move the sidebar's highlight to `view` with the keys a user would press."""
    sidebar = pilot.app.main.sidebar
    if pilot.app.focused is not sidebar:
        await pilot.press("tab")
    assert pilot.app.focused is sidebar
    await pilot.press("home")
    for _ in range(len(sidebar.views)):
        if pilot.app.main.view == view:
            break
        await pilot.press("j")
    assert pilot.app.main.view == view
    await ready(pilot)


def card_text(app, index: int = 0) -> str:
    """The lines of the index-th visible card as the screen shows them."""
    plist = app.main.paper_list
    first = index * plist.card_height - int(plist.scroll_y)
    return "\n".join(plist.render_line(first + row).text for row in range(plist.card_height))
