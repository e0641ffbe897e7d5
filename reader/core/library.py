"""The papers a screen or a command works on: ordered newest first, counted, filtered, charted.

Built from the cache index alone (so counts and the chart need no paper records); full records
are added as they load, and a text query needs them."""

from __future__ import annotations

from datetime import date
from typing import Iterable

from reader.core import momentum
from reader.core.query import Matcher, SearchText, search_text
from reader.models import IndexEntry, Paper

STARRED = object()  # the key of the starred papers' counts (a topic may be named anything)


class Library:
    def __init__(self, index: dict[str, IndexEntry], read: Iterable[str] = (), starred: Iterable[str] = ()):
        self.read = set(read)
        self.starred = set(starred)
        self.papers: dict[str, Paper] = {}
        self._search: dict[str, SearchText] = {}
        self.reindex(index)

    def reindex(self, index: dict[str, IndexEntry]) -> None:
        """Take a newer index (after a sync); loaded records stay, changed ones are replaced later."""
        self.index = index
        # Newest first: v1 day, then id (ids grow with announcement order within a day).
        self.order: list[str] = sorted(index, key=lambda pid: (index[pid].published, pid), reverse=True)
        self._counts: dict[str | None, list[int]] | None = None

    def add_papers(self, papers: Iterable[Paper]) -> None:
        for paper in papers:
            self.papers[paper.id] = paper
            self._search.pop(paper.id, None)

    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None) -> None:
        """Change marks in memory, keeping the cached counts right without a recount."""
        counts = self._counts
        topics = self.topics_of(paper_id)
        if read is not None and read != (paper_id in self.read):
            (self.read.add if read else self.read.discard)(paper_id)
            if counts is not None and paper_id in self.index:
                for key in [None, *topics] + ([STARRED] if paper_id in self.starred else []):
                    counts[key][1] += -1 if read else 1
        if starred is not None and starred != (paper_id in self.starred):
            (self.starred.add if starred else self.starred.discard)(paper_id)
            if counts is not None and paper_id in self.index:
                counts[STARRED][0] += 1 if starred else -1
                counts[STARRED][1] += (1 if starred else -1) * (paper_id not in self.read)

    @property
    def complete(self) -> bool:
        """Every indexed paper's record is loaded (text queries give full answers)."""
        return len(self.papers) >= len(self.index)

    def topics_of(self, paper_id: str) -> list[str]:
        entry = self.index.get(paper_id)
        return entry.topics if entry else []

    def search_text(self, paper_id: str) -> SearchText | None:
        text = self._search.get(paper_id)
        if text is None:
            paper = self.papers.get(paper_id)
            if paper is None:
                return None
            text = self._search[paper_id] = search_text(paper)
        return text

    def select(
        self,
        *,
        topic: str | None = None,
        starred: bool = False,
        unread: bool = False,
        match: Matcher | None = None,
        ids: Iterable[str] | None = None,
    ) -> list[str]:
        """Ids newest first that pass every given filter (`ids` narrows a previous selection)."""
        index, read, stars = self.index, self.read, self.starred
        result = []
        for pid in self.order if ids is None else ids:
            if topic is not None and topic not in index[pid].topics:
                continue
            if starred and pid not in stars:
                continue
            if unread and pid in read:
                continue
            if match is not None:
                text = self.search_text(pid)
                if text is None or not match(text):
                    continue
            result.append(pid)
        return result

    def counts(self, topic: str | None = None, *, starred: bool = False) -> tuple[int, int]:
        """(total, unread) for a topic, the starred papers, or everything (None)."""
        if self._counts is None:
            self._counts = self._count_all()
        total, unread = self._counts.get(STARRED if starred else topic, (0, 0))
        return total, unread

    def _count_all(self) -> dict:
        """Every count in one pass over the index."""
        counts: dict = {None: [0, 0], STARRED: [0, 0]}
        read, starred = self.read, self.starred
        for pid, entry in self.index.items():
            unread = pid not in read
            keys = [None, *entry.topics] + ([STARRED] if pid in starred else [])
            for key in keys:
                pair = counts.setdefault(key, [0, 0])
                pair[0] += 1
                pair[1] += unread
        return counts

    def momentum(self, as_of: date, *, topic: str | None = None, total_new_last4: int | None = None):
        days = (
            date.fromisoformat(e.published)
            for e in self.index.values()
            if topic is None or topic in e.topics
        )
        return momentum.compute(days, as_of, total_new_last4)
