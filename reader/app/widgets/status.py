"""The status line, and the background sync whose progress it shows."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widgets import Static

from reader.errors import ReaderError
from reader.store import Store, Topic

if TYPE_CHECKING:  # the network stack loads with the first sync, not at start-up
    from reader.arxiv.client import ArxivClient
    from reader.config import Settings
    from reader.sync import SyncEvent, SyncReport


def plural(count: int, one: str, many: str | None = None) -> str:
    """`1 topic`, `2 topics`, `1,204 papers`."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


class StatusLine(Static):
    """One line of plain text (never markup: sync messages quote server text). Runs syncs and
    posts `SyncFinished` when one ends."""

    class SyncFinished(Message):
        def __init__(self, report: SyncReport | None, error: str | None):
            super().__init__()
            self.report = report
            self.error = error

    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id, markup=False)
        self.syncing = False

    def say(self, message: str) -> None:
        self.update(message)

    def sync(self, store: Store, settings: Settings, topics: list[Topic], client_factory: Callable[[], ArxivClient] | None) -> bool:
        """Start syncing `topics`; False when a sync is already running."""
        if self.syncing:
            return False
        self.syncing = True
        self.say(f"Syncing {plural(len(topics), 'topic')}…")
        self._run_sync(store, settings, topics, client_factory)
        return True

    @work(exclusive=True, group="sync")
    async def _run_sync(self, store: Store, settings: Settings, topics: list[Topic], client_factory) -> None:
        # The network stack's first import takes ~0.3 s: in a thread, not on the event loop.
        await asyncio.to_thread(importlib.import_module, "reader.sync")
        from reader.sync import Syncer, client_for

        report: SyncReport | None = None
        error: str | None = None
        try:
            client = client_factory() if client_factory else client_for(settings, on_notice=self.say)
            async with client:
                syncer = Syncer(store, client, today=settings.today(), horizon_weeks=settings.sync_weeks, on_event=self._event)
                report = await syncer.run(topics)
        except ReaderError as problem:
            error = str(problem)
        finally:
            self.syncing = False
        self.post_message(self.SyncFinished(report, error))

    def _event(self, event: SyncEvent) -> None:
        self.say(event.message[:1].upper() + event.message[1:])
