"""For you's features of each shard, saved beside it (papers/YYMM.NN.features) the first time
they are counted and read back while the shard is unchanged: counting every word of the cache
takes seconds at each start of the app, reading the counts a fraction of that.

A derived file, holding nothing the user could lose: written atomically, trusted only when it
says it was made from the shard's file as it is now (its modification time and size), and
counted again when missing, stale or damaged (core/features_format.py reads it defensively)."""

from __future__ import annotations

import logging
import os
import pickle
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from reader.core import counts_total, features_format, ranking, rows_total, shard_counts
from reader.core.counts_total import CountsTotal
from reader.core.features import FeatureBlock, Texts, extended
from reader.core.query import has_every_field
from reader.models import Paper
from reader.safe_files import FileWriteError, read_regular, write_atomic
from reader.store import features_child
from reader.store.features_child import Stamp
from reader.store.store import Store

log = logging.getLogger("reader.features")
PROCESS_AFTER = 3000  # papers counted between two waits past which FeatureKeeper counts in a process (its start: ~0.5 s of CPU)


def shard_stamp(store: Store, shard: str) -> Stamp:
    info = store.shard_file(shard).stat()
    return info.st_mtime_ns, info.st_size


def features_path(store: Store, shard: str) -> Path:
    return store.shard_file(shard).with_name(f"{shard}.features")


def counts_path(store: Store, shard: str) -> Path:
    """Where the shard's document counts are saved (core/shard_counts.py)."""
    return store.shard_file(shard).with_name(f"{shard}.counts")


def total_path(store: Store) -> Path:
    """Where every shard's counts are kept summed (core/counts_total.py)."""
    return store.data_dir / "papers" / "total.counts"


def read_total(store: Store) -> CountsTotal | None:
    try:
        return counts_total.decode(read_regular(total_path(store), counts_total.FILE_BYTES))
    except OSError:
        return None


def save_total(store: Store, total: CountsTotal) -> None:
    """Written without flushing (derived and checked, as the shards' counts are)."""
    payload = counts_total.encode(total)
    if payload is not None:
        try:
            write_atomic(total_path(store), payload, durable=False)
        except FileWriteError:
            pass  # summed again from the shards' counts by the next first ranking


def rows_path(store: Store) -> Path:
    """Where every shard's features rows are said to lie (core/rows_total.py)."""
    return store.data_dir / "papers" / "total.rows"


def read_rows(store: Store) -> dict[str, rows_total.ShardRows]:
    """Every shard's entry kept (none when the file is missing or damaged: headers are read)."""
    try:
        return rows_total.decode(read_regular(rows_path(store), rows_total.FILE_BYTES)) or {}
    except OSError:
        return {}


def save_rows(store: Store, entries: dict[str, rows_total.ShardRows]) -> None:
    """Written without flushing, as the counts total is (derived and checked)."""
    payload = rows_total.encode(entries)
    if payload is not None:
        try:
            write_atomic(rows_path(store), payload, durable=False)
        except FileWriteError:
            pass  # the headers are read by the next first ranking, which writes it again


def rows_of(store: Store, shard: str, stamp: Stamp) -> rows_total.ShardRows | None:
    """The entry of the shard's features file as saved from the shard as `stamp` says (its header read)."""
    try:
        reader = features_format.RowReader.open(features_path(store, shard), stamp)
    except OSError:
        return None
    if reader is None:
        return None
    try:
        return rows_total.ShardRows.of(reader)
    finally:
        reader.close()


def save_counts(store: Store, shard: str, block: FeatureBlock, stamp: Stamp) -> None:
    """The block's document counts saved beside its features, without flushing them to the disk
    (a derived file its reader checks: the sync pays ~1.5 ms a shard, not another two fsyncs)."""
    features_child.write_counts(counts_path(store, shard), block, stamp)


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
        features_child.write_features(path, block, stamp)
        save_counts(store, shard, block, stamp)
    elif not shard_counts.is_current(counts_path(store, shard), stamp):  # features saved before counts were
        save_counts(store, shard, block, stamp)
    return block


def record_rows(store: Store) -> Texts:
    """The ranking's rows of some papers, from their records (read only for the papers asked:
    the few whose reasons a ranking names, and the stars). Each of the app's best 100 is most
    often in a shard of its own, decompressed whole: ~5 ms of CPU a paper at 100,000 papers (a
    corpus keeps the rows read for its next ranking)."""
    return lambda ids: {pid: ranking.row_of_paper(paper) for pid, paper in store.papers_by_id(ids).items()}


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
    state under the save's lock, so a shard changed meanwhile only makes its features stale.

    Once PROCESS_AFTER papers are counted between two waits (a large sync), that thread hands
    the counting to a process of its own (store/features_child.py): counting held this process's GIL for
    a third of a first sync's CPU, which the parsing and saving need, and the process counts on
    another core. A job it cannot do alone (papers of the shard counted by no features file) is
    counted here, as before."""

    def __init__(self, store: Store):
        self.store = store
        self._jobs: list[Future] = []
        self._total: CountsTotal | None = None  # the counts total as the shards written so far leave it
        self._total_read = self._total_changed = False
        self._row_entries: dict[str, rows_total.ShardRows | None] = {}  # the entries of the shards written since the last wait
        self._first = not store.shards()  # a sync into an empty data directory: its total starts empty
        self._worker = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="reader-features"
        )  # in order: a shard's jobs build on each other
        self._counted = 0  # papers counted or expected since the last wait (by the worker thread only)
        self._apart: features_child.Counter | None = None  # (used by the worker thread only)
        self._apart_failed = False  # it could not start, or died: counted here until the next wait

    def on_shard(self, shard: str, docs: dict[str, dict], papers: list[Paper], before: os.stat_result | None) -> None:
        after = shard_stamp(self.store, shard)  # under the save's lock: the shard as `docs` hold it
        was = (before.st_mtime_ns, before.st_size) if before is not None else None
        self._jobs.append(self._worker.submit(self._count, shard, docs, papers, was, after))

    def expect(self, papers: int) -> None:
        """A save of this many papers follows: they count towards PROCESS_AFTER at once, so that a
        large save is counted apart from its first shard on (this process then neither counts
        its first thousands of papers nor imports numpy and scipy to count them)."""
        self._jobs.append(self._worker.submit(self._expect, papers))

    def _expect(self, papers: int) -> None:
        self._counted += papers

    def wait(self) -> None:
        jobs, self._jobs = self._jobs, []
        for job in jobs:
            try:
                job.result()
            except Exception:  # a cache: the first ranking counts what is missing
                log.exception("could not save For you's features of a shard")
        self._worker.submit(self._rest).result()  # in the worker's turn: no job changes the total meanwhile

    def _rest(self) -> None:
        """The counts total saved; the counting process ended (a sync's next topic starts one
        again if it is large)."""
        if self._total is not None and self._total_changed:
            save_total(self.store, self._total)
        if self._row_entries:
            entries = read_rows(self.store)
            for shard, entry in self._row_entries.items():
                if entry is None:
                    entries.pop(shard, None)
                else:
                    entries[shard] = entry
            save_rows(self.store, entries)
            self._row_entries = {}
        self._total, self._total_read, self._total_changed = None, False, False  # read again by the next batch
        self._counted, self._apart_failed = 0, False
        if self._apart is not None:
            self._apart.close()
            self._apart = None

    def _total_kept(self) -> CountsTotal | None:
        """The counts total this keeper keeps current, if any."""
        if not self._total_read:
            self._total, self._total_read = read_total(self.store), True
            if self._total is None and self._first:
                self._total = CountsTotal.empty()  # every shard there is comes through this keeper
        return self._total

    def _count_in_total(self, shard: str, before: Stamp | None, counted: features_child.Counted) -> None:
        """The counts total updated for the shard (in memory; written by `wait`), when it held the
        shard as it was: else it stays stale for it, and the first ranking sums every shard's
        counts again."""
        if self._total_kept() is not None:
            assert self._total is not None
            held = before if counted.old is not None else None
            self._total_changed |= self._total.replace(
                shard, held, counted.old, counted.old_ids, counted.stamp, counted.new, counted.ids, counted.keys
            )

    def _count(self, shard: str, docs: dict[str, dict], papers: list[Paper], before: Stamp | None, after: Stamp) -> None:
        papers = list({paper.id: paper for paper in papers}.values())  # a paper on two pages is written twice: the last stays
        fresh = {paper.id for paper in papers}
        self._counted += len(papers)
        if (
            self._counted >= PROCESS_AFTER
            and not self._apart_failed
            and self._counted_apart(shard, [pid for pid in docs if pid not in fresh], papers, before, after)
        ):
            return
        path = features_path(self.store, shard)
        old = features_format.saved(path, before)
        known = set(old.ids) if old is not None else set()
        # Papers neither written now nor counted before (a shard from before features were kept).
        rows = [ranking.row_of_paper(Paper.from_json(doc)) for pid, doc in docs.items() if pid not in fresh and pid not in known]
        rows += [ranking.row_of_paper(paper) for paper in papers]
        block = extended(old, set(docs) - fresh, rows) if old is not None else ranking.featurize(rows)
        features_child.write_features(path, block, after)
        save_counts(self.store, shard, block, after)
        self._row_entries[shard] = rows_of(self.store, shard, after)
        if self._total_kept() is not None:
            self._count_in_total(shard, before, features_child.Counted.of(old, after, block))

    def _counted_apart(self, shard: str, kept: list[str], papers: list[Paper], before: Stamp | None, after: Stamp) -> bool:
        """The job done by the counting process; False when it must be done here."""
        texts = [(p.id, p.title, p.abstract, tuple(a.name for a in p.authors), tuple(p.categories)) for p in papers]
        job = (features_path(self.store, shard), counts_path(self.store, shard), kept, texts, before, after)
        try:
            if self._apart is None:
                self._apart = features_child.Counter()
            counted = self._apart.count(job)
        except (OSError, EOFError, pickle.UnpicklingError):  # the process could not start or died: counted here
            if self._apart is not None:
                self._apart.close()
            self._apart, self._apart_failed = None, True
            return False
        if counted is None:
            return False
        self._row_entries[shard] = rows_of(self.store, shard, after)
        self._count_in_total(shard, before, counted)
        return True
