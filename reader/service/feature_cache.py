"""The ranking's features of each shard, saved beside it (papers/YYMM.NN.features) the first time
they are counted and read back while the shard is unchanged: counting every word of the cache
takes seconds at each start of the app, reading the counts a fraction of that.

A derived file, holding nothing the user could lose: written atomically, trusted only when it
says it was made from the shard's file as it is now (its modification time and size), and
counted again when missing, stale or damaged (core/feature_file.py reads it defensively)."""

from __future__ import annotations

from reader.core import feature_file, ranking
from reader.core.features import FeatureBlock
from reader.service.search_texts import saved_shard_texts
from reader.store import Store
from reader.userfiles import FileWriteError, write_atomic

Stamp = tuple[int, int]  # the shard file's modification time (ns) and size


def shard_stamp(store: Store, shard: str) -> Stamp:
    info = store.shard_file(shard).stat()
    return info.st_mtime_ns, info.st_size


def shard_features(store: Store, shard: str, stamp: Stamp) -> FeatureBlock:
    """The shard's features, read back when saved from the shard as `stamp` says it is (taken
    before reading: a shard rewritten meanwhile leaves a file that is stale at the next look),
    else counted from its search texts and saved."""
    path = store.shard_file(shard).with_name(f"{shard}.features")
    try:
        block = feature_file.decode(path.read_bytes(), stamp)
    except OSError:
        block = None
    if block is None:
        block = ranking.featurize(_rows(store, shard))
        payload = feature_file.encode(block, stamp)
        if payload is not None:
            try:
                write_atomic(path, payload)
            except FileWriteError:
                pass  # a cache: counted again next time
    return block


def _rows(store: Store, shard: str) -> list[ranking.Row]:
    """What the ranking counts of each paper: from the shard's saved search texts when there are
    some, else from its records, folding only the words counted (a search text folds every field:
    building and saving them made a first ranking of 100,000 papers take ~5 s longer)."""
    texts = saved_shard_texts(store, shard)
    if texts is not None:
        return ranking.rows_of_search_texts(texts)
    return [ranking.row_of_paper(paper) for paper in store.load_papers([shard]).values()]
