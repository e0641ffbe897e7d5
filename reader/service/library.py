"""The library service: the one way the app reaches the cache (and the demo set).

It holds the in-memory `Catalog` (index and marks: counts, chart and list order) that screens
draw from, answers filters and cards from the search index (search.py) rather than
holding every record, and does every disk access for them: reads run in the caller's worker
thread (cards, a few at a time, on any thread); writes of user state go,
in order, through one writer thread, so a key press never waits for a disk (or for a sync's
save, which holds another lock). One service serves the app for its whole life: while the cache
holds no papers its papers are the demo set's (demo.py), until `leave_demo` takes the cache in
its place; no holder of the service is ever left with a stale one.
No Textual here: the app, tests and scripts use it alike."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future
from datetime import date
from itertools import compress
from typing import TYPE_CHECKING, TypeVar

from reader.cache_index import CacheIndex
from reader.config import Settings
from reader.core.catalog import Catalog
from reader.core.momentum import Momentum
from reader.core.query import Node, parse
from reader.core.ranking import NeedsStars
from reader.core.rising import RisingTerm, TopicTrend
from reader.errors import ReaderError, StoreError
from reader.fulltext.store import TextStore
from reader.models import Paper
from reader.packed_ids import IdRows, IdTable, PackedIds
from reader.search_index import Card
from reader.service.adding import Adding
from reader.service.cache_update import CacheUpdate
from reader.service.charts import Charts
from reader.service.citations import Citations
from reader.service.exports import Exports
from reader.service.list_order import ListOrder
from reader.service.marks_writer import MarksWriter
from reader.service.meaning import Meaning
from reader.service.outside import PAPER_FILES, OutsideChanges, OutsideReader, OutsideUpdate
from reader.service.ranker import ForYouRanker, RankedList
from reader.service.search import CacheSearch, MemorySearch
from reader.service.tags_notes import TagsNotes
from reader.service.topic_sync import TopicSync
from reader.service.triage import Triage, TriageSets
from reader.service.views import FOR_YOU, HIDDEN, STARRED, View
from reader.service.writer_thread import WriterThread
from reader.store import Store, Topic
from reader.store.data_dir import shard_of

if TYPE_CHECKING:
    from reader.service.demo import DemoSource

T = TypeVar("T")
OnError = Callable[[str], None] | None  # told a one-line reason when a write fails, on the UI's thread
QUIT_SECONDS = 2.0  # the longest a quit waits for the writer thread
CLOSE_SECONDS = 60.0  # ...and a close without a quit (tests, scripts): any queued write done


class LibraryService:
    """The cache of one data directory; the demo set's papers instead while `demo` is given.
    A facade: reading the index, marks, views and charts is its own; each other job is a
    collaborator's, given what it needs (the store, the writer thread, a way to reach what
    changes when the demo gives way): `tags_notes`, `triage`, `ranker` (For you), `list_order`,
    `exports`, `adding`, `citations`, `meaning` (the `~` query, more like this), and the reader of what other processes change."""

    def __init__(self, store: Store, settings: Settings, *, demo: DemoSource | None = None):
        self.store = store
        self.settings = settings
        self.demo = demo  # None: the cache's papers (for good, once the demo gave way)
        self.catalog = Catalog(CacheIndex())
        self.search: CacheSearch | MemorySearch = CacheSearch(store) if demo is None else demo.search
        self.topics: list[Topic] = []
        # Runs a function on the UI's thread (the app sets it); the catalog is only changed there.
        self.run_on_ui: Callable[[Callable[[], None]], None] = lambda function: function()
        # One thread writes user state, in the order the user acted.
        self._writer = WriterThread()
        self.marks = MarksWriter(store, self._writer)  # marks pending until saved, never dropped
        self.for_you: RankedList | NeedsStars | None = None  # the latest ranking, set on the UI's thread
        # For you's filter order: (ranking, cache index, ids of both, id -> position in them)
        self._ranked: tuple[RankedList, CacheIndex, Sequence[str], IdTable] | None = None
        # The data directory's files as last taken in: what other processes change is news.
        self.outside = OutsideChanges(store.data_dir)
        store.on_own_write(self.outside.writing)
        # What changes when the demo gives way, for the collaborators to reach as it is now.
        catalog_now, search_now, demo_now = (lambda: self.catalog), (lambda: self.search), (lambda: self.demo)
        self.charts = Charts(settings, catalog=catalog_now, topics=lambda: self.topics, demo=demo_now)
        self.tags_notes = TagsNotes(store, self._write, notes_changed=lambda: self.search.update_notes())
        self.triage = Triage(store, self._write, catalog=catalog_now, search=search_now, demo=demo_now)
        self.ranker = ForYouRanker(store.data_dir, catalog=catalog_now, demo=demo_now)
        self.list_order = ListOrder(
            store, self.set_setting, catalog=catalog_now, search=search_now, for_you=lambda: self.for_you, demo=demo_now
        )
        self.exports = Exports(store, settings, self._writer, self.tags_notes, demo_now)
        self.adding = Adding(store, settings)
        self.citations = Citations(store.data_dir, catalog=catalog_now, demo=demo_now)
        self.topic_sync = TopicSync(store, settings)
        self.meaning = Meaning(
            store.data_dir, catalog=catalog_now, search=search_now, demo=demo_now, select=self.select, load_paper=self.load_paper
        )
        self._outside_reader = OutsideReader(self, self._writer, self.outside)

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
        self.search = CacheSearch(self.store)
        self.for_you = None
        self._ranked = None
        self.triage.sets = TriageSets()
        self.charts.forget_counts()
        self.list_order.forget_choices()

    # --- reading --------------------------------------------------------------------------------

    def open(self) -> Catalog:
        """Index, marks and topics (~30 ms at 100,000 papers): counts, chart and list order are
        right before any record is read; the first paint waits for nothing more (counting for
        it then takes the UI's thread once; later updates are counted in `read_update`). Then
        `prepare_search`."""
        self.outside.taken(self.outside.stamps())  # before reading: a change meanwhile is read again
        if self.demo is not None:
            self.topics = self.store.topics()
            self.catalog = self.demo.catalog()
            return self.catalog
        index, marks = self.store.index(), self.store.marks()
        self.topics = self.store.topics()
        self.charts.take(self.store.sync_file.total_new_last4(self.settings.today()), self.store.sync_file.sync_states())
        self.tags_notes.state = self.tags_notes.read()
        self.catalog = Catalog(index, marks.read, marks.starred, marks.hidden)
        return self.catalog

    def take_warnings(self) -> list[str]:
        """What the store repaired since last asked (a damaged file moved aside, state restored)."""
        warnings = list(self.store.warnings)
        self.store.warnings.clear()
        return warnings

    def start_search(self) -> None:
        """Begin `prepare_search`'s work at once, in the background (the app, as it starts)."""
        self.search.start()

    def prepare_search(self, changed: Iterable[str] | None = None, index: CacheIndex | None = None) -> None:
        """Bring the search index up to date with the cache (or with the papers a sync changed),
        in a worker thread: ~20 ms when nothing changed, seconds for a first build of a large
        cache, meanwhile filters and cards come from the shards. Raises ReaderError when the
        index cannot be written (they keep coming from the shards). Filters are then ready to
        answer in the order of `index` (the catalog's when None; a sync's next one)."""
        self.search.refresh(None if changed is None else sorted({shard_of(pid) for pid in changed}))
        index = index or self.catalog.index
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
        catalog's order is a view of its index's rows (IdRows), no string per paper."""
        if view == FOR_YOU:
            ranking = self.for_you
            if not isinstance(ranking, RankedList):
                return []
            if query is None:
                return self._narrow(IdRows(ranking.ids, range(len(ranking)), ranking.table().get), unread=unread)
            order, position = self._ranked_order(ranking)
            return self._narrow(self.search.ordered(query, order, position, ranked=True), unread=unread)
        # The query's matches first, in the catalog's order (see SearchIndex.ordered), then the
        # view's own filters over them.
        matched = None if query is None else self._matching_in_order(query)
        within: Collection[str] | None = None
        if view.kind in ("new", "updated", "watch"):
            within = self.triage.members(view)
        elif view.kind == "tag":
            try:
                within = self.store.papers_tagged(view.name or "")
            except StoreError:  # a tag deleted meanwhile
                within = ()
        return self.catalog.select(
            topic=view.topic, starred=view == STARRED, hidden=view == HIDDEN, unread=unread, among=matched, within=within
        )

    def _matching_in_order(self, query: Node) -> IdRows:
        index = self.catalog.index
        return self.search.ordered(query, index.ids, index.positions())

    def _ranked_order(self, ranking: RankedList) -> tuple[Sequence[str], IdTable]:
        """The ranked papers the catalog holds (a sync may have removed some since), best first,
        and each one's position: what `ordered` answers a filter For you in. Made once per
        ranking and cache index (~20 ms at 100,000 papers), in the ranking's worker when it can."""
        index = self.catalog.index
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
        marked = (self.catalog.hidden | self.catalog.read) if unread else self.catalog.hidden
        return ids.keeping(marked.__contains__, keep=False) if marked else ids

    def _as_of(self) -> date:
        return self.settings.today() if self.demo is None else self.demo.as_of

    def notice(self) -> str | None:
        """A standing remark about the papers shown, for the status line."""
        return None if self.demo is None else self.demo.notice()

    def read_update(self) -> CacheUpdate:
        """The cache's state after a sync, read and counted in a worker thread (the work grows
        with the cache: 100,000 papers take ~0.2 s)..."""
        stamps = self.outside.stamps(PAPER_FILES)  # before reading: a change meanwhile is read again
        index, topics, states = self.store.index(), self.store.topics(), self.store.sync_file.sync_states()
        total = self.store.sync_file.total_new_last4(self.settings.today())
        index.positions()  # its id table, made here rather than on the UI's thread
        version = self.catalog.marks_version
        counts = self.catalog.counted(index)
        momenta = self.charts.counted(index, topics, states, total)
        writes = self.tags_notes.writes
        return CacheUpdate(index, topics, total, states, counts, version, momenta, self.tags_notes.read(), writes, stamps)

    def apply_update(self, update: CacheUpdate) -> None:
        """...taken on the UI's thread: counts, chart and order change at once (counts made while
        a mark changed are made again)."""
        self.topics = update.topics
        if self.demo is not None:
            return  # the demo's papers stay as they are
        fresh = update.marks_version == self.catalog.marks_version
        self.catalog.reindex(update.index, update.counts if fresh else None)
        self.charts.take(update.total_new_last4, update.sync_states, update.momenta)
        if update.library_state is not None:
            self.tags_notes.keep(update.library_state, update.library_writes)
        self.outside.taken(update.stamps)

    # --- writing --------------------------------------------------------------------------------

    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> Future:
        """Change marks in memory now and on disk in the writer thread; one whose write fails
        stays, and is saved later (marks_writer.py says how, and when the user is told)."""
        catalog = self.catalog
        if read:
            self.triage.sets.updated.discard(paper_id)  # read again: at the version the cache holds
        changes = {"read": read, "starred": starred, "hidden": hidden}
        before = {
            kind: paper_id in marked
            for kind, marked in (("read", catalog.read), ("starred", catalog.starred), ("hidden", catalog.hidden))
            if changes[kind] is not None
        }
        catalog.set_marks(paper_id, read=read, starred=starred, hidden=hidden)
        return self._save_marks({paper_id: (before, {kind: value for kind, value in changes.items() if value is not None})})

    def set_read_many(self, paper_ids: Collection[str], read: bool) -> Future:
        """Mark these papers read (or unread again), as `set_marks` does, in one write."""
        catalog, ids = self.catalog, list(paper_ids)
        before = {paper_id: paper_id in catalog.read for paper_id in ids}
        catalog.set_read_many(ids, read)
        return self._save_marks({paper_id: ({"read": before[paper_id]}, {"read": read}) for paper_id in ids})

    def _save_marks(self, changes: dict[str, tuple[dict[str, bool], dict[str, bool]]]) -> Future:
        """Hand changes of marks (paper id -> each mark as shown before, as wanted) to the writer;
        demo marks are not saved."""
        return self.marks.save(changes, keep=self.demo is None)

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
        self.ranker.close()
        self.finish(CLOSE_SECONDS)
        self.search.close()

    # --- the collaborators' most called methods -------------------------------------------------

    def charted_already(self, view: View) -> bool:
        return self.charts.charted_already(view)

    def momentum(self, view: View) -> Momentum:
        return self.charts.momentum(view)

    def chart(self, view: View) -> tuple[Momentum, str, str]:
        return self.charts.chart(view)

    def tags(self) -> dict[str, int]:
        return self.tags_notes.tags()

    def tags_of(self, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        return self.tags_notes.tags_of(ids)

    def has_note(self, paper_id: str) -> bool:
        return self.tags_notes.has_note(paper_id)

    def note(self, paper_id: str) -> str:
        return self.tags_notes.note(paper_id)

    def set_tags(self, ids: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = (), on_error: OnError = None) -> Future:
        return self.tags_notes.set_tags(ids, add, remove, on_error)

    def set_note(self, paper_id: str, text: str, on_error: OnError = None) -> Future:
        return self.tags_notes.set_note(paper_id, text, on_error)

    def count(self, members: set[str]) -> tuple[int, int]:
        return self.triage.count(members)

    def rank_for_you(self, marks: dict) -> RankedList | NeedsStars:
        """For you, trained on `marks` (`ranker.marks`), in a worker; `select(FOR_YOU)` shows it
        once `for_you` is set (on the UI's thread)."""
        ranking = self.ranker.rank(marks)
        if isinstance(ranking, RankedList):  # its first filter then finds its order made, its cards their scores
            self.search.prepare_order(*self._ranked_order(ranking), ranked=True)
            ranking.table()
        return ranking

    def rising_topics(self) -> list[TopicTrend]:
        return self.triage.rising_topics(self.topics, self._as_of(), self.charts.total_new_last4)

    def rising_terms(self, topic: str, limit: int = 5) -> list[RisingTerm]:
        return self.triage.rising_terms(topic, self._as_of(), limit)

    def papers(self, ids: list[str]) -> list[Paper]:
        return self.exports.papers(ids)

    def export_text(self, format: str, papers: list[Paper], *, unicode: bool = False) -> str:
        return self.exports.export_text(format, papers, unicode=unicode)

    def citation(self, paper: Paper) -> str:
        return self.exports.citation(paper)

    def read_outside(self, changed: set[str]) -> OutsideUpdate:
        return self._outside_reader.read(changed)

    def apply_outside(self, update: OutsideUpdate) -> bool:
        return self._outside_reader.apply(update)
