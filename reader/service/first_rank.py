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
import time
from collections.abc import Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from reader.core import ranking
from reader.core.feature_file import RowReader
from reader.core.features import COLUMNS, PACK, Corpus, FeatureBlock, Row, pack_rows, row_of_paper, sample_keys_of
from reader.core.similar import TermIndex, distinctive_terms, text_node
from reader.core.text import word_string
from reader.errors import ReaderError
from reader.store import Store
from reader.store.shard_features import features_path, shard_stamp

log = logging.getLogger("reader.features")

SAMPLE = 20_000  # papers whose counts stand for the cache's in the IDF
TERMS = 15  # distinctive terms of each star whose papers are candidates (more like this asks 5)
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
    """The candidates (of `among` when given) ranked; None when the features are not all saved."""
    started = time.monotonic()
    stars = store.papers_by_id(starred)
    if len(stars) < ranking.MIN_STARS:
        return ranking.NeedsStars(len(stars))
    if len(stars) > MOST_STARS:
        return None
    ranking.import_model_meanwhile()
    skip = set(starred) | set(read) | set(hidden)
    candidates = _candidates(index, stars.values()) - skip
    if among is not None:
        candidates &= set(among)
    readers = _open(store)
    if readers is None:
        return None
    try:
        corpus = _corpus(readers, stars, candidates, marked={*stars, *hidden, *read})
    finally:
        for reader in readers:
            reader.close()
    if corpus is None:
        return None
    result = ranking.rank(corpus, starred=starred, read=read, hidden=hidden, candidates=candidates)
    log.info(
        "For you from %d candidates: %d papers' features read, ranked in %.2f s", len(candidates), len(corpus), time.monotonic() - started
    )
    return result


def _candidates(index: TermIndex, stars: Iterable) -> set[str]:
    found: set[str] = set()
    for paper in stars:
        for term, _ in distinctive_terms(index, word_string(paper.title) + word_string(paper.abstract), indexed=True, count=TERMS):
            found |= index.matching(text_node(term))
    return found


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


def _corpus(readers: list[RowReader], stars: dict, candidates: set[str], marked: set[str]) -> Corpus | None:
    """A corpus of the rows the ranking needs, with the IDF of the whole cache (estimated from
    the sample when the cache is larger)."""
    import numpy as np

    keys = [sample_keys_of(reader.ids) for reader in readers]
    every = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
    papers = len(every)
    sampled = min(SAMPLE, papers)
    # Keys below these bounds: the sample, and (among unmarked papers) the background.
    sample_below = np.partition(every, sampled - 1)[sampled - 1] if sampled else 0
    unmarked = [k[np.array([pid not in marked for pid in reader.ids], dtype=bool)] for reader, k in zip(readers, keys)]
    free = np.concatenate(unmarked) if unmarked else np.zeros(0, np.uint64)
    background = min(ranking.BACKGROUND, len(free))
    background_below = np.partition(free, background - 1)[background - 1] if background else 0

    wanted = candidates | marked

    def block(item: tuple[RowReader, Any]) -> tuple[FeatureBlock, Any] | None:
        reader, k = item
        low = np.flatnonzero(k <= max(sample_below, background_below)).tolist()
        chosen = sorted({*low, *(i for i, pid in enumerate(reader.ids) if pid in wanted)})
        matrix = reader.rows(chosen)
        if matrix is None:
            return None
        in_sample = k[chosen] <= sample_below
        ids = [reader.ids[i] for i in chosen]
        # Rows whose words a reason reads: the stars' (the terms the model learned from).
        rows = [row_of_paper(stars[pid]) if pid in stars else Row(pid, "") for pid in ids]
        packs = tuple(pack_rows(rows[start : start + PACK]) for start in range(0, len(rows), PACK))
        return FeatureBlock(ids, matrix, k[chosen], packs), matrix[np.flatnonzero(in_sample)].indices

    with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
        read = list(pool.map(block, zip(readers, keys)))
    if any(item is None for item in read):
        log.info("For you: a features file read out of shape: every paper's are read")
        return None
    blocks = [item[0] for item in read if item is not None]
    counted = np.bincount(np.concatenate([item[1] for item in read if item is not None] or [np.zeros(0, np.int32)]), minlength=COLUMNS)
    documents = counted * (papers / sampled) if sampled else counted
    return Corpus(blocks, documents=(papers, documents))
