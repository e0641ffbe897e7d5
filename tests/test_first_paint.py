"""The first paint waits for nothing that grows with the cache (issue 32): the newest cards show
while every paper is still being counted in the opening worker; the sidebar's counts and the
chart follow, and the UI's thread never counts them itself."""

from __future__ import annotations

import threading

from reader.app.widgets.chart import MomentumChart
from reader.cache_index import CacheIndex
from reader.core.catalog import Catalog
from tests.helpers.app import card_text, make_app
from tests.helpers.timing import scaled

HANG = scaled(30.0)


async def test_the_newest_cards_show_while_the_papers_are_still_counted(store, papers, monkeypatch):  # noqa: F811
    release = threading.Event()
    counting = []
    counted = Catalog.counted

    def held_back(self, index: CacheIndex) -> dict:
        counting.append(threading.current_thread() is threading.main_thread())
        assert release.wait(HANG), "never released"
        return counted(self, index)

    monkeypatch.setattr(Catalog, "counted", held_back)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        for _ in range(int(HANG / 0.05)):
            if counting and main.paper_list.ids and papers[0].title[:30] in card_text(app, 0):
                break
            await pilot.pause(0.05)
        assert counting == [False]  # counted by a worker thread, held there
        assert main.paper_list.ids[0] == papers[0].id and papers[0].title[:30] in card_text(app, 0)
        sidebar = [str(main.sidebar.get_option_at_index(i).prompt) for i in range(main.sidebar.option_count)]
        assert sidebar[0] == "All papers\ncounting…" and "Agents\ncounting…" in sidebar
        chart = app.query_one(MomentumChart)
        assert chart.headline == "Counting the papers' weeks…"
        assert not app.service.catalog.counted_already
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert str(main.sidebar.get_option_at_index(0).prompt).startswith("All papers\n40 papers")
        assert chart.headline.startswith("40 papers in the last four weeks")
        assert app.service.catalog.counted_already
