"""The app's triage views (For you, Rising) and its export dialog, driven with Pilot."""

from __future__ import annotations

import json

import pytest
import rispy

from reader.app.screens.export import ExportDialog
from reader.app.widgets.chart import MomentumChart
from reader.app.widgets.rising import RisingTable
from reader.service import ALL, FOR_YOU, HIDDEN, RISING, View
from reader.store import Store
from tests.test_app import card_text, make_app, ready
from tests.themes import theme_papers


@pytest.fixture
def themes():
    papers = theme_papers(20)
    return papers["agents"], papers["proteins"]


@pytest.fixture
def store(data_dir, themes):
    agents, proteins = themes
    store = Store(data_dir)
    store.add_topic("Agents", "abs:agents")
    store.add_topic("Proteins", "abs:proteins")
    store.save_papers(agents, "Agents")
    store.save_papers(proteins, "Proteins")
    return store


async def choose(pilot, view: View) -> None:
    """Move the sidebar's highlight to `view` with the keys a user would press."""
    sidebar = pilot.app.main.sidebar
    if pilot.app.focused is not sidebar:
        await pilot.press("tab")
    assert pilot.app.focused is sidebar
    await pilot.press("home")
    for _ in range(len(sidebar.views)):
        if pilot.app.main.view == view:
            break
        await pilot.press("j")
    assert pilot.app.main.view == view
    await ready(pilot)


async def test_for_you_asks_for_stars_then_ranks_the_starred_theme_first_and_says_why(store, themes):
    agents, proteins = themes
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, FOR_YOU)
        assert app.main.paper_list.ids == []
        assert "Star 3 more papers" in app.main.paper_list.empty_message

        store.set_marks([p.id for p in agents[:5]], starred=True)
        for paper in agents[:5]:
            app.service.library.starred.add(paper.id)
        app.main.start_ranking()
        await ready(pilot)
        shown = app.main.paper_list.ids
        agent_ids = {p.id for p in agents[5:]}
        assert set(shown[: len(agent_ids)]) == agent_ids  # every other agents paper above every protein paper
        assert not set(shown) & {p.id for p in agents[:5]}  # starred papers are chosen already
        last_line = card_text(app, 0).splitlines()[-1]
        assert "because:" in last_line
        assert "For you" in app.query_one(MomentumChart).title


async def test_for_you_ranks_again_after_marks_change(store, themes):
    agents, proteins = themes
    store.set_marks([p.id for p in agents[:3]], starred=True)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, FOR_YOU)
        first = app.main.paper_list.current
        await pilot.press("shift+tab")  # back to the list
        await pilot.press("s")  # a fourth star: the ranking is retrained once marking pauses
        await pilot.pause(2.5)
        await ready(pilot)
        assert first not in app.main.paper_list.ids
        assert "4 stars" in app.query_one(MomentumChart).headline


async def test_rising_lists_topics_and_enter_opens_one(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, RISING)
        table = app.query_one(RisingTable)
        assert table.display and not app.main.paper_list.display
        names = {str(table.get_row_at(i)[0]) for i in range(table.row_count)}
        assert names == {"Agents", "Proteins"}
        table.focus()
        await pilot.press("enter")
        await ready(pilot)
        assert app.main.view.topic in names and app.main.paper_list.display


@pytest.mark.parametrize("format", ["ris", "csl-json"])
async def test_export_dialog_writes_the_chosen_format_of_the_papers_shown(store, themes, tmp_path, format):
    agents, _ = themes
    target = tmp_path / "out.bib"
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, View.of_topic("Agents"))
        await pilot.press("shift+tab", "s", "e")  # one star; export offers it and the topic's papers
        await ready(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#path").value = str(target)
        await pilot.press("shift+tab")  # the format
        await pilot.press(*["down"] * (1 if format == "ris" else 2), "enter")
        assert dialog.query_one("#path").value.endswith(".ris" if format == "ris" else ".json")
        await pilot.press("shift+tab", "down", "enter")  # the papers shown, not only the starred one
        await pilot.press("tab", "tab", "enter")  # past the path to Export
        await ready(pilot)
        written = target.with_suffix(".ris" if format == "ris" else ".json")
        text = written.read_text()
    if format == "ris":
        entries = rispy.loads(text)
    else:
        entries = json.loads(text)
    assert len(entries) == len(agents)
    assert store.setting("export_format") == format


async def test_x_hides_a_paper_x_again_brings_it_back_and_hidden_lists_it(store, data_dir):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        first = app.main.paper_list.current
        await pilot.press("x")
        await ready(pilot)
        assert Store(data_dir).marks().hidden == {first}
        assert "x brings it back" in card_text(app, 0)  # still in place: x again undoes it
        await pilot.press("x")
        await ready(pilot)
        assert Store(data_dir).marks().hidden == set()
        await pilot.press("x")
        await ready(pilot)
        await choose(pilot, View.of_topic("Agents"))
        await choose(pilot, HIDDEN)  # the sidebar gained a Hidden entry
        assert app.main.paper_list.ids == [first]
        assert "x brings it back" not in card_text(app, 0)
        await choose(pilot, ALL)
        assert first not in app.main.paper_list.ids
