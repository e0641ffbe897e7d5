"""A paper's links to other papers, as a list of their own: the references of its stored text
(`b` in the detail and full-text views), or the cached papers whose stored texts cite it (`c` in
the detail view). j/k move, Enter reads a cached paper in the detail view (Esc comes back here),
`a` adds a reference not in the cache (as "Add a paper" does: reader/service/adding.py); Esc
returns. Every row is plain text (reference text is the page's), never markup."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import WorkerCancelled, WorkerFailed

from reader.app.keys import key
from reader.app.widgets.footer import KeyFooter
from reader.core.text import plural
from reader.errors import ReaderError

if TYPE_CHECKING:
    from collections.abc import Callable

    from reader.arxiv.options import ClientOptions
    from reader.service import LibraryService

REFERENCES_OF, CITED_BY = "references", "cited_by"


@dataclass(frozen=True)
class LinkRow:
    text: str  # what the row says: a reference as the text has it, or a citing paper's title
    arxiv_id: str | None  # the paper it names, if it names one


class LinksRead(Message):
    """The rows the worker read, or `said` instead: why there are none."""

    def __init__(self, rows: list[LinkRow], said: str = ""):
        super().__init__()
        self.rows = rows
        self.said = said


class LinkedPaperAdded(Message):
    """The worker fetched the paper `paper_id` into the cache (`problem`: why not)."""

    def __init__(self, paper_id: str, problem: str | None):
        super().__init__()
        self.paper_id = paper_id
        self.problem = problem


class PaperLinksScreen(Screen):
    # The detail view's ids where the keys do the same: a key remapped there moves here alike.
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="detail.close"),
        Binding("question_mark", "app.help", "Help", id="detail.help"),
        Binding("j,down", "move(1)", "Down", show=False, id="detail.down"),
        Binding("k,up", "move(-1)", "Up", show=False, id="detail.up"),
        Binding("a", "add", "Add to the cache", id="detail.add_reference", tooltip="Fetch the paper this reference names and keep it"),
    ]

    def __init__(
        self,
        service: LibraryService,
        paper_id: str,
        kind: str,
        open_paper: Callable[[str], None],
        client_options: ClientOptions | None = None,
    ):
        """`open_paper`: shows a cached paper in a detail view over this screen (the detail view's)."""
        super().__init__()
        self.open_paper = open_paper
        self.service = service
        self.paper_id = paper_id
        self.kind = kind  # REFERENCES_OF or CITED_BY
        self.client_options = client_options  # the tests' loopback arXiv; None: the settings'
        self.rows: list[LinkRow] = []
        self.adding: set[str] = set()  # ids being fetched

    def compose(self) -> ComposeResult:
        yield Static(id="links-title")
        yield OptionList(id="links")
        yield KeyFooter()

    @property
    def links(self) -> OptionList:
        return self.query_one("#links", OptionList)

    def on_mount(self) -> None:
        what = "References of" if self.kind == REFERENCES_OF else "Cited by, in your library:"
        self.query_one("#links-title", Static).update(Text(f"{what} arXiv:{self.paper_id}"))
        self.links.add_option(Option(Text("Reading the stored texts…"), disabled=True))
        self.links.focus()
        self.load()

    @work(thread=True, exclusive=True, group="links")
    def load(self) -> None:
        """In a worker: the rows (disk reads: the stored text, or the index and the records)."""
        try:
            rows = self._read_rows()
        except ReaderError as error:
            self.post_message(LinksRead([], f"Cannot read them: {error}"))
            return
        if rows is None:
            self.post_message(LinksRead([], f"No stored text of arXiv:{self.paper_id}: v in the detail view fetches it."))
        elif not rows:
            empty = "Its text lists no reference." if self.kind == REFERENCES_OF else "No stored text in your library cites it."
            self.post_message(LinksRead([], empty))
        else:
            self.post_message(LinksRead(rows))

    def on_links_read(self, message: LinksRead) -> None:
        if message.said:
            self._say(message.said)
        else:
            self._show(message.rows)

    def _read_rows(self) -> list[LinkRow] | None:
        if self.kind == REFERENCES_OF:
            references = self.service.citations.references(self.paper_id)
            return None if references is None else [LinkRow(block.text, block.arxiv_id) for block in references]
        rows = []
        for pid in self.service.citations.cited_by(self.paper_id) or []:
            paper = self.service.load_paper(pid)
            if paper is not None:
                rows.append(LinkRow(f"{paper.title} (arXiv:{pid}v{paper.version})", pid))
        return rows

    def _say(self, message: str) -> None:
        self.rows = []
        self.links.clear_options()
        self.links.add_option(Option(Text(message), disabled=True))

    def _show(self, rows: list[LinkRow]) -> None:
        self.rows = rows
        highlighted = self.links.highlighted
        self.links.clear_options()
        self.links.add_options([Option(self._prompt(row)) for row in rows])
        self.links.highlighted = highlighted if highlighted is not None and highlighted < len(rows) else 0
        if self.kind == CITED_BY:
            self.query_one("#links-title", Static).update(
                Text(f"Cited by {plural(len(rows), 'paper', thousands=True)} in your library: arXiv:{self.paper_id}")
            )

    def _prompt(self, row: LinkRow) -> Text:
        text = Text(row.text)  # the page's text: never markup
        if row.arxiv_id is None:
            return text
        if row.arxiv_id in self.service.catalog.index:
            text.append(f"  ◆ arXiv:{row.arxiv_id} in your cache: ⏎ reads it", style="bold")
        elif row.arxiv_id in self.adding:
            text.append(f"  arXiv:{row.arxiv_id}: adding…", style="dim")
        else:
            text.append(f"  arXiv:{row.arxiv_id}: {key(self.app, 'detail.add_reference')} adds it", style="dim")
        return text

    def _current(self) -> LinkRow | None:
        index = self.links.highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    def action_move(self, step: int) -> None:
        if step > 0:
            self.links.action_cursor_down()
        else:
            self.links.action_cursor_up()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#links")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        row = self._current()
        if row is None:
            return
        if row.arxiv_id is None:
            self.app.notify("This reference names no arXiv paper.")
        elif row.arxiv_id not in self.service.catalog.index:
            self.app.notify(f"arXiv:{row.arxiv_id} is not in your cache: {key(self.app, 'detail.add_reference')} adds it.")
        else:
            self.open_paper(row.arxiv_id)

    def on_screen_resume(self) -> None:
        if self.rows:
            self._show(self.rows)  # back from a paper read: its marks, or a paper added there

    def action_add(self) -> None:
        row = self._current()
        if row is None or row.arxiv_id is None:
            self.app.notify("This reference names no arXiv paper to add.")
        elif row.arxiv_id in self.service.catalog.index:
            self.app.notify(f"arXiv:{row.arxiv_id} is in your cache already: ⏎ reads it.")
        elif row.arxiv_id not in self.adding:
            self.adding.add(row.arxiv_id)
            self._show(self.rows)
            self._add(row.arxiv_id)

    @work(thread=True, group="links-add")
    def _add(self, paper_id: str) -> None:
        """In a worker: fetched as `reader add` fetches it (a child process), then the cache read
        again so that the list, its counts and this row know it."""
        try:
            self.service.adding.add_paper(paper_id, None, self.client_options)
        except ReaderError as error:
            self.post_message(LinkedPaperAdded(paper_id, str(error)))
            return
        self.post_message(LinkedPaperAdded(paper_id, None))

    def on_linked_paper_added(self, message: LinkedPaperAdded) -> None:
        self._added(message.paper_id, message.problem)

    def _added(self, paper_id: str, problem: str | None) -> None:
        self.adding.discard(paper_id)
        if problem is None:
            self._take_in(paper_id)
            return
        self.app.notify(f"arXiv:{paper_id}: {problem}", severity="error", timeout=15)
        if self.is_mounted:
            self._show(self.rows)

    @work(group="links-add-shown")
    async def _take_in(self, paper_id: str) -> None:
        """The main screen reads the cache again, as after "Add a paper": then the row says so."""
        main = getattr(self.app, "main", None)
        if main is not None:
            try:
                await main.sync.reload([paper_id]).wait()
            except (WorkerCancelled, WorkerFailed):
                pass  # a newer reading of the cache took its place: it has the paper too
        self.app.notify(f"Added arXiv:{paper_id} to the cache.")
        if self.is_mounted:
            self._show(self.rows)
