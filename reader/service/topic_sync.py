"""Syncing topics from the app (the library service's `topic_sync`): in a child process (see
sync/process.py), and whether a sync is due or another process's has ended."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from reader.config import Settings
from reader.store import Store, Topic

if TYPE_CHECKING:
    from reader.arxiv.options import ClientOptions
    from reader.sync.types import SyncEvent, SyncReport


class TopicSync:
    def __init__(self, store: Store, settings: Settings):
        self._store = store
        self._settings = settings

    async def sync(
        self,
        topics: list[Topic],
        options: ClientOptions | None,
        *,
        on_event: Callable[[SyncEvent], None],
        on_notice: Callable[[str], None],
    ) -> SyncReport:
        """Sync `topics` into the cache in a child process (see sync/process.py), from arXiv as
        `options` say (None: as the settings say), passing on its events and notices; its
        report, or ReaderError (StoreLockedError: another process is syncing)."""
        from reader.sync.process import sync_in_child, sync_job
        from reader.sync.types import client_options

        settings = self._settings
        options = options or client_options(settings)
        job = sync_job(self._store, topics, today=settings.today(), horizon_weeks=settings.sync_weeks, options=options)
        return await sync_in_child(job, on_event=on_event, on_notice=on_notice)

    def other_sync_ended(self, wait: float) -> bool:
        """Whether the sync another process runs (a `reader sync`) has ended, waited for up to
        `wait` seconds. Call in a worker."""
        return self._store.sync_ended(wait)

    def sync_due(self) -> bool:
        limit = datetime.now(UTC) - timedelta(hours=self._settings.sync_interval_hours)
        for topic in self._store.topics():
            last = self._store.sync_file.last_sync(topic.name)
            if last is None or datetime.fromisoformat(last.replace("Z", "+00:00")) < limit:
                return True
        return False
