"""The status line, and the background sync whose progress it shows (run in a child process:
see reader/sync/process.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widgets import Static

from reader.core.text import plural
from reader.errors import ReaderError
from reader.store import Store, Topic
from reader.sync.process import sync_in_child, sync_job
from reader.sync.types import SyncEvent, SyncReport
from reader.sync.types import client_options as options_of

if TYPE_CHECKING:
    from reader.arxiv.options import ClientOptions
    from reader.config import Settings


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
        self.update(message, layout=False)  # one line at any length: a layout of the screen cost ~12 ms per message

    def sync(self, store: Store, settings: Settings, topics: list[Topic], client_options: ClientOptions | None) -> bool:
        """Start syncing `topics` (arXiv as `client_options` say; None: as the settings say);
        False when a sync is already running."""
        if self.syncing:
            return False
        self.syncing = True
        self.say(f"Syncing {plural(len(topics), 'topic', thousands=True)}…")
        self._run_sync(store, settings, topics, client_options)
        return True

    @work(exclusive=True, group="sync")
    async def _run_sync(self, store: Store, settings: Settings, topics: list[Topic], client_options: ClientOptions | None) -> None:
        report: SyncReport | None = None
        error: str | None = None
        job = sync_job(
            store, topics, today=settings.today(), horizon_weeks=settings.sync_weeks, options=client_options or options_of(settings)
        )
        try:
            report = await sync_in_child(job, on_event=self._event, on_notice=self.say)
        except ReaderError as problem:
            error = str(problem)
        finally:
            self.syncing = False
        self.post_message(self.SyncFinished(report, error))

    def _event(self, event: SyncEvent) -> None:
        self.say(event.message[:1].upper() + event.message[1:])
