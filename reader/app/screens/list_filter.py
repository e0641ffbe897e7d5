"""The main screen's filter: what is typed in the filter box narrows the view's papers (a query,
reader/core/query.py), or with `~` lists those most about a text (about.py). One filter runs at a
time, in a worker: each key typed starts a new one, which cancels the last. Its answer comes back
as a message the screen hands to `take`; an answer a newer filter or a cleared box replaced is
dropped. The papers it matched go up as `Matched`, which the screen hands to the list's order
(sorted as the view is, or a meaning query's best first). The meaning query's part is the
filter's own (`about`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from textual.message import Message
from textual.worker import Worker, get_current_worker

from reader.app.screens.about import AboutQuery, meaning_text
from reader.app.screens.part import ScreenHost, ScreenPart
from reader.core.query import Node, operator_note, parse
from reader.core.text import plural
from reader.errors import QueryError, ReaderError
from reader.meaning.find import About
from reader.service import LibraryService, View
from reader.service.search import SearchNotReady

if TYPE_CHECKING:
    from reader.app.widgets.filter_box import FilterBox
    from reader.app.widgets.paper_list import PaperList

FILTER_DELAY = 0.15  # seconds of typing quiet before a filter runs


class FilterHost(ScreenHost, Protocol):
    """What the filter uses of its screen: the view it narrows, the box it is typed in and the
    list it shows in."""

    service: LibraryService
    view: View
    unread_only: bool
    loaded: bool

    @property
    def filter_box(self) -> FilterBox: ...
    @property
    def paper_list(self) -> PaperList: ...


class ListFilter(ScreenPart[FilterHost]):
    """The filter typed, and its answer shown."""

    class Answered(Message):
        """A filter's answer (posted by its worker, `worker`): `ids` the papers matching `query`
        (`ids` None: no filter; the view's papers), or the meaning query `about`'s `found`, or
        `problem` why the text typed answers nothing (the last good filter stays)."""

        def __init__(
            self,
            text: str,
            keep: str | None,
            *,
            query: Node | None = None,
            ids: Sequence[str] | None = None,
            about: str | None = None,
            found: About | None = None,
            problem: str | None = None,
        ):
            super().__init__()
            self.worker: Worker[None] = get_current_worker()
            self.text, self.keep, self.query, self.ids = text, keep, query, ids
            self.about, self.found, self.problem = about, found, problem

    class Matched(Message):
        """The papers a filter matched, in the view's own order, for the list's order to show
        (`best_first`: a meaning query's, shown as ranked), the cursor on `keep`."""

        def __init__(self, ids: Sequence[str], keep: str | None, *, best_first: bool = False):
            super().__init__()
            self.ids, self.keep, self.best_first = ids, keep, best_first

    def __init__(self, screen: FilterHost):
        super().__init__(screen)
        self.about = AboutQuery(screen)  # `~TEXT`: typed here, answered in this filter's worker
        self.text = ""  # as typed
        self.query: Node | None = None  # the filter shown (None: none, or a meaning query)
        self._running: Worker[None] | None = None  # the last filter started
        # The matches last posted, until a newer filter starts (typed, or the view or the unread
        # toggle changed) or the box is cleared: one that arrives after is out of date.
        self.matched: ListFilter.Matched | None = None

    def run(self, text: str, keep: str | None, delay: float = 0) -> Worker[None]:
        """The filter `text` in a worker (returned), after `delay` seconds of quiet."""
        self.matched = None
        self._running = self.in_thread(self._answer, text, keep, delay, group="filter", exclusive=True)
        return self._running

    def _answer(self, text: str, keep: str | None, delay: float) -> None:
        """In a worker, after a short quiet (typing stays smooth); one that a newer key cancelled
        posts nothing."""
        worker = get_current_worker()
        if delay:
            time.sleep(delay)
        if worker.is_cancelled:
            return
        answer = self._answered(text, keep)
        if not worker.is_cancelled:
            self.screen.post_message(answer)

    def _answered(self, text: str, keep: str | None) -> ListFilter.Answered:
        if not text:
            return ListFilter.Answered("", keep)
        if (about := meaning_text(text)) is not None:
            return self._about(text, about, keep)
        try:
            query = parse(text, implicit_and=True)
        except QueryError as error:
            return ListFilter.Answered(text, keep, problem=error.describe())
        return ListFilter.Answered(
            text, keep, query=query, ids=self.screen.service.select(self.screen.view, unread=self.screen.unread_only, query=query)
        )

    def _about(self, typed: str, text: str, keep: str | None) -> ListFilter.Answered:
        """`~TEXT`: the view's papers most about TEXT (an empty text leaves the list as it was)."""
        if not text:
            return ListFilter.Answered("", None)
        try:
            found = self.screen.service.meaning.about(text, self.screen.view, unread=self.screen.unread_only)
        except SearchNotReady as error:
            return ListFilter.Answered(typed, keep, problem=f"Not yet: {error}")
        except ReaderError as error:
            return ListFilter.Answered(typed, keep, problem=f"Cannot rank by meaning: {error}")
        return ListFilter.Answered(typed, keep, about=text, found=found)

    def cleared(self) -> None:
        """Esc in the filter box: the filter running is dropped, the view's papers shown."""
        if self._running is not None:
            self._running.cancel()
        self.apply("", None, None, None)

    def take(self, answer: ListFilter.Answered) -> None:
        """A filter's answer, shown unless a newer one (or Esc) took its place meanwhile."""
        if answer.worker.is_cancelled:
            return
        if answer.problem is not None:
            self.screen.filter_box.note = answer.problem
        elif answer.about is not None and answer.found is not None:
            self._apply_about(answer.text, answer.about, answer.found, answer.keep)
        else:
            self.apply(answer.text, answer.query, answer.ids, answer.keep)

    def _apply_about(self, typed: str, text: str, found: About, keep: str | None) -> None:
        screen, about = self.screen, self.about
        # The same query again (a mark, the unread toggle) keeps the cursor; a new one starts on the best.
        again = about.active and typed == self.text
        self.text, self.query = typed, None
        ids = about.take(text, found)
        keep = keep if again and keep in ids else (ids[0] if ids else None)
        self._post_matched(ListFilter.Matched(ids, keep, best_first=True))  # never re-sorted
        screen.filter_box.note = about.subtitle()

    def apply(self, text: str, query: Node | None, ids: Sequence[str] | None, keep: str | None) -> None:
        screen = self.screen
        if self.about.active:  # the list as it was before the meaning query, cursor included
            before = self.about.clear()
            keep = keep if ids is not None else before
        self.text, self.query = text, query
        box = screen.filter_box
        if ids is None:
            self.matched = None
            box.note = ""
            self.redraw(papers=True, keep=keep)
            return
        self._post_matched(ListFilter.Matched(ids, keep))
        note = "" if screen.loaded else " (search index not ready: scanned the cache)"
        operators = operator_note(text)  # `quantum and monte` searches the word "and": said, query kept
        box.note = f"{plural(len(ids), 'match', 'matches', thousands=True)}{note}" + (f" · {operators}" if operators else "")

    def _post_matched(self, matched: ListFilter.Matched) -> None:
        self.matched = matched
        self.screen.post_message(matched)
