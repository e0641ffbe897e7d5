"""A paper's full text in the app (`v` in the detail view): a stored one at once, offline too (read
and laid out in a worker); otherwise fetched by a child process (reader/fulltext/child.py) while
the view says how far it got, or in one line why it cannot. The text is plain (every string was
cleaned when the page was read, and is drawn as text, never as markup), wrapped to the screen,
scrolled with the detail view's keys; references to papers in the cache are marked. A figure is
its caption and a hint: `f` (or Enter) shows the figure at or below the top of the screen, `F`
every figure, drawn in place, the lines at the top of the screen staying there (the screen's part
full_text_figures.py fetches and draws them). A figure of a text read from a PDF says its page,
and Enter opens the page view there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from reader.app.keys import key
from reader.app.screens.full_text_figures import FullTextFigures
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.record_view import MATH, RECORD_SCROLL, RecordLines, RecordView, record_width
from reader.app.widgets.text_layout import TextLayout, text_lines
from reader.errors import ReaderError
from reader.fulltext.child import reread_in_child
from reader.fulltext.document import Document
from reader.fulltext.store import TextStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from reader.fulltext.child import FetchChild
    from reader.service import LibraryService

# `b` in the detail and full-text views: the references as a list to act on (references.py).
REFERENCES = Binding(
    "b", "references", "References", show=False, id="detail.references", tooltip="The paper's references: open a cached one, add one"
)
FIGURE_KEYS = [
    Binding(
        "enter",
        "open_figure",
        "Open figure",
        id="detail.open_figure",
        tooltip="The figure at or below the top of the screen: draw it; in a PDF's text, open the page it is on",
    ),
    Binding("f", "figure", "Figure", id="detail.figure", tooltip="Show the figure at or below the top of the screen"),
    Binding("F", "all_figures", "All figures", show=False, id="detail.figures", tooltip="Show every figure of the paper"),
]


class TextLaidOut(Message):
    """A worker read (or fetched) the paper's text and laid it out at the screen's width; else
    `said` why there is none; else, `document` None, none is stored (a fetch starts)."""

    def __init__(self, document: Document | None, layout: TextLayout | None = None, *, said: str = "", images: tuple[int, ...] = ()):
        super().__init__()
        self.document = document
        self.layout = layout
        self.said = said
        self.images = images  # the Kitty images the layout shows: the terminal must have them first


class FetchProgress(Message):
    """How far the fetching worker got, in a line shown in place of the text."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text


class FullTextScreen(Screen):
    """Esc goes back to the detail view (which then reads the paper again: it may cite starred papers now)."""

    # The detail view's ids: a key remapped there (keymap.toml) moves here alike.
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="detail.close"),
        Binding("question_mark", "app.help", "Help", id="detail.help"),
        REFERENCES,
        Binding("P", "pdf_pages", "PDF pages", id="detail.pdf_pages", tooltip="The paper's PDF page by page, drawn in the terminal"),
        MATH,
        *FIGURE_KEYS,
        *RECORD_SCROLL,
    ]

    def __init__(
        self, service: LibraryService, paper_id: str, version: int, client_options=None, open_paper: Callable[[str], None] | None = None
    ):
        """`open_paper`: shows a cached paper the references name (the detail view's)."""
        super().__init__()
        self.open_paper = open_paper
        self.service = service
        self.paper_id = paper_id
        self.version = version
        self.client_options = client_options  # the tests' loopback arXiv; None: the settings'
        self.document: Document | None = None
        self.problem: str | None = None  # why there is no text to show
        self._child: FetchChild | None = None  # the fetch under way, if any
        self.unicode = True  # math as Unicode; `t`: as TeX (copying gives what is shown)
        self.layout_now: TextLayout | None = None
        self.figures = FullTextFigures(self)  # `f`, `F`, Enter: the figures fetched, drawn and sent to the terminal

    @property
    def view(self) -> RecordView:
        return self.query_one(RecordView)

    def compose(self) -> ComposeResult:
        yield RecordView(id="full-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.view.show(RecordLines.message("Reading the stored text…", indent=2), home=True)
        self.view.focus()
        self.load()

    def _texts(self) -> TextStore | None:
        return self.service.text_store()

    @work(thread=True, exclusive=True, group="full-text")
    def load(self) -> None:
        """The stored text, laid out; else a fetch (in a child process)."""
        texts = self._texts()
        if texts is None:
            self.post_message(TextLaidOut(None, said="The demo set has no full texts: add a topic and sync to read papers in full."))
            return
        try:
            document = texts.load(self.paper_id)
            document = reread_in_child(texts, document) if document is not None else None  # an old PDF text: its figures
        except ReaderError as error:
            self.post_message(TextLaidOut(None, said=f"Cannot read the stored text: {error}"))
            return
        if document is None:
            self.post_message(TextLaidOut(None))
            return
        self._lay_out(document)

    def _lay_out(self, document: Document) -> None:
        """In a worker: the document's lines at the screen's width, then shown."""
        catalog = self.service.catalog
        index = catalog.index
        cached = {block.arxiv_id for block in document.references if block.arxiv_id is not None and block.arxiv_id in index}
        width = record_width(self.app.size.width)
        pictures, images = self.figures.drawn_at(width - 3)
        one, every, enter = (key(self.app, f"detail.{name}") for name in ("figure", "figures", "open_figure"))  # as the keymap leaves them
        lines = text_lines(document, width, cached, catalog.starred, catalog.read, pictures, (one, every, enter), unicode=self.unicode)
        if not get_current_worker().is_cancelled:
            self.post_message(TextLaidOut(document, lines, images=images))

    def on_text_laid_out(self, message: TextLaidOut) -> None:
        if message.said:
            self._say(message.said)
        elif message.document is None or message.layout is None:
            self.fetch()
        else:
            self.figures.send(message.images)  # the pixels first, then the cells showing them
            self._show(message.document, message.layout)
            self.figures.keep_only(message.images)

    def _show(self, document: Document, layout: TextLayout) -> None:
        first = self.document is None
        before, top = self.layout_now, self.view.scroll_offset.y
        self.document, self.problem, self.layout_now = document, None, layout
        self.view.show(layout.lines, home=first)
        if not first and before is not None and before.block_starts is not None and layout.block_starts is not None:
            # The same line of the same block stays at the top, whatever was drawn above it.
            # A blank line between blocks counts from the block after it.
            anchor = next((y for y in range(top, len(before.line_blocks)) if before.line_blocks[y] >= 0), None)
            index = -1 if anchor is None else before.line_blocks[anchor]
            if index in before.block_starts and index in layout.block_starts:
                self.view.scroll_to(y=layout.block_starts[index] + top - before.block_starts[index], animate=False, immediate=True)
        if document.version < self.version:
            self.app.notify(f"This is the text of v{document.version}; the cache has v{self.version}.", timeout=10)

    def _say(self, message: str) -> None:
        """The message in place of the text, wrapped to the screen (an error must be read whole)."""
        self.problem = message
        if not self.is_mounted:  # closed while a worker was on its way: nobody to tell
            return
        self.view.show(RecordLines.message(message, width=record_width(self.app.size.width), indent=2), home=True)

    @work(thread=True, exclusive=True, group="full-text-fetch")
    def fetch(self) -> None:
        """Fetch in a child process, telling how far it got; then lay out what it stored."""
        from reader.fulltext.child import FetchChild, fetch_job
        from reader.sync.types import client_options

        texts = self._texts()
        assert texts is not None
        options = self.client_options or client_options(self.service.settings)
        where = f"arXiv:{self.paper_id}v{self.version}"
        self.post_message(FetchProgress(f"Fetching the full text of {where} from arXiv…"))

        def said(message: dict) -> None:
            if "progress" in message:
                what, received = message["progress"]
                kind = "PDF" if what == "pdf" else "HTML"
                self.post_message(FetchProgress(f"Fetching the full text of {where} ({kind}): {received / 2**20:.1f} MB…"))
            else:
                self.post_message(FetchProgress(f"Fetching the full text: {message['notice']}"))

        child = self._child = FetchChild(fetch_job(texts.data_dir, self.paper_id, self.version, options))
        outcome = child.run(said)
        self._child = None
        if get_current_worker().is_cancelled:
            return
        try:
            document = texts.load(self.paper_id) if "done" in outcome else None
        except ReaderError as error:
            outcome = {"error": f"the stored text cannot be read: {error}"}
            document = None
        if document is None:
            why = outcome.get("error") or "the fetch stopped before it was done"
            self.post_message(TextLaidOut(None, said=f"No full text: {why}"))
            return
        self._lay_out(document)

    def on_fetch_progress(self, message: FetchProgress) -> None:
        self._say(message.text)

    def on_resize(self) -> None:
        if self.document is not None:
            self.relayout(self.document)
        elif self.problem is not None:
            self._say(self.problem)

    @work(thread=True, exclusive=True, group="full-text")
    def relayout(self, document: Document) -> None:
        self._lay_out(document)

    def action_toggle_math(self) -> None:
        self.unicode = not self.unicode
        if self.document is not None:
            self.relayout(self.document)
        self.app.notify("Math shown as Unicode" if self.unicode else "Math shown as TeX", timeout=2)

    def action_scroll(self, where: str) -> None:
        getattr(self.view, f"scroll_{where}")(animate=False)

    # --- figures: the part's --------------------------------------------------------------------

    def action_figure(self) -> None:
        self.figures.show_one()

    def action_open_figure(self) -> None:
        self.figures.open_at_top()

    def action_all_figures(self) -> None:
        self.figures.show_all()

    @on(FullTextFigures.Fetched)
    def _figure_fetched(self, message: FullTextFigures.Fetched) -> None:
        self.figures.take_fetched(message)

    def action_references(self) -> None:
        from reader.app.screens.references import REFERENCES_OF, PaperLinksScreen

        if self.document is None or self.open_paper is None:
            self.app.notify("No references before the text is read.")
            return
        self.app.push_screen(PaperLinksScreen(self.service, self.paper_id, REFERENCES_OF, self.open_paper, self.client_options))

    def action_pdf_pages(self, page: int = 1) -> None:
        from reader.app.screens.pdf_pages import PdfPagesScreen

        self.app.push_screen(PdfPagesScreen(self.service, self.paper_id, self.version, self.client_options, page=page))

    def action_close(self) -> None:
        self.figures.stop()
        child = self._child
        if child is not None:
            child.stop()
        self.dismiss(self.paper_id)

    def on_unmount(self) -> None:
        self.figures.free_all()  # closed, or the app quit from here
