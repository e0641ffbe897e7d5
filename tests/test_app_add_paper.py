"""The app's "Add a paper" (A, and the command palette), driven with Textual's Pilot: a link
pasted, the paper fetched from the loopback arXiv, shown in the detail view, `s` saving its star
to disk; the demo set giving way to it; offline and a mistyped id said in the dialog, nothing
kept."""

from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input, Static

from reader.app.screens.detail import DetailScreen
from reader.app.screens.dialogs import AddPaperDialog
from reader.app.screens.main import MainScreen
from reader.store import Store
from tests.helpers.add import OTHER, SENT
from tests.helpers.app import make_app, ready
from tests.helpers.pilot import settled

LINK = "https://arxiv.org/abs/2609.10042v2"


async def paste_into_dialog(pilot, text: str) -> AddPaperDialog:
    await pilot.press("plus")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, AddPaperDialog)
    field = dialog.query_one("#paper-ref", Input)
    field.post_message(events.Paste(text))  # as the terminal hands over a paste
    await pilot.pause()
    assert field.value == text
    await pilot.press("enter")
    return dialog


def said(dialog: AddPaperDialog) -> str:
    return str(dialog.query_one(".dialog-error", Static).render())


@pytest.mark.slow
async def test_a_pasted_link_is_fetched_shown_and_starred_with_s(two_topics, fake_arxiv):  # noqa: F811
    fake_arxiv.by_id[SENT.id] = SENT
    app = make_app(two_topics, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await paste_into_dialog(pilot, LINK)
        await settled(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert app.screen.paper_id == SENT.id
        assert SENT.id in app.service.catalog.index  # in the list's cache, for counts and stars
        await pilot.press("s")
        await ready(pilot)
        app.service.flush()
        assert Store(two_topics.data_dir).marks().starred == {SENT.id}
    fresh = Store(two_topics.data_dir)
    assert fresh.load_paper(SENT.id).title == SENT.title and SENT.id not in fresh.new_ids()
    assert [r.params["id_list"] for r in fake_arxiv.requests] == [SENT.id]


@pytest.mark.slow
async def test_the_demo_set_gives_way_to_the_paper_added(demo_store, fake_arxiv):
    fake_arxiv.by_id[OTHER.id] = OTHER
    app = make_app(demo_store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.service.is_demo
        await paste_into_dialog(pilot, "arXiv:2609.10043")
        await settled(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert not app.service.is_demo and app.screen.paper_id == OTHER.id
        await pilot.press("s")
        await ready(pilot)
        app.service.flush()
        assert Store(demo_store.data_dir).marks().starred == {OTHER.id}  # kept: not a demo mark


@pytest.mark.slow
async def test_offline_is_said_in_the_dialog_and_nothing_is_kept(two_topics):  # noqa: F811
    app = make_app(two_topics)  # its arXiv: a closed port
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await paste_into_dialog(pilot, LINK)
        await settled(pilot, lambda: said(dialog).startswith("Not added"))
        assert said(dialog).startswith("Not added: arXiv cannot be reached")
        assert app.screen is dialog and dialog.query_one("#paper-ref", Input).value == LINK  # kept, to try again
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
    assert SENT.id not in Store(two_topics.data_dir).index()


@pytest.mark.slow
async def test_a_mistyped_id_and_one_arxiv_has_not_are_said_in_the_dialog(two_topics, fake_arxiv):  # noqa: F811
    app = make_app(two_topics, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await paste_into_dialog(pilot, "https://example.org/abs/2609.10042")
        await pilot.pause()
        assert said(dialog).startswith("'https://example.org/abs/2609.10042' is not an arXiv id")
        assert fake_arxiv.requests == []
        field = dialog.query_one("#paper-ref", Input)
        field.value = "2609.99999"
        await pilot.press("enter")
        await settled(pilot, lambda: said(dialog).startswith("ArXiv has no paper"))
        assert said(dialog) == "ArXiv has no paper 2609.99999: check the id."


async def test_add_a_paper_is_in_the_command_palette_and_help(two_topics):  # noqa: F811
    app = make_app(two_topics)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        commands = {command.title: command.help for command in app.get_system_commands(app.screen)}
        assert commands["Add a paper"] == "key: +"
        rows = [row for _, rows in app.help_sections() for row in rows]
        assert ("+", "Add a paper by its arXiv id or link: fetched, kept and shown") in rows
