"""References you can follow in the app, driven with Textual's Pilot: `b` lists a stored text's
references (from the detail view and the full text), Enter reads a cached one and Esc comes
back, `a` adds one not cached from the loopback arXiv; the detail view says how many cached
papers cite the paper, and `c` lists them."""

from __future__ import annotations

import pytest

from reader.app.screens.detail import DetailScreen
from reader.app.screens.full_text import FullTextScreen
from reader.app.screens.references import PaperLinksScreen
from reader.fulltext.document import HEADING, PARAGRAPH, REFERENCE, Block, Document
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import TextIndex
from reader.store import Store
from tests.helpers.add import SENT
from tests.helpers.app import make_app, open_paper, ready
from tests.helpers.pilot import settled


def store_text(data_dir, paper, references: list[tuple[str, str | None]]) -> None:
    """A stored text, indexed as a fetched one is when it is stored."""
    blocks = [Block(PARAGRAPH, "Words."), Block(HEADING, "References")]
    blocks += [Block(REFERENCE, f"[{n}] {text}", arxiv_id, n) for n, (text, arxiv_id) in enumerate(references, 1)]
    document = Document(paper.id, paper.version, "html", tuple(blocks))
    TextIndex(data_dir).index_stored(document, TextStore(data_dir).save(document))


def rows(screen: PaperLinksScreen) -> list[str]:
    links = screen.links
    return [links.get_option_at_index(i).prompt.plain for i in range(links.option_count)]  # type: ignore[union-attr]


def record_text(screen: DetailScreen) -> str:
    return " ".join(line.strip() for line in screen.record_view.lines.texts)


@pytest.mark.slow
async def test_references_open_on_enter_esc_returns_a_key_adds_one_and_cited_by_lists_the_citing(store, papers, fake_arxiv):  # noqa: F811
    fake_arxiv.by_id[SENT.id] = SENT
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        paper = store.load_paper(app.main.paper_list.current)
        cited, citing = [p for p in papers[:30] if p.id != paper.id][:2]
        store_text(
            store.data_dir,
            paper,
            [
                (f"A cached paper. arXiv:{cited.id}.", cited.id),
                (f"Scaling laws. arXiv:{SENT.id}.", SENT.id),
                ("A book [bold]not markup[/].", None),
            ],
        )
        store_text(store.data_dir, citing, [(f"The paper. arXiv:{paper.id}.", paper.id)])
        await open_paper(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.paper_id == paper.id
        assert "b lists its references · cited by 1 paper in your library: c lists them" in record_text(detail)

        await pilot.press("b")
        await ready(pilot)
        links = app.screen
        assert isinstance(links, PaperLinksScreen)
        assert rows(links) == [
            f"[1] A cached paper. arXiv:{cited.id}.  ◆ arXiv:{cited.id} in your cache: ⏎ reads it",
            f"[2] Scaling laws. arXiv:{SENT.id}.  arXiv:{SENT.id}: a adds it",
            "[3] A book [bold]not markup[/].",
        ]
        await pilot.press("enter")  # the first row, cached: read in the detail view
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.paper_id == cited.id
        await pilot.press("escape")
        await ready(pilot)
        assert app.screen is links

        await pilot.press("j", "enter")  # not cached: said, nothing fetched
        await ready(pilot)
        assert app.screen is links and fake_arxiv.requests == []
        await pilot.press("a")
        await settled(pilot, lambda: SENT.id in app.service.catalog.index)
        assert [r.params["id_list"] for r in fake_arxiv.requests] == [SENT.id]
        assert Store(store.data_dir).load_paper(SENT.id).title == SENT.title
        assert rows(links)[1].endswith(f"◆ arXiv:{SENT.id} in your cache: ⏎ reads it")
        await pilot.press("enter")  # added: it reads now
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.paper_id == SENT.id
        await pilot.press("escape", "escape")
        await ready(pilot)
        assert app.screen is detail

        await pilot.press("c")
        await ready(pilot)
        cited_by = app.screen
        assert isinstance(cited_by, PaperLinksScreen) and cited_by is not links
        assert rows(cited_by) == [f"{citing.title} (arXiv:{citing.id}v{citing.version})  ◆ arXiv:{citing.id} in your cache: ⏎ reads it"]
        await pilot.press("enter")
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.paper_id == citing.id
        await pilot.press("escape", "escape")
        await ready(pilot)
        assert app.screen is detail

        await pilot.press("v")  # the full text lists them too
        await ready(pilot)
        assert isinstance(app.screen, FullTextScreen)
        await pilot.press("b")
        await ready(pilot)
        assert isinstance(app.screen, PaperLinksScreen) and rows(app.screen)[0].startswith("[1] A cached paper.")
