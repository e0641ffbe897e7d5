"""The list's order (newest first, last updated, title, first author, For you's score), remembered
per view, for the library service.

Orders are made in the caller's worker thread (see core/sorting.py), once per cache index
(and ranking), then a view is sorted by numpy in tens of milliseconds at 1,000,000 papers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from reader.core.sorting import KEYED, NEWEST, SCORE, SORTS, SortOrder, keyed_order, ranked_order, sorted_view
from reader.errors import ReaderError
from reader.service.ranker import RankedList
from reader.service.views import FOR_YOU, View

if TYPE_CHECKING:
    from reader.core.catalog import Catalog
    from reader.core.ranking import NeedsStars
    from reader.service.demo import DemoSource
    from reader.service.search import CacheSearch, MemorySearch
    from reader.store import Store

SORTS_SETTING = "list_sorts"  # user state: view key -> its order, for views not in their own


class ListOrder:
    """Given the store, a way to save a setting (in the writer thread), and how to reach the
    service's catalog, search, ranking and demo set (each changes under it)."""

    def __init__(
        self,
        store: Store,
        save_setting: Callable[[str, object, Callable[[str], None] | None], Future],
        *,
        catalog: Callable[[], Catalog],
        search: Callable[[], CacheSearch | MemorySearch],
        for_you: Callable[[], RankedList | NeedsStars | None],
        demo: Callable[[], DemoSource | None],
    ):
        self._store = store
        self._save_setting = save_setting
        self._catalog = catalog
        self._search = search
        self._for_you = for_you
        self._demo = demo
        self._sorts: dict[str, str] | None = None  # view key -> the order chosen, read from user state at the first ask
        self._orders: dict[str, tuple[object, object, SortOrder]] = {}  # sort -> (the index and ranking it was made for, the order)
        self._orders_lock = threading.Lock()

    def forget_choices(self) -> None:
        """The cache's user state's orders from now on, not the demo's (read again when asked)."""
        self._sorts = None

    @staticmethod
    def default_sort(view: View) -> str:
        return SCORE if view == FOR_YOU else NEWEST

    def sorts_for(self, view: View) -> list[str]:
        """The orders the view can be shown in: For you's score only where a ranking is made."""
        ranked = view == FOR_YOU or isinstance(self._for_you(), RankedList)
        return [sort for sort in SORTS if sort != SCORE or ranked]

    def sort_of(self, view: View) -> str:
        """The order the user chose for the view last (its own when none, or one it cannot show)."""
        chosen = self._chosen_sorts().get(view.key)
        return chosen if chosen in self.sorts_for(view) else self.default_sort(view)

    def choose_sort(self, view: View, sort: str, on_error: Callable[[str], None] | None = None) -> None:
        """Remember the view's order (in memory now, in user state by the writer thread)."""
        chosen = self._chosen_sorts()
        if sort == self.default_sort(view):
            chosen.pop(view.key, None)
        else:
            chosen[view.key] = sort
        saved = dict(chosen)
        if self._demo() is None:
            self._save_setting(SORTS_SETTING, saved, on_error)

    def _chosen_sorts(self) -> dict[str, str]:
        chosen = self._sorts
        if chosen is None:
            try:
                stored = self._store.setting(SORTS_SETTING) if self._demo() is None else None
            except ReaderError:
                stored = None
            chosen = {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}
            self._sorts = chosen
        return chosen

    def sorted(self, view: View, ids: Sequence[str], sort: str) -> Sequence[str]:
        """The view's papers (as `select` gave them) in `sort`'s order: in a worker thread (the
        first time for an index, the order is made: ~1-2 s at 1,000,000 papers for a text key).
        Raises SearchNotReady for a text key before the search index's first build."""
        if sort == self.default_sort(view):
            return ids
        index = self._catalog().index
        if sort == NEWEST:
            return sorted_view(None, index, ids)
        return sorted_view(self._order(sort), index, ids)

    def _order(self, sort: str) -> SortOrder:
        index = self._catalog().index
        ranking = self._for_you()
        with self._orders_lock:
            key: object = ranking if sort == SCORE else None
            kept = self._orders.get(sort)
            if kept is not None and kept[0] is index and kept[1] is key:
                return kept[2]
        if sort == SCORE:
            if not isinstance(ranking, RankedList):
                raise ReaderError("For you has no ranking yet")
            order = ranked_order(index, ranking.ids)
        elif sort in KEYED:
            order = keyed_order(index, sort, self._search().sort_values(sort))
        else:
            raise ReaderError(f"no order named {sort!r}")
        with self._orders_lock:
            self._orders[sort] = (index, key, order)
        return order
