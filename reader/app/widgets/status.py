"""The status line: one line of what the app is doing (a sync's progress, its report)."""

from __future__ import annotations

from textual.widgets import Static


class StatusLine(Static):
    """One line of plain text (never markup: sync messages quote server text)."""

    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id, markup=False)
        self.syncing = False  # a sync is running (its messages are what the line shows)

    def say(self, message: str) -> None:
        self.update(message, layout=False)  # one line at any length: a layout of the screen cost ~12 ms per message
