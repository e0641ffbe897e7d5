"""The filter box: plain words or arXiv's query syntax, applied as the user types."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterBox(Input):
    """Hidden until `/`; Enter keeps the filter and returns to the list, Esc clears it."""

    BINDINGS = [Binding("escape", "clear", "Clear filter", id="filter.clear")]

    class Cleared(Message):
        """Esc: the filter is gone and the box hidden."""

    class Done(Message):
        """Enter: the filter stays; focus goes back to the list."""

    def __init__(self, *, id: str | None = None):
        super().__init__(
            placeholder="Filter: words, or a query like ti:agent AND cat:cs.LG   (Enter keeps it, Esc clears)",
            id=id,
        )
        self.display = False
        # Tab moves between the sidebar and the list; the box is reached with / only.
        self.can_focus = False

    def open(self) -> None:
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
        self.border_subtitle = ""
        self.can_focus = False
        self.display = False
        self.post_message(self.Cleared())

    async def action_submit(self) -> None:
        self.close()
        self.post_message(self.Done())
