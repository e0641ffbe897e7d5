"""For you's features of each shard, saved beside it (papers/YYMM.NN.features) the first time
they are counted and read back while the shard is unchanged: counting every word of the cache
takes seconds at each start of the app, reading the counts a fraction of that.

A derived file, holding nothing the user could lose: written atomically, trusted only when it
says it was made from the shard's file as it is now (its modification time and size), and
counted again when missing, stale or damaged (core/features_format.py reads it defensively)."""

from __future__ import annotations

import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from reader.core import features_format, ranking, shard_counts
from reader.core.features import FeatureBlock, extended
from reader.core.query import has_every_field
from reader.models import Paper
from reader.safe_files import FileWriteError, read_regular, write_atomic
from reader.store.store import Store

log = logging.getLogger("reader.features")
Stamp = tuple[int, int]  # the shard file's modification time (ns) and size


def shard_stamp(store: Store, shard: str) -> Stamp:
    info = store.shard_file(shard).stat()
    return info.st_mtime_ns, info.st_size


def features_path(store: Store, shard: str) -> Path:
    return store.shard_file(shard).with_name(f"{shard}.features")


def counts_path(store: Store, shard: str) -> Path:
    """Where the shard's document counts are saved (core/shard_counts.py)."""
    return store.shard_file(shard).with_name(f"{shard}.counts")


def save_counts(store: Store, shard: str, block: FeatureBlock, stamp: Stamp) -> None:
    """The block's document counts saved beside its features, without flushing them to the disk
    (a derived file its reader checks: the sync pays ~1.5 ms a shard, not another two fsyncs)."""
    try:
        write_atomic(counts_path(store, shard), shard_counts.encode(shard_counts.ShardCounts.of_block(block), stamp), durable=False)
    except FileWriteError:
        pass  # counted again from the features by the first ranking that needs them


def shard_features(store: Store, shard: str, stamp: Stamp) -> FeatureBlock:
    """The shard's features, read back when saved from the shard as `stamp` says it is (taken
    before reading: a shard rewritten meanwhile leaves a file that is stale at the next look),
    else counted from its search texts and saved."""
    path = features_path(store, shard)
    try:
        block = features_format.read(path, stamp)
    except OSError:
        block = None
    if block is None:
        block = ranking.featurize(_rows(store, shard))
        payload = features_format.encode(block, stamp)
        if payload is not None:
            try:
                write_atomic(path, payload)
            except FileWriteError:
                pass  # a cache: counted again next time
        save_counts(store, shard, block, stamp)
    else:
        if isinstance(block.packed_rows, features_format.FilePacks) and block.packed_rows.older_version:
            block = _written_again(path, block, stamp)
        if not shard_counts.is_current(counts_path(store, shard), stamp):  # features saved before counts were
            save_counts(store, shard, block, stamp)
    return block


def _written_again(path: Path, block: FeatureBlock, stamp: Stamp) -> FeatureBlock:
    """A block read from a file of the older version, saved in this one (a third smaller), and
    read back from it: its packs are left in the file they are read from."""
    payload = features_format.encode(block, stamp)
    if payload is None:
        return block
    try:
        write_atomic(path, payload)
        return features_format.read(path, stamp) or block
    except (FileWriteError, OSError):
        return block


def _rows(store: Store, shard: str) -> list[ranking.Row]:
    """What the ranking counts of each paper: from the shard's saved search texts when there are
    some, else from its records, folding only the words counted (a search text folds every field:
    building and saving them made a first ranking of 100,000 papers take ~5 s longer)."""
    texts = store.search_texts(shard, valid_text=has_every_field)
    if texts is not None:
        return ranking.rows_of_search_texts(texts)
    return [ranking.row_of_paper(paper) for paper in store.load_papers([shard]).values()]


class FeatureKeeper:
    """Leaves each shard's features beside it as a sync writes it (its `on_shard` is what
    `Store.save_papers` calls), so that the first ranking after the sync reads them instead of
    counting every word. Only the papers written are counted; the others' counts are taken from
    the features saved before, when those were made from the shard as it was.

    The counting runs in a thread of its own, while the sync fetches its next pages (a sync of
    10,000 papers spent a second counting with its fetching stopped); `wait` returns once every
    shard written so far has its features. What a job reads and writes is tagged with the shard's
    state under the save's lock, so a shard changed meanwhile only makes its features stale."""

    def __init__(self, store: Store):
        self.store = store
        self._jobs: list[Future] = []
        self._worker = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="reader-features"
        )  # in order: a shard's jobs build on each other

    def on_shard(self, shard: str, docs: dict[str, dict], papers: list[Paper], before: os.stat_result | None) -> None:
        after = shard_stamp(self.store, shard)  # under the save's lock: the shard as `docs` hold it
        was = (before.st_mtime_ns, before.st_size) if before is not None else None
        self._jobs.append(self._worker.submit(self._count, shard, docs, papers, was, after))

    def wait(self) -> None:
        jobs, self._jobs = self._jobs, []
        for job in jobs:
            try:
                job.result()
            except Exception:  # a cache: the first ranking counts what is missing
                log.exception("could not save For you's features of a shard")

    def _count(self, shard: str, docs: dict[str, dict], papers: list[Paper], before: Stamp | None, after: Stamp) -> None:
        path = features_path(self.store, shard)
        old = None
        if before is not None:
            try:
                old = features_format.decode(read_regular(path, features_format.FILE_BYTES), before)
            except OSError:
                old = None
        papers = list({paper.id: paper for paper in papers}.values())  # a paper on two pages is written twice: the last stays
        fresh = {paper.id for paper in papers}
        known = set(old.ids) if old is not None else set()
        # Papers neither written now nor counted before (a shard from before features were kept).
        rows = [ranking.row_of_paper(Paper.from_json(doc)) for pid, doc in docs.items() if pid not in fresh and pid not in known]
        rows += [ranking.row_of_paper(paper) for paper in papers]
        block = extended(old, set(docs) - fresh, rows) if old is not None else ranking.featurize(rows)
        payload = features_format.encode(block, after)
        if payload is not None:
            try:
                write_atomic(path, payload)
            except FileWriteError:
                pass  # counted again at the first ranking
        save_counts(self.store, shard, block, after)
