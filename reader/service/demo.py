"""The bundled demo set as the service's papers while the cache holds none: one source of the
one service, left for the cache when papers arrive (see LibraryService.leave_demo)."""

from __future__ import annotations

import dataclasses
from datetime import date

from reader.core.catalog import Catalog
from reader.core.momentum import Momentum, headline
from reader.core.ranking import NeedsStars
from reader.core.rising import RisingTerm, rising_terms
from reader.models import Paper
from reader.service.ranker import RankedList, ranked_list
from reader.service.search import MemorySearch
from reader.service.views import View


class DemoSource:
    """The demo's papers, chart, ranking and search, all in memory: marks on them are not saved,
    they take no tags or notes, and there is nothing to export (they have no arXiv ids)."""

    def __init__(self) -> None:
        from reader.demo import load_demo

        self.set = load_demo()
        self.search = MemorySearch(self.set.papers)

    @property
    def as_of(self) -> date:
        return self.set.as_of  # the day the page was captured

    def catalog(self) -> Catalog:
        return Catalog(self.set.index)

    def load_paper(self, paper_id: str) -> Paper | None:
        return self.set.papers.get(paper_id)

    def momentum(self, catalog: Catalog, topic: str | None) -> Momentum:
        return catalog.momentum(self.set.as_of, topic=topic)  # as of the day the page was captured

    def chart(self, momentum: Momentum, view: View) -> tuple[Momentum, str, str]:
        """The page's own headline figures for its topic, said apart from the bars: the bars
        count only the 30 bundled papers of the page's total."""
        figures = self.set.headline_figures
        topic = view.topic or self.set.topic
        title = f"Demo · {topic}"
        if view.topic in (None, self.set.topic):
            page = dataclasses.replace(momentum, last4=figures["last4"], change_pct=figures["change_pct"], share_pct=figures["share_pct"])
            bundled = len(self.set.papers)
            title += f" · bars: the {bundled} bundled papers of {figures['latest_papers']:,}"
            return momentum, title, f"On the page: {headline(page)}"
        return momentum, title, headline(momentum)

    def rising_terms(self, limit: int) -> list[RisingTerm]:
        from reader.core.features import row_of_paper

        papers = [(date.fromisoformat(p.published[:10]), row_of_paper(p).words) for p in self.set.papers.values()]
        return rising_terms(papers, self.set.as_of, limit=limit)

    def ranker(self) -> _DemoRanker:
        return _DemoRanker(self.set.papers.values())

    def notice(self) -> str:
        return f"Demo set: {len(self.set.papers)} papers of the '{self.set.topic}' topic page (Sep 2026), kept in memory only: stars and read marks are not saved"


class _DemoRanker:
    """The demo's 30 papers as the ranking's corpus (they are in memory, not in the cache)."""

    def __init__(self, papers):
        from reader.core.features import Corpus, row_of_paper

        self.corpus = Corpus.of_rows([row_of_paper(paper) for paper in papers])

    def rank(self, **marks) -> RankedList | NeedsStars:
        from reader.core.ranking import rank

        return ranked_list(rank(self.corpus, **marks))
