"""The main screen's state flows down: the list's catalog, the chart's data and the papers a
part arranged are the screen's, bound to (or handed to) the widgets that show them."""

from __future__ import annotations

import threading

from reader.app.screens.part import PapersArranged
from reader.app.widgets.chart import COUNTING, ChartData, MomentumChart
from reader.core.catalog import Catalog
from tests.helpers.app import card_text, make_app, ready
from tests.helpers.timing import scaled


async def test_the_lists_catalog_is_the_screens_bound_down(store):
    # The screen owns the catalog the cards are drawn from: a new one set on the screen (as the
    # cache once read) reaches the list, whose cards are drawn again with its marks.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        first = plist.ids[0]
        assert plist.catalog is app.main.catalog
        assert "★" not in card_text(app, 0)
        marked = Catalog(app.main.catalog.index, starred=[first])
        app.main.catalog = marked
        await pilot.pause()
        assert plist.catalog is marked
        assert "★" in card_text(app, 0)


async def test_the_charts_data_is_the_screens_bound_down(store):
    # The screen owns what the chart shows: data set on it is drawn by the chart, and a count
    # asked for is made in the chart's worker, "Counting…" shown meanwhile.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        chart = app.main.query_one(MomentumChart)
        momentum = chart.momentum
        assert momentum is not None
        app.main.chart_data = ChartData(None, "Somewhere", "Nothing to count here")
        await pilot.pause()
        assert (chart.momentum, chart.title, chart.headline) == (None, "Somewhere", "Nothing to count here")
        assert "Nothing to count here" in chart.render().plain
        counted = threading.Event()

        def count():
            counted.wait(timeout=scaled(10))
            return momentum, "Counted", "Its headline"

        app.main.chart_data = ChartData(None, "Counted", COUNTING, count, " · rising")
        await pilot.pause()
        assert (chart.title, chart.headline) == ("Counted", COUNTING)
        counted.set()
        await ready(pilot)
        assert (chart.momentum, chart.title, chart.headline) == (momentum, "Counted · rising", "Its headline")


async def test_a_parts_arranged_papers_come_up_as_a_message_the_screen_shows(store):
    # The order part never draws the list: the papers it sorted go up as PapersArranged, and the
    # screen's handler shows them.
    posted: list[PapersArranged] = []
    app = make_app(store)

    def hook(message):
        if isinstance(message, PapersArranged) and message not in posted:  # seen again as it bubbles
            posted.append(message)

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        newest = list(plist.ids)
        posted.clear()
        await pilot.press("S")  # sorted by last updated, in a worker
        await ready(pilot)
        assert [list(message.ids) for message in posted] == [list(plist.ids)]
        app.main.post_message(PapersArranged(newest[2:0:-1], newest[1]))
        await pilot.pause()
        assert list(plist.ids) == newest[2:0:-1] and plist.current == newest[1]


async def test_a_list_redrawn_keeps_the_paper_the_cursor_is_on_when_shown_not_when_asked(store):
    # A redraw asked for (a mark, a sync) arranges the papers and shows them a message later: a
    # paper the cursor was put on meanwhile (the detail view closed on another one) keeps it.
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        ids = list(plist.ids)
        assert plist.current == ids[0]
        app.main.refresh_list()  # the view's own order: shown as PapersArranged is handled
        plist.show(plist.ids, keep=ids[3])  # as the detail view's closing does, at once
        await ready(pilot)
        assert plist.current == ids[3]
