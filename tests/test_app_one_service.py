"""A mark made in the app is saved wherever it was made, also after the demo set gave way to the
cache: the app has one library service for its whole life, and every screen, dialog and part
holds that one (none keeps the demo's). Each mark is read back from disk, not from memory."""

from __future__ import annotations

import asyncio

import pytest

from reader.app.screens.detail import DetailScreen
from reader.app.screens.full_text import FullTextScreen
from reader.app.screens.main import MainScreen
from reader.app.screens.similar import SimilarScreen
from reader.app.screens.tags import TagDialog
from reader.app.widgets.note import NoteEditor
from reader.fulltext.document import HEADING, PARAGRAPH, TITLE, Block, Document
from reader.fulltext.store import TextStore
from reader.store import Store
from tests.helpers.app import make_app, open_paper, ready
from tests.helpers.pilot import until
from tests.sample_papers import sample_papers

DEMO_TOPIC = "RL for LLM Agents"  # the demo_store fixture's topic


async def saved(app) -> Store:
    """The data directory as another process reads it, once the app's pending writes are done."""
    await asyncio.to_thread(app.service.flush)
    return Store(app.store.data_dir)


async def tag(pilot, name: str) -> None:
    """`t`, a tag typed, Enter: the tag dialog opened on the current paper, and saved."""
    await pilot.press("t")
    assert isinstance(pilot.app.screen, TagDialog)
    await pilot.press(*name, "enter")
    await ready(pilot)
    assert not isinstance(pilot.app.screen, TagDialog)


@pytest.mark.slow
async def test_each_mark_key_in_each_view_is_saved_after_the_demo_gave_way(demo_store, data_dir):
    papers = sample_papers(12)
    app = make_app(demo_store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        service = app.service
        assert service.is_demo
        # On the demo: a star (kept in memory only), the detail view opened and closed (it is
        # kept for the next opening), its full text asked for.
        await pilot.press("s")
        demo_starred = set(service.catalog.starred)
        assert demo_starred
        await open_paper(pilot)
        await pilot.press("v")
        assert app.message_log[-1].startswith("The demo set has no full texts")
        await pilot.press("escape")
        await ready(pilot)

        Store(data_dir).save_papers(papers, DEMO_TOPIC)  # as a cron `reader sync` would
        main = app.main
        await until(pilot, lambda: not app.service.is_demo and len(main.paper_list.ids) == len(papers))
        await until(pilot, lambda: main.loaded)  # the search index built (for "more like this")
        assert app.service is service  # the one service: the demo gave way inside it
        assert not (await saved(app)).marks().starred  # the demo's star was never saved

        # The main list: s, r, x and t on the first paper.
        assert main.paper_list.current == papers[0].id
        await pilot.press("s", "r", "x")
        await tag(pilot, "from-list")
        disk = await saved(app)
        marks = disk.marks()
        assert papers[0].id in marks.starred and papers[0].id in marks.read and papers[0].id in marks.hidden
        assert disk.tags_of([papers[0].id]) == {papers[0].id: ("from-list",)}

        # The detail view (the one opened on the demo, kept): opening marks read, then s, r
        # (unread again), x, t and N.
        await pilot.press("j")
        await open_paper(pilot)
        detail = app.screen
        assert isinstance(detail, DetailScreen) and detail.paper_id == papers[1].id
        second = papers[1].id
        assert second in (await saved(app)).marks().read
        await pilot.press("s")
        assert second in (await saved(app)).marks().starred  # the star of the issue: saved
        await pilot.press("r", "x")
        await tag(pilot, "from-detail")
        assert app.screen is detail
        await pilot.press("N", *"a note")
        assert isinstance(app.focused, NoteEditor)
        disk = await saved(app)
        marks = disk.marks()
        assert second in marks.starred and second not in marks.read and second in marks.hidden
        assert disk.tags_of([second]) == {second: ("from-detail",)}
        assert disk.note(second) == "a note"
        await pilot.press("escape")  # the note editor closed
        await ready(pilot)

        # The full-text view opened from it reads the cache's stored text (not the demo's none).
        TextStore(data_dir).save(
            Document(
                second,
                papers[1].version,
                "html",
                (
                    Block(TITLE, "A Stored Title"),
                    Block(HEADING, "1 Introduction"),
                    Block(PARAGRAPH, "Stored words."),
                ),
            )
        )
        await pilot.press("v")
        await ready(pilot)
        full = app.screen
        assert isinstance(full, FullTextScreen)
        await until(pilot, lambda: full.document is not None or full.problem is not None)
        assert full.problem is None and "A Stored Title" in full.view.lines.texts
        await pilot.press("escape")
        await ready(pilot)
        assert app.screen is detail

        # The similar view (m): s, r, x and t on its first paper.
        await pilot.press("m")
        await ready(pilot)
        like = app.screen
        assert isinstance(like, SimilarScreen)
        await until(pilot, lambda: bool(like.paper_list.ids))
        liked = like.paper_list.current
        assert liked is not None and liked not in (papers[0].id, second)
        await pilot.press("s", "r", "x")
        await tag(pilot, "from-like")
        disk = await saved(app)
        marks = disk.marks()
        assert liked in marks.starred and liked in marks.read and liked in marks.hidden
        assert disk.tags_of([liked]) == {liked: ("from-like",)}
        assert not (marks.starred | marks.read | marks.hidden) & demo_starred  # no demo id ever reached the cache

        await pilot.press("escape", "escape")
        await ready(pilot)
        assert isinstance(app.screen, MainScreen)
