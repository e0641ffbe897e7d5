"""A one-off ranking (`reader rank`) whose work grows with the stars, not with the cache.

The whole-cache ranking (triage_sets.RankingCorpus) reads every shard's features: 1.26 GB at
1,000,000 papers. Here only some rows of each features file are read (feature_file.RowReader):
- the candidates: papers sharing one of the starred papers' distinctive terms, asked of the
  search index as "more like this" asks it (core/similar.py); a paper sharing none of them
  would score by its authors and categories alone, and ranks low in the whole-cache ranking;
- the training rows: the marked papers and the background, the unmarked papers whose ids hash
  lowest, the same papers the whole-cache ranking takes (every file's ids are in its header);
- for the IDF, a fixed sample of SAMPLE papers (those whose ids hash lowest: a uniform sample),
  each column's document count scaled up from it; a cache of up to SAMPLE papers is counted
  whole, and ranks its candidates exactly as the whole-cache ranking does.
None (the caller ranks the whole cache) when a shard's features are missing or stale, or there
are more than MOST_STARS stars (each star's terms are asked of the index one by one)."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from reader.core import ranking
from reader.core.feature_file import RowReader
from reader.core.features import COLUMNS, PACK, Corpus, FeatureBlock, Row, column_of, named_terms, pack_rows, row_of_paper, sample_keys_of
from reader.core.query import Or
from reader.core.similar import TermIndex, text_node
from reader.core.terms import Distinct
from reader.errors import ReaderError
from reader.store import Store
from reader.store.shard_features import features_path, shard_stamp

log = logging.getLogger("reader.features")

SAMPLE = 20_000  # papers whose counts stand for the cache's in the IDF
TERMS = 15  # distinctive terms of each star whose papers are candidates (more like this asks 5)
SHORTLIST = 3 * TERMS  # of a star's terms the rarest by the sample, whose papers the index counts
MOST_STARS = 25  # more stars ask the index more than reading every features file costs
READERS = 4  # threads reading features files (each read waits on the disk, not the GIL)


def rank_candidates(
    store: Store,
    index: TermIndex,
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
    if len(stars) > MOST_STARS:
        return None
    ranking.import_model_meanwhile()
    readers = _open(store)
    if readers is None:
        return None
    try:
        first = _training_rows(readers, stars, marked={*stars, *hidden, *read})
        if first is None:
            return None
        blocks, papers, documents, keys = first
        idf = np.log((1 + papers) / (1 + documents)) + 1
        candidates = _candidates(index, stars.values(), idf) - set(starred) - set(read) - set(hidden)
        if among is not None:
            candidates &= set(among)
        have = {pid for block in blocks for pid in block.ids}
        more = _read_rows(
            readers, lambda reader: [i for i, pid in enumerate(reader.ids) if pid in candidates and pid not in have], stars, keys
        )
    finally:
        for reader in readers:
            reader.close()
    if more is None:
        return None
    corpus = Corpus(blocks + [block for block, _ in more], documents=(papers, documents))
    result = ranking.rank(corpus, starred=starred, read=read, hidden=hidden, candidates=candidates)
    log.info(
        "For you from %d candidates: %d papers' features read, ranked in %.2f s", len(candidates), len(corpus), time.monotonic() - started
    )
    return result


def _candidates(index: TermIndex, stars: Iterable, idf: Any) -> set[str]:
    """The papers holding one of each star's TERMS most distinctive terms, chosen as "more like
    this" chooses them (core/similar.py), but only among the SHORTLIST the sample says are
    rarest: the index counts those, not every term of the star. (Choosing by the sample alone,
    counting none, chose commoner terms: 57,511 candidates rather than 15,685 at 100,000
    papers, the index's answer alone slower than the counts.)"""
    papers, chosen = index.paper_count(), set()
    for paper in stars:
        estimated: dict[str, tuple[float, int]] = {}
        for name, key, count, words in named_terms(row_of_paper(paper)):
            if words:  # a word or phrase (authors and categories have none)
                estimated[name] = ((1 + math.log(count)) * float(idf[column_of(key)]) ** 2, count)
        short = sorted(estimated, key=lambda term: (-estimated[term][0], term))[:SHORTLIST]
        found = index.document_counts([text_node(term) for term in short])
        weights = {  # terms another paper holds too
            term: (1 + math.log(estimated[term][1])) * (math.log((1 + papers) / (1 + n)) + 1) ** 2
            for term, n in zip(short, found)
            if n >= 2
        }
        distinct, mine = Distinct(), 0
        for term in sorted(weights, key=lambda term: (-weights[term], term)):
            if distinct.add(term):
                chosen.add(term)
                mine += 1
                if mine == TERMS:
                    break
    return index.matching(Or(tuple(text_node(term) for term in sorted(chosen)))) if chosen else set()


def _open(store: Store) -> list[RowReader] | None:
    def opened(shard: str) -> RowReader | None:
        try:
            return RowReader.open(features_path(store, shard), shard_stamp(store, shard))
        except (OSError, ReaderError):
            return None

    with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
        readers = list(pool.map(opened, store.shards()))
    if any(reader is None for reader in readers):
        for reader in readers:
            if reader is not None:
                reader.close()
        log.info("For you: some shards' features are not saved yet: every paper's are read")
        return None
    return [reader for reader in readers if reader is not None]


def _training_rows(readers: list[RowReader], stars: dict, marked: set[str]) -> tuple[list[FeatureBlock], int, Any, dict[int, Any]] | None:
    """The rows of the marked papers, the background (the unmarked papers whose ids hash lowest,
    as the whole-cache ranking takes them) and the sample; the cache's paper count and each
    column's document count, estimated from the sample when the cache is larger."""
    import numpy as np

    keys = {id(reader): sample_keys_of(reader.ids) for reader in readers}
    every = np.concatenate(list(keys.values())) if keys else np.zeros(0, np.uint64)
    papers = len(every)
    sampled = min(SAMPLE, papers)
    sample_below = np.partition(every, sampled - 1)[sampled - 1] if sampled else 0
    unmarked = [keys[id(reader)][np.array([pid not in marked for pid in reader.ids], dtype=bool)] for reader in readers]
    free = np.concatenate(unmarked) if unmarked else np.zeros(0, np.uint64)
    background = min(ranking.BACKGROUND, len(free))
    background_below = np.partition(free, background - 1)[background - 1] if background else 0
    low_below = max(sample_below, background_below)

    def chosen(reader: RowReader) -> list[int]:
        low = np.flatnonzero(keys[id(reader)] <= low_below).tolist()
        return sorted({*low, *(i for i, pid in enumerate(reader.ids) if pid in marked)})

    read = _read_rows(readers, chosen, stars, keys, sample_below)
    if read is None:
        return None
    counted = np.bincount(np.concatenate([sample for _, sample in read] or [np.zeros(0, np.int32)]), minlength=COLUMNS)
    return [block for block, _ in read], papers, counted * (papers / sampled) if sampled else counted, keys


def _read_rows(
    readers: list[RowReader], chosen: Any, stars: dict, keys: dict[int, Any], sample_below: Any = None
) -> list[tuple[FeatureBlock, Any]] | None:
    """Each reader's `chosen` rows as a block (none when it has none), with the columns of its
    rows in the sample (whose keys are at most `sample_below`)."""
    import numpy as np

    def block(reader: RowReader) -> tuple[FeatureBlock, Any] | None:
        positions = chosen(reader)
        if not positions:
            return None
        matrix = reader.rows(positions)
        if matrix is None:
            raise ValueError(reader)
        k = keys[id(reader)]
        ids = [reader.ids[i] for i in positions]
        # Rows whose words a reason reads: the stars' (the terms the model learned from).
        rows = [row_of_paper(stars[pid]) if pid in stars else Row(pid, "") for pid in ids]
        packs = tuple(pack_rows(rows[start : start + PACK]) for start in range(0, len(rows), PACK))
        in_sample: Any = np.flatnonzero(k[positions] <= sample_below) if sample_below is not None else []
        return FeatureBlock(ids, matrix, k[positions], packs), matrix[in_sample].indices

    try:
        with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
            read = [item for item in pool.map(block, readers) if item is not None]
    except ValueError:
        log.info("For you: a features file read out of shape: every paper's are read")
        return None
    return read
