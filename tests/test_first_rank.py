"""`reader rank` from candidates (service/first_rank.py): the IDF from the document counts saved
beside each shard's features, and only the rows of the marked papers, the background and the
papers sharing the stars' distinctive terms read; every score equal to the whole-cache
ranking's, and its best papers first."""

from __future__ import annotations

import json
import logging

import pytest

from reader.core.ranking import NeedsStars, Ranking
from reader.search_index import SearchIndex
from reader.service import first_rank
from reader.service.ranking_corpus import RankingCorpus
from reader.store.shard_features import counts_path, total_path
from tests.conftest import run
from tests.helpers.first_rank import ranked as _ranked
from tests.helpers.first_rank import three_themes


@pytest.fixture
def cache(data_dir, monkeypatch):
    return three_themes(data_dir, monkeypatch)


def test_candidates_get_the_whole_cache_rankings_scores_and_its_best_papers(cache):
    store, agents, proteins = cache
    marks = {"starred": {p.id for p in agents[:5]}, "read": {agents[5].id, proteins[0].id}, "hidden": {proteins[1].id}}
    whole = RankingCorpus(store).rank(**marks)  # saves every shard's features and counts, as a sync does
    fast = _ranked(store, **marks)
    assert isinstance(whole, Ranking) and isinstance(fast, Ranking)
    assert 20 <= len(fast) <= 60 + 12 < len(whole)  # the candidates and the background, not every paper
    scores = dict(zip(whole.ids, whole.scores))
    assert fast.scores == pytest.approx([scores[pid] for pid in fast.ids], abs=1e-9)  # the same IDF, model and rows
    assert fast.ids == [pid for pid in whole.ids if pid in set(fast.ids)]
    assert fast.ids[:20] == whole.ids[:20]
    assert not set(fast.ids) & (marks["starred"] | marks["read"] | marks["hidden"])


def test_no_stars_and_stars_outside_the_cache_count_for_nothing(cache):
    store, agents, _ = cache
    RankingCorpus(store).corpus()
    assert _ranked(store, starred=set(), read=set(), hidden=set()) == NeedsStars(0)
    outside = {"2001.00001", "2001.00002"}
    assert _ranked(store, starred={agents[0].id, agents[1].id} | outside, read=set(), hidden=set()) == NeedsStars(2)
    three = _ranked(store, starred={p.id for p in agents[:3]} | outside, read=set(), hidden=set())
    alone = _ranked(store, starred={p.id for p in agents[:3]}, read=set(), hidden=set())
    assert isinstance(three, Ranking) and isinstance(alone, Ranking) and three.ids == alone.ids and len(three) > 0


def test_a_shard_without_counts_is_read_whole_and_counted_and_many_leave_it_to_the_whole_cache(cache, caplog, monkeypatch):
    store, agents, _ = cache
    monkeypatch.setattr(first_rank, "MISSING_MOST", 1.0)  # this small cache's two shards may both lack them
    monkeypatch.setattr(first_rank, "CANDIDATES", 200)  # every paper sharing a term: the counts alone are tested here
    marks = {"starred": {p.id for p in agents[:4]}, "read": set(), "hidden": set()}
    whole = RankingCorpus(store).rank(**marks)
    first, second, *_ = store.shards()
    counts_path(store, first).unlink()
    damaged = counts_path(store, second)
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"\x00")  # its checksum fails: as good as missing
    fast = _ranked(store, **marks)
    assert isinstance(whole, Ranking) and isinstance(fast, Ranking)
    assert fast.ids[:20] == whole.ids[:20]
    assert counts_path(store, first).exists() and damaged.read_bytes()[-1:] != b"\x00"  # counted again and saved
    monkeypatch.setattr(first_rank, "MISSING_MOST", 0.25)
    counts_path(store, first).unlink()
    total_path(store).unlink()  # (the counts total, which the ranking above kept, would do without it)
    with caplog.at_level(logging.INFO, logger="reader.features"):
        assert _ranked(store, **marks) is None  # every features file would be read: the caller ranks the whole cache
    assert "have no document counts saved yet" in caplog.text
    RankingCorpus(store).rank(**marks)  # the whole-cache ranking saves the counts it finds missing
    assert all(counts_path(store, shard).exists() for shard in store.shards())


def test_the_cli_ranks_from_candidates_once_the_search_index_is_built(capsys, cache, caplog):
    store, agents, _ = cache
    store.set_marks([p.id for p in agents[:5]], starred=True)
    caplog.set_level(logging.INFO, logger="reader.features")
    code, whole, err = run(capsys, "rank", "--json", "--limit", "10")
    assert code == 0 and "no search index yet" in caplog.text  # said in the log, and every paper ranked
    code, whole_topic, _ = run(capsys, "rank", "--json", "--limit", "5", "--topic", "Agents")
    assert run(capsys, "list", "--query", "zebra")[0] == 0  # builds the index
    caplog.clear()
    code, fast, err = run(capsys, "rank", "--json", "--limit", "10")
    assert code == 0 and err == "" and "For you from" in caplog.text
    assert fast == whole and len(json.loads(fast)) == 10
    assert run(capsys, "rank", "--json", "--limit", "5", "--topic", "Agents")[1] == whole_topic
    code, out, _ = run(capsys, "rank", "--json", "--limit", "500")  # more than the candidates: the whole cache
    assert code == 0 and len(json.loads(out)) > 60 + 12 and "fewer than asked for" in caplog.text


def test_the_index_gives_the_papers_holding_the_most_weight_of_each_group_of_terms(cache):
    """search_index/sharing.py against the reference: each term's matches (`matching`), their
    weights summed, the best first, ties by id."""
    from reader.core.similar import text_node

    store, _, proteins_theme = cache
    groups = [
        [(text_node("reward shaping"), 3.0), (text_node("tool use"), 2.0), (text_node("protein"), 1.0)],
        [(text_node("folding"), 1.5), (text_node("language"), 1.5)],
        [],
    ]
    proteins = {p.id for p in proteins_theme}
    index = SearchIndex.open(store.data_dir)
    index.refresh(store)
    try:
        found, found_among = index.most_shared(groups, 15), index.most_shared(groups, 15, proteins)
        expected, expected_among = [], []
        for group in groups:
            held: dict[str, float] = {}
            for node, weight in group:
                for pid in index.matching(node):
                    held[pid] = held.get(pid, 0.0) + weight
            expected.append(sorted(held, key=lambda pid: (-held[pid], pid))[:15])
            expected_among.append(sorted(proteins & held.keys(), key=lambda pid: (-held[pid], pid))[:15])
    finally:
        index.close()
    assert found == expected and len(found[0]) == 15 and found[2] == []
    assert found_among == expected_among and len(found_among[0]) == 15 and found_among[0] != found[0]


def test_counts_saved_from_another_state_of_the_shard_or_crafted_read_as_none(cache):
    import struct
    import zlib

    import numpy as np

    from reader.core import shard_counts
    from reader.store.shard_features import shard_stamp

    store, _, _ = cache
    RankingCorpus(store).corpus()
    shard = store.shards()[0]
    path, stamp = counts_path(store, shard), shard_stamp(store, shard)
    saved = shard_counts.read(path, stamp)
    assert saved is not None and saved.papers > 0 and len(saved.columns) > 0
    assert shard_counts.read(path, (stamp[0] + 1, stamp[1])) is None  # the shard rewritten since
    raw = path.read_bytes()
    start = len(shard_counts.MAGIC) + struct.calcsize("<IIqqII")
    columns = np.frombuffer(raw, dtype="<i4", count=len(saved.columns), offset=start)
    body = raw[:start] + columns[::-1].tobytes() + raw[start + columns.nbytes : -4]  # out of order, checksum right
    assert shard_counts.decode(body + struct.pack("<I", zlib.crc32(body)), stamp) is None
    assert shard_counts.decode(raw[:-5] + raw[-4:], stamp) is None  # cut short


def test_a_topic_outside_the_stars_theme_gets_its_own_best_papers_as_the_whole_cache_ranks_them(cache):
    """The candidates are the topic's papers sharing the most with the stars, not the few of
    them that made the cut over the whole cache (there, the starred theme's papers fill it)."""
    store, agents, proteins = cache
    marks = {"starred": {p.id for p in agents[:5]}, "read": set(), "hidden": set()}
    topic = [p.id for p in proteins]
    whole = RankingCorpus(store).rank(**marks, candidates=topic)
    fast = _ranked(store, **marks, among=topic)
    assert isinstance(whole, Ranking) and isinstance(fast, Ranking)
    assert len(fast) >= 10 and fast.ids[:10] == whole.ids[:10]  # (on the whole-cache cut: no candidate of the topic)
    scores = dict(zip(whole.ids, whole.scores))
    assert fast.scores == pytest.approx([scores[pid] for pid in fast.ids], abs=1e-9)


def test_the_cli_ranks_the_whole_cache_when_the_search_index_is_locked(capsys, cache, caplog, monkeypatch):
    """Another writer (the app refreshing after a sync) holding the index: `reader rank` gives
    the whole-cache ranking, said in the log, instead of failing."""
    import sqlite3

    from reader.search_index import partition

    store, agents, _ = cache
    store.set_marks([p.id for p in agents[:5]], starred=True)
    code, whole, _ = run(capsys, "rank", "--json", "--limit", "10")
    assert code == 0 and run(capsys, "list", "--query", "zebra")[0] == 0  # builds the index
    monkeypatch.setattr(partition, "BUSY_SECONDS", 0.1)  # (a minute in use)
    writer = sqlite3.connect(SearchIndex.open(store.data_dir).paths[0], isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # the write lock, held
    caplog.set_level(logging.INFO, logger="reader.features")
    try:
        code, locked, err = run(capsys, "rank", "--json", "--limit", "10")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert code == 0 and err == "" and locked == whole and len(json.loads(locked)) == 10
    assert "the search index cannot be used (" in caplog.text and "For you from" not in caplog.text
