"""The Rising view: the user's topics ranked by momentum, one row each; Enter opens a topic."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from reader.core.rising import TopicTrend

COLUMNS = ("Topic", "Last 4 wk", "4 wk before", "Change", "Share of all new")


class RisingTable(DataTable):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="rising.down"),
        Binding("k", "cursor_up", "Up", show=False, id="rising.up"),
    ]

    class TopicChosen(Message):
        def __init__(self, topic: str):
            super().__init__()
            self.topic = topic

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._topics: list[str] = []

    def on_mount(self) -> None:
        self.add_columns(*COLUMNS)

    def show(self, trends: list[TopicTrend]) -> None:
        self.clear()
        self._topics = [trend.topic for trend in trends]
        for trend in trends:
            change = "—" if trend.change_pct is None else f"{trend.change_pct:+.0f}%"
            share = "—" if trend.share_pct is None else f"{trend.share_pct:.2f}%"
            # The topic's name is the user's text: a Text is never read as markup.
            self.add_row(Text(trend.topic), f"{trend.last4:,}", f"{trend.prev4:,}", change, share)
        if not trends:
            self.add_row(Text("No topics yet: a adds one"), "", "", "", "")

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.cursor_row < len(self._topics):
            self.post_message(self.TopicChosen(self._topics[event.cursor_row]))
