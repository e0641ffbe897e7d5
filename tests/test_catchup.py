"""Catching up and sorting: `A` marks every paper shown read (asking first, undone by `U`),
`reader read --query ...` does it from the command line, `S` sorts the list and `reader list
--sort` gives the same order, for every key, with --limit too."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from reader.app.screens.dialogs import ConfirmDialog
from reader.cache_index import CacheIndex
from reader.core.catalog import Catalog
from reader.models import Author
from reader.store import Store
from reader.store.firstrun import ensure_example_topics
from tests.conftest import run
from tests.corpus import stamp
from tests.helpers.app import make_app, ready
from tests.sample_papers import TODAY, sample_papers

NEWEST, UPDATED, TITLE, AUTHOR = "newest", "updated", "title", "author"  # as `list --sort` spells them
NAMES = ["Zoe Abel", "Ana Zimmer", "Émile Durand", "li wei", "Bo Meyer", "Ada Lovelace", "Carl Gauss"]
WORDS = ["zebra", "Apple", "Émigré", "banana", "cherry", "apple pie", "Delta"]


@pytest.fixture
def papers():
    """Papers whose updated dates, titles and first authors are in orders unlike their newest-first one."""
    papers = []
    for i, paper in enumerate(sample_papers(21)):
        updated = stamp(TODAY, -((i * 7) % 21) * 3600)
        title = f"{WORDS[i % len(WORDS)]} {paper.title}"
        authors = (Author(NAMES[(i * 3) % len(NAMES)], ()), *paper.authors)
        papers.append(dataclasses.replace(paper, updated=updated, title=title, authors=authors))
    return papers


@pytest.fixture
def store(data_dir, papers):
    store = Store(data_dir)
    store.add_topic("Kept", "ti:kept")
    ensure_example_topics(store)
    store.save_papers(papers, "Kept")
    return store


def listed(capsys, data_dir, *args) -> list[str]:
    code, out, err = run(capsys, "--data-dir", str(data_dir), "list", "--json", *args)
    assert code == 0, err
    return [row["id"] for row in json.loads(out)]


def test_every_order_equals_sorting_by_its_key_ties_newest_first(papers):
    """The numpy orders against Python's sort of the same keys, on every view of a random subset."""
    from reader.core.sorting import keyed_order, sorted_view

    index = CacheIndex.build({p.id: _entry(p) for p in papers})
    by_id = {p.id: p for p in papers}
    keys = {
        UPDATED: lambda pid: -int(by_id[pid].updated.replace("-", "").replace(":", "").replace("T", "")[:14]),
        TITLE: lambda pid: " ".join(by_id[pid].title.casefold().replace("é", "e").replace("É".casefold(), "e").split()).encode()[:48],
        AUTHOR: lambda pid: _surname_first(by_id[pid].authors[0].name).encode()[:48],
    }
    rng = random.Random(3)
    for sort, key in keys.items():
        pieces = [(list(by_id), [_value(by_id[pid], sort) for pid in by_id])]
        order = keyed_order(index, sort, pieces)
        for _ in range(5):
            view = Catalog(index).select()
            chosen = sorted(rng.sample(range(len(index)), 12))
            subset = [view[i] for i in chosen]
            expected = sorted(subset, key=lambda pid: (key(pid), index.ids.index(pid)))
            assert list(sorted_view(order, index, index.view(_rows(index, subset)))) == expected, sort
    assert list(sorted_view(None, index, list(reversed(index.ids)))) == list(index.ids)


def _entry(paper):
    from reader.cache_index import IndexEntry

    return IndexEntry(paper.version, paper.published[:10], ["Kept"])


def _rows(index, ids):
    from array import array

    return array("i", sorted(index.ids.index(pid) for pid in ids))


def _value(paper, sort):
    return {UPDATED: paper.updated, TITLE: paper.title, AUTHOR: paper.authors[0].name}[sort]


def _surname_first(name: str) -> str:
    folded = " ".join(name.casefold().replace("é", "e").split())
    return f"{folded.rpartition(' ')[2]} {folded}"


@pytest.mark.slow
def test_list_sort_gives_each_order_and_limit_takes_its_first(store, data_dir, papers, capsys):
    newest = listed(capsys, data_dir)
    assert listed(capsys, data_dir, "--sort", "newest") == newest
    by_title = listed(capsys, data_dir, "--sort", "title")
    assert by_title[0] == next(p.id for p in papers if p.title.startswith("Apple "))  # "apple pie ..." after "Apple Testing"
    assert [p for p in by_title if p not in newest] == [] and len(by_title) == len(newest)
    updated = {p.id: p.updated for p in papers}
    by_updated = listed(capsys, data_dir, "--sort", "updated")
    assert [updated[pid] for pid in by_updated] == sorted(updated.values(), reverse=True)
    first_authors = {p.id: p.authors[0].name for p in papers}
    by_author = listed(capsys, data_dir, "--sort", "author")
    assert [first_authors[pid] for pid in by_author[:3]] == ["Zoe Abel"] * 3  # "abel" first, by last name
    for sort, whole in (("title", by_title), ("updated", by_updated), ("author", by_author)):
        assert listed(capsys, data_dir, "--sort", sort, "--limit", "5") == whole[:5]
        matching = listed(capsys, data_dir, "--sort", sort, "--query", "ti:banana")
        assert matching == [pid for pid in whole if pid in set(listed(capsys, data_dir, "--query", "ti:banana"))]
        assert listed(capsys, data_dir, "--sort", sort, "--query", "ti:banana", "--limit", "2") == matching[:2]


def test_read_marks_a_query_s_unread_papers_in_one_go(store, data_dir, papers, capsys):
    matching = set(listed(capsys, data_dir, "--query", "ti:banana"))
    assert len(matching) == 3
    already = sorted(matching)[0]
    store.set_marks([already], read=True)
    code, out, err = run(capsys, "--data-dir", str(data_dir), "read", "--query", "ti:banana")
    assert code == 0, err
    assert out.strip() == "read: 2 papers marked read"
    assert Store(data_dir).marks().read == matching
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "read", "--topic", "kept", "--query", "ti:banana")
    assert out.strip() == "read: no unread papers there: nothing changed"
    code, _, err = run(capsys, "--data-dir", str(data_dir), "read", papers[0].id, "--all")
    assert code == 1 and "not both" in err
    code, _, err = run(capsys, "--data-dir", str(data_dir), "read")
    assert code == 1 and "--all" in err
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "read", "--all")
    assert out.strip() == f"read: {len(papers) - 3} papers marked read" and Store(data_dir).marks().read == {p.id for p in papers}


@pytest.mark.slow
async def test_a_marks_exactly_the_filtered_papers_read_and_u_undoes_it(store, data_dir, papers):
    matching = {p.id for p in papers if "banana" in p.title}
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("slash", *"ti:banana", "enter")
        await ready(pilot)
        screen = app.screen
        assert set(screen.paper_list.ids) == matching
        await pilot.press("A")
        await ready(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog.question == "Mark the 3 unread papers shown read?"
        await pilot.press("y")
        await ready(pilot)
        app.service.flush()
        assert Store(data_dir).marks().read == matching
        assert app.service.catalog.counts() == (len(papers), len(papers) - 3)  # the sidebar's counts follow
        await pilot.press("U")
        await ready(pilot)
        app.service.flush()
        assert Store(data_dir).marks().read == set()
        assert app.service.catalog.counts() == (len(papers), len(papers))
        await pilot.press("A")
        await ready(pilot)
        await pilot.press("n")  # asked again, and refused: nothing changes
        await ready(pilot)
        app.service.flush()
        assert Store(data_dir).marks().read == set()


@pytest.mark.slow
async def test_s_sorts_as_list_sort_does_says_so_and_is_remembered(store, data_dir, capsys):
    expected = {sort: listed(capsys, data_dir, "--sort", sort) for sort in (NEWEST, UPDATED, TITLE, AUTHOR)}
    assert len({tuple(ids) for ids in expected.values()}) == 4  # four different orders
    shown = {}
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        shown[NEWEST] = list(screen.paper_list.ids)
        for sort, header in ((UPDATED, "Sorted by last updated"), (TITLE, "Sorted by title"), (AUTHOR, "Sorted by first author")):
            await pilot.press("S")
            await ready(pilot)
            shown[sort] = list(screen.paper_list.ids)
            assert str(screen.paper_list.border_title).startswith(header)
            drawn = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
            assert f"{header} · S changes" in drawn  # on screen: the rule above the list bears it
        await pilot.press("S", "S", "S")  # around again, to title
        await ready(pilot)
    assert shown == expected
    assert Store(data_dir).setting("list_sorts") == {"all": TITLE}
    bananas = set(listed(capsys, data_dir, "--query", "ti:banana"))
    app = make_app(Store(data_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert list(app.screen.paper_list.ids) == expected[TITLE]
        await pilot.press("slash", *"ti:banana", "enter")  # a filter keeps the view's order
        await ready(pilot)
        assert list(app.screen.paper_list.ids) == [pid for pid in expected[TITLE] if pid in bananas]
