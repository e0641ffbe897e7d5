"""The paper list as the user sees it: a highlighted card whole on screen, cards apart, the cursor
where the eye is after papers arrive above it."""

from __future__ import annotations

import dataclasses

import pytest

from reader.app.widgets.chart import UNCOVERED, MomentumChart
from reader.service import View
from reader.store import Store
from tests.corpus import TODAY, record_synced
from tests.helpers.app import QUERY, make_app, ready
from tests.helpers.pilot import until

# store, papers: conftest's fixtures (the fixtures: 40 papers, in Agents (30) and Other (15), synced)


def screen_lines(app) -> list[str]:
    """The terminal's lines as drawn."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_the_highlighted_card_at_the_bottom_shows_its_marks_line_and_cards_stay_apart(store, papers):
    marked = papers[5]  # the sixth card: below the first screenful at 120x40, the list scrolls to it
    store.set_tags([marked.id], add=["seminar", "reading-group"])
    store.set_note(marked.id, "Compare with the baseline")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        assert plist.ids[5] == marked.id
        await pilot.press(*"jjjjj")
        await pilot.pause()
        assert plist.current == marked.id
        lines = screen_lines(app)
        bottom = plist.region.bottom  # the first line below the list
        list_lines = [line[plist.region.x :].rstrip() for line in lines[plist.region.y : bottom]]
        marks = [n for n, line in enumerate(list_lines) if "#seminar" in line]
        assert len(marks) == 1, list_lines
        assert list_lines[marks[0]] == "▌ #reading-group  #seminar  ✎ note"
        assert marks[0] == len(list_lines) - 2  # the bottom card, whole, then its blank line
        assert list_lines[marks[0] - 5].startswith("▌") and marked.title[:40] in list_lines[marks[0] - 4]
        # a blank line after each card, the marked one too: the next card does not run on from it
        assert list_lines[marks[0] + 1] == ""
        titles = [n for n, line in enumerate(list_lines) if any(p.title[:40] in line for p in papers)]
        assert all(titles[i + 1] - titles[i] == plist.card_height == 7 for i in range(len(titles) - 1))
        for title_row in titles[1:]:
            assert list_lines[title_row - 2].strip("▌ ") == ""  # the line before each card's meta line is blank


async def test_papers_synced_elsewhere_above_the_cursor_leave_the_highlighted_card_in_sight(papers, data_dir):
    three = Store(data_dir)
    three.add_topic("Agents", QUERY)
    three.save_papers(papers[5:8], "Agents")  # three cards: the list fits on screen, no scrollbar
    record_synced(three, "Agents", QUERY)
    app = make_app(three)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        await pilot.press("j")
        chosen, shown = plist.current, list(plist.ids)
        newer = [dataclasses.replace(paper, id=f"2612.{90000 + n:05d}") for n, paper in enumerate(papers[:5])]
        Store(data_dir).save_papers(newer, "Agents")  # as a `reader sync` in another terminal would
        await until(pilot, lambda: len(plist.ids) > len(shown))
        assert plist.current == chosen and plist.ids.index(chosen) > 1  # papers above it
        lines = screen_lines(app)[plist.region.y : plist.region.bottom]
        highlighted = [line for line in lines if line[plist.region.x :].startswith("▌")]
        assert len(highlighted) == plist.card_height - 1, "\n".join(lines)  # the card on screen, whole
        await pilot.press("j")
        assert plist.current == shown[shown.index(chosen) + 1]  # the next card below it


@pytest.mark.slow
async def test_r_while_another_process_syncs_says_so_until_that_sync_ends(store, fake_arxiv, data_dir):
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        status = app.main.status
        with Store(data_dir).sync_lock():  # a `reader sync` in another terminal holds the cache
            await pilot.press("R")
            await until(pilot, lambda: not status.syncing and "Syncing" not in str(status.render()))
            said = str(status.render())
            assert said.startswith("Another process is syncing") and "failed" not in said and "busy" not in said
            assert not any("busy" in str(note.message) for note in app._notifications)
        await until(pilot, lambda: str(status.render()) == "")  # that sync ended: nothing stale left
        assert not fake_arxiv.search_requests()


async def test_a_topic_never_synced_leaves_all_papers_momentum_to_the_synced_topic_and_is_named(papers, data_dir, monkeypatch):
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    two = Store(data_dir)
    two.add_topic("Agents", QUERY)
    two.save_papers(papers[:30], "Agents")  # every cached paper
    record_synced(two, "Agents", QUERY)  # its whole horizon, a minute ago
    two.add_topic("Later", "ti:later")  # added offline: never synced
    app = make_app(two)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        chart = app.query_one(MomentumChart)
        text = chart.render().plain.splitlines()
        assert text[0].rstrip() == "All papers"  # no week hatched as not synced
        assert text[1] == "30 papers in the last four weeks, none in the four weeks before · Later not synced yet"
        assert UNCOVERED not in chart.render().plain
        agents = app.service.momentum(View.of_topic("Agents"))
        assert chart.momentum is not None and chart.momentum.weeks == agents.weeks
