"""The library service: the one way the app reaches the cache (and the demo set).

It holds the in-memory `Library` (index and marks: counts, chart and list order) that screens
draw from, answers filters and cards from the search index (search.py) rather than
holding every record, and does every disk access for them: reads run in the caller's worker
thread (cards, a few at a time, on any thread); writes of user state go,
in order, through one writer thread, so a key press never waits for a disk (or for a sync's
save, which holds another lock). One service serves the app for its whole life: while the cache
holds no papers its papers are the demo set's (demo.py), until `leave_demo` takes the cache in
its place; no holder of the service is ever left with a stale one.
No Textual here: the app, tests and scripts use it alike."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from itertools import compress
from typing import TYPE_CHECKING, TypeVar

from reader.config import Settings
from reader.core.coverage import Span, unsynced_note, unsynced_topics
from reader.core.exporting import render
from reader.core.library import Library
from reader.core.momentum import Momentum, headline
from reader.core.query import Node, parse
from reader.core.ranking import NeedsStars
from reader.errors import ReaderError, StoreError
from reader.fulltext.store import TextStore
from reader.meaning.kept import KeptIndex
from reader.models import IdRows, IdTable, PackedIds, Paper, PaperIndex
from reader.searchdb import Card
from reader.service.adding import AddingMethods
from reader.service.citations import CitationMethods
from reader.service.exports import ExportMethods
from reader.service.list_order import ListOrderMethods
from reader.service.marks_writer import MarksWriter
from reader.service.meaning import MeaningMethods
from reader.service.outside import PAPER_FILES, OutsideChanges, OutsideMethods, Stamps
from reader.service.ranker import RankedList, RankerProcess
from reader.service.search import LibrarySearch, MemorySearch
from reader.service.tags_notes import TagsAndNotes
from reader.service.triage import TriageMethods
from reader.service.triage_sets import TriageSets
from reader.service.views import FOR_YOU, HIDDEN, STARRED, View
from reader.service.writer_thread import WriterThread
from reader.store import Store, Topic
from reader.store.library_state import LibraryDoc
from reader.store.store import shard_of
from reader.store.syncstate import TopicSyncState, current_spans

if TYPE_CHECKING:
    from reader.arxiv.options import ClientOptions
    from reader.service.demo import DemoSource
    from reader.sync.types import SyncEvent, SyncReport

T = TypeVar("T")
QUIT_SECONDS = 2.0  # the longest a quit waits for the writer thread
CLOSE_SECONDS = 60.0  # ...and a close without a quit (tests, scripts): any queued write done


@dataclass(frozen=True, slots=True)
class CacheUpdate:
    """The cache's state, read and counted in a worker thread, for the UI's thread to take."""

    index: PaperIndex
    topics: list[Topic]
    total_new_last4: int | None
    sync_states: dict[str, TopicSyncState] = dataclasses.field(default_factory=dict)
    counts: dict | None = None  # Library.counted, with the marks of `marks_version`
    marks_version: int = -1
    momenta: dict = dataclasses.field(default_factory=dict)  # view's topic -> Momentum
    library_state: tuple[LibraryDoc, dict[str, int]] | None = None  # tags and notes, as the service keeps them
    library_writes: int = -1  # the service's writes of tags and notes when they were read
    stamps: Stamps = dataclasses.field(default_factory=dict)  # of index.json and sync.json, as read


class LibraryService(
    TagsAndNotes, TriageMethods, OutsideMethods, ExportMethods, AddingMethods, CitationMethods, ListOrderMethods, MeaningMethods
):
    """The cache of one data directory; the demo set's papers instead while `demo` is given."""

    def __init__(self, store: Store, settings: Settings, *, demo: DemoSource | None = None):
        self.store = store
        self.settings = settings
        self.demo = demo  # None: the cache's papers (for good, once the demo gave way)
        self.library = Library(PaperIndex())
        self.search: LibrarySearch | MemorySearch = LibrarySearch(store) if demo is None else demo.search
        self.topics: list[Topic] = []
        self._total_new_last4: int | None = None  # all new arXiv papers (momentum's share), from sync.json
        self._sync_states: dict[str, TopicSyncState] = {}  # coverage and arXiv totals, from sync.json
        self._momenta: dict[str | None, Momentum] = {}  # each view's chart, for the current index
        self._library_state = (LibraryDoc(), {})  # tags and notes (see tags_notes.py)
        self._library_writes = 0
        self._library_lock = threading.Lock()
        # Runs a function on the UI's thread (the app sets it); the library is only changed there.
        self.run_on_ui: Callable[[Callable[[], None]], None] = lambda function: function()
        # One thread writes user state, in the order the user acted.
        self._writer = WriterThread()
        self.marks = MarksWriter(store, self._writer)  # marks pending until saved, never dropped
        self._pending_notes: dict[str, str] = {}  # paper id -> the latest text typed, not yet written
        self._notes_lock = threading.Lock()
        self.for_you: RankedList | NeedsStars | None = None  # the latest ranking, set on the UI's thread
        # For you's filter order: (ranking, library index, ids of both, id -> position in them)
        self._ranked: tuple[RankedList, PaperIndex, Sequence[str], IdTable] | None = None
        self._ranker_process: RankerProcess | None = None  # started at the first ranking
        self.triage = TriageSets()  # new, updated, watched papers: read in a worker, taken on the UI's thread
        self._visited: set[str] = set()  # topics looked at since the app started
        # The data directory's files as last taken in: what other processes change is news.
        self.outside = OutsideChanges(store.data_dir)
        store.on_own_write(self.outside.writing)
        self._marks_queued = 0  # changes of marks handed to the writer thread...
        self._marks_written = 0  # ...and done with by it (see apply_outside)
        self._sorts: dict[str, str] | None = None  # each view's order (see list_order.py)
        self._orders: dict = {}
        self._orders_lock = threading.Lock()
        self._meaning = KeptIndex(store.data_dir)  # the meaning index, opened once (see meaning.py)

    @property
    def is_demo(self) -> bool:
        return self.demo is not None

    def cache_has_papers(self) -> bool:
        """Whether a sync (the app's, or one elsewhere) has brought papers into the cache."""
        return bool(self.store.shards())

    def leave_demo(self) -> None:
        """The cache's papers from now on, in the demo's place (on the UI's thread, once the cache
        has papers): what was the demo's is dropped, its marks too (they were never saved).
        Then `open` reads the cache, as at the start."""
        self.demo = None
        self.search = LibrarySearch(self.store)
        self.for_you = None
        self._ranked = None
        self.triage = TriageSets()
        self._momenta = {}
        self._sorts = None  # the cache's user state's, not the demo's

    # --- reading --------------------------------------------------------------------------------

    def open(self) -> Library:
        """Index, marks and topics (~30 ms at 100,000 papers): counts, chart and list order are
        right before any record is read; the first paint waits for nothing more (counting for
        it then takes the UI's thread once; later updates are counted in `read_update`). Then
        `prepare_search`."""
        self.outside.taken(self.outside.stamps())  # before reading: a change meanwhile is read again
        if self.demo is not None:
            self.topics = self.store.topics()
            self.library = self.demo.library()
            return self.library
        index, marks = self.store.index(), self.store.marks()
        self.topics = self.store.topics()
        self._total_new_last4 = self.store.total_new_last4(self.settings.today())
        self._sync_states = self.store.sync_states()
        self._library_state = self._read_library_state()
        self.library = Library(index, marks.read, marks.starred, marks.hidden)
        self._momenta = {}
        return self.library

    def take_warnings(self) -> list[str]:
        """What the store repaired since last asked (a damaged file moved aside, state restored)."""
        warnings = list(self.store.warnings)
        self.store.warnings.clear()
        return warnings

    def start_search(self) -> None:
        """Begin `prepare_search`'s work at once, in the background (the app, as it starts)."""
        self.search.start()

    def prepare_search(self, changed: Iterable[str] | None = None, index: PaperIndex | None = None) -> None:
        """Bring the search index up to date with the cache (or with the papers a sync changed),
        in a worker thread: ~20 ms when nothing changed, seconds for a first build of a large
        cache, meanwhile filters and cards come from the shards. Raises ReaderError when the
        index cannot be written (they keep coming from the shards). Filters are then ready to
        answer in the order of `index` (the library's when None; a sync's next one)."""
        self.search.refresh(None if changed is None else sorted({shard_of(pid) for pid in changed}))
        index = index or self.library.index
        self.search.prepare_order(index.ids, index.positions())

    @property
    def search_ready(self) -> bool:
        return self.search.ready

    def cards(self, ids: Iterable[str]) -> dict[str, Card]:
        """What the list's cards show for these papers (a screenful or two at a time)."""
        return self.search.cards(ids)

    def text_store(self) -> TextStore | None:
        """The papers' stored full texts (None for the demo set, which has no arXiv ids)."""
        return TextStore(self.store.data_dir) if self.demo is None else None

    def load_paper(self, paper_id: str) -> Paper | None:
        """The whole record of one paper (one record of a small shard): for the detail view."""
        if self.demo is not None:
            return self.demo.load_paper(paper_id)
        try:
            return self.store.load_paper(paper_id)
        except ReaderError:
            return None

    def select(self, view: View, *, unread: bool = False, query: Node | None = None) -> Sequence[str]:
        """Ids in the view's order (newest first, or best first For you): what the list shows (the
        view's papers, unread ones if asked, those matching the query if given). A view in the
        library's order is a view of its index's rows (IdRows), no string per paper."""
        if view == FOR_YOU:
            ranking = self.for_you
            if not isinstance(ranking, RankedList):
                return []
            if query is None:
                return self._narrow(IdRows(ranking.ids, range(len(ranking)), ranking.table().get), unread=unread)
            order, position = self._ranked_order(ranking)
            return self._narrow(self.search.ordered(query, order, position, ranked=True), unread=unread)
        # The query's matches first, in the library's order (see SearchIndex.ordered), then the
        # view's own filters over them.
        matched = None if query is None else self._matching_in_order(query)
        within: Collection[str] | None = None
        if view.kind in ("new", "updated", "watch"):
            within = self.view_members(view)
        elif view.kind == "tag":
            try:
                within = self.store.papers_tagged(view.name or "")
            except StoreError:  # a tag deleted meanwhile
                within = ()
        return self.library.select(
            topic=view.topic, starred=view == STARRED, hidden=view == HIDDEN, unread=unread, among=matched, within=within
        )

    def _matching_in_order(self, query: Node) -> IdRows:
        index = self.library.index
        return self.search.ordered(query, index.ids, index.positions())

    def _ranked_order(self, ranking: RankedList) -> tuple[Sequence[str], IdTable]:
        """The ranked papers the library holds (a sync may have removed some since), best first,
        and each one's position: what `ordered` answers a filter For you in. Made once per
        ranking and library index (~20 ms at 100,000 papers), in the ranking's worker when it can."""
        index = self.library.index
        made = self._ranked
        if made is None or made[0] is not ranking or made[1] is not index:
            held = index.positions().rows_of(ranking.ids, -1) >= 0
            if held.all():
                order: Sequence[str] = ranking.ids
                position = ranking.table()
            else:
                order = PackedIds.pack(list(compress(ranking.ids, held.tolist()))) or []
                position = IdTable(order)
            made = self._ranked = (ranking, index, order, position)
        return made[2], made[3]

    def _narrow(self, ids: IdRows, *, unread: bool) -> IdRows:
        """A ranking's `ids` in their order, less the hidden ones and the read ones (if asked)."""
        marked = (self.library.hidden | self.library.read) if unread else self.library.hidden
        return ids.keeping(marked.__contains__, keep=False) if marked else ids

    def _as_of(self) -> date:
        return self.settings.today() if self.demo is None else self.demo.as_of

    def papers(self, ids: list[str]) -> list[Paper]:
        """Whole records of `ids` from the store, in that order (for export: never from what
        happens to be loaded). Ids the cache no longer holds are left out (every demo paper)."""
        if self.demo is not None:
            return []
        records = self.store.papers_by_id(ids)
        return [records[pid] for pid in ids if pid in records]

    def export_text(self, format: str, papers: list[Paper], *, unicode: bool = False) -> str:
        """The papers in an export format (see core/exporting.py), with the user's tags and notes,
        under their recorded keys. Call in a worker."""
        tags = {pid: list(names) for pid, names in self.store.tags_of(p.id for p in papers).items() if names}
        return render(
            format,
            papers,
            unicode=unicode,
            tags=tags,
            notes=self.store.notes(),
            keys=self.citation_keys(papers),
            print_arxiv_id=self.settings.bibtex_print_arxiv_id,
        )

    def citation(self, paper: Paper) -> str:
        """The paper's BibTeX entry under its recorded key (what `y` copies). Call in a worker."""
        return render("bibtex", [paper], keys=self.citation_keys([paper]), print_arxiv_id=self.settings.bibtex_print_arxiv_id)

    def citation_keys(self, papers: list[Paper], taken: Sequence[str] = ()) -> dict[str, str]:
        """Each paper's recorded citation key; a paper without one is given one (unique against
        `taken` too: the keys of a file being added to), recorded by the writer thread in order
        with the other changes of user state (it waits for them)."""
        return self._writer.submit(self._taking_library_state(lambda: self.store.citation_keys(papers, taken))).result()

    def charted_already(self, view: View) -> bool:
        """Whether `momentum` answers at once for the view (else it counts its papers' weeks)."""
        return view.topic in self._momenta

    def momentum(self, view: View) -> Momentum:
        """Weekly counts for the view, as of today (from memory: no disk read)."""
        if self.demo is not None:
            return self.demo.momentum(self.library, view.topic)
        momentum = self._momenta.get(view.topic)
        if momentum is None:
            spans = current_spans(self.topics, self._sync_states)
            momentum = self._momentum_of(view.topic, self.library.index, spans, self._total_new_last4)
            self._momenta[view.topic] = momentum
        return momentum

    def _momentum_of(self, topic: str | None, index: PaperIndex, spans: dict[str, tuple[Span, ...]], total: int | None) -> Momentum:
        return self.library.momentum(self.settings.today(), topic=topic, total_new_last4=total, spans=spans, index=index)

    def chart(self, view: View) -> tuple[Momentum, str, str]:
        """The chart's bars, title and headline for a view of papers; a topic's title says how
        many papers arXiv has for it (as of its last sync) beside how many are cached."""
        momentum = self.momentum(view)
        if self.demo is not None:
            return self.demo.chart(momentum, view)
        title = view.topic or "All papers"
        state = self._sync_states.get(view.topic) if view.topic else None
        if state is not None and state.arxiv_total is not None:
            index = self.library.index
            cached = index.count_in(state.name)
            title += f" · {state.arxiv_total:,} on arXiv · {cached:,} cached"
        said = headline(momentum)
        if view.topic is None and (unsynced := unsynced_topics(current_spans(self.topics, self._sync_states))):
            said += f" · {unsynced_note(unsynced)}"  # left out of the bars and figures
        return momentum, title, said

    def notice(self) -> str | None:
        """A standing remark about the papers shown, for the status line."""
        return None if self.demo is None else self.demo.notice()

    def read_update(self) -> CacheUpdate:
        """The cache's state after a sync, read and counted in a worker thread (the work grows
        with the cache: 100,000 papers take ~0.2 s)..."""
        stamps = self.outside.stamps(PAPER_FILES)  # before reading: a change meanwhile is read again
        index, topics, states = self.store.index(), self.store.topics(), self.store.sync_states()
        total = self.store.total_new_last4(self.settings.today())
        index.positions()  # its id table, made here rather than on the UI's thread
        version = self.library.marks_version
        counts = self.library.counted(index)
        spans = current_spans(topics, states)
        momenta = {name: self._momentum_of(name, index, spans, total) for name in [None, *(t.name for t in topics)]}
        writes = self._library_writes
        return CacheUpdate(index, topics, total, states, counts, version, momenta, self._read_library_state(), writes, stamps)

    def apply_update(self, update: CacheUpdate) -> None:
        """...taken on the UI's thread: counts, chart and order change at once (counts made while
        a mark changed are made again)."""
        self.topics = update.topics
        if self.demo is not None:
            return  # the demo's papers stay as they are
        self._total_new_last4 = update.total_new_last4
        self._sync_states = update.sync_states
        fresh = update.marks_version == self.library.marks_version
        self.library.reindex(update.index, update.counts if fresh else None)
        self._momenta = dict(update.momenta)
        if update.library_state is not None:
            self._keep_library_state(update.library_state, update.library_writes)
        self.outside.taken(update.stamps)

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

        settings = self.settings
        options = options or client_options(settings)
        job = sync_job(self.store, topics, today=settings.today(), horizon_weeks=settings.sync_weeks, options=options)
        return await sync_in_child(job, on_event=on_event, on_notice=on_notice)

    def other_sync_ended(self, wait: float) -> bool:
        """Whether the sync another process runs (a `reader sync`) has ended, waited for up to
        `wait` seconds. Call in a worker."""
        return self.store.sync_ended(wait)

    def sync_due(self) -> bool:
        limit = datetime.now(UTC) - timedelta(hours=self.settings.sync_interval_hours)
        for topic in self.store.topics():
            last = self.store.last_sync(topic.name)
            if last is None or datetime.fromisoformat(last.replace("Z", "+00:00")) < limit:
                return True
        return False

    # --- writing --------------------------------------------------------------------------------

    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> Future:
        """Change marks in memory now and on disk in the writer thread; one whose write fails
        stays, and is saved later (marks_writer.py says how, and when the user is told)."""
        library = self.library
        if read:
            self.triage.updated.discard(paper_id)  # read again: at the version the cache holds
        changes = {"read": read, "starred": starred, "hidden": hidden}
        before = {
            kind: paper_id in marked
            for kind, marked in (("read", library.read), ("starred", library.starred), ("hidden", library.hidden))
            if changes[kind] is not None
        }
        library.set_marks(paper_id, read=read, starred=starred, hidden=hidden)
        return self._save_marks({paper_id: (before, {kind: value for kind, value in changes.items() if value is not None})})

    def set_read_many(self, paper_ids: Collection[str], read: bool) -> Future:
        """Mark these papers read (or unread again), as `set_marks` does, in one write."""
        library, ids = self.library, list(paper_ids)
        before = {paper_id: paper_id in library.read for paper_id in ids}
        library.set_read_many(ids, read)
        return self._save_marks({paper_id: ({"read": before[paper_id]}, {"read": read}) for paper_id in ids})

    def _save_marks(self, changes: dict[str, tuple[dict[str, bool], dict[str, bool]]]) -> Future:
        """Hand changes of marks (paper id -> each mark as shown before, as wanted) to the writer."""
        self._marks_queued += 1
        if self.demo is None:  # demo marks are not saved (told now: the demo may give way before the write)
            for paper_id, (before, wanted) in changes.items():
                self.marks.change(paper_id, before, wanted)

        def write() -> None:
            try:
                self.marks.write_pending()  # (with those a failed write left)
            finally:
                self._marks_written += 1

        return self._writer.submit(write)

    def setting(self, key: str, default=None):
        return self.store.setting(key, default)

    def set_setting(self, key: str, value, on_error: Callable[[str], None] | None = None) -> Future:
        def write() -> None:
            try:
                self.store.set_setting(key, value)
            except ReaderError as error:
                if on_error is not None:
                    message = f"Could not save the {key.replace('_', ' ')}: {error}"
                    self.run_on_ui(lambda: on_error(message))

        return self._writer.submit(write)

    def add_topic(self, name: str, query: str) -> tuple[Topic, int, CacheUpdate]:
        """Add a topic (its query in arXiv's syntax, checked by the caller) and give it at once,
        with no request, every cached paper its query matches here: (the topic, how many
        papers it got, the cache's state after, for the UI's thread). The next sync adds
        arXiv's answer; until then the topic's weeks are not synced."""
        topic = self.store.add_topic(name, query)
        self.topics = self.store.topics()
        filled = self.store.add_to_topic(topic.name, self.search.matching(parse(query)))
        return topic, filled, self.read_update()

    def remove_topic(self, name: str) -> CacheUpdate:
        self.store.remove_topic(name)
        return self.read_update()

    def _write(self, action: Callable[[], T], on_error: Callable[[str], None] | None) -> Future:
        """Run a change of user state in the writer thread; a failure reaches `on_error` (on the
        UI's thread) as one line, and the future gives None (always for demo papers: they are not
        in the cache, their tags and notes are not kept)."""
        demo = self.demo is not None

        def write() -> T | None:
            try:
                if demo:
                    raise ReaderError("the demo set is kept in memory only: tags and notes are not saved")
                return action()
            except ReaderError as error:
                if on_error is not None:
                    message = f"Not saved: {error}"
                    self.run_on_ui(lambda: on_error(message))
                return None

        return self._writer.submit(write)

    def flush(self) -> None:
        """Wait for every write queued so far."""
        self._writer.idle()

    def finish(self, timeout: float) -> str | None:
        """Before the app exits: wait up to `timeout` seconds for the writes, then keep the marks
        still not saved for the next start (marks_writer.py); a line for the terminal when some are
        (None when all is saved)."""
        self._writer.shutdown(timeout)
        return self.marks.close()

    def close(self) -> None:
        """Stop the ranking and the writer (at once after `finish`; else after the queued writes)."""
        if self._ranker_process is not None:
            self._ranker_process.close()
        self.finish(CLOSE_SECONDS)
        self.search.close()
