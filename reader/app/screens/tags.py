"""The tag editor: a paper's tags as one comma-separated line, completed from the tags in use.

Tag names come from users: they are shown as plain text, never read as markup."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input, Static

from reader.app.screens.dialogs import FormDialog
from reader.core.names import tag_name
from reader.errors import StoreError

if TYPE_CHECKING:
    from reader.service import LibraryService

SHOWN_TAGS = 12  # tags in use listed under the line (completion finds the rest)


def split_tags(line: str) -> list[str]:
    """The tags typed on the line, tidied and checked, once each (ignoring case), in order;
    StoreError names the first that cannot be a tag."""
    names: dict[str, str] = {}
    for item in line.split(","):
        if item.strip():
            name = tag_name(item)
            names.setdefault(name.casefold(), name)
    return list(names.values())


def tag_changes(before: Iterable[str], after: Iterable[str]) -> tuple[list[str], list[str]]:
    """(add, remove) turning the tags `before` into `after`; tags compare ignoring case, as the
    store's do."""
    before, after = list(before), list(after)
    had = {name.casefold() for name in before}
    wanted = {name.casefold() for name in after}
    return [n for n in after if n.casefold() not in had], [n for n in before if n.casefold() not in wanted]


class TagSuggester(Suggester):
    """Completes the last comma-separated item from the tags in use (ignoring case), leaving out
    tags already on the line."""

    def __init__(self, names: Iterable[str]):
        super().__init__(use_cache=False, case_sensitive=True)
        self.names = list(names)

    async def get_suggestion(self, value: str) -> str | None:
        head, _, last = value.rpartition(",")
        stem = last.lstrip()
        if not stem:
            return None
        taken = {item.strip().casefold() for item in head.split(",")}
        folded = stem.casefold()
        for name in self.names:
            if name.casefold().startswith(folded) and len(name) > len(stem) and name.casefold() not in taken:
                # The suggestion must extend what is typed: the typed part keeps its case (the
                # store finds an existing tag ignoring case).
                return value + name[len(stem) :]
        return None


class TagInput(Input):
    """An Input where Tab, like Right at the end, takes the completion shown; with none it
    moves on to the buttons as Tab does elsewhere."""

    BINDINGS = [Binding("tab", "complete", "Complete", show=False)]

    def action_complete(self) -> None:
        if self._suggestion and self.cursor_at_end:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()


class TagDialog(FormDialog[tuple[str, ...] | None]):
    """Edit one paper's tags. Enter saves (and closes once the write is done, with the paper's
    tags after); a failed write keeps the dialog and the line as typed, with the reason."""

    def __init__(self, service: LibraryService, paper_id: str, title: str, current: tuple[str, ...], in_use: dict[str, int]):
        super().__init__()
        self.service = service
        self.paper_id = paper_id
        self.paper_title = title
        self.current = current
        self.in_use = in_use
        self._saving = False

    def form(self) -> ComposeResult:
        by_use = sorted(self.in_use, key=lambda name: (-self.in_use[name], name.casefold()))
        yield Static(Text.assemble(("Tags of ", "bold"), (self.paper_title, "bold")), classes="dialog-title")
        # Ready for one more tag: typing adds, it does not replace the tags shown.
        yield TagInput(
            "".join(f"{name}, " for name in self.current),
            placeholder="e.g. to read, benchmarks, survey",
            suggester=TagSuggester(by_use),
            select_on_focus=False,
            id="tags-line",
        )
        if by_use:
            listed = ", ".join(f"{name} ({self.in_use[name]})" for name in by_use[:SHOWN_TAGS])
            more = f" and {len(by_use) - SHOWN_TAGS} more" if len(by_use) > SHOWN_TAGS else ""
            yield Static(Text(f"In use: {listed}{more}", style="dim"), classes="dialog-hint")
        yield Static(
            Text("Separate tags with commas; → or Tab completes a tag in use; Enter saves, Esc cancels.", style="dim"),
            classes="dialog-hint",
        )

    @property
    def line(self) -> TagInput:
        return self.query_one("#tags-line", TagInput)

    def submit(self) -> None:
        if self._saving:
            return
        try:
            wanted = split_tags(self.line.value)
        except StoreError as error:
            self.say(f"Not saved: {error}")
            return
        add, remove = tag_changes(self.current, wanted)
        if not add and not remove:
            self.dismiss(self.current)
            return
        self._saving = True
        written = self.service.set_tags([self.paper_id], add=add, remove=remove, on_error=self.say)
        written.add_done_callback(lambda done: self.service.run_on_ui(lambda: self._written(done)))

    def _written(self, done: Future) -> None:
        """On the UI's thread, after the write (and after `say` of its error, if it failed)."""
        self._saving = False
        after = done.result()
        if after is not None and self.is_attached:
            self.dismiss(after[self.paper_id])
