"""The search index kept current by the sync itself, while it fetches: a sync ends with every
derived index current (the first start of the app, or `reader list --query`, built the search
index of a large first sync afterwards: ~30 s at 1,000,000 papers).

The shards a sync writes are indexed a batch at a time from a thread of its own, which hands the
work to child processes (SearchIndex.refresh's `offload`): parsing the shards there never holds
this process's GIL, which the sync's fetching and saving need. The processes are started at the
first batch and kept until `wait` (processes.Builders), not started again for each batch."""

from __future__ import annotations

import logging
import sqlite3
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from reader.errors import ReaderError
from reader.store.store import Store

if TYPE_CHECKING:
    from reader.search_index.processes import Builders

log = logging.getLogger("reader.sync")
BATCH_SHARDS = 32  # shards written before they are indexed: a refresh (one transaction a partition) each


class SearchKeeper:
    """`on_shard(name)` as each shard is written; `wait()` at the end returns once every shard
    written is indexed as it is now. A shard written again after its batch is indexed again by
    the last refresh (it compares each shard's stamp)."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._written: set[str] = set()
        self._job: Future | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reader-search")
        self._builders: Builders | None = None  # the index's child processes, from the first batch to `wait`

    def on_shard(self, shard: str) -> None:
        with self._lock:
            self._pending.add(shard)
            self._written.add(shard)
            if len(self._pending) >= BATCH_SHARDS and (self._job is None or self._job.done()):
                batch, self._pending = self._pending, set()
                self._job = self._worker.submit(self._refresh, batch)

    def wait(self) -> None:
        with self._lock:
            job, written = self._job, self._written
            self._pending, self._written, self._job = set(), set(), None
        # In the worker's turn, as every use of the processes is: a batch of a save still under
        # way (a cancelled sync's) never meets them closed.
        try:
            if job is not None:
                job.result()
            if written:
                self._worker.submit(self._refresh, written).result()
        finally:
            self._worker.submit(self._close_builders).result()

    def _close_builders(self) -> None:
        if self._builders is not None:
            self._builders.close()
            self._builders = None

    def _refresh(self, shards: set[str]) -> None:
        from reader.search_index import SearchIndex
        from reader.search_index.processes import Builders

        if self._builders is None:
            self._builders = Builders()  # (no process until a refresh needs one)
        index = SearchIndex.open(self.store.data_dir)
        try:
            index.refresh(self.store, shards, offload=True, builders=self._builders)
        except (ReaderError, OSError, sqlite3.Error) as error:  # derived: the next refresh (the app, `list --query`) does it
            log.warning("search index not brought up to date: %s", error)
        finally:
            index.close()
