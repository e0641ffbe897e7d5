"""The cache's state after a sync or another process's change, read in a worker for the UI's
thread to take (LibraryService.read_update, apply_update)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from reader.cache_index import CacheIndex
from reader.service.outside import Stamps
from reader.service.tags_notes import LibraryStateRead
from reader.store import Topic
from reader.store.sync_file import TopicSyncState


@dataclass(frozen=True, slots=True)
class CacheUpdate:
    """The cache's state, read and counted in a worker thread, for the UI's thread to take."""

    index: CacheIndex
    topics: list[Topic]
    total_new_last4: int | None
    sync_states: dict[str, TopicSyncState] = dataclasses.field(default_factory=dict)
    counts: dict | None = None  # Catalog.counted, with the marks of `marks_version`
    marks_version: int = -1
    momenta: dict = dataclasses.field(default_factory=dict)  # view's topic -> Momentum
    library_state: LibraryStateRead | None = None  # tags and notes, as the service keeps them
    library_writes: int = -1  # the service's writes of tags and notes when they were read
    stamps: Stamps = dataclasses.field(default_factory=dict)  # of index.json and sync.json, as read
