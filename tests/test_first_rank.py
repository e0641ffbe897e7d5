"""`reader rank` from candidates (service/first_rank.py): only the papers sharing a starred
paper's distinctive terms are read and ranked, with the same scores the whole-cache ranking
gives them while the cache is within the IDF's sample."""

from __future__ import annotations

import json

import pytest

from reader.core.ranking import NeedsStars
from reader.searchdb import SearchIndex
from reader.service import first_rank
from reader.service.first_rank import rank_candidates
from reader.service.triage_sets import RankingCorpus
from reader.store import Store
from reader.store.shard_features import features_path
from tests.conftest import run
from tests.corpus import TODAY
from tests.themes import rising_papers, theme_papers


@pytest.fixture
def cache(data_dir, monkeypatch):
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    store = Store(data_dir)
    store.set_setting("examples_added", True)
    papers = theme_papers(60)
    for name, members in [("Agents", papers["agents"]), ("Proteins", papers["proteins"]), ("Language", rising_papers())]:
        store.add_topic(name, f"ti:{name.lower()}")
        store.save_papers(members, name)
    return store, papers["agents"], papers["proteins"]


def _indexed(store: Store) -> SearchIndex:
    index = SearchIndex.open(store.data_dir)
    index.refresh(store)
    return index


def test_candidates_get_the_whole_cache_rankings_scores_and_its_best_papers(cache):
    store, agents, proteins = cache
    starred = {p.id for p in agents[:5]}
    read, hidden = {agents[5].id, proteins[0].id}, {proteins[1].id}
    whole = RankingCorpus(store).rank(starred=starred, read=read, hidden=hidden)  # saves every shard's features
    index = _indexed(store)
    try:
        fast = rank_candidates(store, index, starred=starred, read=read, hidden=hidden)
    finally:
        index.close()
    assert not isinstance(whole, NeedsStars) and fast is not None and not isinstance(fast, NeedsStars)
    assert 20 <= len(fast) < len(whole)  # the starred theme's neighbours, not every paper
    scores = dict(zip(whole.ids, whole.scores))
    assert fast.ids == [pid for pid in whole.ids if pid in set(fast.ids)]
    assert fast.scores == pytest.approx([scores[pid] for pid in fast.ids], abs=1e-9)
    assert fast.ids[:20] == whole.ids[:20]
    assert not (set(fast.ids) & (starred | read | hidden))


def test_stars_outside_the_cache_count_for_nothing(cache):
    store, agents, _ = cache
    RankingCorpus(store).rank(starred={p.id for p in agents[:3]}, read=set(), hidden=set())
    index = _indexed(store)
    try:
        none = rank_candidates(store, index, starred=set(), read=set(), hidden=set())
        two = rank_candidates(store, index, starred={agents[0].id, agents[1].id, "2001.00001", "2001.00002"}, read=set(), hidden=set())
        three = rank_candidates(store, index, starred={p.id for p in agents[:3]} | {"2001.00001"}, read=set(), hidden=set())
    finally:
        index.close()
    assert none == NeedsStars(0) and two == NeedsStars(2)
    assert three is not None and not isinstance(three, NeedsStars) and len(three) > 0


def test_many_stars_leave_the_ranking_to_the_whole_cache(cache, monkeypatch):
    store, agents, _ = cache
    RankingCorpus(store).rank(starred={p.id for p in agents[:3]}, read=set(), hidden=set())
    monkeypatch.setattr(first_rank, "MOST_STARS", 4)
    index = _indexed(store)
    try:
        assert rank_candidates(store, index, starred={p.id for p in agents[:4]}, read=set(), hidden=set()) is not None
        assert rank_candidates(store, index, starred={p.id for p in agents[:5]}, read=set(), hidden=set()) is None
    finally:
        index.close()


def test_features_damaged_or_not_saved_leave_the_ranking_to_the_whole_cache(cache):
    store, agents, _ = cache
    RankingCorpus(store).rank(starred={p.id for p in agents[:3]}, read=set(), hidden=set())
    index = _indexed(store)
    try:
        path = features_path(store, store.shards()[0])
        path.write_bytes(path.read_bytes()[:100])  # cut short: not read as rows
        assert rank_candidates(store, index, starred={p.id for p in agents[:3]}, read=set(), hidden=set()) is None
        path.unlink()
        assert rank_candidates(store, index, starred={p.id for p in agents[:3]}, read=set(), hidden=set()) is None
    finally:
        index.close()


def test_the_cli_ranks_from_candidates_once_the_search_index_is_built(capsys, cache):
    store, agents, _ = cache
    store.set_marks([p.id for p in agents[:5]], starred=True)
    code, whole, err = run(capsys, "rank", "--json", "--limit", "10")  # no search index yet: said, and every paper ranked
    assert code == 0 and "no search index yet" in err
    assert run(capsys, "list", "--query", "zebra")[0] == 0  # builds the index
    code, fast, err = run(capsys, "rank", "--json", "--limit", "10")
    assert code == 0 and err == ""
    assert fast == whole
    code, out, err = run(capsys, "rank", "--json", "--limit", "500")  # more than the candidates: the whole cache
    assert code == 0 and len(json.loads(out)) > len({p.id for p in agents}) and err == ""
