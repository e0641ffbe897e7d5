"""The UI thread draws what is in memory: cards, a topic's first chart and the record `o`, `p`,
`y` and `t` need are read in workers, their results arriving as messages."""

from __future__ import annotations

import threading

from reader.app.screens.tags import TagDialog
from reader.core.catalog import Catalog
from reader.service import LibraryService, View
from tests.helpers.app import card_text, choose, make_app, ready
from tests.helpers.timing import scaled


def record_threads(monkeypatch, reads: list[tuple[type, str]]) -> dict[str, list[bool]]:
    """Each call of these reads, as whether it ran on the main (the UI's) thread."""
    calls: dict[str, list[bool]] = {name: [] for _, name in reads}
    for owner, name in reads:
        original = getattr(owner, name)

        def recorded(self, *args, _original=original, _name=name, **kwargs):
            calls[_name].append(threading.current_thread() is threading.main_thread())
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(owner, name, recorded)
    return calls


async def test_cards_chart_and_records_are_read_off_the_ui_thread(store, papers, monkeypatch):
    # The cards from the search index, a view's weeks counted over the index, a paper's record.
    calls = record_threads(monkeypatch, [(LibraryService, "cards"), (Catalog, "momentum"), (LibraryService, "load_paper")])
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = make_app(store)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        await pilot.press("pagedown", "pagedown", "G")
        await ready(pilot)
        assert plist.cursor == len(plist.ids) - 1 and "loading…" not in card_text(app)
        await pilot.press("g")
        await ready(pilot)
        assert "loading…" not in card_text(app)
        await choose(pilot, View.of_topic("Agents"))
        chart = app.main.query_one("#chart")
        assert chart.title.startswith("Agents") and chart.momentum is not None and "Counting" not in chart.headline
        await pilot.press("tab")  # back to the list from the sidebar
        assert app.focused is plist
        current = plist.current
        await pilot.press("o", "p", "y")
        await ready(pilot)
        await pilot.press("t")
        await ready(pilot)
        assert isinstance(app.screen, TagDialog)
        await pilot.press("escape")
    assert opened == [f"https://arxiv.org/abs/{current}v1", f"https://arxiv.org/pdf/{current}v1"]
    assert copied and f"eprint = {{{current}}}" in copied[0]
    assert all(calls.values()), calls  # each read happened
    assert not any(on_main for made in calls.values() for on_main in made), calls


async def test_a_card_not_fetched_yet_is_drawn_as_its_id_until_it_arrives(store, papers, monkeypatch):
    """The skeleton (star, unread dot, id, "loading…") while the worker reads; the card after."""
    arrived = threading.Event()
    cards = LibraryService.cards

    def held(self, ids):
        arrived.wait(scaled(10))
        return cards(self, ids)

    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        monkeypatch.setattr(LibraryService, "cards", held)
        plist.forget_cards()
        await pilot.pause()
        skeleton = card_text(app)
        assert plist.current in skeleton and "loading…" in skeleton and papers[0].title not in skeleton
        arrived.set()
        await ready(pilot)
        assert papers[0].title in card_text(app)


async def test_the_cards_math_is_converted_off_the_ui_thread(store, papers, monkeypatch):
    from reader.app.widgets import paper_list

    converted: list[bool] = []
    original = paper_list.tex_to_unicode

    def recorded(text: str) -> str:
        converted.append(threading.current_thread() is threading.main_thread())
        return original(text)

    monkeypatch.setattr(paper_list, "tex_to_unicode", recorded)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("pagedown", "pagedown")
        await ready(pilot)
    assert converted and not any(converted)
