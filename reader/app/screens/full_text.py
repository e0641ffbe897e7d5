"""A paper's full text in the app (`v` in the detail view): a stored one at once, offline too (read
and laid out in a worker); otherwise fetched by a child process (reader/fulltext/child.py) while
the view says how far it got, or in one line why it cannot. The text is plain (every string was
cleaned when the page was read, and is drawn as text, never as markup), wrapped to the screen,
scrolled with the detail view's keys; references to papers in the cache are marked. A figure is
its caption and a hint: `f` (or Enter) shows the figure at or below the top of the screen, `F`
every figure, each image fetched (reader/fulltext/figures.py) and drawn in a worker, in place, in
half-blocks or a Kitty terminal's own pixels, the lines at the top of the screen staying there. A
figure of a text read from a PDF says its page, and Enter opens the page view there."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.worker import get_current_worker

from reader.app.keys import key
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.picture import TerminalImages, cell_strips, new_image_id, placement_strips, send_to_terminal, terminal_drawing
from reader.app.widgets.record_view import MATH, RECORD_SCROLL, RecordLines, RecordView, record_width
from reader.app.widgets.text_layout import TextLayout, text_lines
from reader.core.terminal_graphics import KITTY, KITTY_MAX_CELLS, OFF, kitty_image
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
MAX_PICTURE_ROWS = 60  # an image's rows at most, whatever its shape (a tall one is narrowed)


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


class FigureFetched(Message):
    """The figures' worker fetched image `number` (`note`: why it is not shown; `failed`: asked again)."""

    def __init__(self, number: int, note: str | None, failed: bool):
        super().__init__()
        self.number = number
        self.note = note
        self.failed = failed


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
        self.pictures: dict[int, str | None] = {}  # image number -> None: drawn; else a line saying why not / that it comes
        self.drawing = terminal_drawing(self.app, service.settings.images)  # half blocks, or the terminal's own pixels (Kitty)
        # (image number, width) -> its strips, made once per width, and its Kitty image's id (half blocks: None)
        self._drawn: dict[tuple[int, int], tuple[list[Strip], int | None]] = {}
        # Kitty images drawn, not sent yet: id -> the escape sequence sending them (dropped once sent: the terminal keeps the pixels)
        self._unsent: dict[int, str] = {}
        self._images = TerminalImages(lambda sequence: send_to_terminal(self.app, sequence))
        # Images asked for, not fetched yet: one worker fetches them in turn, taking each under the
        # lock that asking takes too (an image asked for as the worker ends starts another).
        self._pending: list[int] = []
        self._fetching = False
        self._pending_lock = threading.Lock()
        self._failed: set[int] = set()  # images that could not be fetched (not refused): `f` tries them again

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
        library = self.service.library
        index = library.index
        cached = {block.arxiv_id for block in document.references if block.arxiv_id is not None and block.arxiv_id in index}
        width = record_width(self.app.size.width)
        pictures, images = self._pictures(width - 3)
        one, every, enter = (key(self.app, f"detail.{name}") for name in ("figure", "figures", "open_figure"))  # as the keymap leaves them
        lines = text_lines(document, width, cached, library.starred, library.read, pictures, (one, every, enter), unicode=self.unicode)
        if not get_current_worker().is_cancelled:
            self.post_message(TextLaidOut(document, lines, images=images))

    def on_text_laid_out(self, message: TextLaidOut) -> None:
        if message.said:
            self._say(message.said)
        elif message.document is None or message.layout is None:
            self.fetch()
        else:
            for image_id in message.images:  # the pixels first, then the cells showing them
                sequence = self._unsent.pop(image_id, None)
                if sequence is not None:
                    self._images.send(image_id, sequence)
            self._show(message.document, message.layout)
            freed = self._images.keep_only(message.images)  # figures drawn at another width before: drawn anew if it comes back
            self._drawn = {at: drawn for at, drawn in list(self._drawn.items()) if drawn[1] not in freed}

    def _pictures(self, width: int) -> tuple[dict[int, Sequence[Strip] | str], tuple[int, ...]]:
        """In a worker: the images asked for, drawn at `width` (once per width), and the Kitty images among them."""
        from reader.fulltext.picture import ImageRefused

        found: dict[int, Sequence[Strip] | str] = {}
        images = []
        for number, note in list(self.pictures.items()):
            if note is not None:
                found[number] = note
                continue
            drawn = self._drawn.get((number, width))
            if drawn is None:
                stored = self._figure_cache().stored(self.paper_id, self.document_version(), number)
                try:
                    if stored is None or stored.path is None:
                        raise ImageRefused(
                            stored.refused if stored is not None and stored.refused else "no longer kept: f fetches it again"
                        )
                    image, data = self._figure_cache().read_with_bytes(stored.path)
                    drawn = self._drawn[(number, width)] = self._draw(image, data, width)
                except ImageRefused as refused:
                    found[number] = str(refused)
                    continue
            found[number] = drawn[0]
            if drawn[1] is not None:
                images.append(drawn[1])
        return found, tuple(images)

    def _draw(self, image, data: bytes, width: int) -> tuple[list[Strip], int | None]:
        """An image (and its file's bytes) as strips at `width`, as the terminal draws pictures,
        and its Kitty image's id (its escape sequence left in `_unsent`)."""
        from reader.fulltext.picture import half_blocks, terminal_pixels

        rows = max(8, min(MAX_PICTURE_ROWS, self.app.size.height - 4))
        if self.drawing == KITTY:
            pixels = terminal_pixels(image, min(width, KITTY_MAX_CELLS), rows, data)
            image_id = new_image_id()
            self._unsent[image_id] = kitty_image(pixels.png, image_id, pixels.columns, pixels.rows)
            return placement_strips(image_id, pixels.columns, pixels.rows, indent=2), image_id
        return cell_strips(half_blocks(image, width, rows), indent=2), None

    def document_version(self) -> int:
        return self.document.version if self.document is not None else self.version

    def _figure_cache(self):
        from reader.fulltext.figures import FigureCache

        texts = self._texts()
        assert texts is not None
        return FigureCache(texts.data_dir, self.service.settings.figure_cache_mb)

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

    # --- figures -------------------------------------------------------------------------------

    def action_figure(self) -> None:
        """The first figure with images at or below the top of the screen, not shown yet."""
        layout, top = self.layout_now, self.view.scroll_offset.y
        if layout is None:
            self.app.notify("No figures before the text is read.")
            return
        for last, numbers, _ in layout.figures:
            if last >= top and numbers and any(self._askable(number) for number in numbers):
                self._ask([number for number in numbers if self._askable(number)])
                return
        if any(page is not None for _, _, page in layout.figures):
            self.app.notify(
                f"This text was read from the PDF: its figures are on their pages ({key(self.app, 'detail.open_figure')} opens one)."
            )
            return
        self.app.notify("No figure to show below the top of the screen (F shows every figure).")

    def action_open_figure(self) -> None:
        """Enter: the figure at or below the top of the screen, as it can be seen: a PDF's on its
        page in the page view, else drawn in place (as `f`)."""
        layout, top = self.layout_now, self.view.scroll_offset.y
        figure = next((figure for figure in layout.figures if figure[0] >= top), None) if layout is not None else None
        if figure is not None and figure[2] is not None:
            self.action_pdf_pages(figure[2])
        else:
            self.action_figure()

    def action_all_figures(self) -> None:
        layout = self.layout_now
        numbers = [number for _, numbers, _ in (layout.figures if layout else ()) for number in numbers if self._askable(number)]
        if layout is None or not layout.figures:
            self.app.notify("This text has no figures." if layout is not None else "No figures before the text is read.")
        elif numbers:
            self._ask(numbers)
        elif any(page is not None for _, _, page in layout.figures):
            self.action_figure()  # says where a PDF text's figures are

    def _askable(self, number: int) -> bool:
        """Not shown yet, or not fetched (offline, arXiv failed): asked again. A refused image never is."""
        return number not in self.pictures or number in self._failed

    def _ask(self, numbers: list[int]) -> None:
        if self._texts() is None or self.document is None:
            return
        if self.drawing == OFF:  # the caption and the image's link, nothing fetched
            images = self.document.images  # (made from the blocks: once, not per image)
            for number in numbers:
                self.pictures[number] = f"not shown (images = off): {images[number - 1][1]}"
            self.relayout(self.document)
            return
        for number in numbers:
            self.pictures[number] = "fetching…"
            self._failed.discard(number)
        with self._pending_lock:
            self._pending.extend(numbers)
            start, self._fetching = not self._fetching, True
        self.relayout(self.document)
        if start:
            self.fetch_figures(self.document)

    def _next_pending(self) -> int | None:
        """In the fetching worker: the next image to fetch, or None (the worker ends)."""
        with self._pending_lock:
            if self._pending:
                return self._pending.pop(0)
            self._fetching = False
            return None

    def on_figure_fetched(self, message: FigureFetched) -> None:
        self.pictures[message.number] = message.note
        if message.failed:
            self._failed.add(message.number)
        if self.document is not None:
            self.relayout(self.document)

    @work(thread=True, exclusive=True, group="full-text-figures")
    def fetch_figures(self, document: Document) -> None:
        """Fetch the images asked for, one after another with one client, each drawn as it comes."""
        from reader.arxiv.client import ArxivClient
        from reader.fulltext.figures import fetch_image
        from reader.fulltext.picture import ImageNotDrawnNow, ImageRefused
        from reader.sync.types import client_options

        images, cache = document.images, self._figure_cache()
        options = self.client_options or client_options(self.service.settings)

        async def fetch_all() -> None:
            async with ArxivClient(options) as client:
                while (number := self._next_pending()) is not None:
                    failed = False
                    try:
                        await fetch_image(client, cache, document.id, document.version, number, images[number - 1][1])
                        note = None
                    except ImageRefused as refused:  # a passing failure (not the image's fault): `f` tries it again
                        note, failed = f"not shown: {refused}", isinstance(refused, ImageNotDrawnNow)
                    except (ReaderError, OSError) as error:  # offline, arXiv's failure, the cache's folder
                        note, failed = f"not fetched: {error}", True
                    self.post_message(FigureFetched(number, note, failed))

        asyncio.run(fetch_all())

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
        with self._pending_lock:
            self._pending.clear()  # the image being fetched is the last
        child = self._child
        if child is not None:
            child.stop()
        self.dismiss(self.paper_id)

    def on_unmount(self) -> None:
        self._images.keep_only(())  # closed, or the app quit from here
