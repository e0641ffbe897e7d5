"""A cache of three themes for the first ranking's tests (tests/test_first_rank.py,
tests/test_counts_total.py), and a ranking from candidates of it."""

from __future__ import annotations

from reader.core import ranking
from reader.core.ranking import NeedsStars, Ranking
from reader.search_index import SearchIndex
from reader.service import first_rank
from reader.service.first_rank import rank_from_candidates
from reader.store import Store
from tests.corpus import TODAY
from tests.themes import rising_papers, theme_papers


def three_themes(data_dir, monkeypatch):
    """Three themes in three topics, a background and a bound on the candidates far below the
    cache (at their real sizes a cache this small would be read whole)."""
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    monkeypatch.setattr(ranking, "BACKGROUND", 12)
    monkeypatch.setattr(first_rank, "CANDIDATES", 60)  # the starred theme's unread papers (54), and a few more
    store = Store(data_dir)
    store.set_setting("examples_added", True)
    papers = theme_papers(60)
    for name, members in [("Agents", papers["agents"]), ("Proteins", papers["proteins"]), ("Language", rising_papers())]:
        store.add_topic(name, f"ti:{name.lower()}")
        store.save_papers(members, name)
    return store, papers["agents"], papers["proteins"]


def ranked(store: Store, **marks) -> Ranking | NeedsStars | None:
    index = SearchIndex.open(store.data_dir)
    index.refresh(store)
    try:
        return rank_from_candidates(store, index, **marks)
    finally:
        index.close()
