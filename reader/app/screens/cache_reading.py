"""The main screen's reading of the cache: at its opening (index and marks first, the first cards
drawn, then the counts, the search index brought up to date, the triage), and what other
processes changed (the CLI, a second app, a cron sync). The opening worker's steps come back as
the messages below, which the screen hands to `opened`, `counted` and `search_prepared`."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.worker import Worker, WorkerState

from reader.app.keys import key
from reader.app.memory import give_back_freed, keep_loaded
from reader.app.screens.part import OutsideTaken, ScreenHost, ScreenPart, SyncWanted, TopicRemoved, TriageStale
from reader.core.catalog import Catalog
from reader.core.texmath import warm as warm_math
from reader.errors import ReaderError
from reader.service import ALL, LibraryService, View
from reader.service.outside import OutsideUpdate

if TYPE_CHECKING:
    from reader.app.widgets.paper_list import PaperList
    from reader.cache_index import CacheIndex

FIRST_PAINT_WAIT = 2.0  # seconds the opening worker waits for the first cards to be drawn before counting


class ReadingHost(ScreenHost, Protocol):
    """What reading the cache uses of its screen: the view and the panes it redraws, and the
    cache read again after papers arrived elsewhere. The parts whose state follows the cache
    (sync, triage, the detail view) follow the messages it posts."""

    service: LibraryService
    view: View
    sync_on_start: bool
    loaded: bool
    syncing: bool
    status_text: str

    @property
    def paper_list(self) -> PaperList: ...
    def reload_cache(self, changed_ids: list[str]) -> Worker[Any]: ...


class CacheReading(ScreenPart[ReadingHost]):
    """The cache read at the opening, and what changed elsewhere taken in."""

    class Opened(Message):
        """Index, marks and topics read (`sync_due`: a sync is due at the start); `painted` is
        set once the first cards are drawn."""

        def __init__(self, catalog: Catalog, sync_due: bool, painted: threading.Event):
            super().__init__()
            self.catalog, self.sync_due, self.painted = catalog, sync_due, painted

    class Counted(Message):
        """Every count of `catalog`, made in the worker with the marks at `version`."""

        def __init__(self, catalog: Catalog, counts: dict, version: int):
            super().__init__()
            self.catalog, self.counts, self.version = catalog, counts, version

    class SearchPrepared(Message):
        """The search index brought up to date (or not: the filters scan the shards); `warnings`:
        what the store repaired meanwhile."""

        def __init__(self, warnings: list[str]):
            super().__init__()
            self.warnings = warnings

    def open(self) -> Worker[None]:
        return self.in_thread(self._open, group="open", exclusive=True)

    def _open(self) -> None:
        """Index and marks first: counts, chart and list order are right at once; then the
        search index is brought up to date (the cards and filters meanwhile read the shards)."""
        screen, service = self.screen, self.screen.service
        try:
            catalog = service.open()
            due = screen.sync_on_start and bool(service.topics) and service.topic_sync.sync_due()
        except ReaderError as error:
            screen.app.notify(f"Cannot read the cache: {error}", severity="error", timeout=30)  # thread-safe
            return
        # The newest cards first; the counts and the chart's weeks (a pass over every paper:
        # ~0.5 s at 1,000,000) are made here meanwhile, never on the UI's thread, and follow.
        painted = threading.Event()
        screen.post_message(CacheReading.Opened(catalog, due, painted))
        painted.wait(FIRST_PAINT_WAIT)  # the UI's thread draws the cards first, not sharing the GIL with the count
        version = catalog.marks_version
        counts = catalog.counted(catalog.index)
        view = screen.view
        if view.kind in ("all", "topic"):
            service.momentum(view)
        screen.post_message(CacheReading.Counted(catalog, counts, version))
        self.prepare_search(None)
        screen.post_message(TriageStale(visit=True))
        if screen.paper_list.math == "unicode":
            warm_math()  # here, after the first paint, not in the fetch of the first cards with math

    def opened(self, message: CacheReading.Opened) -> None:
        screen = self.screen
        screen.loaded = screen.service.search_ready  # (the cache's index, once the demo gave way, is not yet)
        self.redraw_all()
        self.show_warnings(screen.service.take_warnings())
        if (notice := screen.service.notice()) is not None:
            screen.status_text = f"{notice} · {key(screen.app, 'app.sync')} syncs your topics" if screen.service.is_demo else notice
        if message.sync_due:
            screen.post_message(SyncWanted())

    def counted(self, message: CacheReading.Counted) -> None:
        catalog = message.catalog
        catalog.take_counts(message.counts, message.version)
        if not catalog.counted_already:  # a mark came meanwhile (rare): counted again, here
            catalog.counts()
        self.redraw(sidebar=True, chart=True)

    def prepare_search(self, changed: list[str] | None, index: CacheIndex | None = None) -> None:
        """In a worker: the search index brought up to date with the cache (or with the papers a
        sync changed, ready for filters in `index`'s order); when it cannot be, filters and
        cards keep reading the shards."""
        try:
            self.screen.service.prepare_search(changed, index)
        except ReaderError as error:
            message = f"Search index: {error}. Filters scan the cache instead (slower)."
            self.screen.app.notify(message, severity="warning", timeout=15)  # thread-safe
        give_back_freed()  # what reading the index and mapping the search rows left (~40 MB at 1,000,000 papers)
        self.screen.post_message(CacheReading.SearchPrepared(self.screen.service.take_warnings()))

    def search_prepared(self, message: CacheReading.SearchPrepared) -> None:
        screen = self.screen
        screen.loaded = screen.service.search_ready
        self.show_warnings(message.warnings)
        keep_loaded()

    def show_warnings(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.screen.app.notify(warning, title="Cache repaired", severity="warning", timeout=20)
        if warnings and not self.screen.syncing:  # the last one stays there once its notice is gone
            self.screen.status_text = warnings[-1]

    # --- changes made elsewhere ------------------------------------------------------------------------

    def reading(self) -> bool:
        """Whether the screen reads the cache itself (at its opening, after its sync, for a topic it
        removed): what other processes changed is taken in with it."""
        return any(
            worker.node is self.screen
            and worker.group in ("open", "reload", "topics")
            and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in self.screen.app.workers
        )

    def take_outside(self, update: OutsideUpdate) -> None:
        """What another process changed, shown quietly: the sidebar is the news. Cursor, filter
        and view stay, unless the view's topic, watch or tag is gone; an open dialog or detail
        view stays too."""
        screen, service = self.screen, self.screen.service
        topics = [topic.name for topic in service.topics]
        keep = screen.paper_list.current
        if not service.apply_outside(update):
            return  # out of date: the files are read again at the next look
        self.show_warnings(update.warnings)
        if service.is_demo and "index.json" in update.changed:
            screen.reload_cache([])  # papers synced elsewhere: the cache takes the demo's place
        for name in set(topics) - {topic.name for topic in service.topics}:
            screen.post_message(TopicRemoved(name))
        if "index.json" in update.changed:
            screen.paper_list.forget_cards()  # papers synced elsewhere: their cards are fetched again
        if (gone := self._view_gone()) is not None:
            screen.status_text = f"The {screen.view.kind} {gone!r} shown was removed by another process: All papers shown instead."
            screen.view = ALL
        self.redraw(sidebar=True, chart=True, papers=True, marks=True, keep=keep)  # marks: For you's re-ranking follows
        if update.cache is not None:
            keep_loaded()  # the new index and counts: out of the collector's full passes
        screen.post_message(OutsideTaken(papers_or_library=update.library_state is not None or update.cache is not None))

    def _view_gone(self) -> str | None:
        """The name of the view's topic, watch or tag, if there is no longer one of that name."""
        view, service = self.screen.view, self.screen.service
        names = {
            "topic": lambda: {topic.name for topic in service.topics},
            "watch": lambda: {watch.name for watch in service.triage.sets.watches},
            "tag": lambda: set(service.tags()),
        }.get(view.kind)
        return view.name if names is not None and view.name is not None and view.name not in names() else None
