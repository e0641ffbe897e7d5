"""The sidebar: All papers, Starred and the triage views, then sections of topics, watches and
tags, each entry with its counts."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from reader.core.text import plural
from reader.service import ALL, View


@dataclass(frozen=True, slots=True)
class SidebarEntry:
    """A view with its counts (or a line saying what it is), or a section's heading (no view)."""

    view: View | None
    label: str
    total: int = 0
    unread: int = 0
    detail: str | None = None  # said instead of the counts
    new: int = 0  # arrived since the previous visit

    @classmethod
    def heading(cls, label: str) -> SidebarEntry:
        return cls(None, label)


class TopicSidebar(OptionList, inherit_bindings=False):
    """Shows `entries` with `view` highlighted (both bound from the screen); posts `ViewChosen`
    when the user moves.
    Its keys stop at either end (a wrap from All papers to the last tag switched views) and
    pass over the sections' headings; each can be remapped by its id."""

    BINDINGS = [
        Binding("j,down", "cursor_down", "Next entry", show=False, id="sidebar.down"),
        Binding("k,up", "cursor_up", "Previous entry", show=False, id="sidebar.up"),
        Binding("g,home", "first", "First entry", show=False, id="sidebar.first"),
        Binding("G,end", "last", "Last entry", show=False, id="sidebar.last"),
        Binding("pageup", "page_up", "Page up", show=False, id="sidebar.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="sidebar.page_down"),
        Binding("enter", "select", "Open the view's list", show=False, id="sidebar.open"),
    ]

    view: var[View] = var(ALL)
    entries: var[tuple[SidebarEntry, ...]] = var(())

    class ViewChosen(Message):
        def __init__(self, view: View):
            super().__init__()
            self.view = view

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self._views: list[View | None] = []  # per option; None for a heading
        self._entries: tuple[list[SidebarEntry], tuple[bool, int]] | None = None  # as last shown, and the fit

    def watch_entries(self, entries: tuple[SidebarEntry, ...]) -> None:
        self._show_entries(list(entries))

    def _show_entries(self, entries: list[SidebarEntry]) -> None:
        """Replace the entries (names and counts), keeping the view highlighted. A star changes
        a few counts: only those prompts are replaced (building the list anew took most of the
        time a star's key press took)."""
        fit = self._fit()
        before, self._entries = self._entries, (entries, fit)
        if before is not None and before[1] == fit and [e.view for e in before[0]] == [e.view for e in entries]:
            for index, (old, new) in enumerate(zip(before[0], entries)):
                if old != new:
                    self.replace_option_prompt_at_index(index, self._option(new, *fit).prompt)
            return
        self._views = [e.view for e in entries]
        with self.prevent(OptionList.OptionHighlighted):
            self.clear_options()
            self.add_options([self._option(entry, *fit) for entry in entries])
            self._highlight_view()

    def _fit(self) -> tuple[bool, int]:
        """Whether the sidebar is narrow (a narrow terminal: shorter labels), and the columns an
        entry's line has (0 before the first layout)."""
        return 0 < self.size.width < 26, max(0, self.scrollable_content_region.width - 2)  # the options' padding

    def on_resize(self) -> None:
        if self._entries is not None and self._entries[1] != self._fit():
            self._show_entries(self._entries[0])

    def watch_view(self) -> None:
        with self.prevent(OptionList.OptionHighlighted):
            self._highlight_view()

    def _highlight_view(self) -> None:
        self.highlighted = self._views.index(self.view) if self.view in self._views else (0 if self._views else None)

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)

    def _step(self, direction: int) -> None:
        """The next entry that is a view, if there is one this way (OptionList's own wraps)."""
        if self.highlighted is None:
            return
        steps = range(self.highlighted + direction, self.option_count if direction > 0 else -1, direction)
        found = next((index for index in steps if not self.get_option_at_index(index).disabled), None)
        if found is not None:
            self.highlighted = found

    @property
    def views(self) -> list[View]:
        return [view for view in self._views if view is not None]

    @on(OptionList.OptionHighlighted)
    def _chosen(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        view = self._views[event.option_index] if event.option_index < len(self._views) else None
        if view is not None and view != self.view:
            self.post_message(self.ViewChosen(view))

    @classmethod
    def _option(cls, entry: SidebarEntry, compact: bool, room: int) -> Option:
        if entry.view is None:
            return Option(Text(entry.label.upper(), style="dim bold", no_wrap=True, overflow="ellipsis"), disabled=True)
        return Option(cls._prompt(entry, compact, room), id=entry.view.key)

    @staticmethod
    def _prompt(entry: SidebarEntry, compact: bool = False, room: int = 0) -> Text:
        prompt = Text(entry.label, style="bold", no_wrap=True, overflow="ellipsis")
        if entry.new:  # on the name's line: the counts' line is full at the sidebar's width
            prompt.append(f" +{entry.new:,} new" if compact else f" · {entry.new:,} new", style="bold italic")
        if entry.detail is not None:
            if not compact:  # a narrow sidebar keeps one line for what has no counts
                prompt.append("\n" + entry.detail, style="dim")
            return prompt
        # The counts in the longest form that fits on one line (the shortest when none does).
        total, unread = plural(entry.total, "paper", thousands=True), f"{entry.unread:,}"
        if entry.unread:
            forms = [
                f"{total} · {unread} unread",
                f"{entry.total:,} · {unread} unread",
                f"{entry.total:,} · {unread} unr.",
                f"{_short(entry.total)} · {_short(entry.unread)} unread",
                f"{_short(entry.total)} · {_short(entry.unread)} unr.",
            ]
        else:
            forms = [total, f"{entry.total:,}", _short(entry.total)]
        counts = next((form for form in forms if not room or len(form) <= room), forms[-1])
        prompt.append("\n" + counts, style="dim")
        return prompt


def _short(count: int) -> str:
    """A count in at most five characters, for a narrow sidebar: 9,999, 85.7k, 100k, 1.2M."""
    if count < 10_000:
        return f"{count:,}"
    if count < 100_000:
        return f"{count / 1000:.1f}".removesuffix(".0") + "k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    if count < 10_000_000:
        return f"{count / 1_000_000:.1f}".removesuffix(".0") + "M"
    return f"{count // 1_000_000}M"
