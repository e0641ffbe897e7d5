"""Star, read, open and cite the current paper: the same keys on the list and in the detail view."""

from __future__ import annotations

import webbrowser
from collections import deque
from typing import TYPE_CHECKING

from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from reader.app.keys import key
from reader.app.screens.tags import TagDialog
from reader.errors import ReaderError
from reader.models import Paper

if TYPE_CHECKING:
    from reader.service import LibraryService

STAR = Binding("s", "toggle_star", "Star", id="app.star")
READ = Binding("r", "toggle_read", "Read", id="app.read")
OPEN = Binding("o", "open_abstract", "Browser", id="app.open")
PDF = Binding("p", "open_pdf", "PDF", show=False, id="app.pdf")
COPY = Binding("y", "copy_bibtex", "Copy BibTeX", show=False, id="app.copy_bibtex")
HIDE = Binding(
    "x", "toggle_hidden", "Hide", show=False, id="app.hide", tooltip="Not interested: hide the paper (the same key again brings it back)"
)
TAG = Binding("t", "edit_tags", "Tags", show=False, id="app.tags", tooltip="Edit the paper's tags")
SIMILAR = Binding("m", "similar", "More like this", show=False, id="app.similar", tooltip="The cached papers most like this one, and why")
PAPER_BINDINGS = [STAR, READ, OPEN, PDF, COPY, HIDE, TAG, SIMILAR]
DEMO_NOT_SAVED = "Demo papers are kept in memory only: stars and read marks last until you quit. {sync} syncs your topics."
DEMO_NO_TAGS_NOTES = "Demo papers take no tags or notes: sync your topics ({sync}), and their papers do."


def paper_link(paper: Paper, kind: str) -> str | None:
    """The abstract page or PDF, built from the paper's validated id, never from feed text.
    Demo papers carry an arXiv search link we made ourselves; they have no PDF."""
    if paper.demo:
        return paper.abs_url if kind == "abs" else None
    return f"https://arxiv.org/{kind}/{paper.id}v{paper.version}"


class ShowSimilar(Message):
    """`m`: show the papers most like this one (the app opens the view above the screen asking)."""

    def __init__(self, paper_id: str):
        super().__init__()
        self.paper_id = paper_id


class PaperRead(Message):
    """A worker read the record of the paper a key asked for (None: not in the cache)."""

    def __init__(self, paper: Paper | None):
        super().__init__()
        self.paper = paper


class BrowserTried(Message):
    """A worker asked the system's browser to open `url`; `opened`: whether one said it did."""

    def __init__(self, url: str, opened: bool):
        super().__init__()
        self.url = url
        self.opened = opened


class CitationMade(Message):
    """A worker made the BibTeX entry `y` copies (`error` instead when it could not)."""

    def __init__(self, text: str | None, error: str | None = None):
        super().__init__()
        self.text = text
        self.error = error


class PaperScreen(Screen):
    """A screen with a current paper: the main list and the detail view. Subclasses provide
    `current_paper_id()` and `marks_changed()` (redraw what shows marks, tags and notes)."""

    BINDINGS = [TAG]  # a key of every paper screen (the main screen lists the others itself)

    def __init__(self, service: LibraryService):
        super().__init__()
        self.service = service
        self._demo_told = False  # the first mark on a demo paper says it will not be kept
        # Keys waiting for a paper's record (id, what to do with it), read one at a time by a
        # worker so that `o` then `p` open in that order.
        self._record_keys: deque[tuple[str, str]] = deque()

    def current_paper_id(self) -> str | None:
        raise NotImplementedError

    def marks_changed(self) -> None:
        raise NotImplementedError

    def set_marks(self, paper_id: str, *, read: bool | None = None, starred: bool | None = None, hidden: bool | None = None) -> None:
        """Change a paper's marks: drawn at once, saved by the service (one whose save fails stays
        drawn, and the app is told: see ReaderApp.on_mount)."""
        self.service.set_marks(paper_id, read=read, starred=starred, hidden=hidden)
        self.marks_changed()
        if self.service.is_demo and not self._demo_told:
            self._demo_told = True
            self.app.notify(DEMO_NOT_SAVED.format(sync=key(self.app, "app.sync")), severity="warning", timeout=10)

    def action_toggle_star(self) -> None:
        if (paper_id := self.current_paper_id()) is not None:
            self.set_marks(paper_id, starred=paper_id not in self.service.catalog.starred)

    def action_toggle_read(self) -> None:
        if (paper_id := self.current_paper_id()) is not None:
            self.set_marks(paper_id, read=paper_id not in self.service.catalog.read)

    def action_toggle_hidden(self) -> None:
        """Not interested: the paper leaves every view (but Hidden) the next time a list is drawn,
        and teaches For you; until then it stays in place, so x again undoes it."""
        if (paper_id := self.current_paper_id()) is not None:
            hide = paper_id not in self.service.catalog.hidden
            self.set_marks(paper_id, hidden=hide)
            self.app.notify(f"Hidden: not shown again ({key(self.app, 'app.hide')} brings it back)." if hide else "Shown again.")

    def action_edit_tags(self) -> None:
        self._with_paper("tags")

    def _edit_tags(self, paper: Paper) -> None:
        if self.service.is_demo:
            self.app.notify(DEMO_NO_TAGS_NOTES.format(sync=key(self.app, "app.sync")), severity="warning")
            return
        current, in_use = self.service.tags_of([paper.id])[paper.id], self.service.tags()

        def closed(after: tuple[str, ...] | None) -> None:
            if after is not None and after != current:
                self.tags_changed(paper.id, after)

        self.app.push_screen(TagDialog(self.service, paper.id, paper.title, current, in_use), closed)

    def action_similar(self) -> None:
        if (paper_id := self.current_paper_id()) is not None:
            self.post_message(ShowSimilar(paper_id))

    def tags_changed(self, paper_id: str, tags: tuple[str, ...]) -> None:
        """A paper's tags were saved: redraw what shows them."""
        self.marks_changed()

    def _current_paper(self) -> Paper | None:
        """The current paper's whole record if this screen holds it in memory (the detail view)."""
        return None

    def _with_paper(self, purpose: str) -> None:
        """Do `purpose` ("abs", "pdf", "bibtex", "tags") with the current paper's record: at once if
        held, else once a worker has read it (a record read is disk work, not the UI thread's)."""
        paper = self._current_paper()
        if paper is not None and not self._record_keys:
            self._paper_ready(paper, purpose)
        elif (paper_id := self.current_paper_id()) is not None:
            self._record_keys.append((paper_id, purpose))
            if len(self._record_keys) == 1:
                self._read_paper(paper_id)

    @work(thread=True, group="paper-record")
    def _read_paper(self, paper_id: str) -> None:
        self.post_message(PaperRead(self.service.load_paper(paper_id)))

    def on_paper_read(self, message: PaperRead) -> None:
        _, purpose = self._record_keys.popleft()
        if self._record_keys:
            self._read_paper(self._record_keys[0][0])
        if message.paper is not None:
            self._paper_ready(message.paper, purpose)

    def _paper_ready(self, paper: Paper, purpose: str) -> None:
        if purpose == "tags":
            self._edit_tags(paper)
        elif purpose == "bibtex":
            self._copy_bibtex(paper)
        else:
            self._open(paper, purpose)

    def _open(self, paper: Paper, kind: str) -> None:
        url = paper_link(paper, kind)
        if url is None:
            self.app.notify(f"This demo paper has no PDF link: open its search page with {key(self.app, 'app.open')}.", severity="warning")
            return
        self.open_in_browser(url)
        self.set_marks(paper.id, read=True)

    @work(thread=True, group="browser")
    def open_in_browser(self, url: str) -> None:
        """A browser can take a while to start: never on the UI's thread. Over SSH or in a
        container nothing may open it; then the link is shown so it can be copied."""
        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:
            opened = False
        self.post_message(BrowserTried(url, opened))

    def on_browser_tried(self, message: BrowserTried) -> None:
        url = message.url
        if message.opened:
            self.app.notify(f"Opened {url}")
        else:
            self.app.copy_to_clipboard(url)
            self.app.notify(f"No browser could open it here. The link, copied to the clipboard:\n{url}", severity="warning", timeout=12)

    def action_open_abstract(self) -> None:
        self._with_paper("abs")

    def action_open_pdf(self) -> None:
        self._with_paper("pdf")

    def action_copy_bibtex(self) -> None:
        self._with_paper("bibtex")

    def _copy_bibtex(self, paper: Paper) -> None:
        if paper.demo:
            self.app.notify("Demo papers have no arXiv id to cite.", severity="warning")
            return
        self._copy_citation(paper)

    @work(thread=True, group="citation")
    def _copy_citation(self, paper: Paper) -> None:
        """The entry under the paper's recorded key: giving it one writes library.json, never on
        the UI's thread."""
        try:
            self.post_message(CitationMade(self.service.citation(paper)))
        except ReaderError as error:
            self.post_message(CitationMade(None, str(error)))

    def on_citation_made(self, message: CitationMade) -> None:
        if message.text is None:
            self.app.notify(f"Not copied: {message.error}", severity="error")
            return
        self.app.copy_to_clipboard(message.text)
        self.app.notify(f"Copied {message.text.split(',', 1)[0].removeprefix('@misc{')} to the clipboard.")
