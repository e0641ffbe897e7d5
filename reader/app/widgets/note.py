"""A paper's note in the detail view: written in a TextArea docked under the record, saved as it
is typed (no save step to forget); the record shows it rendered (widgets/record_view.py).

The note is the user's own text, yet a link in it still opens only in the browser and only when
it is http or https (`note_link`)."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from reader.app.keys import key


def note_link(href: str) -> str | None:
    """The link to open for a click in a note, or None: only http(s) to a named host, with no
    control characters (spaces, which a Markdown parser may decode, are encoded again)."""
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


class NoteEditing(Vertical):
    """The note's editor, docked under the record while the note is written: the detail view
    mounts it for `N` and removes it when done (an editor kept in the screen would be restyled
    at every opening of the view). The screen saves what is typed (TextArea.Changed) and says
    here why a save failed (`say`)."""

    def __init__(self, text: str, problem: str = "", **kwargs):
        super().__init__(**kwargs)
        self.text = text
        self.problem = problem

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(("Note", "bold underline"), (f"  {key(self.app, 'detail.note_done')} when done; saved as you type", "dim")),
            classes="note-title",
        )
        yield NoteEditor(self.text, id="note-editor", soft_wrap=True, tab_behavior="indent")
        yield Static(self.problem, id="note-error", markup=False)

    def on_mount(self) -> None:
        editor = self.editor
        editor.move_cursor(editor.document.end)
        editor.focus()
        self.say(self.problem)

    @property
    def editor(self) -> NoteEditor:
        return self.query_one(NoteEditor)

    def say(self, problem: str) -> None:
        """Why the note is not saved (it stays in the editor: nothing typed is lost)."""
        error = self.query_one("#note-error", Static)
        error.update(problem)
        error.display = bool(problem)
