"""The search index kept current by the sync itself, while it fetches: a sync ends with every
derived index current (the first start of the app, or `reader list --query`, built the search
index of a large first sync afterwards: ~30 s at 1,000,000 papers).

The shards a sync writes are indexed a batch at a time from a thread of its own, which hands the
work to child processes (SearchIndex.refresh's `offload`): parsing the shards there never holds
this process's GIL, which the sync's fetching and saving need."""

from __future__ import annotations

import logging
import sqlite3
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from reader.errors import ReaderError
from reader.store.store import Store

log = logging.getLogger("reader.sync")
BATCH_SHARDS = 32  # shards written before they are indexed: each batch starts a child process a core (~0.2 s of CPU each)


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
        if job is not None:
            job.result()
        if written:
            self._refresh(written)

    def _refresh(self, shards: set[str]) -> None:
        from reader.search_index import SearchIndex

        index = SearchIndex.open(self.store.data_dir)
        try:
            index.refresh(self.store, shards, offload=True)
        except (ReaderError, OSError, sqlite3.Error) as error:  # derived: the next refresh (the app, `list --query`) does it
            log.warning("search index not brought up to date: %s", error)
        finally:
            index.close()
