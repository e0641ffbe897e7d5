"""Opening the detail view from the main list: the record of the paper under the cursor is
read (and its lines made) ahead, so Enter shows it at once."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import on, work
from textual.screen import Screen
from textual.worker import get_current_worker

from reader.app.screens.detail import DetailScreen, PaperRecord
from reader.app.widgets.paper_list import PaperList

if TYPE_CHECKING:
    from reader.service import LibraryService

# Seconds the cursor stays on a paper before its record is read ahead: longer than a held key's
# repeat (30-50 ms), so moving through the list reads nothing; shorter than reading a card.
READ_AHEAD_REST = 0.06


class DetailOpening(Screen):
    """Mixed into MainScreen: Enter opens the list's paper in the detail view, shown at once with
    the record read ahead while the cursor rested on it; closing puts the cursor on the paper
    the view showed last."""

    service: LibraryService

    if TYPE_CHECKING:

        @property
        def paper_list(self) -> PaperList: ...
        def marks_changed(self) -> None: ...
        def _set_marks(self, paper_id: str, *, read: bool | None = None) -> None: ...

    def init_detail(self) -> None:
        self._detail: DetailScreen | None = None
        self._read_ahead_record: PaperRecord | None = None  # the paper under the cursor, read ahead

    @on(PaperList.Highlighted)
    def _highlighted(self, event: PaperList.Highlighted) -> None:
        self._read_ahead(event.paper_id)

    @work(thread=True, exclusive=True, group="read-ahead")
    def _read_ahead(self, paper_id: str) -> None:
        """The record of the paper under the cursor, read and rendered before Enter is pressed
        (~3 ms), once the cursor rests: keys held down do not queue a read for each paper passed."""
        time.sleep(READ_AHEAD_REST)
        if not get_current_worker().is_cancelled and (record := PaperRecord.read_in_worker(self.service, paper_id, self.app.size.width)):
            self._read_ahead_record = record  # one reference assigned: safe from this thread

    @on(PaperList.Opened)
    def _open_detail(self, event: PaperList.Opened) -> None:
        self._set_marks(event.paper_id, read=True)
        ids, record = self.paper_list.ids, self._read_ahead_record
        if record is not None and record.paper_id == event.paper_id:
            self._push_detail(ids, ids.index(event.paper_id), record, read_again=True)
        else:
            self._read_for_detail(ids, event.paper_id)

    @work(thread=True, exclusive=True, group="detail")
    def _read_for_detail(self, ids: list[str], paper_id: str) -> None:
        """The record first, then the screen: it appears whole, drawn once."""
        if record := PaperRecord.read_in_worker(self.service, paper_id, self.app.size.width):
            self.app.call_from_thread(self._push_detail, ids, ids.index(paper_id), record)

    def _push_detail(self, ids: list[str], position: int, record: PaperRecord, *, read_again: bool = False) -> None:
        if self.app.screen is not self:
            return  # a dialog opened meanwhile
        self.detail_screen.show_paper(ids, position, record, read_again=read_again)
        self.app.push_screen(self.detail_screen, self._detail_closed)

    def _detail_closed(self, paper_id: str | None) -> None:
        self.marks_changed()
        if paper_id is not None:
            self.paper_list.show(self.paper_list.ids, keep=paper_id)
            self.paper_list.set_cursor(self.paper_list.cursor)  # the whole card in view, wherever [ ] led
        # What was read ahead may predate a note or tags written in the view: read it again.
        self._read_ahead_record = None
        if (current := self.paper_list.current) is not None:
            self._read_ahead(current)

    @property
    def detail_screen(self) -> DetailScreen:
        """The detail view, made at its first opening and kept (see DetailScreen)."""
        if self._detail is None:
            self._detail = DetailScreen(self.service)
            self.app.install_screen(self._detail, "detail")
        return self._detail
