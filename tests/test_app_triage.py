"""The app's triage views (For you, Rising) and its export dialog, driven with Pilot."""

from __future__ import annotations

import dataclasses
import json
import threading
import time

import pytest
import rispy

from reader.app.screens import triage as triage_screen
from reader.app.screens.export import ExportDialog
from reader.app.widgets.chart import MomentumChart
from reader.app.widgets.rising import RisingTable
from reader.service import ALL, FOR_YOU, HIDDEN, NEW, RISING, UPDATED, View
from reader.store import Store
from tests.helpers.app import card_text, choose, make_app, ready
from tests.helpers.timing import scaled
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
    store.settle_index()  # as a sync ends: the app reads the index packed (no string per paper)
    return store


@pytest.fixture
def three_stars(store, themes):
    """The store with three papers of the agents theme starred: enough for For you to rank."""
    agents, _ = themes
    store.set_marks([p.id for p in agents[:3]], starred=True)
    return store


@pytest.mark.slow
async def test_for_you_asks_for_stars_then_ranks_the_starred_theme_first_and_says_why(store, themes):
    agents, proteins = themes
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, FOR_YOU)
        assert list(app.main.paper_list.ids) == []
        assert "Star 3 more papers" in app.main.paper_list.empty_message
        plist = app.main.paper_list
        shown = " ".join(plist.render_line(y).text.strip() for y in range(1, 5)).strip()
        assert shown == plist.empty_message  # wrapped at words, nothing cut off
        assert app.query_one(MomentumChart).headline == "Not ranked yet: 0 of 3 stars so far"

        store.set_marks([p.id for p in agents[:5]], starred=True)
        for paper in agents[:5]:
            app.service.catalog.starred.add(paper.id)
        app.main.start_ranking()
        await ready(pilot)
        shown = app.main.paper_list.ids
        agent_ids = {p.id for p in agents[5:]}
        assert set(shown[: len(agent_ids)]) == agent_ids  # every other agents paper above every protein paper
        assert not set(shown) & {p.id for p in agents[:5]}  # starred papers are chosen already
        *_, reasons, gap = card_text(app, 0).splitlines()
        assert "because:" in reasons
        assert gap.strip("▌ ") == ""  # a blank line between cards, though the reasons fill the last text line
        assert shown[1] in card_text(app, 1).splitlines()[0]  # the next card starts after that blank line
        assert "For you" in app.query_one(MomentumChart).title
        await choose(pilot, ALL)  # the other views keep their height
        assert "because:" not in card_text(app, 0) and app.main.paper_list.ids[1] in card_text(app, 1).splitlines()[0]


@pytest.mark.slow
async def test_for_you_of_one_topic_ranks_its_papers_only(three_stars, themes):
    agents, proteins = themes
    app = make_app(three_stars)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, View.of_topic("Agents"))
        await choose(pilot, FOR_YOU)
        assert set(app.main.paper_list.ids) == {p.id for p in agents[3:] + proteins}  # every topic's unstarred papers
        app.main.triage.for_you_scope()  # f: the topic viewed last (its papers go to the ranking's process)
        await ready(pilot)
        assert list(app.main.paper_list.ids) and set(app.main.paper_list.ids) == {p.id for p in agents[3:]}
        assert "the unread papers of Agents" in app.query_one(MomentumChart).headline


@pytest.mark.slow
async def test_for_you_says_it_is_ranking_until_the_first_ranking_arrives(three_stars):
    app = make_app(three_stars)
    ranking_may_end = threading.Event()
    rank = app.service.rank_for_you

    def slow_rank(marks):
        ranking_may_end.wait(scaled(10))  # as the first ranking of a large cache takes seconds
        return rank(marks)

    app.service.rank_for_you = slow_rank
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.main.loaded:  # not ready() (nor choose()): the first ranking waits
            await pilot.pause(0.05)
        app.main.view = FOR_YOU
        await pilot.pause()
        chart = app.query_one(MomentumChart)
        assert chart.headline.startswith("Ranking by 3 stars and 0 read papers") and "Ranked" not in chart.headline
        assert app.main.paper_list.empty_message.startswith("Ranking ")
        ranking_may_end.set()
        await ready(pilot)
        assert chart.headline.startswith("Ranked by 3 stars") and app.main.paper_list.ids


@pytest.mark.slow
async def test_for_you_ranks_again_after_marks_change(three_stars):
    app = make_app(three_stars)
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


@pytest.mark.slow
async def test_for_you_counts_the_ranked_papers_left_once_marking_pauses(three_stars, monkeypatch):
    # The pause that ends marking made longer than four key presses take on a loaded machine
    # (0.3 s: the recount came before the last press, now and then).
    monkeypatch.setattr(triage_screen, "RECOUNT_DELAY", 1.5)
    app = make_app(three_stars)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, FOR_YOU)
        ranked = len(app.main.paper_list.ids)

        def label() -> str:
            return str(app.main.sidebar.get_option_at_index(app.main.sidebar.views.index(FOR_YOU)).prompt)

        assert label().endswith(f"{ranked:,} ranked")
        await pilot.press("shift+tab", "r", "j", "r")  # two papers read: no longer left to read
        assert label().endswith(f"{ranked:,} ranked")  # not counted while marking
        await pilot.pause(2.0)
        assert label().endswith(f"{ranked - 2:,} ranked")


@pytest.mark.slow
async def test_for_you_header_wraps_at_a_separator_in_a_narrow_terminal(three_stars):
    app = make_app(three_stars)
    async with app.run_test(size=(70, 22)) as pilot:
        await ready(pilot)
        await choose(pilot, View.of_topic("Agents"))
        await choose(pilot, FOR_YOU)  # a topic seen: the header offers "f: this topic only" too
        chart = app.query_one(MomentumChart)
        assert chart.headline.startswith("Ranked by 3 stars") and " · f: " in chart.headline
        lines = chart.render().plain.splitlines()
        assert lines[:2] == ["Ranked by 3 stars and 0 read papers: the", "unread papers of every topic"]  # no title: too low
        assert not any(line.rstrip().endswith("·") or line.startswith("·") for line in lines)


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


async def test_rising_says_what_a_missing_figure_means(store):
    store.add_topic("Unsynced", "ti:nothing")  # never synced: its weeks are not known whole
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, RISING)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.query_one(RisingTable)
        row = next(table.get_row_at(i) for i in range(table.row_count) if str(table.get_row_at(i)[0]) == "Unsynced")
        assert row[1:3] == ["—", "—"]
        assert app.query_one(MomentumChart).headline.endswith(" · — means not synced (R syncs)")


@pytest.mark.parametrize("weeks_synced, title", [(20, "Language · rising: process reward, agent memory, tool use"), (10, "Language")])
async def test_a_topics_header_names_rising_terms_only_when_its_twelve_weeks_are_synced(data_dir, weeks_synced, title):
    from datetime import timedelta

    from reader.core.coverage import day_end, day_start
    from tests.corpus import TODAY
    from tests.themes import rising_papers

    store = Store(data_dir)
    store.add_topic("Language", "ti:language")
    store.save_papers(rising_papers(), "Language")
    synced = [(day_start(TODAY - timedelta(weeks=weeks_synced)), day_end(TODAY))]
    store.sync_file.record_progress("Language", "ti:language", synced, TODAY.isoformat(), None)
    app = make_app(store)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await choose(pilot, View.of_topic("Language"))
        await ready(pilot)
        assert app.query_one(MomentumChart).title == title


@pytest.mark.slow
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


async def test_at_40x15_the_export_dialog_scrolls_to_both_its_buttons(three_stars):
    from textual.widgets import Button

    app = make_app(three_stars)
    async with app.run_test(size=(40, 15)) as pilot:
        await ready(pilot)
        await pilot.press("e")
        await ready(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        box = dialog.query_one(".dialog")
        assert box.max_scroll_y > 0  # too tall for 15 lines: it scrolls
        shown = box.scrollable_content_region
        for button in ("#submit", "#cancel"):
            await pilot.press("tab")  # from the path to Export, then to Cancel
            await pilot.pause()
            assert app.focused is dialog.query_one(button, Button)
            assert shown.contains_region(app.focused.region), (button, app.focused.region, shown)
        await pilot.press("enter")  # Cancel
        await pilot.pause()
        assert not isinstance(app.screen, ExportDialog)


@pytest.mark.slow
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
        assert list(app.main.paper_list.ids) == [first]
        assert "x brings it back" not in card_text(app, 0)
        await choose(pilot, ALL)
        assert first not in app.main.paper_list.ids


@pytest.fixture
def lived_in(store, themes):
    """A cache used before: synced, visited, then two new papers, a paper read at v1 now at v2, a
    watch, a tag and a note."""
    agents, proteins = themes
    store.sync_file.record_sync("Agents", "abs:agents")
    store.record_visit("app")
    time.sleep(0.01)  # arrivals are stamped in milliseconds
    newcomers = [dataclasses.replace(p, id=f"2611.{30000 + i}") for i, p in enumerate(proteins[:2])]
    store.save_papers(newcomers, "Agents")
    revised = agents[3]
    store.set_marks([revised.id], read=True)
    store.save_papers([dataclasses.replace(revised, version=revised.version + 1)], None)
    store.add_watch("Levine", "au:levine")
    store.set_tags([agents[0].id], add=["Group"])
    store.set_note(agents[0].id, "Read for the *seminar*")
    return newcomers, revised


def prompts(app) -> list[str]:
    sidebar = app.main.sidebar
    return [str(sidebar.get_option_at_index(i).prompt) for i in range(sidebar.option_count)]


@pytest.mark.slow
async def test_new_updated_watches_and_tags_show_in_the_sidebar_views_and_cards(store, themes, lived_in):
    agents, _ = themes
    newcomers, revised = lived_in
    levine = {p.id for p in agents + themes[1] if any(a.name == "S. Levine" for a in p.authors)}
    app = make_app(store)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        shown = prompts(app)
        assert "New\n2 papers · 2 unread" in shown and "Updated\n1 paper" in shown
        assert "Agents · 2 new\n22 papers · 21 unread" in shown  # one read (the revised paper)
        assert shown[shown.index("WATCHES") + 1] == f"Levine\n{len(levine)} papers · {len(levine)} unread"
        assert shown[shown.index("TAGS") + 1] == "Group\n1 paper"

        await choose(pilot, NEW)
        assert set(app.main.paper_list.ids) == {p.id for p in newcomers}
        await choose(pilot, UPDATED)
        assert list(app.main.paper_list.ids) == [revised.id]
        assert f"updated since you read it (v{revised.version} → v{revised.version + 1})" in card_text(app, 0)
        await choose(pilot, View.of_watch("Levine"))
        assert set(app.main.paper_list.ids) == levine
        assert "◆ Levine" in card_text(app, 0)
        await choose(pilot, View.of_tag("Group"))
        assert list(app.main.paper_list.ids) == [agents[0].id]
        assert "#Group" in card_text(app, 0) and "✎ note" in card_text(app, 0)

        await choose(pilot, UPDATED)
        await pilot.press("shift+tab", "enter", "escape")  # reading the new version clears it
        await ready(pilot)
        await choose(pilot, ALL)
        await choose(pilot, UPDATED)
        assert list(app.main.paper_list.ids) == []
        assert "Updated\nno new versions" in prompts(app)


@pytest.mark.slow
async def test_watches_are_added_with_w_and_tags_renamed_and_deleted_after_asking(store, data_dir, lived_in):
    app = make_app(store)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        await pilot.press("w", *"Finn", "tab", *"au:finn", "enter")
        await ready(pilot)
        assert [w.name for w in Store(data_dir).watches()] == ["Levine", "Finn"]
        assert app.main.view == View.of_watch("Finn") and app.main.paper_list.ids
        assert app.query_one(MomentumChart).headline == "Papers matching au:finn"
        await pilot.press("d")
        assert "Stop watching 'Finn'?" in str(app.screen.query_one(".dialog-title").render())
        await pilot.press("y")
        await ready(pilot)
        assert [w.name for w in Store(data_dir).watches()] == ["Levine"]

        await choose(pilot, View.of_tag("Group"))
        await pilot.press("f2")
        app.screen.query_one("#text").value = "Seminar"
        await pilot.press("enter")
        await ready(pilot)
        app.service.flush()
        await pilot.pause()
        assert Store(data_dir).tags() == {"Seminar": 1}
        assert app.main.view == View.of_tag("Seminar")
        await pilot.press("d", "n")  # asked, and no
        app.service.flush()
        assert Store(data_dir).tags() == {"Seminar": 1}
        await pilot.press("d", "y")
        app.service.flush()
        await ready(pilot)
        assert Store(data_dir).tags() == {}
        assert "TAGS" not in prompts(app)


async def test_a_tag_renamed_before_the_app_asks_to_be_told_still_shows_under_its_new_name(store, data_dir, lived_in):
    """The writer thread may finish a rename before the screen hands it its callback (a fast
    disk): the callback then runs at once on the UI's thread, where it must still be told."""
    app = make_app(store)
    async with app.run_test(size=(120, 50)) as pilot:
        await ready(pilot)
        tags_notes = app.service.tags_notes
        rename = tags_notes.rename_tag

        def rename_at_once(old, new, on_error=None):
            done = rename(old, new, on_error=on_error)
            done.result()  # written before the caller adds its callback
            return done

        tags_notes.rename_tag = rename_at_once
        await choose(pilot, View.of_tag("Group"))
        await pilot.press("f2")
        app.screen.query_one("#text").value = "Seminar"
        await pilot.press("enter")
        await ready(pilot)
        assert Store(data_dir).tags() == {"Seminar": 1}
        assert app.main.view == View.of_tag("Seminar")
        assert "Renamed the tag 'Group' to 'Seminar'." in app.message_log
