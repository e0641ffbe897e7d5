"""The library service: the one way the app reaches the cache (and the demo set). See
library.py for the service, views.py for what it selects, search.py for filters and cards
(search_texts.py the shards' texts they scan), triage.py and triage_sets.py, and demo.py."""

from __future__ import annotations

from reader.config import Settings
from reader.service.demo import DemoService
from reader.service.library import CacheUpdate, LibraryService
from reader.service.views import ALL, FOR_YOU, HIDDEN, NEW, RISING, STARRED, UPDATED, VIEW_KINDS, View
from reader.store import Store

__all__ = [
    "ALL", "FOR_YOU", "HIDDEN", "NEW", "RISING", "STARRED", "UPDATED", "VIEW_KINDS",
    "CacheUpdate", "DemoService", "LibraryService", "View", "open_service",
]


def open_service(store: Store, settings: Settings) -> LibraryService:
    """The cache's service, or the demo's when the cache holds no papers yet (no shard: the
    app's start does not wait for the index to be read, which the service's worker does)."""
    if not store.shards():
        return DemoService(store, settings)
    return LibraryService(store, settings)
