"""The counts total (core/counts_total.py): every shard's document counts summed in one file,
with the papers that may join the background, kept by the first ranking and by a sync's
FeatureKeeper; trusted only while it names every shard as it is, and summed again when not."""

from __future__ import annotations

import numpy as np
import pytest

from reader.core import counts_total, shard_counts
from reader.core.features import sample_keys_of
from reader.core.ranking import Ranking
from reader.service.ranking_corpus import RankingCorpus
from reader.store import Store
from reader.store import shard_features as saved
from tests.helpers.first_rank import ranked as _ranked
from tests.helpers.first_rank import synced_after_a_rank, three_themes
from tests.themes import rising_papers, theme_papers


@pytest.fixture
def cache(data_dir, monkeypatch):
    return three_themes(data_dir, monkeypatch)


@pytest.fixture(autouse=True)
def few_sampled(monkeypatch):
    monkeypatch.setattr(counts_total, "SAMPLED", 30)  # below the cache's papers: the background comes from a bound


def current(store: Store) -> counts_total.CountsTotal:
    total = saved.read_total(store)
    assert total is not None
    assert total.is_of({shard: saved.shard_stamp(store, shard) for shard in store.shards()})
    return total


def assert_sums_every_shard(store: Store) -> None:
    total = current(store)
    stamps = {shard: saved.shard_stamp(store, shard) for shard in store.shards()}
    parts = [shard_counts.read(saved.counts_path(store, shard), stamp) for shard, stamp in stamps.items()]
    assert all(part is not None for part in parts)
    papers, documents = shard_counts.summed([part for part in parts if part is not None])
    assert total.papers == papers and np.array_equal(total.documents, documents)
    ids = [pid for shard in store.shards() for pid in store.load_papers([shard])]
    keys = sample_keys_of(ids)
    assert total.sampled == {pid: int(key) for pid, key in zip(ids, keys.tolist()) if key < total.bound}
    assert len(total.sampled) >= counts_total.SAMPLED


def test_the_first_rank_keeps_the_total_and_the_next_reads_no_shards_counts(cache):
    store, agents, proteins = cache
    marks = {"starred": {p.id for p in agents[:5]}, "read": {agents[5].id, proteins[0].id}, "hidden": {proteins[1].id}}
    whole = RankingCorpus(store).rank(**marks)  # every shard's features and counts saved, as a sync leaves them
    first = _ranked(store, **marks)
    assert_sums_every_shard(store)
    for shard in store.shards():
        saved.counts_path(store, shard).unlink()
    again = _ranked(store, **marks)
    assert isinstance(whole, Ranking) and isinstance(first, Ranking) and isinstance(again, Ranking)
    assert again.ids == first.ids and again.scores == first.scores
    assert first.ids[:20] == whole.ids[:20]
    assert not any(saved.counts_path(store, shard).exists() for shard in store.shards())  # none was needed


@pytest.mark.parametrize("apart", [False, True], ids=["in-thread", "in-a-process"])
def test_a_sync_keeps_the_total_current_and_the_ranking_equal_to_the_whole_caches(cache, monkeypatch, apart):
    """`apart`: a large sync's counting, done by a process of its own, keeps the total alike."""
    store, agents, proteins = cache
    marks = synced_after_a_rank(store, agents, proteins, monkeypatch, apart=apart)
    assert_sums_every_shard(store)
    fast = _ranked(store, **marks)
    whole = RankingCorpus(store).rank(**marks)
    assert isinstance(fast, Ranking) and isinstance(whole, Ranking)
    scores = dict(zip(whole.ids, whole.scores))
    assert fast.scores == pytest.approx([scores[pid] for pid in fast.ids], abs=1e-9)
    assert fast.ids[:20] == whole.ids[:20]


def test_a_shard_changed_without_it_makes_it_stale_and_it_is_summed_again(cache):
    store, agents, _ = cache
    marks = {"starred": {p.id for p in agents[:5]}, "read": set(), "hidden": set()}
    RankingCorpus(store).corpus()
    _ranked(store, **marks)
    store.save_papers(theme_papers(10, seed=5)["agents"], "Agents")  # no keeper: the total is not told
    RankingCorpus(store).corpus()  # the shard's features and counts saved again, not the total
    assert not saved.read_total(store).is_of({shard: saved.shard_stamp(store, shard) for shard in store.shards()})
    fast = _ranked(store, **marks)
    whole = RankingCorpus(store).rank(**marks)
    assert isinstance(fast, Ranking) and isinstance(whole, Ranking)
    assert fast.ids[:20] == whole.ids[:20]
    assert_sums_every_shard(store)


def test_a_damaged_total_is_summed_again(cache):
    store, agents, _ = cache
    marks = {"starred": {p.id for p in agents[:5]}, "read": set(), "hidden": set()}
    RankingCorpus(store).corpus()
    first = _ranked(store, **marks)
    path = saved.total_path(store)
    path.write_bytes(path.read_bytes()[:-1] + bytes([path.read_bytes()[-1] ^ 1]))
    assert saved.read_total(store) is None
    again = _ranked(store, **marks)
    assert isinstance(first, Ranking) and isinstance(again, Ranking) and again.ids == first.ids
    assert_sums_every_shard(store)


@pytest.mark.parametrize("apart", [False, True], ids=["in-thread", "in-a-process"])
def test_a_sync_into_an_empty_data_directory_leaves_the_total_it_ranks_from(data_dir, monkeypatch, apart):
    monkeypatch.setattr(counts_total, "SAMPLED", 10)  # its bound lowered as the papers come
    if apart:
        monkeypatch.setattr(saved, "PROCESS_AFTER", 1)
    store = Store(data_dir)
    keeper = saved.FeatureKeeper(store)
    papers = [p for group in theme_papers(60).values() for p in group] + rising_papers()  # two months: two shards
    for start in range(0, len(papers), 25):
        store.save_papers(papers[start : start + 25], None, on_shard=keeper.on_shard)
    keeper.wait()
    assert len(store.shards()) >= 2
    assert_sums_every_shard(store)
    assert len(current(store).sampled) <= 2 * 10
