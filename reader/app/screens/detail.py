"""The detail view of one paper: everything we know about it and the user's note, scrollable
(opened from the list by detail_opening.py; paper_record.py reads what it shows)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import TextArea

from reader.app.external_editor import EditorError, edit_text
from reader.app.keys import key
from reader.app.paper_actions import DEMO_NO_TAGS_NOTES, PAPER_BINDINGS, PaperScreen
from reader.app.screens.full_text import REFERENCES, FullTextScreen
from reader.app.screens.paper_record import PaperRecord, RecordRead, record_look
from reader.app.screens.references import CITED_BY, REFERENCES_OF, PaperLinksScreen
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.note import NoteEditing, note_link
from reader.app.widgets.notice_line import NoticeLine
from reader.app.widgets.record_view import MATH, RECORD_SCROLL, NoteSection, RecordLines, RecordView, render_record
from reader.core.sanitize import clean_multiline, clean_text
from reader.models import Paper

if TYPE_CHECKING:
    from reader.service import LibraryService


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
        Binding("v", "full_text", "Full text", id="detail.full_text", tooltip="Read the paper in full (fetched once, then kept)"),
        REFERENCES,
        Binding(
            "c", "cited_by", "Cited by", show=False, id="detail.cited_by", tooltip="The cached papers whose stored texts cite this one"
        ),
        Binding("right_square_bracket", "step(1)", "Next paper", id="detail.next"),
        Binding("left_square_bracket", "step(-1)", "Previous", id="detail.previous"),
        Binding("N", "edit_note", "Note", id="detail.note", tooltip="Write the paper's note here (saved as you type)"),
        Binding("E", "edit_note_externally", "Edit in $EDITOR", id="detail.note_editor"),
        MATH,
        *RECORD_SCROLL,
    ]

    def __init__(self, service: LibraryService):
        super().__init__(service)
        self.ids: Sequence[str] = []
        self.position = 0
        self.paper: Paper | None = None  # the whole record, read once per paper shown
        self.tags: tuple[str, ...] = ()
        self.note_paper_id: str | None = None  # the paper whose note is shown and can be written
        self.note_text = ""  # the note as last typed or read
        self.note_problem = ""  # why the note as typed is not saved
        self._first: PaperRecord | None = None  # shown once the screen is first mounted
        self._shown: PaperRecord | None = None
        self._editor: NoteEditing | None = None  # mounted while the note is written
        # Whether the shown record was read since it was opened (one read ahead may predate a
        # change of its note), and what to do once it is (N or E pressed before).
        self._fresh = False
        self._after_read: str | None = None
        self.math = service.settings.math  # the title's and abstract's math: "unicode" or "tex" (the key switches)

    @property
    def paper_id(self) -> str:
        return self.ids[self.position]

    @property
    def record_view(self) -> RecordView:
        return self.query_one(RecordView)

    def compose(self) -> ComposeResult:
        yield RecordView(id="detail")
        yield NoticeLine()  # notices under the record, not over it
        yield KeyFooter()

    def show_paper(self, ids: Sequence[str], position: int, record: PaperRecord, *, read_again: bool = False) -> None:
        """Show `record`, the paper at `position` of `ids` (the list it came from), from the top.
        `read_again`: the record was read ahead (a tag or a note may have changed since), so it
        is read again, and shown again if it differs."""
        self.ids, self.position = ids, position
        self._fresh, self._after_read = not read_again, None
        self.math = self.service.settings.math  # each opening as the setting says (made so ahead)
        if read_again:
            self.load_paper(record.paper_id)
        if not self.is_mounted:
            self._first = record
            return
        self._show(record)
        self.record_view.focus()

    def on_mount(self) -> None:
        record, self._first = self._first, None
        if record is not None:
            self._show(record)

    @work(thread=True, exclusive=True, group="detail")
    def load_paper(self, paper_id: str) -> None:
        if record := PaperRecord.read_in_worker(self.service, paper_id, self.app.size.width, self.math):
            self.post_message(RecordRead(record))

    def on_record_read(self, message: RecordRead) -> None:
        if message.linked:
            self._push_linked(message.record)
        else:
            self._loaded(message.record)

    def _loaded(self, record: PaperRecord) -> None:
        if record.paper_id != self.paper_id:
            return  # the user has moved on
        if not self.is_mounted:
            self._first = record  # read again before the first mount: the newer one is shown
        elif record != self._shown and self._editor is None:  # what is typed is not replaced
            self._show(record, home=False)
        self._fresh = True
        if (action := self._after_read) is not None:
            self._after_read = None
            self.call_later(self.run_action, action)

    def _show(self, record: PaperRecord, *, home: bool = True) -> None:
        self._shown = record
        self.paper, self.tags = record.paper, record.tags
        self.note_paper_id = record.paper_id if record.keeps_note else None
        self.note_text, self.note_problem = record.note, ""
        if record.problem:
            self.app.notify(record.problem, severity="error", timeout=15)
        self.stop_editing()
        self.refresh_detail(home=home)

    def refresh_detail(self, *, home: bool = False) -> None:
        """Render the record again (marks, tags or the note changed, or the width); `home`: from
        its top, else where it was scrolled to."""
        if self.paper is None:
            gone = self._shown is not None and self._shown.paper_id == self.paper_id
            self.record_view.show(
                RecordLines.message("This paper is no longer in the cache." if gone else "Loading the record…"), home=home
            )
            return
        keys = (key(self.app, "detail.note"), key(self.app, "detail.note_editor"))  # a remap is said
        note = NoteSection(self.note_text if self.note_paper_id == self.paper_id else None, self.note_problem, keys)
        shown = self._shown if self._shown is not None and self._shown.paper_id == self.paper_id else None
        look = record_look(
            self.service,
            self.paper_id,
            self.tags,
            note,
            self.app.size.width,
            full_text=shown.full_text if shown else None,
            cited_by=shown.cited_by if shown else None,
            keys=(key(self.app, "detail.references"), key(self.app, "detail.cited_by")),
            math=self.math,
        )
        made = [lines for lines in (self._shown.lines if self._shown else None, self.record_view.lines) if lines is not None]
        lines = next((lines for lines in made if lines.shows(self.paper, look)), None)  # made ahead, or shown
        self.record_view.show(lines or render_record(self.paper, look), home=home)

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
        self.paper, self.note_paper_id = None, None
        self._fresh, self._after_read = False, None
        self.stop_editing()
        self.refresh_detail(home=True)  # "Loading the record…"
        self.record_view.focus()
        self.set_marks(self.paper_id, read=True)
        self.load_paper(self.paper_id)

    def action_close(self) -> None:
        self.dismiss(self.paper_id)

    def action_toggle_math(self) -> None:
        """The title's and abstract's math as Unicode or as arXiv's TeX, for this view."""
        self.math = "tex" if self.math == "unicode" else "unicode"
        self.refresh_detail()
        self.app.notify("Math shown as TeX." if self.math == "tex" else "Math shown as Unicode.")

    def action_full_text(self) -> None:
        """The paper in full (a screen of its own); back here, the record is read again (its
        text may be stored now)."""
        if self.paper is None:
            return
        if self.service.is_demo or self.paper.demo:
            self.app.notify("The demo set has no full texts: add a topic and sync to read papers in full.", severity="warning")
            return
        screen = FullTextScreen(
            self.service, self.paper_id, self.paper.version, getattr(self.app, "client_options", None), self.open_linked
        )

        def back(_: object) -> None:
            self.load_paper(self.paper_id)

        self.app.push_screen(screen, back)

    def action_references(self) -> None:
        self._links(REFERENCES_OF)

    def action_cited_by(self) -> None:
        self._links(CITED_BY)

    def _links(self, kind: str) -> None:
        """The paper's references or the papers citing it, a list of their own (Esc returns)."""
        if self.paper is None:
            return
        if self.service.is_demo or self.paper.demo:
            self.app.notify("The demo set has no full texts: add a topic and sync to read papers in full.", severity="warning")
            return
        screen = PaperLinksScreen(self.service, self.paper_id, kind, self.open_linked, getattr(self.app, "client_options", None))

        def back(_: object) -> None:  # a reference added there may be cited or starred now
            self.load_paper(self.paper_id)

        self.app.push_screen(screen, back)

    def open_linked(self, paper_id: str) -> None:
        """A cached paper a list over this view names (its references, the papers citing it):
        marked read and shown in a detail view of its own, over the list (Esc returns to it)."""
        self.service.set_marks(paper_id, read=True)  # as Enter on the main list does
        self._read_linked(paper_id)

    @work(thread=True, exclusive=True, group="detail-linked")
    def _read_linked(self, paper_id: str) -> None:
        if record := PaperRecord.read_in_worker(self.service, paper_id, self.app.size.width):
            self.post_message(RecordRead(record, linked=True))

    def _push_linked(self, record: PaperRecord) -> None:
        if not isinstance(self.app.screen, PaperLinksScreen):
            return  # the list was closed meanwhile
        detail = DetailScreen(self.service)
        detail.show_paper([record.paper_id], 0, record)
        self.app.push_screen(detail)

    def action_scroll(self, where: str) -> None:
        """`where`: down, up, page_down, page_up, home or end (RecordView's scroll_* methods);
        at once, as the list moves (an animated Home took half a second to get there)."""
        getattr(self.record_view, f"scroll_{where}")(animate=False)

    def action_open_note_link(self, index: int) -> None:
        """A click on the note's link number `index` (see RecordView): only http(s) opens."""
        links = self.record_view.lines.links
        if not 0 <= index < len(links):
            return
        url = note_link(links[index])
        if url is None:
            self.app.notify(
                f"Not opened: only http and https links open from a note ({clean_text(links[index])[:80]}).", severity="warning"
            )
        else:
            self.open_in_browser(url)

    # --- the note ---------------------------------------------------------------------------------

    def _note_ready(self, action: str) -> bool:
        """Whether the shown paper's note can be written now (it is read since the view opened,
        and kept); if it is being read, `action` runs once it is."""
        if self.paper is not None and (self.service.is_demo or self.paper.demo):
            self.app.notify(DEMO_NO_TAGS_NOTES.format(sync=key(self.app, "app.sync")), severity="warning")
            return False
        if not self._fresh:
            self._after_read = action  # the note read ahead may be older than the one saved
            return False
        return self.note_paper_id == self.paper_id

    def action_edit_note(self) -> None:
        if self._note_ready("edit_note") and self._editor is None:
            self._editor = NoteEditing(self.note_text, self.note_problem, id="note")
            self.mount(self._editor, before=self.query_one(KeyFooter))
            if (line := self.record_view.lines.note_line) is not None:
                # The note as rendered, above its editor (once the editor has taken its room).
                self.call_after_refresh(self.record_view.scroll_to, y=line, animate=False)

    def stop_editing(self) -> None:
        """The editor goes (what was typed is saved as it was typed); the record shows the note."""
        if self._editor is not None:
            self._editor.remove()
            self._editor = None
            self.refresh_detail()
            self.record_view.focus()

    def action_stop_editing_note(self) -> None:
        self.stop_editing()

    @on(TextArea.Changed, "#note-editor")
    def _note_typed(self, event: TextArea.Changed) -> None:
        if event.text_area.text != self.note_text:  # loading the text into the editor is no change
            self._save_note(event.text_area.text)

    def _save_note(self, text: str) -> None:
        paper_id = self.note_paper_id
        if paper_id is None:
            return
        self.note_text = clean_multiline(text)  # as the store keeps it: typed or pasted control characters go

        def written(done: Future) -> None:  # in the writer thread: a kept write clears an earlier failure
            if done.result() is not None:
                self.service.run_on_ui(lambda: self._note_saved(paper_id, ""))

        saved = self.service.set_note(paper_id, text, on_error=lambda problem: self._note_saved(paper_id, problem))
        saved.add_done_callback(written)

    def _note_saved(self, paper_id: str, problem: str) -> None:
        """A save of `paper_id`'s note ended: `problem` says why it failed ('' when it did not);
        said under the note, or in a notification once the view has moved on or closed."""
        if paper_id == self.note_paper_id and problem != self.note_problem:
            self.note_problem = problem
            if self._editor is not None:
                self._editor.say(problem)
            else:
                self.refresh_detail()
        if problem and (paper_id != self.note_paper_id or not self.is_current):
            self.app.notify(f"The note of arXiv:{paper_id}: {problem}", severity="error", timeout=30)

    async def action_edit_note_externally(self) -> None:
        if not self._note_ready("edit_note_externally"):
            return
        try:
            edited = edit_text(self.app, self.note_text, self.paper_id)
        except EditorError as error:
            self.app.notify(str(error), severity="error", timeout=15)
            return
        if edited is None:
            self.app.notify("The note is unchanged.")
        else:
            self._save_note(edited)  # a failed save is said under the note
            if self._editor is not None:
                self._editor.editor.load_text(edited)
            self.refresh_detail()
        self.refresh()  # the whole screen again: lines the editor left could otherwise stay
