"""The main screen's list order and catching up: `S` cycles the order of the papers shown (newest
first, last updated, title, first author, For you's score where ranked; remembered per view, said
in the list's header), `A` marks every paper shown read after asking (the view as filtered), `U`
undoes that. Sorting and the marks' write run in workers: the UI's thread only shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from textual.message import Message
from textual.worker import get_current_worker

from reader.app.keys import key
from reader.app.screens.dialogs import ConfirmDialog
from reader.app.screens.part import Keep, ScreenHost, ScreenPart
from reader.app.widgets.paper_list import PaperList
from reader.core.sorting import SORT_NAMES
from reader.core.text import plural
from reader.errors import ReaderError
from reader.packed_ids import IdRows
from reader.service import LibraryService, View
from reader.service.search import SearchNotReady


class CatchUpHost(ScreenHost, Protocol):
    service: LibraryService
    view: View
    unread_only: bool
    loaded: bool

    @property
    def paper_list(self) -> PaperList: ...


class ListOrder(ScreenPart[CatchUpHost]):
    """The order each view is shown in. The sorting worker's result comes back as `Sorted`, which
    the screen hands to `take_sorted`."""

    class Sorted(Message):
        """The `shown`-th list asked for, in its order (`problem`: why it is shown newest first
        instead; `owed`: it is sorted once the search index is ready)."""

        def __init__(self, ids: Sequence[str], keep: Keep, shown: int, problem: str = "", owed: bool = False):
            super().__init__()
            self.ids, self.keep, self.shown, self.problem, self.owed = ids, keep, shown, problem, owed

    def __init__(self, screen: CatchUpHost):
        super().__init__(screen)
        self._shown = 0  # counts the lists asked for: a sort finished after a newer one is dropped
        self.owed = False  # the list is shown newest first until the search index is ready to sort it

    def header(self) -> str:
        """What the list's header says of its order ("" for the view's own)."""
        service, view = self.screen.service, self.screen.view
        sort = service.list_order.sort_of(view)
        if sort == service.list_order.default_sort(view):
            return ""
        return f"Sorted by {SORT_NAMES[sort]} · {key(self.screen.app, 'app.sort')} changes"

    def cycle(self) -> None:
        """The view's next order, remembered for it."""
        service, view = self.screen.service, self.screen.view
        sorts = service.list_order.sorts_for(view)
        now = service.list_order.sort_of(view)
        chosen = sorts[(sorts.index(now) + 1) % len(sorts)]
        service.list_order.choose_sort(view, chosen, on_error=lambda message: self.screen.app.notify(message, severity="warning"))
        self.redraw(papers=True)
        self.screen.app.notify(f"Sorted by {SORT_NAMES[chosen]}", timeout=3)

    def arrange(self, ids: Sequence[str], keep: Keep, *, best_first: bool = False) -> None:
        """Show `ids` (in the view's own order, as selected) in the order chosen for the view:
        at once when it is the view's own, else once a worker has sorted them. `best_first`: a
        meaning query's answer, shown as ranked (a sort still running is not shown)."""
        self._shown += 1
        service, view = self.screen.service, self.screen.view
        sort = service.list_order.sort_of(view)
        if best_first or sort == service.list_order.default_sort(view):
            self.show_papers(ids, keep)
            return
        self.in_thread(self._sort, ids, keep, view, sort, self._shown, group="sort", exclusive=True)

    def _sort(self, ids: Sequence[str], keep: Keep, view: View, sort: str, shown: int) -> None:
        try:
            arranged = self.screen.service.list_order.sorted(view, ids, sort)
        except SearchNotReady as error:  # sorted again once the index is ready (MainScreen)
            self.screen.post_message(ListOrder.Sorted(ids, keep, shown, str(error), owed=True))
            return
        except ReaderError as error:
            self.screen.post_message(ListOrder.Sorted(ids, keep, shown, str(error)))
            return
        if not get_current_worker().is_cancelled:
            self.screen.post_message(ListOrder.Sorted(arranged, keep, shown))

    def search_prepared(self) -> None:
        """The search index is ready: a list shown newest first while it was built is sorted now."""
        if self.screen.loaded and self.owed:
            self.redraw(papers=True)

    def take_sorted(self, result: ListOrder.Sorted) -> None:
        if result.shown != self._shown:
            return  # a newer list was asked for meanwhile
        self.owed = result.owed
        self.show_papers(result.ids, result.keep)
        if result.problem:
            self.screen.app.notify(f"Shown newest first: {result.problem}", severity="warning")


class CatchUp(ScreenPart[CatchUpHost]):
    """Every paper shown marked read at once, and undone. The unread papers shown are found in a
    worker, which posts `UnreadFound`; the screen hands it to `ask`."""

    class UnreadFound(Message):
        def __init__(self, unread: list[str]):
            super().__init__()
            self.unread = unread

    def __init__(self, screen: CatchUpHost):
        super().__init__(screen)
        self.undoable: list[str] | None = None  # the papers the last `A` marked read

    def mark_all_read(self) -> None:
        """Ask, with the count of unread papers shown, then mark them (found in a worker)."""
        self.in_thread(self._find_unread, self.screen.paper_list.ids, group="catchup", exclusive=True)

    def _find_unread(self, ids: Sequence[str]) -> None:
        read = self.screen.service.catalog.read
        unread = list(ids.keeping(read.__contains__, keep=False)) if isinstance(ids, IdRows) else [pid for pid in ids if pid not in read]
        self.screen.post_message(CatchUp.UnreadFound(unread))

    def ask(self, unread: list[str]) -> None:
        app = self.screen.app
        if not unread:
            app.notify("Nothing unread here.")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._mark(unread)

        papers = plural(len(unread), "unread paper", thousands=True)
        app.push_screen(ConfirmDialog(f"Mark the {papers} shown read?", yes="Mark read"), answered)

    def _mark(self, unread: list[str]) -> None:
        app = self.screen.app
        self.screen.service.set_read_many(unread, True)
        self.undoable = unread
        app.notify(f"Marked {plural(len(unread), 'paper', thousands=True)} read · {key(app, 'app.undo_read')} undoes")
        self._changed()

    def undo(self) -> None:
        app = self.screen.app
        if not self.undoable:
            app.notify("Nothing to undo: no papers were marked read all at once.")
            return
        papers, self.undoable = self.undoable, None
        self.screen.service.set_read_many(papers, False)
        app.notify(f"Marked {plural(len(papers), 'paper', thousands=True)} unread again")
        self._changed()

    def _changed(self) -> None:
        self.redraw(marks=True, papers=self.screen.unread_only)
