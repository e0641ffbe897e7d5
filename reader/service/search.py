"""What the app's filter matches and what its list's cards show, without holding every record.

Both come from the search index (reader/search_index) once it is current. Before its first build is
done, and whenever it cannot be written or read, they come from the shards themselves: the
scan evaluator (core/scan.py, the reference the index is tested against) over each shard's
search texts, and cards made from the records. Either way the user's notes are searched too.
No Textual here."""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from itertools import compress

from reader.core.query import Node, search_text, text_terms
from reader.core.scan import SearchBlock
from reader.core.similar import Like, weighed_by_sets
from reader.errors import ReaderError
from reader.fulltext.text_index import stored_words
from reader.models import Paper
from reader.packed_ids import ROW_TYPE, IdRows, IdTable
from reader.search_index import Card, SearchIndex, SearchIndexError
from reader.search_index.rows import card_of
from reader.service.search_texts import shard_stems
from reader.store import Store
from reader.store.data_dir import shard_of


class SearchNotReady(ReaderError):
    """What needs the search index was asked for before its first build was done."""


SHARDS_KEPT = 8  # shards' cards kept while the index is not ready (a screen shows one or two)


class CacheSearch:
    def __init__(self, store: Store):
        self.store = store
        self.index = SearchIndex.open(store.data_dir)
        self.ready = False  # the index is current: it answers
        self._refreshing = threading.Lock()  # one refresh at a time
        self._shard_cards: OrderedDict[str, dict[str, Card]] = OrderedDict()

    def start(self) -> None:
        """Begin bringing the index up to date at once, in a thread of its own: the app calls
        this as it starts, so that a first build (seconds) runs alongside the app's own start;
        its `refresh` then waits for this one and finds little left to do."""
        threading.Thread(target=self._refresh_quietly, name="search-start", daemon=True).start()

    def _refresh_quietly(self) -> None:
        try:
            self.refresh()
        except ReaderError:
            pass  # the app's own refresh meets the error again and says so

    def refresh(self, shards: Iterable[str] | None = None) -> int:
        """Bring the index up to date with the shards (all, or these after a sync), in a worker
        thread: the parsing runs in child processes, so the app's event loop keeps the GIL.
        Raises SearchIndexError when the index cannot be written (the scan then serves)."""
        with self._refreshing:
            try:
                done = self.index.refresh(self.store, shards, offload=True)
                self.index.set_notes(self.store, self.store.notes())
            except SearchIndexError:
                self.ready = False
                raise
        self.ready = True
        self._shard_cards.clear()
        return done

    def update_notes(self) -> None:
        """Index the notes as they are now (after one was saved; the writer thread)."""
        if not self.ready:
            return  # the refresh under way, or the scan, reads them
        with self._refreshing:
            try:
                self.index.set_notes(self.store, self.store.notes())
            except SearchIndexError:
                self.ready = False
            except ReaderError:
                pass  # the notes cannot be read now: the next refresh indexes them

    def matching(self, query: Node) -> set[str]:
        """Ids of the cached papers that satisfy `query`."""
        if self.ready:
            try:
                return self.index.matching(query)
            except SearchIndexError:
                self.ready = False  # damaged meanwhile: the next refresh rebuilds it
        return self._scan(query)

    def matching_among(self, query: Node, ids: Collection[str]) -> set[str]:
        """`matching(query) & ids` (see SearchIndex.matching_among)."""
        if self.ready:
            try:
                return self.index.matching_among(query, ids)
            except SearchIndexError:
                self.ready = False
        return self._scan(query) & set(ids)

    def document_counts(self, nodes: list[Node]) -> list[int]:
        """How many cached papers match each query (see SearchIndex.document_counts): from the
        index only. SearchNotReady until it is built (a scan per term would take seconds)."""
        if self.ready:
            try:
                return self.index.document_counts(nodes)
            except SearchIndexError:
                self.ready = False
        raise SearchNotReady("the search index is still being built: try again in a moment")

    def best_weighed(self, weighed: Sequence[tuple[float, str, Node]], *, limit: int, leave_out: Collection[str] = ()) -> list[Like]:
        """The papers whose weighed queries' shares sum highest (see SearchIndex.best_weighed)."""
        if self.ready:
            try:
                return self.index.best_weighed(weighed, limit=limit, leave_out=leave_out)
            except SearchIndexError:
                self.ready = False
        return weighed_by_sets(self, weighed, limit=limit, leave_out=leave_out)

    def paper_count(self) -> int:
        if self.ready:
            try:
                return self.index.paper_count()
            except SearchIndexError:
                self.ready = False
        raise SearchNotReady("the search index is still being built: try again in a moment")

    def ordered(self, query: Node, order: Sequence[str], position: IdTable, *, ranked: bool = False) -> IdRows:
        """The ids of `order` that satisfy `query`, in its order (`position`: id -> index in it;
        `ranked`: the order is a ranking's, For you's: see SearchIndex.ordered)."""
        if self.ready:
            try:
                return self.index.ordered(query, order, position, ranked=ranked)
            except SearchIndexError:
                self.ready = False
        return in_order(self._scan(query), order, position)

    def prepare_order(self, order: Sequence[str], position: IdTable, *, ranked: bool = False) -> None:
        """What `ordered` needs for this order, read now (a worker thread) rather than at the
        first filter (~100 ms at 100,000 papers)."""
        if self.ready:
            try:
                self.index.map_rows(order, position, ranked=ranked)
            except SearchIndexError:
                self.ready = False

    def sort_values(self, sort: str) -> list[tuple[list[str], list[str]]]:
        """Every paper's id and the value `sort` orders it by, in pages (see SearchIndex.sort_values):
        from the index only. SearchNotReady until it is built (the shards would take minutes)."""
        if self.ready:
            try:
                return list(self.index.sort_values(sort))
            except SearchIndexError:
                self.ready = False
        raise SearchNotReady("the search index is still being built: this order is ready in a moment")

    def cards(self, ids: Iterable[str]) -> dict[str, Card]:
        """Cards of these papers (those the cache holds), by id."""
        if self.ready:
            try:
                return self.index.cards(ids)
            except SearchIndexError:
                self.ready = False
        found: dict[str, Card] = {}
        by_shard: dict[str, list[str]] = {}
        for pid in ids:
            by_shard.setdefault(shard_of(pid), []).append(pid)
        for shard, wanted in by_shard.items():
            cards = self._cards_of_shard(shard)
            found.update((pid, cards[pid]) for pid in wanted if pid in cards)
        return found

    def _cards_of_shard(self, shard: str) -> dict[str, Card]:
        cards = self._shard_cards.get(shard)
        if cards is None:
            cards = {pid: card_of(paper) for pid, paper in self._records(shard).items()}
            self._shard_cards[shard] = cards
            while len(self._shard_cards) > SHARDS_KEPT:
                self._shard_cards.popitem(last=False)
        self._shard_cards.move_to_end(shard)
        return cards

    def _records(self, shard: str) -> dict[str, Paper]:
        try:
            return self.store.load_papers([shard])
        except ReaderError:
            return {}

    def _scan(self, query: Node) -> set[str]:
        """The scan evaluator over every shard's search texts, stemmed as saved."""
        found: set[str] = set()
        notes = self.store.notes()
        bodies = stored_words(self.store.data_dir) if text_terms(query) else None
        for shard in self.store.shards():
            try:
                found |= SearchBlock(shard_stems(self.store, shard), notes, bodies, stemmed=True).matching(query)
            except ReaderError:
                continue  # a shard that cannot be read has no papers to show either
        return found

    def close(self) -> None:
        self.index.close()


class MemorySearch:
    """The same answers for papers held in memory (the demo set)."""

    ready = True

    def __init__(self, papers: dict[str, Paper]):
        self._block = SearchBlock({pid: search_text(paper) for pid, paper in papers.items()})
        self._cards = {pid: card_of(paper) for pid, paper in papers.items()}
        ids, held = list(papers), list(papers.values())
        self._sort_values = {
            "updated": (ids, [paper.updated for paper in held]),
            "title": (ids, [paper.title for paper in held]),
            "author": (ids, [paper.authors[0].name if paper.authors else "" for paper in held]),
        }

    def start(self) -> None:
        return

    def refresh(self, shards: Iterable[str] | None = None) -> int:
        return 0

    def update_notes(self) -> None:
        return

    def matching(self, query: Node) -> set[str]:
        return self._block.matching(query)

    def matching_among(self, query: Node, ids: Collection[str]) -> set[str]:
        return self._block.matching(query) & set(ids)

    def document_counts(self, nodes: list[Node]) -> list[int]:
        return [len(self._block.matching(node)) for node in nodes]

    def best_weighed(self, weighed: Sequence[tuple[float, str, Node]], *, limit: int, leave_out: Collection[str] = ()) -> list[Like]:
        return weighed_by_sets(self, weighed, limit=limit, leave_out=leave_out)

    def paper_count(self) -> int:
        return len(self._block.ids)

    def ordered(self, query: Node, order: Sequence[str], position: IdTable, *, ranked: bool = False) -> IdRows:
        return in_order(self._block.matching(query), order, position)

    def prepare_order(self, order: Sequence[str], position: IdTable, *, ranked: bool = False) -> None:
        return

    def sort_values(self, sort: str) -> list[tuple[list[str], list[str]]]:
        return [self._sort_values[sort]]

    def cards(self, ids: Iterable[str]) -> dict[str, Card]:
        return {pid: self._cards[pid] for pid in ids if pid in self._cards}

    def close(self) -> None:
        return


def in_order(matched: set[str], order: Sequence[str], position: IdTable) -> IdRows:
    """The ids of `order` in `matched`, in its order (a view of its rows)."""
    return IdRows(order, array(ROW_TYPE, compress(range(len(order)), map(matched.__contains__, order))), position.get)
