"""The status line: one line of what the app is doing (a sync's progress, its report)."""

from __future__ import annotations

from textual.reactive import var
from textual.widgets import Static


class StatusLine(Static):
    """One line of plain text (never markup: sync messages quote server text). Both vars are bound
    from its screen's state (`MainScreen.status_text`, `MainScreen.syncing`)."""

    text: var[str] = var("", init=False)
    syncing: var[bool] = var(False)  # a sync is running (its messages are what the line shows)

    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id, markup=False)

    def watch_text(self, text: str) -> None:
        self.update(text, layout=False)  # one line at any length: a layout of the screen cost ~12 ms per message
