"""The main screen's sync: started by R, on start when due, or for a topic just added; run by the
service in a child process, its progress and report said in the status line and notifications;
the cache read again in a worker after it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.worker import get_current_worker

from reader.app.keys import key
from reader.app.memory import collect_before_reload, keep_loaded
from reader.app.screens.part import ScreenHost, ScreenPart, TriageStale
from reader.core.text import plural
from reader.errors import ReaderError, StoreLockedError
from reader.service import CacheUpdate, LibraryService

if TYPE_CHECKING:
    from textual.worker import Worker

    from reader.app.widgets.paper_list import PaperList
    from reader.arxiv.options import ClientOptions
    from reader.cache_index import CacheIndex
    from reader.store import Topic
    from reader.sync.types import SyncEvent, SyncReport


class SyncHost(ScreenHost, Protocol):
    """What the sync uses of its screen: the service (the app's one, which leaves the demo set
    for the cache once papers arrive), the sync's state and the status line's text (reactive: the
    widgets showing them follow), and the reading of the cache after a sync."""

    service: LibraryService
    client_options: ClientOptions | None  # tests' loopback arXiv; None: the settings'
    syncing: bool
    status_text: str

    @property
    def status_shown(self) -> bool: ...
    @property
    def paper_list(self) -> PaperList: ...
    def open_cache(self) -> object: ...
    def prepare_search(self, changed: list[str] | None, index: CacheIndex | None = None) -> None: ...


OTHER_SYNC = "Another process is syncing (reader sync): its papers show here as they arrive"
OTHER_SYNC_LOOK = 0.5  # seconds between looks at whether the other process's sync has ended


class Sync(ScreenPart[SyncHost]):
    """One sync at a time, its messages on the status line. Its workers' results come back as the
    messages below; the screen's handlers hand them to `take_update`, `leave_demo` and
    `other_sync_ended`."""

    class CacheRead(Message):
        """The cache as a sync (or papers added) left it, read in a worker; `changed_ids`: the
        papers it changed, whose cards are fetched again."""

        def __init__(self, update: CacheUpdate, changed_ids: list[str]):
            super().__init__()
            self.update, self.changed_ids = update, changed_ids

    class PapersArrived(Message):
        """Real papers are in the cache while the demo set is shown: the cache takes its place."""

    class OtherSyncEnded(Message):
        """The sync another process ran (reader sync) has ended."""

    def __init__(self, screen: SyncHost):
        super().__init__(screen)
        self._offline_told = False  # "arXiv cannot be reached" is notified once

    def sync_all(self) -> None:
        topics = self.screen.service.topics
        if not topics:
            self.screen.app.notify(f"No topics to sync: add one with {key(self.screen.app, 'app.add_topic')}.", severity="warning")
            return
        self.start(topics)

    def start(self, topics: list[Topic]) -> None:
        screen = self.screen
        if screen.syncing:
            screen.app.notify("A sync is already running.")
            return
        screen.syncing = True
        self._say(f"Syncing {plural(len(topics), 'topic', thousands=True)}…")
        self.in_loop(self._run, topics, group="sync", exclusive=True)
        keep_loaded()  # a sync at start may come before the loaded cache is kept (see memory.py)

    async def _run(self, topics: list[Topic]) -> None:
        report: SyncReport | None = None
        error: str | None = None
        try:
            report = await self.screen.service.topic_sync.sync(
                topics, self.screen.client_options, on_event=self._event, on_notice=self._say
            )
        except StoreLockedError:
            error = OTHER_SYNC
        except ReaderError as problem:
            error = str(problem)
        finally:
            self.screen.syncing = False
        self._finished(report, error)

    def _await_other_sync(self) -> None:
        """In a worker: the status line cleared once the other process's sync has ended."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            if self.screen.service.topic_sync.other_sync_ended(OTHER_SYNC_LOOK):
                self.screen.post_message(Sync.OtherSyncEnded())
                return

    def other_sync_ended(self) -> None:
        if not self.screen.syncing and self.screen.status_text == OTHER_SYNC:
            self._say("")

    def _say(self, text: str) -> None:
        self.screen.status_text = text

    def _event(self, event: SyncEvent) -> None:
        self._say(event.message[:1].upper() + event.message[1:])

    def _finished(self, report: SyncReport | None, error: str | None) -> None:
        app, screen, service = self.screen.app, self.screen, self.screen.service
        if error == OTHER_SYNC:  # not a failure: said until that sync ends
            self._say(OTHER_SYNC)
            if not screen.status_shown:  # a short terminal hides the status line
                app.notify(OTHER_SYNC)
            self.in_thread(self._await_other_sync, group="other-sync", exclusive=True)
            return
        if report is None:
            app.notify(f"Sync failed: {error}", severity="error", timeout=15)
            self._say(f"Sync failed: {error}")
            return
        if report.offline:  # said once: in the status line, or where it is hidden (a short terminal) in a toast
            message = (
                f"Offline: arXiv cannot be reached (no network?). Showing {'the demo set' if service.is_demo else 'the cached papers'}."
            )
            self._say(message)
            if not screen.status_shown and not self._offline_told:
                app.notify(message, severity="warning", timeout=10)
                self._offline_told = True
            return
        for result in report.failed:
            app.notify(f"{result.topic}: {result.error}", severity="error", timeout=15)
        summary = f"Synced: {report.new:,} new, {report.updated:,} updated"
        if report.failed:
            summary += f"; {plural(len(report.failed), 'topic', thousands=True)} failed"
        self._say(summary)
        if report.changed_ids or service.is_demo:
            self.reload(report.changed_ids)

    def reload(self, changed_ids: list[str]) -> Worker[Any]:
        """Read the cache again, in a worker (returned), after a sync (ours, or one elsewhere) or
        papers added, taking the papers it changed into the search index first."""
        collect_before_reload()
        return self.in_thread(self._reload, changed_ids, group="reload", exclusive=True)

    def _reload(self, changed_ids: list[str]) -> None:
        """In a worker: the cache as the sync left it."""
        screen = self.screen
        try:
            if screen.service.is_demo:
                if screen.service.cache_has_papers():  # real papers arrived: leave the demo for the cache
                    screen.post_message(Sync.PapersArrived())
                return
            update = screen.service.read_update()
        except ReaderError as error:
            screen.app.notify(f"Cannot read the cache: {error}", severity="error")  # thread-safe
            return
        # The new papers' cards and words first, so the list never shows a paper it cannot draw.
        screen.prepare_search(changed_ids, update.index)  # the order the list shows next
        screen.post_message(Sync.CacheRead(update, changed_ids))
        screen.post_message(TriageStale())  # new and watched papers among those the sync brought

    def leave_demo(self) -> None:
        """The same service, its papers the cache's now: read as at the start (every screen,
        dialog and part holding the service sees the cache from now on)."""
        self.screen.service.leave_demo()
        self.screen.open_cache()

    def take_update(self, update: CacheUpdate, changed_ids: list[str]) -> None:
        screen = self.screen
        keep = screen.paper_list.current
        screen.service.apply_update(update)
        screen.paper_list.forget_cards(changed_ids)
        self.redraw_all(keep=keep)
