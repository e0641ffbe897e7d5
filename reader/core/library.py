"""The papers a screen or a command works on: ordered newest first, counted, filtered, charted.

Built from the cache index alone (so counts and the chart need no paper records); full records
are added as they load, and a text query needs them."""

from __future__ import annotations

from datetime import date
from typing import Iterable

from reader.core import momentum
from reader.core.query import Matcher, SearchText, search_text
from reader.models import IndexEntry, Paper


class Library:
    def __init__(self, index: dict[str, IndexEntry], read: Iterable[str] = (), starred: Iterable[str] = ()):
        self.index = index
        self.read = set(read)
        self.starred = set(starred)
        # Newest first: v1 day, then id (ids grow with announcement order within a day).
        self.order: list[str] = sorted(index, key=lambda pid: (index[pid].published, pid), reverse=True)
        self.papers: dict[str, Paper] = {}
        self._search: dict[str, SearchText] = {}

    def add_papers(self, papers: Iterable[Paper]) -> None:
        for paper in papers:
            self.papers[paper.id] = paper

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
        """(total, unread) for a topic, the starred papers, or everything."""
        total = unread = 0
        for pid, entry in self.index.items():
            if topic is not None and topic not in entry.topics:
                continue
            if starred and pid not in self.starred:
                continue
            total += 1
            if pid not in self.read:
                unread += 1
        return total, unread

    def momentum(self, as_of: date, *, topic: str | None = None, total_new_last4: int | None = None):
        days = (
            date.fromisoformat(e.published)
            for e in self.index.values()
            if topic is None or topic in e.topics
        )
        return momentum.compute(days, as_of, total_new_last4)
