"""Star, read, open and cite the current paper: the same keys on the list and in the detail view."""

from __future__ import annotations

import webbrowser
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


class PaperScreen(Screen):
    """A screen with a current paper: the main list and the detail view. Subclasses provide
    `current_paper_id()` and `marks_changed()` (redraw what shows marks, tags and notes)."""

    BINDINGS = [TAG]  # a key of every paper screen (the main screen lists the others itself)

    def __init__(self, service: LibraryService):
        super().__init__()
        self.service = service
        self._demo_told = False  # the first mark on a demo paper says it will not be kept

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
            self.set_marks(paper_id, starred=paper_id not in self.service.library.starred)

    def action_toggle_read(self) -> None:
        if (paper_id := self.current_paper_id()) is not None:
            self.set_marks(paper_id, read=paper_id not in self.service.library.read)

    def action_toggle_hidden(self) -> None:
        """Not interested: the paper leaves every view (but Hidden) the next time a list is drawn,
        and teaches For you; until then it stays in place, so x again undoes it."""
        if (paper_id := self.current_paper_id()) is not None:
            hide = paper_id not in self.service.library.hidden
            self.set_marks(paper_id, hidden=hide)
            self.app.notify(f"Hidden: not shown again ({key(self.app, 'app.hide')} brings it back)." if hide else "Shown again.")

    def action_edit_tags(self) -> None:
        paper = self._current_paper()
        if paper is None:
            return
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
        """The current paper's whole record (one record read: a key press, not a frame)."""
        paper_id = self.current_paper_id()
        return self.service.load_paper(paper_id) if paper_id else None

    def _open(self, kind: str) -> None:
        paper = self._current_paper()
        if paper is None:
            return
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
        app = self.app
        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:
            opened = False
        if opened:
            app.call_from_thread(app.notify, f"Opened {url}")
        else:
            app.call_from_thread(app.copy_to_clipboard, url)
            app.call_from_thread(
                app.notify,
                f"No browser could open it here. The link, copied to the clipboard:\n{url}",
                severity="warning",
                timeout=12,
            )

    def action_open_abstract(self) -> None:
        self._open("abs")

    def action_open_pdf(self) -> None:
        self._open("pdf")

    def action_copy_bibtex(self) -> None:
        paper = self._current_paper()
        if paper is None:
            return
        if paper.demo:
            self.app.notify("Demo papers have no arXiv id to cite.", severity="warning")
            return
        self._copy_citation(paper)

    @work(thread=True, group="citation")
    def _copy_citation(self, paper: Paper) -> None:
        """The entry under the paper's recorded key: giving it one writes library.json, never on
        the UI's thread."""
        app = self.app
        try:
            text = self.service.citation(paper)
        except ReaderError as error:
            app.call_from_thread(app.notify, f"Not copied: {error}", severity="error")
            return
        app.call_from_thread(app.copy_to_clipboard, text)
        app.call_from_thread(app.notify, f"Copied {text.split(',', 1)[0].removeprefix('@misc{')} to the clipboard.")
