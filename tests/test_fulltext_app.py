"""The full text in the app (issue 30): `v` in the detail view, stored or fetched, offline, hostile."""

from __future__ import annotations

import pytest

from reader.app.screens.detail import DetailScreen
from reader.app.screens.full_text import FullTextScreen
from reader.app.screens.help import HelpScreen
from reader.app.widgets.footer import KeyFooter
from reader.fulltext.document import HEADING, PARAGRAPH, REFERENCE, TITLE, Block, Document
from reader.fulltext.store import TextStore
from tests.fulltext_pages import HTML, PAPER_HTML
from tests.helpers.app import full_text_app, open_paper, ready
from tests.helpers.pilot import screen_text


def shown(app) -> list[str]:
    return [line.rstrip() for line in app.screen.query_one("#full-text").lines.texts]


async def open_full_text(pilot) -> FullTextScreen:
    """`v` in the detail view (opened first when not open), then wait for the text or why not."""
    if not isinstance(pilot.app.screen, DetailScreen):
        await open_paper(pilot)
    await pilot.press("v")
    await ready(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FullTextScreen)
    for _ in range(200):  # a fetch runs in a child process
        if screen.document is not None or screen.problem is not None and not screen.problem.startswith("Fetching"):
            break
        await pilot.pause(0.05)
        await ready(pilot)
    return screen


async def test_v_shows_a_stored_text_offline_and_the_detail_view_counts_starred_citations(store, papers):
    app = full_text_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        paper, cited = detail.paper, papers[5].id  # a cached paper, starred
        store.set_marks([cited], starred=True)
        app.service.catalog.starred.add(cited)
        TextStore(store.data_dir).save(
            Document(
                paper.id,
                paper.version,
                "html",
                (
                    Block(TITLE, "A Stored Title"),
                    Block(HEADING, "1 Introduction"),
                    Block(PARAGRAPH, "word " * 1000 + "end."),
                    Block(HEADING, "References"),
                    Block(REFERENCE, f"[1] Toolformer. arXiv:{cited}.", cited),
                    Block(REFERENCE, "[2] Not cached. arXiv:2101.00009.", "2101.00009"),
                ),
            )
        )
        await pilot.press("v")
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, FullTextScreen) and screen.problem is None
        lines = shown(app)
        assert "A Stored Title" in lines and "1 Introduction" in lines
        body = [line for line in lines if line.startswith("word")]
        assert len(body) > 1 and all(len(line) <= 114 for line in body)  # wrapped to the screen
        assert f"[1] Toolformer. arXiv:{cited}.  ◆ arXiv:{cited} in your cache · ★ starred" in lines
        assert "[2] Not cached. arXiv:2101.00009." in lines  # not marked: not in the cache
        await pilot.press("G")
        assert screen.query_one("#full-text").scroll_offset.y > 0  # the detail view's keys scroll it
        await pilot.press("escape")
        await ready(pilot)
        assert app.screen is detail
        record = "\n".join(detail.record_view.lines.texts)
        assert "stored (v" in record and "cites 1 of your starred papers" in record


@pytest.mark.slow
async def test_v_with_arxiv_unreachable_says_why_in_one_line(store):
    app = full_text_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = await open_full_text(pilot)
        assert screen.document is None
        lines = [line for line in shown(app) if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("  No full text: arXiv cannot be reached")
        await pilot.press("escape")
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen)


@pytest.mark.slow
async def test_v_fetches_in_the_background_and_keeps_the_text(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, PAPER_HTML)
        screen = await open_full_text(pilot)
        assert screen.document is not None, screen.problem
        lines = shown(app)
        assert "Reward Shaping for Tool-Using Agents" in lines and "1 Introduction" in lines
        assert not any("CHROME" in line for line in lines)
        assert [r.path for r in fake_arxiv.document_requests()] == [f"/html/{paper.id}v{paper.version}"]
    assert TextStore(store.data_dir).stored_versions() == {paper.id: paper.version}


@pytest.mark.slow
async def test_v_on_a_page_cut_short_says_so_and_stores_nothing(store, fake_arxiv):
    from tests.arxiv_server import Fault

    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, PAPER_HTML)
        fake_arxiv.faults = [Fault("cut")]  # no Content-Length, half the page, the connection closed
        screen = await open_full_text(pilot)
        assert screen.document is None
        lines = [line for line in shown(app) if line.strip()]
        assert lines == ["  No full text: arXiv's page arrived cut short (the connection closed before its end) (gave up after 1 tries)"]
    assert TextStore(store.data_dir).stored_versions() == {}


async def test_hostile_text_is_shown_literally(store):
    app = full_text_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        hostile = "[bold red]not bold[/] [link=https://evil.example]x[/link] \\[escaped] [@click=app.quit]quit[/]"
        TextStore(store.data_dir).save(Document(paper.id, paper.version, "html", (Block(PARAGRAPH, hostile),)))
        await pilot.press("v")
        await ready(pilot)
        assert hostile in shown(app)
        assert app.is_running


def test_full_text_snapshot(snap_compare, store):
    async def run_before(pilot):
        await ready(pilot)
        await open_paper(pilot)
        paper = pilot.app.screen.paper
        TextStore(store.data_dir).save(
            Document(
                paper.id,
                paper.version,
                "html",
                (
                    Block(TITLE, "Reward Shaping for Tool-Using Agents"),
                    Block("authors", "Ada Lovelace; Alan Turing"),
                    Block(HEADING, "1 Introduction"),
                    Block(PARAGRAPH, r"We shape the reward with a potential $\Phi(s)$ so that the optimal policy is unchanged, " * 3),
                    Block("math", r"$$r'(s,a,s') = r(s,a,s') + \gamma\Phi(s') - \Phi(s)$$ (1)"),
                    Block("item", "• a potential learned from demonstrations;"),
                    Block("row", "Method | Success | Steps"),
                    Block(HEADING, "References"),
                    Block(REFERENCE, "[1] T. Schick et al. Toolformer. arXiv:2302.04761, 2023.", "2302.04761"),
                ),
            )
        )
        await pilot.press("v")
        await ready(pilot)

    assert snap_compare(full_text_app(store), terminal_size=(100, 30), run_before=run_before)


@pytest.mark.slow
async def test_at_60_columns_the_error_wraps_whole_and_help_is_in_the_footer_and_on_question_mark(store):
    app = full_text_app(store)
    async with app.run_test(size=(60, 24)) as pilot:
        await ready(pilot)
        screen = await open_full_text(pilot)
        assert screen.problem is not None and screen.problem.startswith("No full text: arXiv cannot be reached")
        lines = [line for line in shown(app) if line.strip()]
        assert len(lines) > 1 and all(len(line) <= 54 and line.startswith("  ") for line in lines), lines
        assert " ".join(line.strip() for line in lines) == screen.problem  # every word of it, none cut
        drawn = screen_text(app)
        assert all(line in drawn for line in lines)
        footer = str(screen.query_one(KeyFooter).render())
        assert footer.startswith(" esc Back ") and " ? Help " in footer, footer
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        title, rows = app.screen.sections[0]  # what the help screen shows first
        assert title == "Full text" and ("esc / q", "Back") in rows and ("j / ↓", "Down") in rows
        await pilot.press("escape", "escape")
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen)


async def test_math_shows_in_unicode_and_t_toggles_the_whole_view_to_tex(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, PAPER_HTML)  # LaTeXML's real output
        screen = await open_full_text(pilot)
        assert screen.document is not None, screen.problem
        unicode = shown(app)
        assert "    r′(s, a, s′) = r(s, a, s′) + γΦ(s′) − Φ(s). (1)" in unicode
        assert "  • a bound on the regret, O(√T);" in unicode
        assert any("potential Φ(s) so that" in line for line in unicode) and not any("$" in line for line in unicode)
        assert "TeX/Unicode" in str(screen.query_one(KeyFooter).render())

        await pilot.press("T")
        await ready(pilot)
        tex = shown(app)
        assert r"    $$r^{\prime}(s,a,s^{\prime})=r(s,a,s^{\prime})+\gamma\Phi(s^{\prime})-\Phi(s).$$ (1)" in tex
        assert r"  • a bound on the regret, $O(\sqrt{T})$;" in tex and not any("Φ" in line for line in tex)

        await pilot.press("T")
        await ready(pilot)
        assert shown(app) == unicode
