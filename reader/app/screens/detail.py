"""The detail view of one paper: everything we know about it and the user's note, scrollable."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Markdown, Static
from textual.worker import get_current_worker

from reader.app.external_editor import EditorError, edit_text
from reader.app.paper_actions import DEMO_NOT_SAVED, PAPER_BINDINGS, PaperScreen, paper_link
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.note import NotePane, note_link
from reader.app.widgets.paper_list import PaperList
from reader.core.sanitize import clean_text
from reader.errors import ReaderError
from reader.models import Paper

if TYPE_CHECKING:
    from reader.service import LibraryService


LABEL_WIDTH = 14


def detail_text(paper: Paper, *, read: bool, starred: bool, width: int = 100) -> Text:
    """Title, marks, authors and abstract as plain styled text (feed text is never parsed as
    markup); affiliations wrap under themselves, not under their authors."""
    text = Text()
    text.append(paper.title + "\n", style="bold")
    marks = ("★ starred · " if starred else "") + ("read" if read else "unread")
    ident = "demo paper (no arXiv id)" if paper.demo else f"arXiv:{paper.id}v{paper.version}"
    text.append(f"{ident} · {paper.primary_category} · {marks}\n\n", style="dim")
    text.append("Authors\n", style="bold underline")

    def indented(value: str, indent: int, style: str = "") -> None:
        lines = textwrap.wrap(value, max(20, width - indent), break_on_hyphens=False) or [""]
        text.append("".join(" " * indent + line + "\n" for line in lines), style=style)

    for author in paper.authors:
        indented(author.name, 2)
        if author.affiliations:
            indented("; ".join(author.affiliations), 6, "italic dim")
    if paper.extra_authors:
        text.append(f"  and {paper.extra_authors} more\n", style="dim")
    if paper.listed_affiliations:
        more = f" and {paper.extra_affiliations} more" if paper.extra_affiliations else ""
        indented(f"Affiliations: {'; '.join(paper.listed_affiliations)}{more}", 2, "italic dim")
    text.append("\nAbstract\n", style="bold underline")
    text.append(paper.abstract)
    return text


def facts_text(paper: Paper, topics: list[str], tags: tuple[str, ...] = (), width: int = 100) -> Text:
    """The metadata under the note, each value wrapped under itself, then the links."""
    text = Text()
    rows = [
        ("Tags", ", ".join(tags)),
        ("Categories", ", ".join(paper.categories)),
        ("Topics", ", ".join(topics)),
        ("Comment", paper.comment or ""),
        ("Journal ref", paper.journal_ref or ""),
        ("DOI", paper.doi or ""),
        ("Submitted", f"{paper.published[:10]} (v1)"),
        ("This version", f"v{paper.version}, {paper.updated[:10]}"),
    ]
    room = max(20, width - LABEL_WIDTH - 2)
    for label, value in rows:
        if value:
            text.append(f"{label:>{LABEL_WIDTH}}  ", style="bold")
            lines = textwrap.wrap(value, room, break_long_words=True, break_on_hyphens=False) or [""]
            text.append(("\n" + " " * (LABEL_WIDTH + 2)).join(lines) + "\n")
    # Links on lines of their own, unwrapped where the width allows, so they can be selected whole.
    for label, kind in (("Abstract page", "abs"), ("PDF", "pdf")):
        url = paper_link(paper, kind)
        if url:
            text.append(f"\n{label}\n", style="bold")
            text.append(url, style=Style(link=url, underline=True))
            text.append("\n")
    return text


@dataclass(frozen=True)
class PaperRecord:
    """What the detail view shows of one paper beyond its card, read in a worker."""

    paper_id: str
    paper: Paper | None  # None: no longer in the cache
    note: str = ""
    tags: tuple[str, ...] = ()
    problem: str | None = None  # why the note and tags could not be read

    @classmethod
    def read(cls, service: LibraryService, paper_id: str) -> PaperRecord:
        """Disk work (one record of one shard, the note, the tags): call it in a worker."""
        paper = service.load_paper(paper_id)
        if paper is None or paper.demo:
            return cls(paper_id, paper)
        try:
            return cls(paper_id, paper, service.note(paper_id), service.tags_of([paper_id])[paper_id])
        except ReaderError as error:
            return cls(paper_id, paper, problem=f"Cannot read the note and tags: {error}")


class DetailScreen(PaperScreen):
    """One paper in full, with the user's note. `[` and `]` move to the previous and next paper
    of the list without going back to it; closing returns the paper last shown, for the list's
    cursor.

    One instance serves every opening (the main screen installs it, so Textual keeps it when
    closed), and it is pushed with the record already read (`show_paper`): composing it anew,
    and a worker reading the record while the screen's first frame was drawn, made opening it
    three times slower."""

    BINDINGS = [
        Binding("escape,q", "close", "Back", id="detail.close"),
        Binding("question_mark", "app.help", "Help", id="detail.help"),
        *PAPER_BINDINGS,
        Binding("right_square_bracket", "step(1)", "Next paper", id="detail.next"),
        Binding("left_square_bracket", "step(-1)", "Previous", id="detail.previous"),
        Binding("N", "edit_note", "Note", id="detail.note", tooltip="Write the paper's note here (saved as you type)"),
        Binding("E", "edit_note_externally", "Edit in $EDITOR", id="detail.note_editor"),
        Binding("j,down", "scroll_down", "Down", show=False, id="detail.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="detail.up"),
    ]

    def __init__(self, service: LibraryService):
        super().__init__(service)
        self.ids: list[str] = []
        self.position = 0
        self.paper: Paper | None = None  # the whole record, read once per paper shown
        self.tags: tuple[str, ...] = ()
        self._first: PaperRecord | None = None  # shown once the screen is first mounted
        self._shown: PaperRecord | None = None

    @property
    def paper_id(self) -> str:
        return self.ids[self.position]

    @property
    def note(self) -> NotePane:
        return self.query_one(NotePane)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail"):
            yield Static(id="detail-body")
            yield NotePane(self.service, id="note")
            yield Static(id="detail-facts")
        yield KeyFooter()

    def show_paper(self, ids: list[str], position: int, record: PaperRecord, *, read_again: bool = False) -> None:
        """Show `record`, the paper at `position` of `ids` (the list it came from), from the top.
        `read_again`: the record was read ahead (a tag or a note may have changed since), so it
        is read again, and shown again if it differs."""
        self.ids, self.position = ids, position
        if read_again:
            self.load_paper(record.paper_id)
        if not self.is_mounted:
            self._first = record
            return
        self._show(record)
        self._scroll.focus()
        self._scroll.scroll_home(animate=False, immediate=True)

    def on_mount(self) -> None:
        record, self._first = self._first, None
        if record is not None:
            self._show(record)

    def _show_loading(self) -> None:
        self.query_one("#detail-body", Static).update(Text("Loading the record…"))
        self.query_one("#detail-facts", Static).update("")
        self.note.show(None, "")

    @work(thread=True, exclusive=True, group="detail")
    def load_paper(self, paper_id: str) -> None:
        record = PaperRecord.read(self.service, paper_id)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._loaded, record)

    def _loaded(self, record: PaperRecord) -> None:
        if record.paper_id != self.paper_id or record == self._shown:
            return  # the user has moved on, or the record read again is the one shown
        if not self.is_mounted:
            self._first = record  # read again before the first mount: the newer one is shown
        else:
            self._show(record)

    def _show(self, record: PaperRecord) -> None:
        self._shown = record
        self.paper, self.tags = record.paper, record.tags
        if record.problem:
            self.app.notify(record.problem, severity="error", timeout=15)
        self.refresh_detail()
        kept = record.paper is not None and not record.paper.demo and record.problem is None  # demo papers have no note
        self.note.show(record.paper_id if kept else None, record.note)

    def refresh_detail(self) -> None:
        body = self.query_one("#detail-body", Static)
        facts = self.query_one("#detail-facts", Static)
        if self.paper is None:
            body.update(Text("This paper is no longer in the cache."))
            facts.update("")
            return
        library = self.service.library
        width = self.app.size.width - 6  # the view's padding and scrollbar (known before a first layout)
        read, starred = self.paper_id in library.read, self.paper_id in library.starred
        body.update(detail_text(self.paper, read=read, starred=starred, width=width))
        facts.update(facts_text(self.paper, library.topics_of(self.paper_id), self.tags, width=width))

    def current_paper_id(self) -> str | None:
        return self.paper_id

    def _current_paper(self) -> Paper | None:
        return self.paper

    def marks_changed(self) -> None:
        self.refresh_detail()

    def tags_changed(self, paper_id: str, tags: tuple[str, ...]) -> None:
        if paper_id == self.paper_id:
            self.tags = tags
        super().tags_changed(paper_id, tags)

    def on_resize(self) -> None:
        if self.paper is not None:
            self.refresh_detail()

    def action_step(self, step: int) -> None:
        position = self.position + step
        if not 0 <= position < len(self.ids):
            self.app.notify("No more papers this way.")
            return
        self.position = position
        self.paper = None
        self._show_loading()
        self._scroll.focus()
        self._scroll.scroll_home(animate=False)
        self._set_marks(self.paper_id, read=True)
        self.load_paper(self.paper_id)

    @property
    def _scroll(self) -> VerticalScroll:
        return self.query_one("#detail", VerticalScroll)

    def action_close(self) -> None:
        self.dismiss(self.paper_id)

    def action_scroll_down(self) -> None:
        self._scroll.scroll_down()

    def action_scroll_up(self) -> None:
        self._scroll.scroll_up()

    # --- the note ---------------------------------------------------------------------------------

    def _note_ready(self) -> bool:
        """Whether the shown paper's note can be edited now (it is loaded, and kept)."""
        if self.paper is not None and (self.service.is_demo or self.paper.demo):
            self.app.notify(DEMO_NOT_SAVED, severity="warning")
            return False
        return self.note.paper_id == self.paper_id

    def action_edit_note(self) -> None:
        if self._note_ready():
            self.note.edit()
            self.call_after_refresh(self._scroll.scroll_to_widget, self.note.editor, animate=False)

    def action_stop_editing_note(self) -> None:
        self.note.stop_editing()
        self._scroll.focus()

    async def action_edit_note_externally(self) -> None:
        if not self._note_ready():
            return
        try:
            edited = edit_text(self.app, self.note.text, self.paper_id)
        except EditorError as error:
            self.app.notify(str(error), severity="error", timeout=15)
            return
        if edited is None:
            self.app.notify("The note is unchanged.")
        else:
            await self.note.replace(edited)  # a failed save is said under the note
        self.refresh()  # the whole screen again: lines the editor left could otherwise stay

    @on(Markdown.LinkClicked)
    def _note_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        url = note_link(event.href)
        if url is None:
            self.app.notify(f"Not opened: only http and https links open from a note ({clean_text(event.href)[:80]}).", severity="warning")
        else:
            self.open_in_browser(url)


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
        """The record of the paper under the cursor, read before Enter is pressed (~1 ms)."""
        record = PaperRecord.read(self.service, paper_id)
        if not get_current_worker().is_cancelled:
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
        record = PaperRecord.read(self.service, paper_id)
        if not get_current_worker().is_cancelled:
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

    @property
    def detail_screen(self) -> DetailScreen:
        """The detail view, made at its first opening and kept (see DetailScreen)."""
        if self._detail is None:
            self._detail = DetailScreen(self.service)
            self.app.install_screen(self._detail, "detail")
        return self._detail
