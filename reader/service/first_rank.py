"""A one-off ranking (`reader rank`) whose work grows with the stars, not with the cache.

The whole-cache ranking (ranking_corpus.RankingCorpus) reads every shard's features: 1.26 GB at
1,000,000 papers. Here, from each shard, only:
- its document counts, saved beside its features by whoever saved those (core/shard_counts.py):
  summed, they give the IDF the whole-cache ranking computes, to the paper;
- its features file's header and row offsets (feature_file.RowReader), then the rows of the
  marked papers, of the background (the unmarked papers whose ids hash lowest: the same papers
  the whole-cache ranking trains on) and of the candidates.
The candidates are the CANDIDATES papers sharing most of the stars' distinctive words, phrases
and authors (weighed as they weigh in the model's TF-IDF), each term asked of the search index
for the papers bm25 ranks first for it (so a common term costs no more than a rare one). The
model is the whole-cache ranking's and every score equals its score for that paper: a paper
ranks here when the whole-cache ranking would rank it, unless it shares too little with the
stars to be a candidate (then it ranks low there too).

A shard whose counts are missing or stale is read whole (and its counts saved); more than
MISSING_MOST of them, and the caller ranks the whole cache instead (so it says in the log)."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from reader.core import ranking, shard_counts
from reader.core.feature_file import RowReader
from reader.core.features import PACK, Corpus, FeatureBlock, Row, column_of, named_terms, pack_rows, row_of_paper, sample_keys_of
from reader.core.query import Node
from reader.core.query import term as query_term
from reader.core.similar import text_node
from reader.core.terms import Distinct
from reader.core.text import word_string
from reader.meaning import like
from reader.meaning.kept import KeptIndex
from reader.models import Paper
from reader.searchdb import SearchIndex
from reader.store import Store
from reader.store.shard_features import counts_path, features_path, save_counts, shard_features, shard_stamp

log = logging.getLogger("reader.features")

CANDIDATES = 10_000  # papers ranked: those sharing the most of the stars' distinctive terms
TERMS = 15  # each star's most distinctive words and phrases asked of the index
AUTHORS = 10  # and its first authors
PER_TERM = CANDIDATES  # papers the index gives for one term (bm25's best)
MISSING_MOST = 0.25  # the share of shards without counts past which every features file is read
READERS = 2  # threads opening shards (JSON headers: the GIL is held most of the time)


class _Shard:
    """One shard as a first ranking reads it: its ids, counts and some of its rows (from its
    features file, or from a block read whole when its counts were missing)."""

    def __init__(
        self, ids: list[str], counts: shard_counts.ShardCounts, reader: RowReader | None = None, block: FeatureBlock | None = None
    ):
        self.ids, self.counts, self._reader, self._block = ids, counts, reader, block

    def rows(self, positions: list[int]) -> Any | None:
        if self._block is not None:
            return self._block.matrix[positions]
        assert self._reader is not None
        return self._reader.rows(positions)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()


def rank_from_candidates(
    store: Store,
    index: SearchIndex,
    *,
    starred: Collection[str],
    read: Collection[str],
    hidden: Collection[str],
    among: Iterable[str] | None = None,
) -> ranking.Ranking | ranking.NeedsStars | None:
    """The candidates (of `among` when given) ranked; None when the whole cache must be."""
    import numpy as np

    started = time.monotonic()
    stars = store.papers_by_id(starred)
    if len(stars) < ranking.MIN_STARS:
        return ranking.NeedsStars(len(stars))
    ranking.import_model_meanwhile()
    shards = _open(store)
    if shards is None:
        return None
    try:
        papers, documents = shard_counts.summed([shard.counts for shard in shards])
        idf = np.log((1 + papers) / (1 + documents)) + 1
        marked = {*stars, *hidden, *read}
        candidates = _candidates(index, stars.values(), idf, documents, leave_out=marked, among=None if among is None else set(among))
        keys = [sample_keys_of(shard.ids) for shard in shards]
        wanted = marked | candidates | _background(shards, keys, marked)
        blocks = _read_rows(shards, keys, wanted, stars)
    finally:
        for shard in shards:
            shard.close()
    if blocks is None:
        log.info("For you: a features file read out of shape: every paper's are read")
        return None
    read_in = time.monotonic() - started
    corpus = Corpus(blocks, documents=(papers, documents))
    ranked = None if among is None else candidates  # (the background is ranked too, unless a topic is asked for)
    result = ranking.rank(corpus, starred=starred, read=read, hidden=hidden, candidates=ranked)
    if isinstance(result, ranking.Ranking):
        fused = like.fused_order(KeptIndex(store.data_dir).get(), result.ids, result.scores, sorted(starred))
        result = result.reordered(fused) if fused is not None else result
    log.info(
        "For you from %d candidates: %d papers' features read in %.2f s, ranked in %.2f s",
        len(candidates),
        len(corpus),
        read_in,
        time.monotonic() - started - read_in,
    )
    return result


def _open(store: Store) -> list[_Shard] | None:
    """Every shard opened, its counts read; None (closing what was opened) when too many lack
    their counts or features, which only the whole-cache ranking then reads and saves."""

    def opened(shard: str) -> tuple[str, _Shard | None]:
        stamp = shard_stamp(store, shard)
        try:
            reader = RowReader.open(features_path(store, shard), stamp)
        except OSError:
            reader = None
        counts = shard_counts.read(counts_path(store, shard), stamp) if reader is not None else None
        if reader is not None and counts is not None:
            return shard, _Shard(reader.ids, counts, reader=reader)
        if reader is not None:
            reader.close()
        return shard, None

    names = store.shards()
    with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
        found = dict(pool.map(opened, names))
    missing = [name for name, shard in found.items() if shard is None]
    if len(missing) > MISSING_MOST * len(names):
        for shard in found.values():
            if shard is not None:
                shard.close()
        log.info("For you: %d of %d shards have no document counts saved yet: every paper's features are read", len(missing), len(names))
        return None
    for name in missing:  # read whole (or counted), their counts saved for the next ranking
        stamp = shard_stamp(store, name)
        block = shard_features(store, name, stamp)
        counts = shard_counts.ShardCounts.of_block(block)
        save_counts(store, name, block, stamp)
        found[name] = _Shard(block.ids, counts, block=block)
    return [shard for name in names if (shard := found[name]) is not None]


def _candidates(
    index: SearchIndex, stars: Iterable[Paper], idf: Any, documents: Any, *, leave_out: set[str], among: set[str] | None
) -> set[str]:
    """The CANDIDATES papers (not in `leave_out`; in `among` when given) sharing the most weight
    of the stars' distinctive terms: each star's TERMS words and phrases and AUTHORS authors that
    weigh most in its TF-IDF row ((1 + log count) times IDF squared, as "more like this" weighs
    them) and that another paper holds too."""
    asked: dict[Node, float] = {}
    for paper in stars:
        weighed: dict[str, tuple[float, Node]] = {}
        for name, key, count, words in named_terms(row_of_paper(paper)):
            if words and documents[column_of(key)] >= 2:
                weighed[name] = ((1 + math.log(count)) * float(idf[column_of(key)]) ** 2, text_node(name))
        distinct, chosen = Distinct(), 0
        for name in sorted(weighed, key=lambda term: (-weighed[term][0], term)):
            if chosen < TERMS and distinct.add(name):
                weight, node = weighed[name]
                asked[node] = asked.get(node, 0.0) + weight
                chosen += 1
        for author in paper.authors[:AUTHORS]:
            key = _author_column(author.name)
            if word_string(author.name).split() and documents[key] >= 2:
                node = query_term("au", word_string(author.name).split())
                asked[node] = asked.get(node, 0.0) + float(idf[key]) ** 2
    scores: dict[str, float] = {}
    for node, weight in asked.items():
        for pid in index.best_matching(node, PER_TERM):
            if pid not in leave_out and (among is None or pid in among):
                scores[pid] = scores.get(pid, 0.0) + weight
    return set(sorted(scores, key=lambda pid: (-scores[pid], pid))[:CANDIDATES])


def _author_column(name: str) -> int:
    """The column an author's name is counted in (as named_terms keys it)."""
    (_, key, _, _), *_ = named_terms(Row("", "", (name,)))
    return column_of(key)


def _background(shards: list[_Shard], keys: list[Any], marked: set[str]) -> set[str]:
    """The unmarked papers the whole-cache ranking trains on as the typical paper: the
    BACKGROUND whose ids hash lowest (ranking._training_set)."""
    import numpy as np

    every = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
    # The lowest keys, with room for the marked papers among them (left out below).
    taken = min(ranking.BACKGROUND + len(marked), len(every))
    lowest = np.argpartition(every, taken - 1)[:taken] if 0 < taken < len(every) else np.arange(len(every))
    lowest = lowest[np.argsort(every[lowest], kind="stable")]
    starts = np.cumsum([0] + [len(shard.ids) for shard in shards])
    ids = [shards[s].ids[i - starts[s]] for i in lowest.tolist() for s in [int(np.searchsorted(starts, i, side="right")) - 1]]
    return set([pid for pid in ids if pid not in marked][: ranking.BACKGROUND])


def _read_rows(shards: list[_Shard], keys: list[Any], wanted: set[str], stars: dict[str, Paper]) -> list[FeatureBlock] | None:
    """The wanted papers' rows, a block per shard holding any; None when a file reads out of
    shape. Only the stars' rows keep their words (a reason names the terms the model learned
    from theirs; the command reads the others' records for their reasons)."""

    def block(item: tuple[_Shard, Any]) -> FeatureBlock | None:
        shard, shard_keys = item
        positions = [i for i, pid in enumerate(shard.ids) if pid in wanted]
        if not positions:
            return None
        matrix = shard.rows(positions)
        if matrix is None:
            raise ValueError("a features file out of shape")
        ids = [shard.ids[i] for i in positions]
        rows = [row_of_paper(stars[pid]) if pid in stars else Row(pid, "") for pid in ids]
        return FeatureBlock(
            ids, matrix, shard_keys[positions], tuple(pack_rows(rows[start : start + PACK]) for start in range(0, len(rows), PACK))
        )

    try:
        with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
            return [found for found in pool.map(block, zip(shards, keys)) if found is not None]
    except ValueError:
        return None
