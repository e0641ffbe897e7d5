"""The library service: the one way the app reaches the cache (and the demo set). See
library.py for the service, views.py for what it selects, search.py for filters and cards
(search_texts.py the shards' texts they scan), triage.py, ranker.py, and demo.py; the
service's other collaborators in their own modules (tags_notes.py, list_order.py ...).

The names below are imported when first asked for: a command that needs one module of the
service (`reader rank`: first_rank.py) does not import the service and the demo set
(~0.15 s of CPU)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reader.config import Settings
    from reader.service.demo import DemoSource
    from reader.service.library import CacheUpdate, LibraryService
    from reader.service.views import ALL, FOR_YOU, HIDDEN, NEW, RISING, STARRED, UPDATED, VIEW_KINDS, View
    from reader.store import Store

_WHERE = {
    **dict.fromkeys(("ALL", "FOR_YOU", "HIDDEN", "NEW", "RISING", "STARRED", "UPDATED", "VIEW_KINDS", "View"), "reader.service.views"),
    "CacheUpdate": "reader.service.library",
    "LibraryService": "reader.service.library",
    "DemoSource": "reader.service.demo",
}

__all__ = [
    "ALL",
    "FOR_YOU",
    "HIDDEN",
    "NEW",
    "RISING",
    "STARRED",
    "UPDATED",
    "VIEW_KINDS",
    "CacheUpdate",
    "DemoSource",
    "LibraryService",
    "View",
    "open_service",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)


def open_service(store: Store, settings: Settings) -> LibraryService:
    """The service of the app's whole life: on the demo set while the cache holds no papers yet
    (no shard: the app's start does not wait for the index to be read, which the service's
    worker does), until a sync brings some (see LibraryService.leave_demo)."""
    from reader.service.demo import DemoSource
    from reader.service.library import LibraryService

    return LibraryService(store, settings, demo=None if store.shards() else DemoSource())
