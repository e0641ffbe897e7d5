"""A paper's full text in the app (`v` in the detail view): a stored one at once, offline too (read
and laid out in a worker); otherwise fetched by a child process (reader/fulltext/child.py) while
the view says how far it got, or in one line why it cannot. The text is plain (every string was
cleaned when the page was read, and is drawn as text, never as markup), wrapped to the screen,
scrolled with the detail view's keys; references to papers in the cache are marked."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.strip import Strip
from textual.worker import get_current_worker

from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.record_view import MATH, RECORD_SCROLL, RecordLines, RecordView, record_width
from reader.errors import ReaderError
from reader.fulltext.document import AUTHORS, CAPTION, HEADING, REFERENCE, TITLE, Block, Document
from reader.fulltext.render import block_lines
from reader.fulltext.store import TextStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from reader.service import LibraryService

# `b` in the detail and full-text views: the references as a list to act on (references.py).
REFERENCES = Binding(
    "b", "references", "References", show=False, id="detail.references", tooltip="The paper's references: open a cached one, add one"
)
STYLES = {TITLE: Style(bold=True), HEADING: Style(bold=True), AUTHORS: Style(italic=True), CAPTION: Style(italic=True)}
MARKED = Style(bold=True)


def text_lines(document: Document, width: int, cached: set[str], starred: set[str], read: set[str], *, unicode: bool = True) -> RecordLines:
    """The text as the view's lines (pure: made in a worker). References to cached papers end
    with a mark saying so; formulas in Unicode (where the page's MathML said it), else TeX."""

    def marker(block: Block) -> str:
        if block.kind != REFERENCE or block.arxiv_id is None or block.arxiv_id not in cached:
            return ""
        marks = ["in your cache"] + (["★ starred"] if block.arxiv_id in starred else []) + (["read"] if block.arxiv_id in read else [])
        return f"  ◆ arXiv:{block.arxiv_id} " + " · ".join(marks)

    source = {
        "html": "arXiv's HTML",
        "ar5iv": "ar5iv's HTML (arXiv has none of it; ar5iv's may be of an earlier version)",
        "pdf": "its PDF (arXiv has no HTML of it)",
    }.get(document.source, "the HTML page its authors submitted (no LaTeXML, no PDF)")
    head = f"Full text of arXiv:{document.id}v{document.version}, from {source}"
    strips, texts = [Strip([]), Strip([Segment(head, Style(dim=True))]), Strip([])], ["", head, ""]
    for block, line in block_lines(document, width, marker, unicode=unicode):
        style = None if block is None else STYLES.get(block.kind)
        if block is not None and block.kind == REFERENCE and block.arxiv_id in cached:
            style = MARKED
        strips.append(Strip([Segment(line, style)]))
        texts.append(line)
    strips.append(Strip([]))
    texts.append("")
    return RecordLines(tuple(strips), tuple(texts))


class FullTextScreen(Screen):
    """Esc goes back to the detail view (which then reads the paper again: it may cite starred
    papers now)."""

    # The detail view's ids: a key remapped there (keymap.toml) moves here alike.
    BINDINGS = [
        Binding("escape,q", "close", "Back", id="detail.close"),
        Binding("question_mark", "app.help", "Help", id="detail.help"),
        REFERENCES,
        Binding("P", "pdf_pages", "PDF pages", id="detail.pdf_pages", tooltip="The paper's PDF page by page, drawn in the terminal"),
        MATH,
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
        self._child: subprocess.Popen | None = None
        self.unicode = True  # math as Unicode; `t`: as TeX (copying gives what is shown)

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
            self.app.call_from_thread(self._say, "The demo set has no full texts: add a topic and sync to read papers in full.")
            return
        try:
            document = texts.load(self.paper_id)
        except ReaderError as error:
            self.app.call_from_thread(self._say, f"Cannot read the stored text: {error}")
            return
        if document is None:
            self.app.call_from_thread(self.fetch)
            return
        self._lay_out(document)

    def _lay_out(self, document: Document) -> None:
        """In a worker: the document's lines at the screen's width, then shown."""
        library = self.service.library
        index = library.index
        cached = {block.arxiv_id for block in document.references if block.arxiv_id is not None and block.arxiv_id in index}
        width = record_width(self.app.size.width)
        lines = text_lines(document, width, cached, library.starred, library.read, unicode=self.unicode)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, document, lines)

    def _show(self, document: Document, lines: RecordLines) -> None:
        first = self.document is None
        self.document, self.problem = document, None
        self.view.show(lines, home=first)
        if document.version < self.version:
            self.app.notify(f"This is the text of v{document.version}; the cache has v{self.version}.", timeout=10)

    def _say(self, message: str) -> None:
        """The message in place of the text, wrapped to the screen (an error must be read whole)."""
        self.problem = message
        self.view.show(RecordLines.message(message, width=record_width(self.app.size.width), indent=2), home=True)

    @work(thread=True, exclusive=True, group="full-text-fetch")
    def fetch(self) -> None:
        """Fetch in a child process, telling how far it got; then lay out what it stored."""
        from reader.fulltext.child import STOPPED_FOR_CPU, fetch_job, stopped_for_cpu
        from reader.sync.types import client_options

        texts = self._texts()
        assert texts is not None
        options = self.client_options or client_options(self.service.settings)
        job = fetch_job(texts.data_dir, self.paper_id, self.version, options)
        self.app.call_from_thread(self._say, f"Fetching the full text of arXiv:{self.paper_id}v{self.version} from arXiv…")
        try:
            child = self._child = subprocess.Popen(
                [sys.executable, "-m", "reader.fulltext.child"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            self.app.call_from_thread(self._say, f"No full text: the fetch could not start ({error.strerror or error})")
            return
        assert child.stdin is not None and child.stdout is not None
        outcome: dict = {}
        try:
            child.stdin.write((json.dumps(job) + "\n").encode())
            child.stdin.flush()
            for raw in child.stdout:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(message, dict):
                    continue
                if "progress" in message:
                    what, received = message["progress"]
                    self.app.call_from_thread(
                        self._say,
                        f"Fetching the full text of arXiv:{self.paper_id}v{self.version} ({'PDF' if what == 'pdf' else 'HTML'}): "
                        f"{received / 2**20:.1f} MB…",
                    )
                elif "notice" in message:
                    self.app.call_from_thread(self._say, f"Fetching the full text: {message['notice']}")
                else:
                    outcome = message
        except (OSError, ValueError):
            pass
        finally:
            self._stop_child()
        if get_current_worker().is_cancelled:
            return
        if not outcome and stopped_for_cpu(child.returncode):
            outcome = {"error": STOPPED_FOR_CPU}
        try:
            document = texts.load(self.paper_id) if "done" in outcome else None
        except ReaderError as error:
            outcome = {"error": f"the stored text cannot be read: {error}"}
            document = None
        if document is None:
            why = outcome.get("error") or "the fetch stopped before it was done"
            self.app.call_from_thread(self._say, f"No full text: {why}")
            return
        self._lay_out(document)

    def _stop_child(self) -> None:
        child, self._child = self._child, None
        if child is not None and child.stdin is not None:
            try:
                child.stdin.close()  # the child stops by itself (a text is stored whole or not)
            except OSError:
                pass
            child.wait()

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

    def action_references(self) -> None:
        from reader.app.screens.references import REFERENCES_OF, PaperLinksScreen

        if self.document is None or self.open_paper is None:
            self.app.notify("No references before the text is read.")
            return
        self.app.push_screen(PaperLinksScreen(self.service, self.paper_id, REFERENCES_OF, self.open_paper, self.client_options))

    def action_pdf_pages(self) -> None:
        from reader.app.screens.pdf_pages import PdfPagesScreen

        self.app.push_screen(PdfPagesScreen(self.service, self.paper_id, self.version, self.client_options))

    def action_close(self) -> None:
        child = self._child
        if child is not None and child.stdin is not None:
            try:
                child.stdin.close()
            except OSError:
                pass
        self.dismiss(self.paper_id)
