"""The detail view of one paper: everything we know about it, scrollable."""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from reader.models import Paper


LABEL_WIDTH = 14


def detail_text(paper: Paper, topics: list[str], *, read: bool, starred: bool, width: int = 100) -> Text:
    """The whole record as plain styled text (feed text is never parsed as markup); metadata
    values wrap under themselves, not under their labels."""
    text = Text()
    text.append(paper.title + "\n", style="bold")
    marks = ("★ starred  " if starred else "") + ("read" if read else "unread")
    ident = "demo paper (no arXiv id)" if paper.demo else f"arXiv:{paper.id}v{paper.version}"
    text.append(f"{ident} · {paper.primary_category} · {marks}\n\n", style="dim")
    text.append("Authors\n", style="bold underline")
    for author in paper.authors:
        text.append(f"  {author.name}")
        if author.affiliations:
            text.append(f"  ({'; '.join(author.affiliations)})", style="italic dim")
        text.append("\n")
    if paper.extra_authors:
        text.append(f"  and {paper.extra_authors} more\n", style="dim")
    if paper.listed_affiliations:
        more = f" and {paper.extra_affiliations} more" if paper.extra_affiliations else ""
        text.append(f"  Affiliations: {'; '.join(paper.listed_affiliations)}{more}\n", style="italic dim")
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
        ("Abstract page", paper.abs_url),
        ("PDF", paper.pdf_url),
    ]
    room = max(20, width - LABEL_WIDTH - 2)
    for label, value in rows:
        if value:
            text.append(f"{label:>{LABEL_WIDTH}}  ", style="bold")
            lines = textwrap.wrap(value, room, break_long_words=True, break_on_hyphens=False) or [""]
            text.append(("\n" + " " * (LABEL_WIDTH + 2)).join(lines) + "\n")
    return text


class DetailScreen(Screen):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="detail.close"),
        Binding("j,down", "scroll_down", "Down", show=False),
        Binding("k,up", "scroll_up", "Up", show=False),
    ]

    def __init__(self, paper_id: str):
        super().__init__()
        self.paper_id = paper_id

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(id="detail-body"), id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_detail()

    def refresh_detail(self) -> None:
        library = self.app.library
        paper = self.app.full_paper(self.paper_id)
        body = self.query_one("#detail-body", Static)
        if paper is None:
            body.update(Text("This paper's record is still loading…"))
            return
        body.update(
            detail_text(
                paper,
                library.topics_of(self.paper_id),
                read=self.paper_id in library.read,
                starred=self.paper_id in library.starred,
                width=self.size.width - 6,  # the view's padding and scrollbar
            )
        )

    def on_resize(self) -> None:
        self.refresh_detail()

    def action_scroll_down(self) -> None:
        self.query_one("#detail", VerticalScroll).scroll_down()

    def action_scroll_up(self) -> None:
        self.query_one("#detail", VerticalScroll).scroll_up()
