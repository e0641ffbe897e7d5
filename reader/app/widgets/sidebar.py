"""The topic sidebar: All papers, Starred, then each topic with its counts."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

ALL = "all"
STARRED = "starred"
TOPIC_PREFIX = "topic:"


@dataclass(frozen=True, slots=True)
class SidebarEntry:
    key: str  # ALL, STARRED or TOPIC_PREFIX + name
    label: str
    total: int
    unread: int


class TopicSidebar(OptionList):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="sidebar.down"),
        Binding("k", "cursor_up", "Up", show=False, id="sidebar.up"),
    ]

    def set_entries(self, entries: list[SidebarEntry], selected: str) -> None:
        """Replace the entries (names and counts), keeping `selected` highlighted."""
        compact = 0 < self.size.width < 26
        options = [Option(self._prompt(e, compact), id=e.key) for e in entries]
        keys = [e.key for e in entries]
        with self.prevent(OptionList.OptionHighlighted):
            self.clear_options()
            self.add_options(options)
            self.highlighted = keys.index(selected) if selected in keys else 0

    @staticmethod
    def _prompt(entry: SidebarEntry, compact: bool = False) -> Text:
        prompt = Text(entry.label, style="bold", no_wrap=True, overflow="ellipsis")
        counts = f"{entry.total:,}" if compact else f"{entry.total:,} paper{'s' if entry.total != 1 else ''}"
        if entry.unread:
            counts += f" · {entry.unread:,} {'new' if compact else 'unread'}"
        prompt.append("\n" + counts, style="dim")
        return prompt

    @property
    def selected_key(self) -> str | None:
        if self.highlighted is None:
            return None
        return self.get_option_at_index(self.highlighted).id
