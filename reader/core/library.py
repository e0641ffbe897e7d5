"""The papers a screen or a command works on: ordered newest first, counted, filtered, charted.

Built from the cache index alone (so counts and the chart need no paper records); full records
are added as they load, and a text query needs them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from reader.core import momentum
from reader.core.query import Node, SearchText, search_text
from reader.core.search import SearchBlock
from reader.models import Paper, PaperIndex

STARRED = object()  # the key of the starred papers' counts (a topic may be named anything)


class Library:
    def __init__(self, index: PaperIndex, read: Iterable[str] = (), starred: Iterable[str] = ()):
        self.read = set(read)
        self.starred = set(starred)
        self.papers: dict[str, Paper] = {}
        self._blocks: dict[object, SearchBlock] = {}  # search texts by group of papers
        self._unsearchable: dict[str, Paper] = {}  # added without texts: built at the first query
        self.reindex(index)

    def reindex(self, index: PaperIndex) -> None:
        """Take a newer index (after a sync); loaded records stay, changed ones are replaced later."""
        self.index = index
        self.order: list[str] = index.ids  # the index is kept newest first
        self._counts: dict | None = None

    def add_papers(
        self, papers: Iterable[Paper], texts: dict[str, SearchText] | None = None, group: object = None
    ) -> None:
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

    def topics_of(self, paper_id: str) -> list[str]:
        return self.index.topics_of(paper_id)

    def matching(self, query: Node) -> set[str]:
        """Ids of the loaded papers that satisfy `query`."""
        if self._unsearchable:
            pending, self._unsearchable = self._unsearchable, {}
            self._blocks[object()] = SearchBlock({pid: search_text(p) for pid, p in pending.items()})
        blocks = list(self._blocks.values())  # a snapshot: the loader may add blocks meanwhile
        return set().union(*(block.matching(query) for block in blocks))

    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None) -> None:
        """Change marks in memory, keeping the cached counts right without a recount."""
        counts = self._counts
        indexed = paper_id in self.index
        keys = [None, *self.topics_of(paper_id)] if indexed else []
        if read is not None and read != (paper_id in self.read):
            (self.read.add if read else self.read.discard)(paper_id)
            if counts is not None:
                for key in keys + ([STARRED] if paper_id in self.starred and indexed else []):
                    counts[key][1] += -1 if read else 1
        if starred is not None and starred != (paper_id in self.starred):
            (self.starred.add if starred else self.starred.discard)(paper_id)
            if counts is not None and indexed:
                counts[STARRED][0] += 1 if starred else -1
                counts[STARRED][1] += (1 if starred else -1) * (paper_id not in self.read)

    def select(
        self,
        *,
        topic: str | None = None,
        starred: bool = False,
        unread: bool = False,
        query: Node | None = None,
    ) -> list[str]:
        """Ids newest first that pass every given filter."""
        index, read, stars = self.index, self.read, self.starred
        if topic is not None:
            bit = index.bit(topic)
            ids = [pid for pid, mask in zip(index.ids, index.masks) if mask & bit]
        else:
            ids = index.ids
        if starred:
            ids = [pid for pid in ids if pid in stars]
        if unread:
            ids = [pid for pid in ids if pid not in read]
        if query is not None:
            matched = self.matching(query)
            ids = [pid for pid in ids if pid in matched]
        return list(ids)

    def counts(self, topic: str | None = None, *, starred: bool = False) -> tuple[int, int]:
        """(total, unread) for a topic, the starred papers, or everything (None)."""
        if self._counts is None:
            self._counts = self._count_all()
        total, unread = self._counts.get(STARRED if starred else topic, (0, 0))
        return total, unread

    def _count_all(self) -> dict:
        """Every count, one pass over the index per topic."""
        index, read = self.index, self.read
        unread_flags = [pid not in read for pid in index.ids]
        counts: dict = {None: [len(index), sum(unread_flags)]}
        for i, name in enumerate(index.topics):
            bit = 1 << i
            members = [flag for flag, mask in zip(unread_flags, index.masks) if mask & bit]
            counts[name] = [len(members), sum(members)]
        starred = [pid for pid in self.starred if pid in index]
        counts[STARRED] = [len(starred), sum(pid not in read for pid in starred)]
        return counts

    def momentum(self, as_of: date, *, topic: str | None = None, total_new_last4: int | None = None):
        index = self.index
        if topic is None:
            days = index.days
        else:
            bit = index.bit(topic)
            days = [day for day, mask in zip(index.days, index.masks) if mask & bit]
        return momentum.compute_days(days, as_of, total_new_last4)
