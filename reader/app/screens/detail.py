"""The detail view of one paper: everything we know about it, scrollable."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from reader.app.paper_actions import PAPER_BINDINGS, PaperScreen, paper_link
from reader.models import Paper

if TYPE_CHECKING:
    from reader.service import LibraryService


LABEL_WIDTH = 14


def detail_text(paper: Paper, topics: list[str], *, read: bool, starred: bool, width: int = 100) -> Text:
    """The whole record as plain styled text (feed text is never parsed as markup); metadata
    values wrap under themselves, not under their labels."""
    text = Text()
    text.append(paper.title + "\n", style="bold")
    marks = ("★ starred · " if starred else "") + ("read" if read else "unread")
    ident = "demo paper (no arXiv id)" if paper.demo else f"arXiv:{paper.id}v{paper.version}"
    text.append(f"{ident} · {paper.primary_category} · {marks}\n\n", style="dim")
    text.append("Authors\n", style="bold underline")

    def indented(value: str, indent: int, style: str = "") -> None:
        lines = textwrap.wrap(value, max(20, width - indent), break_on_hyphens=False) or [""]
        text.append("".join(" " * indent + line + "\n" for line in lines), style=style)

    for author in paper.authors:
        indented(author.name, 2)
        if author.affiliations:
            indented("; ".join(author.affiliations), 6, "italic dim")
    if paper.extra_authors:
        text.append(f"  and {paper.extra_authors} more\n", style="dim")
    if paper.listed_affiliations:
        more = f" and {paper.extra_affiliations} more" if paper.extra_affiliations else ""
        indented(f"Affiliations: {'; '.join(paper.listed_affiliations)}{more}", 2, "italic dim")
    text.append("\nAbstract\n", style="bold underline")
    text.append(paper.abstract + "\n\n")
    rows = [
        ("Categories", ", ".join(paper.categories)),
        ("Topics", ", ".join(topics)),
        ("Comment", paper.comment or ""),
        ("Journal ref", paper.journal_ref or ""),
        ("DOI", paper.doi or ""),
        ("Submitted", f"{paper.published[:10]} (v1)"),
        ("This version", f"v{paper.version}, {paper.updated[:10]}"),
    ]
    room = max(20, width - LABEL_WIDTH - 2)
    for label, value in rows:
        if value:
            text.append(f"{label:>{LABEL_WIDTH}}  ", style="bold")
            lines = textwrap.wrap(value, room, break_long_words=True, break_on_hyphens=False) or [""]
            text.append(("\n" + " " * (LABEL_WIDTH + 2)).join(lines) + "\n")
    # Links on lines of their own, unwrapped where the width allows, so they can be selected whole.
    for label, kind in (("Abstract page", "abs"), ("PDF", "pdf")):
        url = paper_link(paper, kind)
        if url:
            text.append(f"\n{label}\n", style="bold")
            text.append(url, style=Style(link=url, underline=True))
            text.append("\n")
    return text


class DetailScreen(PaperScreen):
    """One paper in full. `[` and `]` move to the previous and next paper of the list without
    going back to it; closing returns the paper last shown, for the list's cursor."""

    BINDINGS = [
        Binding("escape,q", "close", "Back", id="detail.close"),
        Binding("question_mark", "app.help", "Help", id="detail.help"),
        *PAPER_BINDINGS,
        Binding("right_square_bracket", "step(1)", "Next paper", id="detail.next"),
        Binding("left_square_bracket", "step(-1)", "Previous", id="detail.previous"),
        Binding("j,down", "scroll_down", "Down", show=False, id="detail.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="detail.up"),
    ]

    def __init__(self, service: LibraryService, ids: list[str], position: int):
        super().__init__(service)
        self.ids = ids
        self.position = position
        self.paper: Paper | None = None  # the whole record, read once per paper shown

    @property
    def paper_id(self) -> str:
        return self.ids[self.position]

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(id="detail-body"), id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self._show_loading()
        self.load_paper(self.paper_id)

    def _show_loading(self) -> None:
        self.query_one("#detail-body", Static).update(Text("Loading the record…"))

    @work(thread=True, exclusive=True, group="detail")
    def load_paper(self, paper_id: str) -> None:
        paper = self.service.load_paper(paper_id)
        self.app.call_from_thread(self._loaded, paper_id, paper)

    def _loaded(self, paper_id: str, paper: Paper | None) -> None:
        if paper_id != self.paper_id:
            return  # the user has moved on
        self.paper = paper
        self.refresh_detail()

    def refresh_detail(self) -> None:
        body = self.query_one("#detail-body", Static)
        if self.paper is None:
            body.update(Text("This paper is no longer in the cache."))
            return
        library = self.service.library
        body.update(
            detail_text(
                self.paper,
                library.topics_of(self.paper_id),
                read=self.paper_id in library.read,
                starred=self.paper_id in library.starred,
                width=self.size.width - 6,  # the view's padding and scrollbar
            )
        )

    def current_paper_id(self) -> str | None:
        return self.paper_id

    def _current_paper(self) -> Paper | None:
        return self.paper

    def marks_changed(self) -> None:
        self.refresh_detail()

    def on_resize(self) -> None:
        if self.paper is not None:
            self.refresh_detail()

    def action_step(self, step: int) -> None:
        position = self.position + step
        if not 0 <= position < len(self.ids):
            self.app.notify("No more papers this way.")
            return
        self.position = position
        self.paper = None
        self._show_loading()
        self.query_one("#detail", VerticalScroll).scroll_home(animate=False)
        self._set_marks(self.paper_id, read=True)
        self.load_paper(self.paper_id)

    def action_close(self) -> None:
        self.dismiss(self.paper_id)

    def action_scroll_down(self) -> None:
        self.query_one("#detail", VerticalScroll).scroll_down()

    def action_scroll_up(self) -> None:
        self.query_one("#detail", VerticalScroll).scroll_up()
