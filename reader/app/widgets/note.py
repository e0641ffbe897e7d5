"""A paper's note in the detail view: Markdown as rendered, or a TextArea while editing, saved as
it is typed (no save step to forget).

The note is the user's own text, yet a link in it still opens only in the browser and only when
it is http or https (`note_link`): Textual's Markdown would otherwise hand any scheme to the
terminal."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Markdown, Static, TextArea

if TYPE_CHECKING:
    from reader.service import LibraryService

EMPTY_HINT = "No note yet. N writes one here (saved as you type); E edits it in $EDITOR."


def note_link(href: str) -> str | None:
    """The link to open for a click in a note, or None: only http(s) to a named host, with no
    control characters (spaces, which the Markdown widget decodes, are encoded again)."""
    if any(not char.isprintable() for char in href):
        return None
    url = href.strip().replace(" ", "%20")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # a malformed port or IPv6 host
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return url


class NoteEditor(TextArea):
    """The note as it is typed; Tab indents (Markdown lists), Esc goes back to the rendered note
    (a priority binding: TextArea would take Esc as "focus the next widget")."""

    BINDINGS = [Binding("escape", "screen.stop_editing_note", "Done", priority=True, id="detail.note_done")]


class NotePane(Vertical):
    """One paper's note. `show` sets the paper and its note (read in the detail view's loading
    worker); `edit` and `stop_editing` switch between the Markdown and the editor."""

    def __init__(self, service: LibraryService, **kwargs):
        super().__init__(**kwargs)
        self.service = service
        self.paper_id: str | None = None
        self.text = ""  # the note as last typed or loaded
        self.editing = False
        self._rendered: str | None = None  # the text the Markdown shows (None: none given yet)
        self.display = False  # until a paper is shown (not in on_mount: the screen may show one first)

    def compose(self) -> ComposeResult:
        yield Static(Text("Note", style="bold underline"), classes="note-title")
        yield Static(Text(EMPTY_HINT, style="dim"), id="note-empty")
        yield Markdown(id="note-view", open_links=False)
        editor = NoteEditor(id="note-editor", soft_wrap=True, tab_behavior="indent")
        editor.display = False
        yield editor
        yield Static("", id="note-error", markup=False)

    @property
    def editor(self) -> NoteEditor:
        return self.query_one(NoteEditor)

    def show(self, paper_id: str | None, text: str) -> None:
        """The note of `paper_id` (None: no paper, nothing shown), rendered."""
        self.paper_id, self.text = paper_id, text
        self.display = paper_id is not None
        self._say("")
        self.stop_editing()

    def stop_editing(self) -> AwaitComplete:
        """Show the note rendered (awaitable: the Markdown is built in the background)."""
        self.editing = False
        self.editor.display = False
        self.query_one("#note-empty").display = not self.text.strip()
        view = self.query_one("#note-view", Markdown)
        view.display = bool(self.text.strip())
        if self.text == self._rendered:
            return AwaitComplete(asyncio.sleep(0))  # unchanged: rebuilding the Markdown costs a layout
        self._rendered = self.text
        return view.update(self.text)

    def edit(self) -> None:
        self.editing = True
        self.query_one("#note-empty").display = False
        self.query_one("#note-view").display = False
        editor = self.editor
        editor.load_text(self.text)
        editor.display = True
        editor.move_cursor(editor.document.end)
        editor.focus()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        text = event.text_area.text
        if not self.editing or self.paper_id is None or text == self.text:
            return  # loading the text into the editor is no change
        self.text = text
        saved = self.service.set_note(self.paper_id, text, on_error=self._say)
        saved.add_done_callback(self._written)

    def replace(self, text: str) -> AwaitComplete:
        """A note written elsewhere (in $EDITOR): saved and shown."""
        if self.paper_id is not None and text != self.text:
            self.text = text
            self.service.set_note(self.paper_id, text, on_error=self._say).add_done_callback(self._written)
        return self.stop_editing()

    def _written(self, done: Future) -> None:
        """In the writer thread: a write that kept the text clears an earlier failure's message."""
        if done.result() is not None:
            self.service.run_on_ui(lambda: self._say(""))

    def _say(self, problem: str) -> None:
        """Why the note is not saved (it stays in the editor: nothing typed is lost)."""
        if self.is_attached:
            error = self.query_one("#note-error", Static)
            if str(error.content) != problem:
                error.update(problem)
            error.display = bool(problem)
