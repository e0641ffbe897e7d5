"""The papers a screen or a command works on: ordered newest first, counted, filtered, charted.

Built from the cache index alone (so counts and the chart need no paper records); full records
are added as they load, and a text query needs them."""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Sequence
from datetime import date
from functools import reduce
from itertools import compress
from operator import or_
from typing import TYPE_CHECKING

from reader.cache_index import CacheIndex
from reader.core import momentum
from reader.core.coverage import Span, unsynced_topics, view_coverage
from reader.core.query import Node, SearchText, search_text
from reader.core.scan import SearchBlock
from reader.models import Paper
from reader.packed_ids import ROW_TYPE, IdRows, rows_passing

if TYPE_CHECKING:
    import numpy as np

STARRED = object()  # the keys of the starred and the hidden papers' counts (a topic may be named anything)
HIDDEN = object()
RECOUNT_OVER = 2000  # papers marked at once past which every count is made again rather than changed


class Catalog:
    """Hidden ("not interested") papers are left out of every selection and count but their own."""

    def __init__(self, index: CacheIndex, read: Iterable[str] = (), starred: Iterable[str] = (), hidden: Iterable[str] = ()):
        self.read = set(read)
        self.starred = set(starred)
        self.hidden = set(hidden)
        self.marks_version = 0  # changes with every set_marks: counts made meanwhile elsewhere are stale
        self.papers: dict[str, Paper] = {}
        self._blocks: dict[object, SearchBlock] = {}  # search texts by group of papers
        self._unsearchable: dict[str, Paper] = {}  # added without texts: built at the first query
        self.reindex(index)

    def reindex(self, index: CacheIndex, counts: dict | None = None) -> None:
        """Take a newer index (after a sync), with its `counted` counts when made already."""
        self.index = index
        self._counts: dict | None = counts

    def counted(self, index: CacheIndex) -> dict:
        """Every count of `index` with the marks as they are now, for `reindex`: 100,000 papers
        take tens of milliseconds, so a worker thread counts (copying the marks, changing nothing)."""
        return Catalog(index, self.read, self.starred, self.hidden)._count_all()

    @classmethod
    def counted_with(cls, index: CacheIndex, read: Iterable[str], starred: Iterable[str], hidden: Iterable[str]) -> dict:
        """Every count of `index` with these marks (for `replace_marks`; in a worker thread)."""
        return cls(index, read, starred, hidden)._count_all()

    def replace_marks(self, read: Iterable[str], starred: Iterable[str], hidden: Iterable[str], counts: dict | None = None) -> None:
        """Take marks another process saved, with their `counted_with` counts when made already."""
        self.marks_version += 1
        self.read, self.starred, self.hidden = set(read), set(starred), set(hidden)
        self._counts = counts

    def add_papers(self, papers: Iterable[Paper], texts: dict[str, SearchText] | None = None, group: object = None) -> None:
        """Add or replace records. `texts` are their search texts when already built (off the UI
        thread); a later call with the same `group` (a cache shard) replaces that group's texts."""
        papers = list(papers)
        for paper in papers:
            self.papers[paper.id] = paper
        if texts is not None:
            self.add_search_texts(texts, group)
        else:
            self._unsearchable.update((paper.id, paper) for paper in papers)

    def add_search_texts(self, texts: dict[str, SearchText], group: object = None) -> None:
        """Search texts of papers whose records are not (yet) loaded."""
        self._blocks[object() if group is None else group] = SearchBlock(texts)

    def topics_of(self, paper_id: str, published: str | None = None) -> list[str]:
        """The paper's topics (`published`, its record's: found without an id map)."""
        return self.index.topics_of(paper_id, published)

    def matching(self, query: Node) -> set[str]:
        """Ids of the loaded papers that satisfy `query`."""
        if self._unsearchable:
            pending, self._unsearchable = self._unsearchable, {}
            self._blocks[object()] = SearchBlock({pid: search_text(p) for pid, p in pending.items()})
        blocks = list(self._blocks.values())  # a snapshot: the loader may add blocks meanwhile
        return set().union(*(block.matching(query) for block in blocks))

    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> None:
        """Change marks in memory, keeping the cached counts right without a recount."""
        self.marks_version += 1
        self._count(paper_id, -1)
        for marked, wanted in ((self.read, read), (self.starred, starred), (self.hidden, hidden)):
            if wanted is True:
                marked.add(paper_id)
            elif wanted is False:
                marked.discard(paper_id)
        self._count(paper_id, 1)

    def set_read_many(self, paper_ids: Collection[str], read: bool) -> None:
        """Mark many papers read (or unread) at once: a few are counted one by one, many by a
        recount (numpy over the index: tens of ms at 1,000,000 papers)."""
        if len(paper_ids) <= RECOUNT_OVER:
            for paper_id in paper_ids:
                self.set_marks(paper_id, read=read)
            return
        self.marks_version += 1
        if read:
            self.read.update(paper_ids)
        else:
            self.read.difference_update(paper_ids)
        if self._counts is not None:
            self._counts = self._count_all()

    def _count(self, paper_id: str, sign: int) -> None:
        """Add (1) or take away (-1) what one paper's marks add to the cached counts."""
        counts = self._counts
        if counts is None or paper_id not in self.index:
            return
        if paper_id in self.hidden:
            keys = [HIDDEN]
        else:
            keys = [None, *self.topics_of(paper_id)] + ([STARRED] if paper_id in self.starred else [])
        unread = paper_id not in self.read
        for key in keys:
            counts[key][0] += sign
            counts[key][1] += sign * unread

    def select(
        self,
        *,
        topic: str | None = None,
        starred: bool = False,
        unread: bool = False,
        hidden: bool | None = False,
        query: Node | None = None,
        among: Sequence[str] | None = None,
        within: Collection[str] | None = None,
    ) -> IdRows:
        """Ids newest first that pass every given filter: the hidden papers only when `hidden`,
        none of them when False, hidden or not when None; only those of `among` (ids of this
        index: a view of it, as the search index answers a filter) and of `within` when given.
        A view of the index's rows (IdRows), no string per paper. Once the index's id table is
        made (a worker makes it after the first paint), a filter is a numpy step over the rows
        (the marked papers' rows found by the table); before, a pass in C over the ids."""
        index = self.index
        rows: range | array = range(len(index)) if among is None else self._rows_among(among)
        if topic is not None:
            rows = self._in_topic(rows, topic)
        # The marks' filters as one set the ids must be in, or one they must not be in.
        wanted = None if within is None else set(within)
        for marked, only in ((self.hidden, hidden is True), (self.starred, starred)):
            if only:
                wanted = set(marked) if wanted is None else wanted & marked
        unwanted = (self.hidden if hidden is False else set()) | (self.read if unread else set())
        if query is not None:
            matched = self.matching(query)
            wanted = matched if wanted is None else wanted & matched
        if wanted is not None:
            rows = self._rows_holding(rows, wanted - unwanted)
        elif unwanted:
            rows = self._rows_holding(rows, unwanted, keep=False)
        return index.view(rows)

    def _rows_among(self, among: Sequence[str]) -> range | array:
        """The rows of `among`: its own when it is a view of this index (a filter's matches)."""
        if isinstance(among, IdRows) and among.column is self.index.ids:
            return among.rows
        found = self.index.positions().rows_of(among, -1)
        return array(ROW_TYPE, sorted(found[found >= 0].tolist()))

    def _in_topic(self, rows: range | array, topic: str) -> range | array:
        """Those of `rows` whose paper is in the topic."""
        index, bit = self.index, self.index.bit(topic)
        if not index.has_positions:
            return rows_passing(rows, index.masks, bit.__and__)
        chosen = _as_numpy(rows)
        return _as_rows(chosen[(_masks(index)[chosen] & bit) != 0])

    def _rows_holding(self, rows: range | array, ids: set[str], keep: bool = True) -> range | array:
        """Those of `rows` holding one of `ids` (holding none of them when not `keep`)."""
        if not self.index.has_positions:
            return rows_passing(rows, self.index.ids, ids.__contains__, keep)
        import numpy as np

        chosen, found = _as_numpy(rows), self.index.positions().rows_of(list(ids), -1)
        found = np.unique(found[found >= 0])  # sorted
        at = np.minimum(np.searchsorted(chosen, found), max(len(chosen) - 1, 0))
        at = at[chosen[at] == found] if len(chosen) else at[:0]  # where the ids' rows are among `rows`
        return _as_rows(chosen[at] if keep else np.delete(chosen, at))

    def _flags(self, ids: Collection[str]) -> np.ndarray:
        """A flag per row of the index: whether its paper is one of `ids` (found by the id table)."""
        import numpy as np

        flags = np.zeros(len(self.index), dtype=bool)
        rows = self.index.positions().rows_of(list(ids), -1)
        flags[rows[rows >= 0]] = True
        return flags

    def admits(
        self,
        paper_id: str,
        day: int,
        *,
        topic: str | None = None,
        starred: bool = False,
        unread: bool = False,
        hidden: bool | None = False,
    ) -> bool:
        """Whether `select` with these filters holds the paper (its v1 day ordinal given, so
        that it is found by binary search, without an id map; an index without days is
        looked up in its map)."""
        index = self.index
        i = index.locate(paper_id, day) if index.days else index.position(paper_id)
        if i is None or (topic is not None and not index.masks[i] & index.bit(topic)):
            return False
        if hidden is not None and (paper_id in self.hidden) != hidden:
            return False
        return (not starred or paper_id in self.starred) and (not unread or paper_id not in self.read)

    @property
    def counted_already(self) -> bool:
        """Whether `counts` answers at once (else it counts every paper first)."""
        return self._counts is not None

    def take_counts(self, counts: dict, marks_version: int) -> None:
        """Counts made by `counted` in a worker when the marks were at `marks_version`: kept
        unless the marks changed since (then `counts` counts again when asked)."""
        if self._counts is None and marks_version == self.marks_version:
            self._counts = counts

    def counts(self, topic: str | None = None, *, starred: bool = False, hidden: bool = False) -> tuple[int, int]:
        """(total, unread) for a topic, the starred papers, the hidden ones, or everything (None)."""
        if self._counts is None:
            self._counts = self._count_all()
        total, unread = self._counts.get(HIDDEN if hidden else STARRED if starred else topic, (0, 0))
        return total, unread

    def _count_all(self) -> dict:
        """Every count, in numpy over the index's rows: the marked papers' rows found by the id
        table, a topic's by its bit in the masks (no string per paper)."""
        import numpy as np

        index = self.index
        hidden, read = self._flags(self.hidden), self._flags(self.read)
        shown = ~hidden
        unread = shown & ~read
        counts: dict = {None: [int(np.count_nonzero(shown)), int(np.count_nonzero(unread))]}
        masks = _masks(index)
        for i, name in enumerate(index.topics):
            member = (masks & (1 << i)) != 0
            counts[name] = [int(np.count_nonzero(member & shown)), int(np.count_nonzero(member & unread))]
        starred = self._flags(self.starred) & shown
        counts[STARRED] = [int(np.count_nonzero(starred)), int(np.count_nonzero(starred & ~read))]
        counts[HIDDEN] = [int(np.count_nonzero(hidden)), int(np.count_nonzero(hidden & ~read))]
        return counts

    def momentum(
        self,
        as_of: date,
        *,
        topic: str | None = None,
        total_new_last4: int | None = None,
        spans: dict[str, tuple[Span, ...]] | None = None,
        index: CacheIndex | None = None,
    ) -> momentum.Momentum:
        """Weekly counts of the papers (of one topic, all when None), of `index` when given (a
        newer one), and their share of `total_new_last4`, all new arXiv papers. `spans`: what
        each topic's syncs fetched whole (SyncFile.coverage_spans), so that a window not synced has
        no figure; None counts every day (the demo set)."""
        index = index or self.index
        days: Sequence[int]
        if topic is not None:
            days = index.in_topic(topic, index.days)
        else:  # less the papers only topics never synced hold: their weeks are not counted
            left_out = reduce(or_, map(index.bit, unsynced_topics(spans or {})), 0)
            days = index.days if not left_out else list(compress(index.days, (m & ~left_out or not m & left_out for m in index.masks)))
        coverage = None if spans is None else view_coverage(spans, topic)
        return momentum.compute_days(days, as_of, total_new_last4, coverage)


def _as_numpy(rows: range | array) -> np.ndarray:
    import numpy as np

    return np.arange(rows.start, rows.stop, rows.step, dtype=np.int32) if isinstance(rows, range) else np.frombuffer(rows, dtype=np.int32)


def _as_rows(rows: np.ndarray) -> array:
    return array(ROW_TYPE, rows.astype("int32").tobytes())


def _masks(index: CacheIndex) -> np.ndarray:
    """The index's topic masks in numpy: int64 (Python ints past 62 topics, which int64 cannot hold)."""
    import numpy as np

    return np.asarray(index.masks, dtype=np.int64 if len(index.topics) < 63 else object)
