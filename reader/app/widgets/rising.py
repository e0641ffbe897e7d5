"""The Rising view: the user's topics ranked by momentum, one row each; Enter opens a topic."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from reader.app.keys import key
from reader.core.rising import TopicTrend

TOPIC_WIDTH = 24
COLUMNS = ("Topic", "Last 4 wk", "4 wk before", "Change", "Share of all new")


def _figure(count: int | None) -> str:
    return "—" if count is None else f"{count:,}"  # None: those weeks are not synced yet


class RisingTable(DataTable):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="rising.down"),
        Binding("k", "cursor_up", "Up", show=False, id="rising.up"),
        # First and last row, as in the list (the table's own Home and End scroll sideways).
        Binding("g,home", "first_row", "First topic", show=False, id="rising.first"),
        Binding("G,end", "last_row", "Last topic", show=False, id="rising.last"),
    ]

    class TopicChosen(Message):
        def __init__(self, topic: str):
            super().__init__()
            self.topic = topic

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._topics: list[str] = []

    def on_mount(self) -> None:
        self.add_column(COLUMNS[0], width=TOPIC_WIDTH)  # long names are cut: the figures stay in view
        self.add_columns(*COLUMNS[1:])

    def show(self, trends: list[TopicTrend]) -> None:
        self.clear()
        self._topics = [trend.topic for trend in trends]
        for trend in trends:
            change = ("new" if trend.last4 and trend.prev4 == 0 else "—") if trend.change_pct is None else f"{trend.change_pct:+.0f}%"
            share = "—" if trend.share_pct is None else f"{trend.share_pct:.2f}%"
            # The topic's name is the user's text: a Text is never read as markup.
            self.add_row(Text(trend.topic, no_wrap=True, overflow="ellipsis"), _figure(trend.last4), _figure(trend.prev4), change, share)
        if not trends:
            self.add_row(Text(f"No topics yet: {key(self.app, 'app.add_topic')} adds one"), "", "", "", "")

    def action_first_row(self) -> None:
        self.move_cursor(row=0, animate=False)

    def action_last_row(self) -> None:
        self.move_cursor(row=self.row_count - 1, animate=False)

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.cursor_row < len(self._topics):
            self.post_message(self.TopicChosen(self._topics[event.cursor_row]))
