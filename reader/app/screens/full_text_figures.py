"""The full-text view's figures, a part of that screen (part.py): `f` (or Enter) shows the figure
at or below the top of the screen, `F` every figure; each image is fetched (reader/fulltext/
figures.py) by one worker in turn and drawn in the layout's worker, in half-blocks or a Kitty
terminal's own pixels. A figure of a text read from a PDF is on its page: Enter opens the page
view there. The part keeps which images are asked for, drawn or refused, and the Kitty images the
terminal holds; the screen lays the text out with what it draws."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.strip import Strip

from reader.app.keys import key
from reader.app.screens.part import ScreenHost, ScreenPart
from reader.app.widgets.picture import TerminalImages, cell_strips, new_image_id, placement_strips, send_to_terminal, terminal_drawing
from reader.core.terminal_graphics import KITTY, KITTY_MAX_CELLS, OFF, kitty_image
from reader.errors import ReaderError

if TYPE_CHECKING:
    from reader.app.widgets.record_view import RecordView
    from reader.app.widgets.text_layout import TextLayout
    from reader.fulltext.document import Document
    from reader.fulltext.figures import FigureCache
    from reader.service import LibraryService

MAX_PICTURE_ROWS = 60  # an image's rows at most, whatever its shape (a tall one is narrowed)


class FiguresHost(ScreenHost, Protocol):
    service: LibraryService
    paper_id: str
    version: int
    client_options: Any  # the tests' loopback arXiv; None: the settings'
    document: Document | None
    layout_now: TextLayout | None

    @property
    def view(self) -> RecordView: ...

    def relayout(self, document: Document) -> object: ...
    def action_pdf_pages(self, page: int = 1) -> None: ...


class FullTextFigures(ScreenPart[FiguresHost]):
    """The figures of the text shown. The fetching worker's result for each image comes back as
    `Fetched`, which the screen hands to `take_fetched`."""

    class Fetched(Message):
        """The figures' worker fetched image `number` (`note`: why it is not shown; `failed`: asked again)."""

        def __init__(self, number: int, note: str | None, failed: bool):
            super().__init__()
            self.number = number
            self.note = note
            self.failed = failed

    def __init__(self, screen: FiguresHost):
        super().__init__(screen)
        self.pictures: dict[int, str | None] = {}  # image number -> None: drawn; else a line saying why not / that it comes
        self.drawing = terminal_drawing(screen.app, screen.service.settings.images)  # half blocks, or the terminal's own pixels (Kitty)
        # (image number, width) -> its strips, made once per width, and its Kitty image's id (half blocks: None)
        self._drawn: dict[tuple[int, int], tuple[list[Strip], int | None]] = {}
        # Kitty images drawn, not sent yet: id -> the escape sequence sending them (dropped once sent: the terminal keeps the pixels)
        self._unsent: dict[int, str] = {}
        self._images = TerminalImages(lambda sequence: send_to_terminal(screen.app, sequence))
        # Images asked for, not fetched yet: one worker fetches them in turn, taking each under the
        # lock that asking takes too (an image asked for as the worker ends starts another).
        self._pending: list[int] = []
        self._fetching = False
        self._pending_lock = threading.Lock()
        self._failed: set[int] = set()  # images that could not be fetched (not refused): `f` tries them again

    # --- drawing (in the layout's worker) and the terminal's images --------------------------------

    def drawn_at(self, width: int) -> tuple[dict[int, Sequence[Strip] | str], tuple[int, ...]]:
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
                stored = self._figure_cache().stored(self.screen.paper_id, self._document_version(), number)
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

        rows = max(8, min(MAX_PICTURE_ROWS, self.screen.app.size.height - 4))
        if self.drawing == KITTY:
            pixels = terminal_pixels(image, min(width, KITTY_MAX_CELLS), rows, data)
            image_id = new_image_id()
            self._unsent[image_id] = kitty_image(pixels.png, image_id, pixels.columns, pixels.rows)
            return placement_strips(image_id, pixels.columns, pixels.rows, indent=2), image_id
        return cell_strips(half_blocks(image, width, rows), indent=2), None

    def send(self, images: tuple[int, ...]) -> None:
        """The pixels of the Kitty images a layout shows, sent before the cells showing them."""
        for image_id in images:
            sequence = self._unsent.pop(image_id, None)
            if sequence is not None:
                self._images.send(image_id, sequence)

    def keep_only(self, images: tuple[int, ...]) -> None:
        """The terminal keeps only the images shown now; one drawn at another width before is drawn anew if it comes back."""
        freed = self._images.keep_only(images)
        self._drawn = {at: drawn for at, drawn in list(self._drawn.items()) if drawn[1] not in freed}

    def _document_version(self) -> int:
        document = self.screen.document
        return document.version if document is not None else self.screen.version

    def _figure_cache(self) -> FigureCache:
        from reader.fulltext.figures import FigureCache

        texts = self.screen.service.text_store()
        assert texts is not None
        return FigureCache(texts.data_dir, self.screen.service.settings.figure_cache_mb)

    # --- the keys -----------------------------------------------------------------------------------

    def show_one(self) -> None:
        """`f`: the first figure with images at or below the top of the screen, not shown yet."""
        app, layout, top = self.screen.app, self.screen.layout_now, self.screen.view.scroll_offset.y
        if layout is None:
            app.notify("No figures before the text is read.")
            return
        for last, numbers, _ in layout.figures:
            if last >= top and numbers and any(self._askable(number) for number in numbers):
                self._ask([number for number in numbers if self._askable(number)])
                return
        if any(page is not None for _, _, page in layout.figures):
            app.notify(f"This text was read from the PDF: its figures are on their pages ({key(app, 'detail.open_figure')} opens one).")
            return
        app.notify("No figure to show below the top of the screen (F shows every figure).")

    def open_at_top(self) -> None:
        """Enter: the figure at or below the top of the screen, as it can be seen: a PDF's on its
        page in the page view, else drawn in place (as `f`)."""
        layout, top = self.screen.layout_now, self.screen.view.scroll_offset.y
        figure = next((figure for figure in layout.figures if figure[0] >= top), None) if layout is not None else None
        if figure is not None and figure[2] is not None:
            self.screen.action_pdf_pages(figure[2])
        else:
            self.show_one()

    def show_all(self) -> None:
        """`F`: every figure not shown yet."""
        layout = self.screen.layout_now
        numbers = [number for _, numbers, _ in (layout.figures if layout else ()) for number in numbers if self._askable(number)]
        if layout is None or not layout.figures:
            self.screen.app.notify("This text has no figures." if layout is not None else "No figures before the text is read.")
        elif numbers:
            self._ask(numbers)
        elif any(page is not None for _, _, page in layout.figures):
            self.show_one()  # says where a PDF text's figures are

    def _askable(self, number: int) -> bool:
        """Not shown yet, or not fetched (offline, arXiv failed): asked again. A refused image never is."""
        return number not in self.pictures or number in self._failed

    def _ask(self, numbers: list[int]) -> None:
        document = self.screen.document
        if self.screen.service.text_store() is None or document is None:
            return
        if self.drawing == OFF:  # the caption and the image's link, nothing fetched
            images = document.images  # (made from the blocks: once, not per image)
            for number in numbers:
                self.pictures[number] = f"not shown (images = off): {images[number - 1][1]}"
            self.screen.relayout(document)
            return
        for number in numbers:
            self.pictures[number] = "fetching…"
            self._failed.discard(number)
        with self._pending_lock:
            self._pending.extend(numbers)
            start, self._fetching = not self._fetching, True
        self.screen.relayout(document)
        if start:
            self.in_thread(self._fetch, document, group="full-text-figures", exclusive=True)

    # --- fetching (in a worker) ---------------------------------------------------------------------

    def _next_pending(self) -> int | None:
        """In the fetching worker: the next image to fetch, or None (the worker ends)."""
        with self._pending_lock:
            if self._pending:
                return self._pending.pop(0)
            self._fetching = False
            return None

    def _fetch(self, document: Document) -> None:
        """Fetch the images asked for, one after another with one client, each drawn as it comes."""
        from reader.arxiv.client import ArxivClient
        from reader.fulltext.figures import fetch_image
        from reader.fulltext.picture import ImageNotDrawnNow, ImageRefused
        from reader.sync.types import client_options

        images, cache = document.images, self._figure_cache()
        options = self.screen.client_options or client_options(self.screen.service.settings)

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
                    self.screen.post_message(self.Fetched(number, note, failed))

        asyncio.run(fetch_all())

    def take_fetched(self, message: Fetched) -> None:
        self.pictures[message.number] = message.note
        if message.failed:
            self._failed.add(message.number)
        if self.screen.document is not None:
            self.screen.relayout(self.screen.document)

    def stop(self) -> None:
        """The screen closes: the image being fetched is the last."""
        with self._pending_lock:
            self._pending.clear()

    def free_all(self) -> None:
        """The screen is gone (closed, or the app quit from it): the terminal drops its images."""
        self._images.keep_only(())
