"""Notices on a screen the user reads (the detail view, help): one line above the footer, where
a toast in the corner would cover the text."""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static


class NoticeLine(Static):
    """The latest notice (plain text, never markup: notices quote server text), on one line; it
    takes its row from the screen's text rather than covering it (put it after the text, not
    docked), and goes when its time is up."""

    DEFAULT_CSS = """
    NoticeLine {
        height: 1;
        padding: 0 1;
        display: none;
        background: $panel;
        &.-warning { color: $text-warning; }
        &.-error { color: $text-error; }
    }
    """

    def __init__(self) -> None:
        super().__init__("", markup=False)
        self._timer: Timer | None = None

    def show(self, message: str, severity: str, seconds: float) -> None:
        self.update(Text(" ".join(message.split()), no_wrap=True, overflow="ellipsis"))
        self.set_classes(f"-{severity}")
        self.display = True
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(seconds, self._hide)

    def _hide(self) -> None:
        self._timer = None
        self.display = False
