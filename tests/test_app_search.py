"""The app's filter and list against the reference: the scan evaluator over the stored records.

The app answers filters from the search index and draws cards from it; before the index is
built, or when it cannot be, from the shards. Every way must show what the scan selects, in the
list's order, in every view."""

from __future__ import annotations

import pytest

from reader.app.widgets.paper_list import CARD_HEIGHT
from reader.core.query import parse, search_text
from reader.core.scan import SearchBlock
from reader.service import ALL, FOR_YOU, STARRED, View
from reader.service.ranker import RankedList
from reader.store import Store
from tests.helpers.app import make_app, ready
from tests.helpers.pilot import filter_by
from tests.sample_papers import sample_papers
from tests.search_index_corpus import fixture_papers, generated_queries, made_papers

QUERIES = [
    "learning",
    "ti:learning",
    'abs:"reinforcement learning"',
    "au:wang OR au:smith",
    "cat:cs",
    "cat:cs.LG",
    "learning ANDNOT ti:agent",
    "(ti:agent OR ti:agents) AND abs:tool",
    "co:pages",
    'jr:"phys rev"',
    "submittedDate:[202401 TO 202612] AND abs:model",
    "schrodinger",
    "\u91cf\u5b50",
    "zebrafish",
    "id:hep-th/9901001",
]


@pytest.fixture
def store(data_dir):
    store = Store(data_dir)
    papers = fixture_papers()
    papers += made_papers(papers[0]) + sample_papers(30)
    store.add_topic("Agents", "ti:agents")
    store.save_papers(papers[::2], "Agents")
    store.save_papers(papers[1::2], None)
    store.set_marks([p.id for p in papers[::3]], read=True)
    store.set_marks([p.id for p in papers[::4]], starred=True)
    store.set_tags([p.id for p in papers[1::5]], add=["toread"])
    return store


def reference(store: Store, view: View, unread: bool, query: str) -> list[str]:
    """The scan's answer in the list's order (the index's order, filtered)."""
    records = store.load_papers()
    texts = {pid: search_text(p) for pid, p in records.items()}
    matched = SearchBlock(texts, store.notes()).matching(parse(query, implicit_and=True))
    marks, index = store.marks(), store.index()
    ids = [pid for pid in index.ids if view.topic is None or view.topic in index.topics_of(pid)]
    if view == STARRED:
        ids = [pid for pid in ids if pid in marks.starred]
    if view.kind == "tag":
        ids = [pid for pid in ids if pid in store.papers_tagged(view.name)]
    return [pid for pid in ids if pid in matched and not (unread and pid in marks.read)]


def shown_titles(app) -> list[str]:
    """The title line of every card on screen (cards are drawn from the index's card data)."""
    plist = app.main.paper_list
    visible = min(len(plist.ids), plist.size.height // CARD_HEIGHT)
    top = int(plist.scroll_y) // CARD_HEIGHT
    return [plist.render_line((top + i) * CARD_HEIGHT + 1 - int(plist.scroll_y)).text.lstrip("▌ ").rstrip() for i in range(visible)]


@pytest.mark.slow
async def test_filters_from_the_index_match_the_scan_in_every_view(store):
    queries = QUERIES + generated_queries(list(store.load_papers().values()), 25)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        assert main.loaded and main.service.search_ready
        views = ((ALL, False), (View.of_topic("Agents"), False), (STARRED, False), (ALL, True), (View.of_tag("toread"), False))
        for view, unread in views:
            await filter_by(pilot, "")
            main.view, main.unread_only = view, unread
            await ready(pilot)
            for query in queries:
                await filter_by(pilot, query)
                assert list(main.paper_list.ids) == reference(store, view, unread, query), (view, unread, query)
        # For you: its ranking's order (here the oldest first), the same papers
        ranked = store.index().ids[::-1]
        main.service.for_you = RankedList(ranked, [0.0] * len(ranked), {})
        for query in queries:
            expected = reference(store, ALL, False, query)[::-1]
            assert list(main.service.select(FOR_YOU, query=parse(query, implicit_and=True))) == expected, query


@pytest.mark.slow
async def test_cards_are_drawn_from_the_index_as_the_records_read(store):
    records = store.load_papers()
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        plist = app.main.paper_list
        for _ in range(3):  # the first screens, then further down the list
            titles = shown_titles(app)
            expected = [records[pid].title for pid in plist.ids[int(plist.scroll_y) // CARD_HEIGHT :][: len(titles)]]
            assert titles and all(expected_title.startswith(shown.rstrip("…")) for shown, expected_title in zip(titles, expected))
            plist.action_page_down()
            plist.action_page_down()
            await pilot.pause()


@pytest.mark.slow
async def test_without_an_index_the_scan_answers_the_same(store, data_dir):
    (data_dir / "search").write_text("not a directory")  # the index cannot be built here
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        assert not main.loaded and not main.service.search_ready
        assert any("Search index" in message for message in app.message_log)
        for query in QUERIES:
            await filter_by(pilot, query)
            assert list(main.paper_list.ids) == reference(store, ALL, False, query), query
        assert "search index not ready" in str(app.query_one("#filter").border_subtitle)
        records = store.load_papers()
        titles = shown_titles(app)
        assert titles and all(records[pid].title.startswith(t.rstrip("…")) for pid, t in zip(main.paper_list.ids, titles))


@pytest.mark.slow
async def test_a_sync_keeps_the_index_current(store, fake_arxiv):
    newer = sample_papers(5, id_base=60000)
    newer[0].title = "Zebrafish agents in the wild"
    fake_arxiv.queries["ti:agents"] = newer
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await filter_by(pilot, "ti:zebrafish")
        assert list(app.main.paper_list.ids) == []
        await pilot.press("R")
        await ready(pilot)
        await ready(pilot)
        await filter_by(pilot, "ti:zebrafish")
        assert list(app.main.paper_list.ids) == [newer[0].id] == reference(store, ALL, False, "ti:zebrafish")
        assert shown_titles(app) == [newer[0].title]


@pytest.mark.slow
async def test_for_you_filters_a_ranking_older_than_the_catalog(store, fake_arxiv):
    """A ranking made before a sync: ids the cache no longer holds are never shown, papers
    the sync brought are not ranked yet; filters in All papers between stay right."""
    newer = sample_papers(5, id_base=60000)
    newer[0].title = "Zebrafish agents in the wild"
    fake_arxiv.queries["ti:agents"] = newer
    ids = store.index().ids
    ranked = ids[1::2][::-1] + ["2999.00001", "2999.00002"] + ids[::2]  # a scrambled order, two gone ids
    app = make_app(store, fake_arxiv)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        service = app.main.service
        service.for_you = RankedList(ranked, [0.0] * len(ranked), {})

        def check(ranking: list[str]) -> None:
            for query in ("learning", "cat:cs", "ti:agents", "zebrafish OR au:wang"):
                node = parse(query, implicit_and=True)
                matched = set(reference(store, ALL, False, query))
                assert list(service.select(FOR_YOU, query=node)) == [pid for pid in ranking if pid in matched], query
                assert list(service.select(ALL, query=node)) == reference(store, ALL, False, query), query

        check(ranked)
        await pilot.press("R")
        await ready(pilot)
        await ready(pilot)
        assert newer[0].id in service.catalog.index
        check(ranked)  # the papers the sync brought are not in this ranking
        zebrafish = parse("zebrafish", implicit_and=True)
        assert newer[0].id in service.select(ALL, query=zebrafish) and newer[0].id not in service.select(FOR_YOU, query=zebrafish)
        ranked = [*ranked[:7], newer[0].id, *ranked[7:]]
        service.for_you = RankedList(ranked, [0.0] * len(ranked), {})
        check(ranked)
        assert newer[0].id in service.select(FOR_YOU, query=zebrafish)


@pytest.mark.slow
@pytest.mark.parametrize("indexed", [True, False])
async def test_notes_are_found_as_soon_as_they_are_saved(store, data_dir, indexed):
    if not indexed:
        (data_dir / "search").write_text("not a directory")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        main = app.main
        first, second = main.paper_list.ids[3], main.paper_list.ids[7]
        main.service.set_note(first, "Zebrafish larvae, see section 4").result()
        main.service.set_note(second, "compare with the zebrafish paper").result()
        for query in ("note:zebrafish", "zebrafish", "note:larvae OR ti:agents", 'note:"zebrafish paper"'):
            await filter_by(pilot, query)
            assert list(main.paper_list.ids) == reference(store, ALL, False, query), query
        assert list(main.paper_list.ids) == [second]
        main.service.set_note(second, "").result()
        await filter_by(pilot, "note:zebrafish")
        assert list(main.paper_list.ids) == [first]
