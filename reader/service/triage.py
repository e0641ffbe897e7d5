"""The service's triage: the papers of the New, Updated and watch views, the visits that say
what is new, and Rising. Slow parts run in the caller's worker; what the UI's thread reads
(`sets`) is replaced whole."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

from reader.cache_index import CacheIndex
from reader.core import ranking, rising
from reader.core.catalog import Catalog
from reader.core.coverage import Span, view_coverage
from reader.core.query import parse
from reader.core.rising import RisingTerm, TopicTrend, rising_terms, rising_topics
from reader.errors import QueryError
from reader.service.search_texts import shard_texts
from reader.service.views import View
from reader.store import Store, Topic, Watch
from reader.store.data_dir import shard_of

if TYPE_CHECKING:
    from reader.service.demo import DemoSource
    from reader.service.search import CacheSearch, MemorySearch
    from reader.service.tags_notes import Write


@dataclass(slots=True)
class TriageSets:
    """What the New, Updated and watch views show, read from the store in a worker. `updated`
    loses a paper when it is read again (on the UI's thread)."""

    new: set[str] = field(default_factory=set)  # arrived since the previous visit of the app
    new_by_topic: dict[str, set[str]] = field(default_factory=dict)  # ... of each topic
    updated: set[str] = field(default_factory=set)  # read at a version older than the cache's
    read_versions: dict[str, int] = field(default_factory=dict)
    watches: list[Watch] = field(default_factory=list)
    watched: dict[str, set[str]] = field(default_factory=dict)  # watch name -> papers matching it


class Triage:
    """Given the store, the service's way to write, and how to reach what the service shows now
    (its catalog, search and demo set change when the demo gives way to the cache)."""

    def __init__(
        self,
        store: Store,
        write: Write,
        *,
        catalog: Callable[[], Catalog],
        search: Callable[[], CacheSearch | MemorySearch],
        demo: Callable[[], DemoSource | None],
    ):
        self._store = store
        self._write = write
        self._catalog = catalog
        self._search = search
        self._demo = demo
        self.sets = TriageSets()  # read in a worker, taken on the UI's thread
        self._visited: set[str] = set()  # topics looked at since the app started

    def members(self, view: View) -> set[str]:
        """The papers of a New, Updated or watch view, in no order."""
        if view.kind == "new":
            return self.sets.new
        if view.kind == "updated":
            return self.sets.updated
        return self.sets.watched.get(view.name or "", set())

    def count(self, members: set[str]) -> tuple[int, int]:
        """(total, unread) of these papers, as the sidebar counts a view: hidden ones left out."""
        catalog = self._catalog()
        shown = [pid for pid in members if pid in catalog.index and pid not in catalog.hidden]
        return len(shown), sum(pid not in catalog.read for pid in shown)

    def read(self, *, visit: bool = False) -> TriageSets:
        """New papers (since the previous visit: `visit` records this one, once per app start),
        updated ones, and each watch's papers (from the search index). In a worker thread. None
        of the demo set's: its papers are not in the cache."""
        if self._demo() is not None:
            return TriageSets()
        store, search = self._store, self._search()
        if visit:
            store.record_visit("app")
        watched = {}
        watches = store.watches()
        for watch in watches:
            try:
                watched[watch.name] = set(search.matching(parse(watch.query)))
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
        if self._demo() is None and name not in self._visited:
            self._visited.add(name)
            self._write(lambda: self._store.record_visit(name), None)

    def add_watch(self, name: str, query: str) -> Watch:
        return self._store.add_watch(name, query)

    def remove_watch(self, name: str) -> None:
        self._store.remove_watch(name)

    def rising_topics(self, topics: list[Topic], as_of: date, total_new_last4: int | None) -> list[TopicTrend]:
        """The topics by momentum, largest rise first (a loop over the index per topic)."""
        return rising_topics(self._catalog(), [t.name for t in topics], as_of, self._coverage_spans(), total_new_last4)

    def _coverage_spans(self) -> dict[str, tuple[Span, ...]] | None:
        """What each topic's syncs fetched whole (a disk read: call it from a worker); None for the
        demo set, every day of whose page counts."""
        return self._store.sync_file.coverage_spans() if self._demo() is None else None

    def rising_terms(self, topic: str, as_of: date, limit: int = 5) -> list[RisingTerm]:
        """The terms whose share of the topic's papers grew most (reads the topic's recent search
        texts: call it from a worker)."""
        demo = self._demo()
        if demo is not None:
            return demo.rising_terms(limit)
        spans = self._coverage_spans()
        coverage = None if spans is None else view_coverage(spans, topic)
        words = recent_words(self._store, self._catalog().index, topic, as_of)
        return rising_terms(words, as_of, limit=limit, coverage=coverage)


def recent_words(store: Store, index: CacheIndex, topic: str, as_of: date) -> list[tuple[date, str]]:
    """(v1 date, words of title and abstract) of the topic's papers of the last twelve weeks:
    what `rising.rising_terms` compares."""
    first = (as_of - timedelta(days=rising.WINDOW_DAYS + rising.EARLIER_DAYS)).toordinal()
    days = {pid: day for pid, day in zip(index.in_topic(topic, index.ids), index.in_topic(topic, index.days)) if day >= first}
    found = []
    for shard in sorted({shard_of(pid) for pid in days}):
        texts = shard_texts(store, shard)
        rows = ranking.rows_of_search_texts({pid: text for pid, text in texts.items() if pid in days})
        found += [(date.fromordinal(days[row.id]), row.words) for row in rows]
    return found
