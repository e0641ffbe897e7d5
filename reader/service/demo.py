"""The bundled demo set behind the service's interface: shown when there is no cache yet."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import Future
from datetime import date

from reader.config import Settings
from reader.core.library import Library
from reader.core.momentum import Momentum, headline
from reader.core.ranking import NeedsStars
from reader.core.rising import RisingTerm, rising_terms
from reader.models import Paper
from reader.service.library import CacheUpdate, LibraryService, T
from reader.service.ranker import RankedList, ranked_list
from reader.service.search import MemorySearch
from reader.service.triage_sets import TriageSets
from reader.service.views import View
from reader.store import Store


class DemoService(LibraryService):
    """The bundled demo set, shown when there is no cache yet: marks live in memory only, and
    there is nothing to export (demo papers have no arXiv ids)."""

    is_demo = True

    def __init__(self, store: Store, settings: Settings):
        from reader.demo import load_demo

        super().__init__(store, settings)
        self.demo = load_demo()
        self.search = MemorySearch(self.demo.papers)

    def open(self) -> Library:
        self.outside.taken(self.outside.stamps())
        self.topics = self.store.topics()
        self.library = Library(self.demo.index)
        return self.library

    def text_store(self) -> None:
        return None

    def load_paper(self, paper_id: str) -> Paper | None:
        return self.demo.papers.get(paper_id)

    def papers(self, ids: list[str]) -> list[Paper]:
        return []

    def momentum(self, view: View) -> Momentum:
        return self.library.momentum(self.demo.as_of, topic=view.topic)  # as of the day the page was captured

    def _as_of(self) -> date:
        return self.demo.as_of

    def _coverage_spans(self) -> None:
        return None  # the bundled page's papers: every day counts, as in its chart

    def read_triage(self, *, visit: bool = False) -> TriageSets:
        return TriageSets()  # the demo papers are not in the cache: nothing is new, updated or watched

    def visit_topic(self, name: str) -> None:
        return

    def _ranker(self):
        return _DemoRanker(self.demo.papers.values())

    def rising_terms(self, topic: str, limit: int = 5) -> list[RisingTerm]:
        from reader.core.features import row_of_paper

        papers = [(date.fromisoformat(p.published[:10]), row_of_paper(p).words) for p in self.demo.papers.values()]
        return rising_terms(papers, self._as_of(), limit=limit)

    def chart(self, view: View) -> tuple[Momentum, str, str]:
        """The page's own headline figures for its topic, said apart from the bars: the bars
        count only the 30 bundled papers of the page's total."""
        momentum = self.momentum(view)
        figures = self.demo.headline_figures
        topic = view.topic or self.demo.topic
        title = f"Demo · {topic}"
        if view.topic in (None, self.demo.topic):
            page = dataclasses.replace(
                momentum, last4=figures["last4"], change_pct=figures["change_pct"], share_pct=figures["share_pct"]
            )
            bundled = len(self.demo.papers)
            title += f" · bars: the {bundled} bundled papers of {figures['latest_papers']:,}"
            return momentum, title, f"On the page: {headline(page)}"
        return momentum, title, headline(momentum)

    def notice(self) -> str | None:
        return f"Demo set: {len(self.demo.papers)} papers of the '{self.demo.topic}' topic page (Sep 2026), kept in memory only: stars and read marks are not saved"

    def _persist_marks(self, paper_id: str, *, read: bool | None, starred: bool | None, hidden: bool | None) -> None:
        return  # demo marks are not saved: the demo papers are not in the cache

    def _write(self, action: Callable[[], T], on_error: Callable[[str], None] | None) -> Future:
        """Tags and notes are not kept for demo papers (they are not in the cache)."""
        if on_error is not None:
            self.run_on_ui(lambda: on_error("The demo set is kept in memory only: tags and notes are not saved"))
        done: Future = Future()
        done.set_result(None)
        return done

    def apply_update(self, update: CacheUpdate) -> None:
        self.topics = update.topics  # the demo's papers stay as they are

    def replacement(self) -> LibraryService | None:
        """The cache's own service, once a sync has brought papers into it."""
        return LibraryService(self.store, self.settings) if self.store.shards() else None


class _DemoRanker:
    """The demo's 30 papers as the ranking's corpus (they are in memory, not in the cache)."""

    def __init__(self, papers):
        from reader.core.features import Corpus, row_of_paper

        self.corpus = Corpus.of_rows([row_of_paper(paper) for paper in papers])

    def rank(self, **marks) -> RankedList | NeedsStars:
        from reader.core.ranking import rank

        return ranked_list(rank(self.corpus, **marks))
