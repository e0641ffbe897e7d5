"""The main screen's keys, in the order the footer shows them (what a narrow footer drops is in
the help screen); MainScreen's BINDINGS."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from reader.app.paper_actions import COPY, HIDE, OPEN, PDF, READ, SIMILAR, STAR

MAIN_BINDINGS: list[BindingType] = [
    STAR,
    READ,
    Binding("n", "next_unread", "Next", id="app.next_unread", tooltip="Next unread paper"),
    # A priority binding runs before the keys typed after it are handed on, so they land in
    # the filter box rather than on the list's single-key actions.
    Binding("slash", "filter", "Filter", id="app.filter", priority=True),
    Binding("R", "sync", "Sync", id="app.sync"),
    Binding("e", "export", "Export", id="app.export"),
    Binding("question_mark", "app.help", "Help", id="app.help"),
    OPEN,
    Binding("u", "toggle_unread_only", "Unread", id="app.unread_only"),
    Binding("q", "app.quit", "Quit", id="app.quit"),
    PDF,
    COPY,
    HIDE,
    SIMILAR,
    Binding("escape", "clear_filter", "Clear filter", show=False, id="app.clear_filter"),
    Binding("f", "for_you_scope", "For you", show=False, id="app.for_you", tooltip="For you: every topic, or the last topic only"),
    Binding("a", "add_topic", "Add topic", show=False, id="app.add_topic"),
    Binding(
        "plus",
        "add_paper",
        "Add a paper",
        show=False,
        id="app.add_paper",
        tooltip="Add a paper by its arXiv id or link: fetched, kept and shown",
    ),
    Binding(
        "w",
        "add_watch",
        "Add watch",
        show=False,
        id="app.add_watch",
        tooltip="Add a watch: names and words to spot in the cache, e.g. au:levine",
    ),
    Binding("d", "delete", "Delete", show=False, id="app.delete_topic", tooltip="Delete the selected topic, watch or tag (papers stay)"),
    Binding("f2", "rename_tag", "Rename tag", show=False, id="app.rename_tag"),
    Binding("S", "sort", "Sort", show=False, id="app.sort", tooltip="Sort: newest first, last updated, title, first author, For you score"),
    Binding("A", "mark_all_read", "All read", show=False, id="app.mark_all_read", tooltip="Mark every paper shown read (asks first)"),
    Binding("U", "undo_read", "Undo all read", show=False, id="app.undo_read", tooltip="Undo the last marking of every paper shown read"),
]
