"""The service's triage: For you (the ranking learned from the marks), Rising, and the papers of
the New, Updated and watch views. Mixed into LibraryService; slow parts run in the caller's
worker, and what the UI's thread reads (`for_you`, `triage`) is replaced whole."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from datetime import date
from typing import TYPE_CHECKING, Any

from reader.core.coverage import Span, view_coverage
from reader.core.library import Library
from reader.core.query import parse
from reader.core.ranking import MIN_STARS, NeedsStars
from reader.core.rising import RisingTerm, TopicTrend, rising_terms, rising_topics
from reader.errors import QueryError
from reader.service.ranker import RankedList, RankerProcess
from reader.service.triage_sets import TriageSets
from reader.service.views import View
from reader.store import Store, Topic, Watch

if TYPE_CHECKING:
    from reader.packed_ids import IdTable
    from reader.service.demo import DemoSource
    from reader.service.search import LibrarySearch, MemorySearch


class TriageMethods:
    store: Store
    demo: DemoSource | None
    library: Library
    search: LibrarySearch | MemorySearch
    topics: list[Topic]
    for_you: RankedList | NeedsStars | None
    triage: TriageSets
    _ranker_process: RankerProcess | None
    _visited: set[str]
    _total_new_last4: int | None

    if TYPE_CHECKING:

        def _as_of(self) -> date: ...
        def _ranked_order(self, ranking: RankedList) -> tuple[Sequence[str], IdTable]: ...
        def _write(self, action: Callable[[], Any], on_error: Callable[[str], None] | None) -> Future: ...

    def ranking_marks(self, topic: str | None = None) -> dict:
        """What a ranking trains on and ranks, as of now: taken on the UI's thread (which alone
        changes the marks) and handed to `rank_for_you` in a worker."""
        library = self.library
        return {
            "version": library.marks_version,
            "starred": set(library.starred),
            "read": set(library.read),
            "hidden": set(library.hidden),
            "candidates": list(library.select(topic=topic)) if topic is not None else None,  # (to the ranking's process)
        }

    def rank_for_you(self, marks: dict) -> RankedList | NeedsStars:
        """Train on `marks` (from `ranking_marks`) and rank the unread papers, in the ranking
        process (seconds at 100,000 papers; this worker thread waits, the UI does not).
        `select(FOR_YOU)` shows the result once `for_you` is set (on the UI's thread)."""
        marks = dict(marks)
        marks.pop("version")
        index = self.library.index
        stars = sum(paper_id in index for paper_id in marks["starred"])
        if stars < MIN_STARS:  # said at once, without starting the ranking process
            return NeedsStars(stars)
        ranking = self._ranker().rank(**marks)
        if isinstance(ranking, RankedList):  # its first filter then finds its order made, its cards their scores
            self.search.prepare_order(*self._ranked_order(ranking), ranked=True)
            ranking.table()
        return ranking

    def _ranker(self) -> Any:
        if self.demo is not None:
            return self.demo.ranker()  # the demo's papers are in memory, not in the cache
        if self._ranker_process is None:
            self._ranker_process = RankerProcess(self.store.data_dir)
        return self._ranker_process

    def rising_topics(self) -> list[TopicTrend]:
        """The topics by momentum, largest rise first (a loop over the index per topic)."""
        return rising_topics(self.library, [t.name for t in self.topics], self._as_of(), self._coverage_spans(), self._total_new_last4)

    def _coverage_spans(self) -> dict[str, tuple[Span, ...]] | None:
        """What each topic's syncs fetched whole (a disk read: call it from a worker); None for the
        demo set, every day of whose page counts."""
        return self.store.sync_file.coverage_spans() if self.demo is None else None

    def rising_terms(self, topic: str, limit: int = 5) -> list[RisingTerm]:
        """The terms whose share of the topic's papers grew most (reads the topic's recent search
        texts: call it from a worker)."""
        from reader.service.triage_sets import recent_words

        if self.demo is not None:
            return self.demo.rising_terms(limit)

        as_of = self._as_of()
        spans = self._coverage_spans()
        coverage = None if spans is None else view_coverage(spans, topic)
        return rising_terms(recent_words(self.store, self.library.index, topic, as_of), as_of, limit=limit, coverage=coverage)

    def view_members(self, view: View) -> set[str]:
        """The papers of a New, Updated or watch view, in no order."""
        if view.kind == "new":
            return self.triage.new
        if view.kind == "updated":
            return self.triage.updated
        return self.triage.watched.get(view.name or "", set())

    def count(self, members: set[str]) -> tuple[int, int]:
        """(total, unread) of these papers, as the sidebar counts a view: hidden ones left out."""
        library = self.library
        shown = [pid for pid in members if pid in library.index and pid not in library.hidden]
        return len(shown), sum(pid not in library.read for pid in shown)

    def read_triage(self, *, visit: bool = False) -> TriageSets:
        """New papers (since the previous visit: `visit` records this one, once per app start),
        updated ones, and each watch's papers (from the search index). In a worker thread. None
        of the demo set's: its papers are not in the cache."""
        if self.demo is not None:
            return TriageSets()
        store = self.store
        if visit:
            store.record_visit("app")
        watched = {}
        watches = store.watches()
        for watch in watches:
            try:
                watched[watch.name] = set(self.search.matching(parse(watch.query)))
            except QueryError:
                watched[watch.name] = set()  # saved before the query rules changed: matches nothing
        return TriageSets(
            new=store.new_ids(),
            new_by_topic={topic.name: store.new_ids(topic.name) for topic in store.topics()},
            updated=store.updated_ids(),
            read_versions=store.read_versions(),
            watches=watches,
            watched=watched,
        )

    def visit_topic(self, name: str) -> None:
        """The user looked at a topic: its "new" counts from this visit on the next start."""
        if self.demo is None and name not in self._visited:
            self._visited.add(name)
            self._write(lambda: self.store.record_visit(name), None)

    def add_watch(self, name: str, query: str) -> Watch:
        return self.store.add_watch(name, query)

    def remove_watch(self, name: str) -> None:
        self.store.remove_watch(name)
