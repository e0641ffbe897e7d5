"""A one-off ranking (`reader rank`) whose work grows with the stars, not with the cache.

The whole-cache ranking (ranking_corpus.RankingCorpus) reads every shard's features: 1.26 GB at
1,000,000 papers. Here, from each shard, only:
- its document counts, saved beside its features by whoever saved those (core/shard_counts.py):
  summed, they give the IDF the whole-cache ranking computes, to the paper (read from their
  running total, papers/total.counts, while it names every shard as it is: core/counts_total.py);
- its features file's header and row offsets (features_format.RowReader), kept for every shard
  in papers/total.rows while each file is the one they were read from (core/rows_total.py:
  else its header is read, and the file written again); then the rows of the marked papers, of
  the background (the unmarked papers whose ids hash lowest: the same papers the whole-cache
  ranking trains on) and of the candidates.
The candidates are at most CANDIDATES papers sharing the stars' distinctive words, phrases
and authors (weighed as the model's TF-IDF weighs them): each star's in turn, those holding the
most weight of its heaviest terms, asked only while few enough papers hold them together
(search_index/sharing.py: the index's rows read stay bounded); with a topic, the most among its
papers (the index drops the others' rows before taking the best). The model is the whole-cache
ranking's and every score equals its score for that paper: a paper ranks here when the
whole-cache ranking would rank it, unless it shares too little with the stars to be a
candidate (then it ranks low there too).

A shard whose counts are missing or stale is read whole (and its counts saved); more than
MISSING_MOST of them, and the caller ranks the whole cache instead (so it says in the log)."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import zip_longest
from typing import Any

from reader.core import ranking, shard_counts
from reader.core.counts_total import CountsTotal
from reader.core.features import COLUMNS, Corpus, FeatureBlock, Row, column_of, named_terms, row_of_paper, sample_keys_of
from reader.core.features_format import RowReader
from reader.core.query import Node
from reader.core.query import term as query_term
from reader.core.rows_total import ShardRows
from reader.core.similar import text_node
from reader.core.text import word_string
from reader.meaning import like
from reader.meaning.kept import KeptVectors
from reader.models import Paper
from reader.search_index import SearchIndex
from reader.store import Store
from reader.store.data_dir import shard_of
from reader.store.shard_features import (
    Stamp,
    counts_path,
    features_path,
    read_rows,
    read_total,
    record_rows,
    save_counts,
    save_rows,
    save_total,
    shard_features,
    shard_stamp,
)

log = logging.getLogger("reader.features")

CANDIDATES = 10_000  # papers ranked: those sharing the most of the stars' distinctive terms
TERMS = 50  # each star's most distinctive words, phrases and authors asked of the index (25: 47 of the real top 50)
AUTHORS = 10  # of its authors, the first
TERM_PAPERS = 50_000  # the most papers a star's terms are held by, together: the index's rows read
MISSING_MOST = 0.25  # the share of shards without counts past which every features file is read
READERS = 2  # threads opening shards (JSON headers: the GIL is held most of the time)


class _Shard:
    """One shard as a first ranking reads it: its ids, counts and some of its rows (from its
    features file, or from a block read whole when its counts were missing). Its ids are a list
    when its header or block was read, else its entry in papers/total.rows (`kept`)."""

    def __init__(
        self,
        ids: Sequence[str],
        counts: shard_counts.ShardCounts | None,
        stamp: Stamp,
        reader: RowReader | None = None,
        block: FeatureBlock | None = None,
        kept: ShardRows | None = None,
    ):
        # (counts: None when the counts total is current, which holds them summed; kept: its
        # entry in papers/total.rows, None when it has none)
        self.ids, self.counts, self.stamp, self._reader, self._block, self.kept = ids, counts, stamp, reader, block, kept

    def positions(self, wanted: set[str], here: list[str]) -> list[tuple[int, str]]:
        """(row, id) of the wanted papers it holds (`here`: those of them whose shard it is), by row."""
        if isinstance(self.ids, ShardRows):
            return self.ids.positions(here)
        return [(i, pid) for i, pid in enumerate(self.ids) if pid in wanted]

    def entries(self, positions: list[int]) -> tuple[list[int], Any, Any] | None:
        """The rows at `positions` as RowReader.entries gives them."""
        import numpy as np

        if self._block is not None:
            rows = self._block.matrix[positions]
            return np.diff(rows.indptr).tolist(), rows.indices.astype(np.int32), rows.data
        assert self._reader is not None
        return self._reader.entries(positions)

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
    opened = _open(store)
    if opened is None:
        return None
    names, shards, total = opened
    try:
        marked = {*stars, *hidden, *read}
        kept = None if total is None else total.background(ranking.BACKGROUND, marked)
        background = set(kept) if kept is not None else None
        if total is None or background is None:
            ids = [pid for shard in shards for pid in shard.ids]
            keys = sample_keys_of(ids)  # in one go: a call per shard cost ~0.5 s more at 1,000,000 papers
            background = _background(ids, keys, marked)
        if total is None:
            total = CountsTotal.of(
                ((name, shard.stamp, shard.counts) for name, shard in zip(names, shards) if shard.counts is not None), ids, keys
            )
            save_total(store, total)
        papers, documents = total.papers, total.documents
        idf = np.log((1 + papers) / (1 + documents)) + 1
        candidates = _candidates(index, list(stars.values()), idf, documents, leave_out=marked, among=None if among is None else set(among))
        block = _read_rows(names, shards, marked | candidates | background)
    finally:
        for shard in shards:
            shard.close()
    if block is None:
        log.info("For you: a features file read out of shape: every paper's are read")
        return None
    read_in = time.monotonic() - started
    from_records = record_rows(store)

    def texts(asked: Sequence[str]) -> dict[str, Row]:
        """The stars' rows from their records, read already; any other's read when asked."""
        return {pid: row_of_paper(stars[pid]) for pid in asked if pid in stars} | dict(
            from_records([pid for pid in asked if pid not in stars])
        )

    corpus = Corpus([block], documents=(papers, documents), texts=texts)
    ranked = None if among is None else candidates  # (the background is ranked too, unless a topic is asked for)
    result = ranking.rank(corpus, starred=starred, read=read, hidden=hidden, candidates=ranked)
    if isinstance(result, ranking.Ranking):
        fused = like.fused_order(KeptVectors(store.data_dir).get(), result.ids, result.scores, sorted(starred))
        result = result.reordered(fused) if fused is not None else result
    log.info(
        "For you from %d candidates: %d papers' features read in %.2f s, ranked in %.2f s",
        len(candidates),
        len(corpus),
        read_in,
        time.monotonic() - started - read_in,
    )
    return result


def _open(store: Store) -> tuple[list[str], list[_Shard], CountsTotal | None] | None:
    """Every shard opened (names, shards) and the counts total when it is current; else each
    shard's counts read. None (closing what was opened) when too many lack their counts or
    features, which only the whole-cache ranking then reads and saves. A features file is
    opened at its rows by its entry in papers/total.rows, else by its header (the entries then
    saved again, with the headers read)."""
    names = store.shards()
    stamps = {name: shard_stamp(store, name) for name in names}  # before reading: a shard changed meanwhile reads as stale
    total = read_total(store)
    if total is not None and not total.is_of(stamps):
        total = None
    entries = read_rows(store)

    def opened(shard: str) -> tuple[str, _Shard | None]:
        return shard, _opened(store, shard, stamps[shard], entries.get(shard), counted=total is not None)

    # A file opened by its entry costs an open and a stat: threads only for the headers to read.
    kept = [name for name in names if (entry := entries.get(name)) is not None and entry.layout.stamp == stamps[name]]
    found = dict(map(opened, kept))  # (by its header still, when its file is another now)
    with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
        found.update(pool.map(opened, [name for name in names if name not in found]))
    found = {name: found[name] for name in names}
    missing = [name for name, shard in found.items() if shard is None]
    if len(missing) > MISSING_MOST * len(names):
        for shard in found.values():
            if shard is not None:
                shard.close()
        log.info("For you: %d of %d shards have no document counts saved yet: every paper's features are read", len(missing), len(names))
        return None
    now = {name: shard.kept for name, shard in found.items() if shard is not None and shard.kept is not None}
    if now.keys() != entries.keys() or any(now[name] is not entries[name] for name in now):
        save_rows(store, now)  # (only the shards there are, each as its file is now)
    for name in missing:  # read whole (or counted), their counts saved for the next ranking
        stamp = stamps[name]
        block = shard_features(store, name, stamp)  # (saves counts it finds missing, not damaged ones)
        if shard_counts.read(counts_path(store, name), stamp) is None:
            save_counts(store, name, block, stamp)
        found[name] = _Shard(block.ids, shard_counts.ShardCounts.of_block(block), stamp, block=block)
    return names, [shard for name in names if (shard := found[name]) is not None], total  # (every name has its shard now)


def _opened(store: Store, shard: str, stamp: Stamp, entry: ShardRows | None, *, counted: bool) -> _Shard | None:
    """The shard opened at its features rows, with its counts unless `counted` (the counts total
    holds them); None when its features or counts are not this shard's as it is now."""
    reader, kept = _reader(store, shard, stamp, entry)
    if reader is None:
        return None
    counts = None if counted else shard_counts.read(counts_path(store, shard), stamp)
    if counted or counts is not None:
        return _Shard(reader.ids, counts, stamp, reader=reader, kept=kept)
    reader.close()
    return None


def _reader(store: Store, shard: str, stamp: Stamp, entry: ShardRows | None) -> tuple[RowReader | None, ShardRows | None]:
    """The shard's features file opened at its rows (by its entry while it holds, else by its
    header; None when neither is this shard's as it is now), and its entry as it is now."""
    try:
        if entry is not None and entry.layout.stamp == stamp:
            reader = RowReader.resume(features_path(store, shard), entry.layout, entry)
            if reader is not None:
                return reader, entry
        reader = RowReader.open(features_path(store, shard), stamp)
    except OSError:
        return None, None
    return reader, None if reader is None else ShardRows.of(reader)


def _candidates(
    index: SearchIndex, stars: list[Paper], idf: Any, documents: Any, *, leave_out: set[str], among: set[str] | None
) -> set[str]:
    """CANDIDATES papers at most (not in `leave_out`; in `among` when given), each star's in
    turn: those holding the most weight of its distinctive terms. Its words, phrases and
    authors weigh as in its TF-IDF row ((1 + log count) times IDF squared, as "more like this"
    weighs them); the heaviest are asked, TERMS at most, each held by another paper too and
    together by at most TERM_PAPERS papers: the rows the index reads stay bounded whatever the
    cache holds."""
    share = -(-CANDIDATES // max(len(stars), 1))
    groups: list[list[tuple[Node, float]]] = []
    for paper in stars:
        weighed: dict[tuple[str, str], tuple[float, int]] = {}  # (field, term) -> (weight, papers holding it)
        for name, key, count, words in named_terms(row_of_paper(paper)):
            papers = int(documents[column_of(key)])
            if words and papers >= 2:
                weighed["text", name] = ((1 + math.log(count)) * float(idf[column_of(key)]) ** 2, papers)
        for author in paper.authors[:AUTHORS]:
            column = _author_column(author.name)
            if word_string(author.name).split() and documents[column] >= 2:
                weighed["au", author.name] = (float(idf[column]) ** 2, int(documents[column]))
        group: list[tuple[Node, float]] = []
        rows = 0
        for (field, term), (weight, papers) in sorted(weighed.items(), key=lambda item: (-item[1][0], item[0])):
            if len(group) < TERMS and rows + papers <= TERM_PAPERS:
                # (made only for the terms asked: a query term stems its words, ~1 ms each)
                group.append((text_node(term) if field == "text" else query_term("au", word_string(term).split()), weight))
                rows += papers
        groups.append(group)
    # Each star's best, taken in turns (its first, then every star's second...) until there are
    # CANDIDATES: twice a share each, as the stars' lists overlap.
    lists = [
        [pid for pid in best if pid not in leave_out]
        for best in index.most_shared(groups, 2 * share + min(len(leave_out), share), among)  # room for marked papers, left out
    ]
    found: dict[str, None] = {}
    for turn in zip_longest(*lists):
        found.update((pid, None) for pid in turn if pid is not None and len(found) < CANDIDATES)
    return set(found)


def _author_column(name: str) -> int:
    """The column an author's name is counted in (as named_terms keys it)."""
    (_, key, _, _), *_ = named_terms(Row("", "", (name,)))
    return column_of(key)


def _background(ids: list[str], keys: Any, marked: set[str]) -> set[str]:
    """The unmarked papers the whole-cache ranking trains on as the typical paper: the
    BACKGROUND whose ids hash lowest (ranking._training_set)."""
    import numpy as np

    # The lowest keys, with room for the marked papers among them (left out below).
    taken = min(ranking.BACKGROUND + len(marked), len(ids))
    lowest = np.argpartition(keys, taken - 1)[:taken] if 0 < taken < len(ids) else np.arange(len(ids))
    lowest = lowest[np.argsort(keys[lowest], kind="stable")]
    return set([pid for pid in map(ids.__getitem__, lowest.tolist()) if pid not in marked][: ranking.BACKGROUND])


def _read_rows(names: list[str], shards: list[_Shard], wanted: set[str]) -> FeatureBlock | None:
    """The wanted papers' rows as one block (in the shards' order); None when a file reads out
    of shape."""
    import numpy as np
    from scipy import sparse  # type: ignore[import-untyped, unused-ignore]

    by_shard: dict[str, list[str]] = {}
    for pid in wanted:
        by_shard.setdefault(shard_of(pid), []).append(pid)

    def rows(s: int) -> tuple[list[str], tuple[list[int], Any, Any]] | None:
        taken = shards[s].positions(wanted, by_shard.get(names[s], []))
        if not taken:
            return None
        entries = shards[s].entries([i for i, _ in taken])
        if entries is None:
            raise ValueError("a features file out of shape")
        return [pid for _, pid in taken], entries

    try:
        with ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="reader-features") as pool:
            found = [item for item in pool.map(rows, range(len(shards))) if item is not None]
    except ValueError:
        return None
    chosen = [pid for taken, _ in found for pid in taken]
    indptr = np.zeros(len(chosen) + 1, dtype=np.int64)
    np.cumsum([length for _, (lengths, _, _) in found for length in lengths], out=indptr[1:])
    columns = np.concatenate([np.zeros(0, np.int32)] + [columns for _, (_, columns, _) in found])
    weights = np.concatenate([np.zeros(0, np.float32)] + [weights for _, (_, _, weights) in found])
    matrix = sparse.csr_matrix((weights, columns, indptr), shape=(len(chosen), COLUMNS))
    matrix.indices = matrix.indices.astype(np.int32)
    return FeatureBlock(chosen, matrix, sample_keys_of(chosen))
