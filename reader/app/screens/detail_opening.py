"""Opening the detail view from the main list: the record of the paper under the cursor is
read (and its lines made) ahead, so Enter shows it at once; else it is read in a worker, which
posts `ListPaperRead` to the screen, whose handler hands it to `show`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from textual.worker import get_current_worker

from reader.app.screens.detail import DetailScreen
from reader.app.screens.paper_record import ListPaperRead, PaperRecord
from reader.app.screens.part import ScreenHost, ScreenPart

if TYPE_CHECKING:
    from reader.app.widgets.paper_list import PaperList
    from reader.service import LibraryService

# Seconds the cursor stays on a paper before its record is read ahead: longer than a held key's
# repeat (30-50 ms), so moving through the list reads nothing; shorter than reading a card.
READ_AHEAD_REST = 0.06


class DetailHost(ScreenHost, Protocol):
    """What the opening of the detail view uses of its screen: the list, and the marks."""

    service: LibraryService

    @property
    def paper_list(self) -> PaperList: ...
    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> None: ...


class DetailOpening(ScreenPart[DetailHost]):
    """Enter opens the list's paper in the detail view, shown at once with the record read ahead
    while the cursor rested on it; closing puts the cursor on the paper the view showed last."""

    def __init__(self, screen: DetailHost):
        super().__init__(screen)
        self._detail: DetailScreen | None = None
        self._read_ahead_record: PaperRecord | None = None  # the paper under the cursor, read ahead

    def highlighted(self, paper_id: str) -> None:
        """The cursor came to a paper: read its record ahead, once the cursor rests."""
        self.in_thread(self._read_ahead, paper_id, group="read-ahead", exclusive=True)

    def _read_ahead(self, paper_id: str) -> None:
        """In a worker: the record of the paper under the cursor, read and rendered before Enter
        is pressed (~3 ms), once the cursor rests: keys held down do not queue a read for each
        paper passed."""
        time.sleep(READ_AHEAD_REST)
        if not get_current_worker().is_cancelled and (
            record := PaperRecord.read_in_worker(self.screen.service, paper_id, self.screen.app.size.width)
        ):
            self._read_ahead_record = record  # one reference assigned: safe from this thread

    def open(self, paper_id: str, ids: Sequence[str] | None = None) -> None:
        """Enter on a paper: mark it read and show it, `[` and `]` moving through `ids` (the
        list's papers unless given: a paper just added may be in none of them)."""
        self.screen.set_marks(paper_id, read=True)
        ids, record = self.screen.paper_list.ids if ids is None else ids, self._read_ahead_record
        if record is not None and record.paper_id == paper_id:
            self._push_detail(ids, record, read_again=True)
        else:
            self.in_thread(self._read_for_detail, ids, paper_id, group="detail", exclusive=True)

    def _read_for_detail(self, ids: Sequence[str], paper_id: str) -> None:
        """In a worker: the record first, then the screen: it appears whole, drawn once."""
        if record := PaperRecord.read_in_worker(self.screen.service, paper_id, self.screen.app.size.width):
            self.screen.post_message(ListPaperRead(ids, record))

    def show(self, read: ListPaperRead) -> None:
        """The record Enter asked for, read: shown in the detail view."""
        self._push_detail(read.ids, read.record)

    def _push_detail(self, ids: Sequence[str], record: PaperRecord, *, read_again: bool = False) -> None:
        app = self.screen.app
        if app.screen is not self.screen:
            return  # a dialog opened meanwhile
        self.detail_screen.show_paper(ids, ids.index(record.paper_id), record, read_again=read_again)
        app.push_screen(self.detail_screen, self._detail_closed)

    def _detail_closed(self, paper_id: str | None) -> None:
        paper_list = self.screen.paper_list
        self.redraw(marks=True)
        if paper_id is not None:
            paper_list.show(paper_list.ids, keep=paper_id)
            paper_list.set_cursor(paper_list.cursor)  # the whole card in view, wherever [ ] led
        # What was read ahead may predate a note or tags written in the view: read it again.
        self._read_ahead_record = None
        if (current := paper_list.current) is not None:
            self.highlighted(current)

    def changed_elsewhere(self, papers_or_library: bool) -> None:
        """Another process changed the marks (or, `papers_or_library`, the papers or their notes and
        tags): the detail view shown follows."""
        detail = self._detail
        if detail is not None and detail.is_current:
            detail.marks_changed()
            if papers_or_library:
                detail.load_paper(detail.paper_id)  # its note and tags (not while the note is typed)

    @property
    def detail_screen(self) -> DetailScreen:
        """The detail view, made at its first opening and kept (see DetailScreen)."""
        if self._detail is None:
            self._detail = DetailScreen(self.screen.service)
            self.screen.app.install_screen(self._detail, "detail")
        return self._detail
