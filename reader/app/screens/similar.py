""" "Like: TITLE", the view `m` opens: the cached papers most like one paper, best first, each
card saying why (see core/similar.py). Enter reads a paper in the detail view; Esc returns to
where `m` was pressed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widgets import Static

from reader.app.paper_actions import PAPER_BINDINGS, PaperScreen
from reader.app.screens.detail import DetailScreen
from reader.app.screens.paper_record import ListPaperRead, PaperRecord
from reader.app.widgets.footer import KeyFooter
from reader.app.widgets.paper_list import PaperList
from reader.cache_index import CacheIndex
from reader.core.catalog import Catalog
from reader.core.similar import Like, Likeness
from reader.core.text import plural, word_string
from reader.errors import ReaderError
from reader.models import Paper
from reader.service.search import SearchNotReady

if TYPE_CHECKING:
    from reader.service import LibraryService

SHOWN = 50  # papers listed: far more than anyone reads down, few enough to explain each


class LikesFound(Message):
    """The finding worker's answer: the paper and those most like it, or `problem` why none."""

    def __init__(self, found: tuple[Paper, Likeness] | None, problem: str = ""):
        super().__init__()
        self.found = found
        self.problem = problem


class SimilarScreen(PaperScreen):
    """Holds the papers and marks its list draws (`catalog`, bound down to the list as on the main
    screen); the likes found come back as `LikesFound`."""

    BINDINGS = [
        Binding("escape,q", "close", "Back", id="similar.close"),
        Binding("question_mark", "app.help", "Help", id="similar.help"),
        *PAPER_BINDINGS,
    ]

    catalog: var[Catalog] = var(lambda: Catalog(CacheIndex()), init=False)  # the papers and marks the list draws (the service's)

    def __init__(self, service: LibraryService, paper_id: str):
        super().__init__(service)
        self.set_reactive(SimilarScreen.catalog, service.catalog)
        self.paper_id = paper_id
        self.likes: dict[str, Like] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="like-title")
        yield Static(id="like-about")
        yield PaperList(self.catalog, self.service.cards, math=self.service.settings.math, id="like-papers").data_bind(
            SimilarScreen.catalog
        )
        yield KeyFooter()

    @property
    def paper_list(self) -> PaperList:
        return self.query_one("#like-papers", PaperList)

    def on_mount(self) -> None:
        self.paper_list.annotate = self._because
        self.paper_list.empty_message = "Finding the papers most like this one…"
        self.query_one("#like-title", Static).update(Text("Like: …"))
        self.paper_list.focus()
        self.find(set(self.catalog.hidden))

    @work(thread=True, exclusive=True, group="similar")
    def find(self, hidden: set[str]) -> None:
        try:
            paper, likeness = self.service.meaning.similar(self.paper_id, limit=SHOWN, leave_out=hidden)
        except SearchNotReady as error:
            self.post_message(LikesFound(None, f"Not yet: {error} (m again then)."))
            return
        except ReaderError as error:
            self.post_message(LikesFound(None, f"Cannot find papers like it: {error}."))
            return
        self.post_message(LikesFound((paper, likeness)))

    def on_likes_found(self, message: LikesFound) -> None:
        if message.found is None:
            self.paper_list.empty_message = message.problem
            self.paper_list.show([])
        else:
            self._found(*message.found)

    def _found(self, paper: Paper, likeness: Likeness) -> None:
        self.likes = {like.id: like for like in likeness.papers}
        self.catalog = self.service.catalog  # the service's now (the demo may have given way to the cache since)
        self.query_one("#like-title", Static).update(Text(f"Like: {paper.title}"))  # feed text: never markup
        meaning = " and by meaning" if any(like.meaning for like in likeness.papers) else ""
        about = (
            f"The {plural(len(likeness.papers), 'paper', thousands=True)} most like it, by what sets it apart: {', '.join(likeness.terms)}{meaning} · Esc returns"
            if likeness.papers
            else "Esc returns"
        )
        self.query_one("#like-about", Static).update(Text(about))
        self.paper_list.empty_message = "No cached paper shares a distinctive term with it."
        self.paper_list.show([like.id for like in likeness.papers])

    def _because(self, paper_id: str) -> tuple[tuple[str, str], ...]:
        """A card's last line: its score, what it shares (authors as the card writes them) and the
        paper's words nearest it in meaning."""
        if paper_id in self.catalog.hidden:
            return (("✕ hidden: left out of your views from now on · x brings it back", "paper-list--updated"),)
        like = self.likes.get(paper_id)
        if like is None:
            return ()
        card = self.paper_list.cached_card(paper_id)
        written = {word_string(name).strip(): name for name in card.authors} if card is not None else {}
        because = [written.get(word_string(reason).strip(), reason) for reason in like.because]
        why = ([f"because: {', '.join(because)}"] if because else []) + ([f"in meaning: {', '.join(like.meaning)}"] if like.meaning else [])
        return ((" · ".join([f"{like.score:.2f}", *why]), "paper-list--reason"),)

    def current_paper_id(self) -> str | None:
        return self.paper_list.current

    def marks_changed(self) -> None:
        self.paper_list.refresh_cards()

    def on_screen_resume(self) -> None:
        self.marks_changed()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(PaperList.Opened)
    def _opened(self, event: PaperList.Opened) -> None:
        self.set_marks(event.paper_id, read=True)
        self._read_for_detail(self.paper_list.ids, event.paper_id)

    @work(thread=True, exclusive=True, group="detail")
    def _read_for_detail(self, ids: Sequence[str], paper_id: str) -> None:
        if record := PaperRecord.read_in_worker(self.service, paper_id, self.app.size.width):
            self.post_message(ListPaperRead(ids, record))

    def on_list_paper_read(self, message: ListPaperRead) -> None:
        if self.app.screen is not self:
            return  # a dialog opened meanwhile
        detail = DetailScreen(self.service)
        detail.show_paper(message.ids, message.ids.index(message.record.paper_id), message.record)
        self.app.push_screen(detail, self._detail_closed)

    def _detail_closed(self, paper_id: str | None) -> None:
        if paper_id is not None and paper_id in self.paper_list.ids:
            self.paper_list.show(self.paper_list.ids, keep=paper_id)
        self.marks_changed()
