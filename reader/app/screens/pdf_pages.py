"""A paper's PDF page by page (`P` in the full-text view; Enter on a PDF text's figure opens it at
the figure's page): page N drawn sized to the screen, as half-block cells or, in a Kitty
terminal, as the terminal's own pixels (reader/app/widgets/picture.py); `n`/`p` (PgDn/PgUp) to
the next or previous page, Esc back. The PDF is the one the data directory keeps, fetched first
when it has none (by the full text's child process, through the same client and rules); each page is drawn by PDFium in a bounded child process
(reader/fulltext/pdfpages.py) from a worker, and kept per page and screen size. With `images = off`
the page's text is shown instead of its pixels."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.worker import get_current_worker

from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.picture import TerminalImages, send_to_terminal, terminal_drawing
from reader.app.widgets.record_view import RecordLines, RecordView
from reader.core.terminal_graphics import KITTY, KITTY_MAX_CELLS, OFF, kitty_image
from reader.errors import ReaderError
from reader.fulltext.clean import printable
from reader.fulltext.pdfpages import PageRefused, render_page

if TYPE_CHECKING:
    from reader.fulltext.child import FetchChild
    from reader.service import LibraryService

INDENT = 2
HEAD_ROWS = 2  # "Page 3 of 12 · arXiv:ID" and a blank line
KEPT_PAGES = 12  # pages kept drawn (each a screenful of cells) for paging back
SHARPER = 2  # the page is drawn at twice the cells' pixels, then averaged: letters stay smooth


# A page drawn: (its number, the PDF's pages, its lines, what sends the terminal its pixels: Kitty's
# image id and escape sequence, else None)
Drawn = tuple[int, int, RecordLines, tuple[int, str] | None]


class PageDrawn(Message):
    """The drawing worker's outcome: the page's lines, else `problem` (with the PDF's page count
    once known)."""

    def __init__(self, drawn: Drawn | None, problem: str = "", page: int | None = None, pages: int | None = None):
        super().__init__()
        self.drawn = drawn
        self.problem = problem
        self.page = page
        self.pages = pages


class PageNote(Message):
    """A worker's line on its way (fetching, rendering), shown in place of the page."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text


class PdfPagesScreen(Screen):
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="pages.close"),
        Binding("n,pagedown,space", "turn(1)", "Next page", id="pages.next"),
        Binding("p,pageup", "turn(-1)", "Previous page", id="pages.previous"),
        Binding("question_mark", "app.help", "Help", id="pages.help"),
        Binding("j,down", "scroll('down')", "Down", show=False, id="pages.down"),  # a page's text (images off) may be long
        Binding("k,up", "scroll('up')", "Up", show=False, id="pages.up"),
    ]

    def __init__(self, service: LibraryService, paper_id: str, version: int, client_options=None, *, page: int = 1):
        """`page`: the one shown first (past the PDF's end: its last)."""
        super().__init__()
        self.service = service
        self.paper_id = paper_id
        self.version = version
        self.client_options = client_options  # the tests' loopback arXiv; None: the settings'
        self.page = page
        self.pages: int | None = None  # known once a page is drawn
        self.problem: str | None = None  # why no page is shown
        self.shown_page: int | None = None  # the page on screen, once drawn
        self._pdf: Path | None = None
        self._drawn: dict[tuple[int, int, int, bool], Drawn] = {}  # (page, columns, rows, text)
        self.drawing = terminal_drawing(self.app, service.settings.images)  # half blocks, the terminal's own pixels (Kitty), or text
        self._images = TerminalImages(lambda sequence: send_to_terminal(self.app, sequence))
        self._child: FetchChild | None = None  # the PDF's fetch under way, if any

    @property
    def view(self) -> RecordView:
        return self.query_one(RecordView)

    def compose(self) -> ComposeResult:
        yield RecordView(id="pdf-page")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.draw()  # the view is not focused: its own PgUp/PgDn would scroll it, not turn the page

    def on_resize(self) -> None:
        if self.pages is not None:  # not before: a fetch or the first drawing is under way
            self.draw()

    def action_turn(self, step: int) -> None:
        if self.pages is None:
            return  # the PDF is not open yet
        page = min(max(1, self.page + step), self.pages)
        if page == self.page:
            self.app.notify(f"Page {page} is the {'last' if step > 0 else 'first'}.")
            return
        self.page = page
        self.draw()

    def action_scroll(self, where: str) -> None:
        getattr(self.view, f"scroll_{where}")(animate=False)

    def action_close(self) -> None:
        child = self._child
        if child is not None:
            child.stop()  # the fetch stops (a PDF is kept whole or not at all)
        self.dismiss()

    def on_unmount(self) -> None:
        self._images.keep_only(())  # closed, or the app quit from here

    def _head(self, page: int) -> str:
        of = f" of {self.pages}" if self.pages is not None else ""
        return f"Page {page}{of} · arXiv:{self.paper_id}v{self.version}"

    def _say(self, message: str) -> None:
        if not self.is_mounted:  # closed while a worker was on its way: nobody to tell
            return
        width = self.app.size.width
        self.view.show(RecordLines.message(message, width=width, indent=INDENT), home=True)

    def _area(self) -> tuple[int, int]:
        """The cells a page may take: the screen less the indent, the head and the footer."""
        width, height = self.app.size
        return max(1, width - 2 * INDENT), max(1, height - HEAD_ROWS - 2)

    @work(thread=True, exclusive=True, group="pdf-page")
    def draw(self) -> None:
        page, (columns, rows) = self.page, self._area()
        text = self.drawing == OFF
        key = (page, columns, rows, text)
        if key not in self._drawn:
            self.post_message(PageNote(f"Rendering page {page}…"))
            try:
                drawn = self._page_lines(page, columns, rows, text)
            except PageRefused as error:
                if not get_current_worker().is_cancelled:
                    self.post_message(PageDrawn(None, str(error), error.number, error.pages))
                return
            except ReaderError as error:
                if not get_current_worker().is_cancelled:
                    self.post_message(PageDrawn(None, str(error)))
                return
            if drawn is None:
                return
            while len(self._drawn) >= KEPT_PAGES:  # the oldest drawn go: a long PDF paged through stays bounded
                del self._drawn[next(iter(self._drawn))]
            self._drawn[key] = self._drawn[(drawn[0], columns, rows, text)] = drawn
        if not get_current_worker().is_cancelled:
            self.post_message(PageDrawn(self._drawn[key]))

    def on_page_note(self, message: PageNote) -> None:
        self._say(message.text)

    def on_page_drawn(self, message: PageDrawn) -> None:
        if message.drawn is not None:
            page, pages, lines, send = message.drawn
            if send is not None:  # the pixels first, then the cells showing them
                self._images.send(*send)
            self._show(page, pages, lines)
            # Pages no longer kept, or kept at another size (the screen's), are freed in the
            # terminal; kept ones are sent again if shown again.
            size = self._area()
            kept = {drawn[3][0] for at, drawn in list(self._drawn.items()) if drawn[3] is not None and at[1:3] == size}
            self._images.keep_only(kept | ({send[0]} if send is not None else set()))
        else:
            self._fail(message.problem, message.page, message.pages)

    def _page_lines(self, page: int, columns: int, rows: int, text: bool) -> Drawn | None:
        """(page, pages, lines, what sends the terminal its pixels) in this worker; None when the
        screen was closed meanwhile."""
        from reader.app.widgets.picture import cell_strips, new_image_id, placement_strips  # Pillow is imported for a picture only
        from reader.fulltext.picture import CELL_PIXELS, half_blocks, terminal_pixels

        path = self._pdf or self._stored_pdf() or self._fetch_pdf()
        if path is None:
            return None
        self._pdf = path
        worker = get_current_worker()
        kitty = self.drawing == KITTY
        if kitty:  # a placement numbers its rows and columns with at most KITTY_MAX_CELLS marks
            columns, rows = min(columns, KITTY_MAX_CELLS), min(rows, KITTY_MAX_CELLS)
        # The terminal's own pixels: about a cell's worth each; half blocks: twice theirs, averaged.
        size = (CELL_PIXELS[0] * columns, CELL_PIXELS[1] * rows) if kitty else (SHARPER * columns, SHARPER * 2 * rows)
        rendered = render_page(path, page, *size, text=text, cancelled=lambda: worker.is_cancelled)
        self.pages = rendered.pages
        head = self._head(rendered.number)
        top = [Strip([Segment(" " * INDENT + head, Style(bold=True))]), Strip([])]
        send = None
        if rendered.image is None:
            words = "\n".join(printable(line) for line in rendered.text.splitlines())
            note = "Images are off (the images setting): the page's text.\n\n"
            body = RecordLines.message(note + (words.strip() or "(no text on this page)"), width=columns + INDENT, indent=INDENT)
            strips, texts = [*top, *body.strips], ["  " + head, "", *body.texts]
        elif kitty:
            pixels, image_id = terminal_pixels(rendered.image, columns, rows), new_image_id()
            send = (image_id, kitty_image(pixels.png, image_id, pixels.columns, pixels.rows))
            picture = placement_strips(image_id, pixels.columns, pixels.rows, INDENT)
            strips, texts = [*top, *picture], ["  " + head, "", *[""] * len(picture)]
        else:
            cells = half_blocks(rendered.image, columns, rows)
            strips, texts = [*top, *cell_strips(cells, INDENT)], ["  " + head, "", *[""] * len(cells.rows)]
        return rendered.number, rendered.pages, RecordLines(tuple(strips), tuple(texts)), send

    def _stored_pdf(self) -> Path | None:
        texts = self.service.text_store()
        if texts is None:
            raise PageRefused("The demo set has no PDFs: add a topic and sync to read papers.")
        return _kept(texts.pdf_path(self.paper_id, self.version))

    def _fetch_pdf(self) -> Path | None:
        """The PDF fetched by the full text's child process; None when the screen closed first."""
        from reader.fulltext.child import FetchChild, fetch_job
        from reader.sync.types import client_options

        texts = self.service.text_store()
        assert texts is not None
        options = self.client_options or client_options(self.service.settings)
        where = f"arXiv:{self.paper_id}v{self.version}"
        self.post_message(PageNote(f"Fetching the PDF of {where} from arXiv…"))

        def said(message: dict) -> None:
            if "progress" in message:
                self.post_message(PageNote(f"Fetching the PDF of {where}: {message['progress'][1] / 2**20:.1f} MB…"))

        child = self._child = FetchChild(fetch_job(texts.data_dir, self.paper_id, self.version, options, "pdf"))
        outcome = child.run(said)
        self._child = None
        if get_current_worker().is_cancelled:
            return None
        path = _kept(texts.pdf_path(self.paper_id, self.version)) if "done" in outcome else None
        if path is None:
            raise PageRefused(f"No PDF: {outcome.get('error') or 'the fetch stopped before it was done'}")
        return path

    def _show(self, page: int, pages: int, lines: RecordLines) -> None:
        self.page, self.pages, self.shown_page, self.problem = page, pages, page, None
        self.view.show(lines, home=True)

    def _fail(self, message: str, page: int | None = None, pages: int | None = None) -> None:
        """Why the page is not shown; with the PDF's page count once known, the others still turn."""
        self.problem, self.shown_page = message, None
        if pages is not None:
            self.page, self.pages = page or self.page, pages
        self._say(f"{self._head(self.page)}: {message}")


def _kept(path: Path) -> Path | None:
    """The PDF kept for the paper, if there is one. Not opened here: the bounded child reads it
    and says in one line when it is damaged (pypdf, in this process, has no bound on its work)."""
    return path if path.is_file() else None
