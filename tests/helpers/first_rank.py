"""A cache of three themes for the ranking's tests (tests/test_first_rank.py,
tests/test_counts_total.py, tests/test_rows_total.py, tests/test_triage_cli.py), and a ranking from candidates of it."""

from __future__ import annotations

from datetime import timedelta

from reader.core import ranking
from reader.core.coverage import day_end, day_start
from reader.core.ranking import NeedsStars, Ranking
from reader.search_index import SearchIndex
from reader.service import first_rank
from reader.service.first_rank import rank_from_candidates
from reader.service.ranking_corpus import RankingCorpus
from reader.store import Store, shard_features
from tests.corpus import TODAY
from tests.themes import rising_papers, theme_papers


def themes_cache(data_dir, monkeypatch, per_theme: int, *, covered_weeks: int | None = None):
    """(store, agents, proteins): the themes "agents" and "proteins" of `per_theme` papers each and
    a rising "language" theme, each in a topic of its name, on the suite's day. With `covered_weeks`,
    each topic synced whole for that many weeks up to today (the momentum figures count only what
    a sync covered)."""
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    store = Store(data_dir)
    store.set_setting("examples_added", True)
    papers = theme_papers(per_theme)
    for name, members in [("Agents", papers["agents"]), ("Proteins", papers["proteins"]), ("Language", rising_papers())]:
        query = f"ti:{name.lower()}"
        store.add_topic(name, query)
        store.save_papers(members, name)
        if covered_weeks is not None:
            covered = [(day_start(TODAY - timedelta(weeks=covered_weeks)), day_end(TODAY))]
            store.sync_file.record_progress(name, query, covered, TODAY.isoformat(), None)
    return store, papers["agents"], papers["proteins"]


def three_themes(data_dir, monkeypatch):
    """Three themes in three topics, a background and a bound on the candidates far below the
    cache (at their real sizes a cache this small would be read whole)."""
    monkeypatch.setattr(ranking, "BACKGROUND", 12)
    monkeypatch.setattr(first_rank, "CANDIDATES", 60)  # the starred theme's unread papers (54), and a few more
    return themes_cache(data_dir, monkeypatch, 60)


def synced_after_a_rank(store: Store, agents, proteins, monkeypatch, *, apart: bool) -> dict:
    """A first rank from candidates (its marks returned), then a sync's saves told to a FeatureKeeper:
    new papers of both themes, and papers a shard held saved again. `apart`: the keeper counts in a
    process of its own, as a large sync's does."""
    if apart:
        monkeypatch.setattr(shard_features, "PROCESS_AFTER", 1)
    monkeypatch.setattr(first_rank, "CANDIDATES", 200)  # every paper sharing a term
    marks = {"starred": {p.id for p in agents[:5]}, "read": set(), "hidden": {proteins[1].id}}
    RankingCorpus(store).corpus()
    ranked(store, **marks)
    keeper = shard_features.FeatureKeeper(store)
    more = theme_papers(20, seed=11)
    store.save_papers(more["agents"] + more["proteins"], "Agents", on_shard=keeper.on_shard)
    store.save_papers(proteins[2:6], "Proteins", on_shard=keeper.on_shard)
    keeper.wait()
    return marks


def ranked(store: Store, **marks) -> Ranking | NeedsStars | None:
    index = SearchIndex.open(store.data_dir)
    index.refresh(store)
    try:
        return rank_from_candidates(store, index, **marks)
    finally:
        index.close()
