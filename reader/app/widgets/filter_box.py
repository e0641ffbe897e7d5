"""The filter box: plain words or arXiv's query syntax, applied as the user types; or, after
`~`, a text whose meaning the papers are ranked by (screens/about.py)."""

from __future__ import annotations

from textual.binding import Binding
from textual.markup import escape
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input

from reader.app.keys import key
from reader.core.query import parse
from reader.errors import QueryError

MEANING = "~"  # the prefix of a meaning query


class FilterBox(Input):
    """Hidden until `/`; Enter keeps the filter and returns to the list, Esc clears it. Enter on
    a query that does not parse stays here and says why again: the letters typed next to fix
    it must not reach the list's one-key actions."""

    BINDINGS = [Binding("escape", "clear", "Clear filter", id="filter.clear")]

    # What the box says under it (its subtitle), as plain text: the filter's answer (set by the
    # main screen's filter part) or why Enter cannot keep the query. A query's error may quote
    # what was typed: shown as typed, never read as markup. Said again when set again.
    note: var[str] = var("", always_update=True)

    class Cleared(Message):
        """Esc: the filter is gone and the box hidden."""

    class Done(Message):
        """Enter: the filter stays; focus goes back to the list."""

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.display = False
        # Tab moves between the sidebar and the list; the box is reached with / only.
        self.can_focus = False

    def watch_note(self, note: str) -> None:
        self.border_subtitle = escape(note)

    def open(self) -> None:
        self.placeholder = (
            f"Filter: words, a query like ti:agent AND cat:cs.LG, or ~ and a meaning: ~agents that learn from mistakes"
            f"   (Enter keeps it, {key(self.app, 'filter.clear')} clears)"
        )
        self.display = True
        self.can_focus = True
        self.screen.set_focus(self)  # at once: keys already queued behind the / land here

    def close(self) -> None:
        """Hidden and out of the focus chain; a kept filter still applies."""
        self.can_focus = False
        if not self.value.strip():
            self.display = False

    def action_clear(self) -> None:
        self.value = ""
        self.note = ""
        self.can_focus = False
        self.display = False
        self.post_message(self.Cleared())

    async def action_submit(self) -> None:
        if (text := self.value.strip()) and not text.startswith(MEANING):  # a meaning is any text
            try:
                parse(text, implicit_and=True)
            except QueryError as error:
                self.note = error.describe()
                self.app.bell()
                return
        self.close()
        self.post_message(self.Done())
