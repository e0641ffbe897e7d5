"""A new topic starts full: `reader topics add` and the app's `a` give it at once, with no
request (the suite's arXiv is a closed port), every cached paper its query matches here; its
weeks stay "not synced yet" until a sync, which then adds arXiv's answer."""

from __future__ import annotations

import json

import pytest

from reader.store import Store
from tests.conftest import run
from tests.corpus import recent_papers

QUERY = "abs:software AND ti:test"


@pytest.fixture
def cached(data_dir):
    store = Store(data_dir)
    papers = recent_papers(60)
    store.save_papers(papers[:40], None)
    store.set_marks([papers[0].id], starred=True)
    return store, papers


def ids_of(capsys, *args) -> list[str]:
    code, out, err = run(capsys, "list", *args, "--json")
    assert code == 0, err
    return [row["id"] for row in json.loads(out)]


def test_topics_add_fills_the_topic_from_the_cache_without_a_request(capsys, cached):
    store, _ = cached
    expected = ids_of(capsys, "--query", QUERY)
    assert 0 < len(expected) < 40
    code, out, err = run(capsys, "topics", "add", "Testing", QUERY)
    assert code == 0, err
    assert out == f"added topic 'Testing': {QUERY} ({len(expected)} cached papers match it)\n"
    assert ids_of(capsys, "--topic", "testing") == expected
    assert ids_of(capsys, "--topic", "testing", "--starred") == [pid for pid in expected if pid in store.marks().starred]
    code, out, _ = run(capsys, "topics", "list", "--json")
    row = next(r for r in json.loads(out) if r["name"] == "Testing")
    assert (row["cached"], row["last_sync"], row["covered_since"], row["arxiv_total"]) == (len(expected), None, None, None)
    code, out, _ = run(capsys, "momentum", "--topic", "Testing", "--json")
    assert all(not week["covered"] for week in json.loads(out)["weeks"])  # not synced yet


def test_a_topic_filled_offline_stays_full_when_its_sync_fails_and_a_sync_adds_arxivs_answer(capsys, cached, arxiv_env, monkeypatch):
    store, papers = cached
    monkeypatch.setenv("READER_ARXIV_API_URL", "http://127.0.0.1:9/api/query")  # unreachable
    assert run(capsys, "topics", "add", "Testing", QUERY)[0] == 0
    expected = ids_of(capsys, "--query", QUERY)
    code, out, _ = run(capsys, "sync", "--topic", "Testing")
    assert code == 1 and "FAILED" in out
    assert ids_of(capsys, "--topic", "Testing") == expected
    assert arxiv_env.requests == []
    # Back online: arXiv's answer joins what the cache gave.
    monkeypatch.setenv("READER_ARXIV_API_URL", arxiv_env.api_url)
    arxiv_env.queries[QUERY] = papers[40:45]
    assert run(capsys, "sync", "--topic", "Testing")[0] == 0
    after = ids_of(capsys, "--topic", "Testing")
    assert set(after) == set(expected) | {p.id for p in papers[40:45]}


def test_a_topic_nothing_cached_matches_says_so(capsys, cached):
    code, out, _ = run(capsys, "topics", "add", "Nothing", "ti:zyzzyva")
    assert code == 0 and out.endswith("(0 cached papers match it)\n")
    assert ids_of(capsys, "--topic", "Nothing") == []


@pytest.mark.slow
async def test_the_apps_a_fills_the_topic_at_once_and_says_how_many(cached):
    from reader.app.screens.dialogs import AddTopicDialog
    from reader.core.query import parse, search_text
    from reader.core.scan import SearchBlock
    from reader.service import View
    from tests.helpers.app import make_app, ready

    store, _ = cached
    matching = sorted(SearchBlock({p.id: search_text(p) for p in store.load_papers().values()}).matching(parse(QUERY)))
    app = make_app(store)  # arXiv unreachable: the topic's sync fails, its papers stay
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("a")
        assert isinstance(app.screen, AddTopicDialog)
        await pilot.press(*"Testing", "tab", *QUERY, "enter")
        await ready(pilot)
        await ready(pilot)
        assert app.main.view == View.of_topic("Testing")
        assert sorted(app.main.paper_list.ids) == matching
        assert any(f"Added 'Testing': {len(matching)} cached papers match it." in m for m in app.message_log), app.message_log
        sidebar = [str(app.main.sidebar.get_option_at_index(i).prompt) for i in range(app.main.sidebar.option_count)]
        assert any(s.startswith(f"Testing\n{len(matching)} papers") for s in sidebar), sidebar
