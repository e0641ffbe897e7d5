"""The main screen's sync: started by R, on start when due, or for a topic just added; its
report said in the status line and notifications; the cache read again in a worker after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.screen import Screen

from reader.app.keys import key
from reader.app.memory import collect_before_reload, keep_loaded
from reader.app.widgets.status import StatusLine
from reader.core.text import plural
from reader.errors import ReaderError
from reader.service import CacheUpdate, LibraryService, open_service

if TYPE_CHECKING:
    from reader.app.widgets.paper_list import PaperList
    from reader.arxiv.options import ClientOptions
    from reader.models import PaperIndex


class SyncActions(Screen):
    """Mixed into MainScreen, which provides the panes and the search index's preparation."""

    service: LibraryService
    client_options: ClientOptions | None  # tests' loopback arXiv; None: the settings'

    if TYPE_CHECKING:
        _offline_told: bool

        @property
        def paper_list(self) -> PaperList: ...
        @property
        def status(self) -> StatusLine: ...
        def refresh_everything(self, *, keep: str | None = None) -> None: ...
        def open_cache(self) -> object: ...
        def _prepare_search(self, changed: list[str] | None, index: PaperIndex | None = None) -> None: ...
        def _read_triage(self, *, visit: bool = False) -> None: ...

    def action_sync(self) -> None:
        topics = self.service.topics
        if not topics:
            self.app.notify(f"No topics to sync: add one with {key(self.app, 'app.add_topic')}.", severity="warning")
            return
        self.start_sync(topics)

    def start_sync(self, topics) -> None:
        if not self.status.sync(self.service.store, self.service.settings, topics, self.client_options):
            self.app.notify("A sync is already running.")
            return
        keep_loaded()  # a sync at start may come before the loaded cache is kept (see memory.py)

    @on(StatusLine.SyncFinished)
    def _sync_finished(self, event: StatusLine.SyncFinished) -> None:
        report = event.report
        if report is None:
            self.app.notify(f"Sync failed: {event.error}", severity="error", timeout=15)
            self.status.say(f"Sync failed: {event.error}")
            return
        if report.offline:  # said once: in the status line, or where it is hidden (a short terminal) in a toast
            message = f"Offline: arXiv cannot be reached (no network?). Showing {'the demo set' if self.service.is_demo else 'the cached papers'}."
            self.status.say(message)
            if not self.status.display and not self._offline_told:
                self.app.notify(message, severity="warning", timeout=10)
                self._offline_told = True
            return
        for result in report.failed:
            self.app.notify(f"{result.topic}: {result.error}", severity="error", timeout=15)
        summary = f"Synced: {report.new:,} new, {report.updated:,} updated"
        if report.failed:
            summary += f"; {plural(len(report.failed), 'topic', thousands=True)} failed"
        self.status.say(summary)
        if report.changed_ids or self.service.is_demo:
            collect_before_reload()
            self._reload_after_sync(report.changed_ids)

    @work(thread=True, exclusive=True, group="reload")
    def _reload_after_sync(self, changed_ids: list[str]) -> None:
        try:
            if self.service.is_demo:
                service = open_service(self.service.store, self.service.settings)
                if not service.is_demo:  # real papers arrived: leave the demo for the cache
                    self.app.call_from_thread(self._replace_service, service)
                return
            update = self.service.read_update()
        except ReaderError as error:
            self.app.call_from_thread(self.app.notify, f"Cannot read the cache: {error}", severity="error")
            return
        # The new papers' cards and words first, so the list never shows a paper it cannot draw.
        self._prepare_search(changed_ids, update.index)  # the order the list shows next
        self.app.call_from_thread(self._updated, update, changed_ids)
        self._read_triage()

    def _replace_service(self, service: LibraryService) -> None:
        self.service = service
        self.app.service = service  # type: ignore[attr-defined]
        self.open_cache()

    def _updated(self, update: CacheUpdate, changed_ids: list[str]) -> None:
        keep = self.paper_list.current
        self.service.apply_update(update)
        self.paper_list.forget_cards(changed_ids)
        self.refresh_everything(keep=keep)
