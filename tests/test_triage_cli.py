"""`reader rank` and `reader rising` end to end, on a cache built through the store."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from reader.core.coverage import day_end, day_start
from reader.core.ranking import row_of_paper
from reader.core.terms import terms
from reader.store import Store
from tests.conftest import run
from tests.corpus import TODAY, recent_papers, record_synced
from tests.helpers.first_rank import themes_cache
from tests.themes import rising_papers


@pytest.fixture
def cache(data_dir, monkeypatch):
    return themes_cache(data_dir, monkeypatch, 20, covered_weeks=20)


@pytest.mark.slow
def test_rank_json_puts_the_starred_theme_first_and_says_why(capsys, cache):
    store, agents, proteins = cache
    store.set_marks([p.id for p in agents[:5]], starred=True)
    store.set_marks([agents[5].id, proteins[0].id], read=True)
    code, out, err = run(capsys, "rank", "--json", "--limit", "500")
    assert code == 0, err
    rows = json.loads(out)
    assert all(set(row) == {"id", "title", "score", "because"} for row in rows)
    by_id = {p.id: p for p in agents + proteins}
    expected = {p.id for p in agents[6:] + proteins[1:]} | {p.id for p in rising_papers()}
    assert {row["id"] for row in rows} == expected  # unread, unstarred, every topic
    theme = [("agents" if by_id[row["id"]] in agents else "proteins") for row in rows if row["id"] in by_id]
    assert theme[: len(agents) - 6] == ["agents"] * (len(agents) - 6)
    top = rows[0]
    assert top["title"] == by_id[top["id"]].title
    assert isinstance(top["score"], float) and 0 < top["score"] < 1
    assert isinstance(top["because"], list) and top["because"] and all(isinstance(b, str) for b in top["because"])
    assert [row["score"] for row in rows] == sorted((row["score"] for row in rows), reverse=True)

    code, again, _ = run(capsys, "rank", "--json", "--limit", "500")
    assert again == out  # the same cache and marks give the same answer

    code, out, _ = run(capsys, "rank", "--json", "--limit", "3", "--topic", "proteins")
    assert [row["id"] for row in json.loads(out)] and all(row["id"] in {p.id for p in proteins} for row in json.loads(out))
    assert len(json.loads(out)) == 3


def test_rank_as_text_gives_score_id_title_and_reasons(capsys, cache):
    store, agents, _ = cache
    store.set_marks([p.id for p in agents[:6]], starred=True)
    code, out, _ = run(capsys, "rank", "--limit", "4")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 8
    by_id = {p.id: p for p in agents}
    for first, second in zip(lines[::2], lines[1::2]):
        score, paper_id, title = first.split("  ", 2)
        paper = by_id[paper_id]
        assert 0 < float(score) < 1 and title == paper.title
        assert second.startswith("       because: ")
        reasons = second.split(": ", 1)[1].split(", ")
        mine = set(terms(row_of_paper(paper).words)) | {a.name for a in paper.authors} | set(paper.categories)
        assert 1 <= len(reasons) <= 3 and set(reasons) <= mine


def test_rank_with_too_few_stars_says_what_it_needs(capsys, cache):
    store, agents, _ = cache
    store.set_marks([agents[0].id], starred=True)
    code, out, err = run(capsys, "rank", "--json")
    assert code == 0 and json.loads(out) == []
    assert "Star 2 more papers" in err and "1 of 3" in err
    code, out, err = run(capsys, "rank")
    assert out == "" and "Star 2 more papers" in err


def test_rank_unknown_topic_is_a_one_line_error(capsys, cache):
    code, out, err = run(capsys, "rank", "--topic", "nope")
    assert code == 1 and out == "" and err.count("\n") == 1 and "no topic named 'nope'" in err


def test_rising_topics_json(capsys, cache):
    code, out, err = run(capsys, "rising", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [set(row) for row in rows] == [{"topic", "last4", "prev4", "change_pct", "share_pct"}] * 3
    language = next(row for row in rows if row["topic"] == "Language")
    assert (language["last4"], language["prev4"]) == (20, 28)  # 28 of the 40 earlier papers are 28-55 days old
    assert language["change_pct"] == -28.6 and language["share_pct"] is None  # no sync: no total known
    changes = [row["change_pct"] for row in rows if row["change_pct"] is not None]
    assert changes == sorted(changes, reverse=True)
    code, out, _ = run(capsys, "rising")
    assert "Language\t20 papers in the last four weeks, 28 papers in the four before (-29%)" in out
    Store(cache[0].data_dir).add_topic("Unsynced", "ti:language")  # never synced: no figures, not "0 papers"
    code, out, _ = run(capsys, "rising", "--json")
    unsynced = next(row for row in json.loads(out) if row["topic"] == "Unsynced")
    assert unsynced["last4"] is None and unsynced["change_pct"] is None  # as its chart says: not synced yet


def test_rising_terms_of_a_topic_json(capsys, cache):
    code, out, err = run(capsys, "rising", "--topic", "language", "--json")
    assert code == 0, err
    assert json.loads(out) == [
        {"term": "process reward", "last4": 6, "prev8": 0, "growth": 12.0},
        {"term": "agent memory", "last4": 5, "prev8": 4, "growth": 2.0},
        {"term": "tool use", "last4": 5, "prev8": 4, "growth": 2.0},
    ]
    code, out, _ = run(capsys, "rising", "--topic", "Language", "--limit", "1")
    assert out.splitlines() == ["process reward\t6 papers in the last four weeks, 0 in the eight before\tx12.0"]


def test_rising_terms_need_all_twelve_weeks_synced(capsys, cache):
    store = cache[0]
    # Synced whole only for the last ten weeks (as a first sync with sync.weeks = 10 leaves it).
    store.sync_file.record_progress(
        "Language", "ti:language", [(day_start(TODAY - timedelta(weeks=10)), day_end(TODAY))], TODAY.isoformat(), None
    )
    code, out, err = run(capsys, "rising", "--topic", "Language")
    assert code == 0 and out == ""
    assert err == (
        "no rising terms in 'Language' as of 2026-12-02: the twelve weeks they compare, from 2026-09-10, are not all "
        "synced (complete since 2026-09-23): `reader sync --topic` fetches them\n"
    )
    assert json.loads(run(capsys, "rising", "--topic", "Language", "--json")[1]) == []


def test_rank_leaves_hidden_papers_out_and_learns_from_them(capsys, cache):
    store, agents, proteins = cache
    store.set_marks([p.id for p in agents[:5]], starred=True)
    before = {row["id"]: row["score"] for row in json.loads(run(capsys, "rank", "--json", "--limit", "500")[1])}
    hidden = [p.id for p in proteins[:5]]
    assert run(capsys, "hide", *hidden)[0] == 0
    code, out, err = run(capsys, "rank", "--json", "--limit", "500")
    assert code == 0, err
    after = {row["id"]: row["score"] for row in json.loads(out)}
    assert set(after) == set(before) - set(hidden)
    # Hidden papers are negatives: the rest of their theme scores lower than before.
    assert all(after[p.id] < before[p.id] for p in proteins[5:])


def test_counts_said_to_a_person_have_thousands_separators_and_json_keeps_numbers(capsys, data_dir, monkeypatch):
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    store = Store(data_dir)
    store.set_setting("examples_added", True)
    store.add_topic("Busy", "ti:busy")
    store.save_papers(recent_papers(1010, per_day=40), "Busy")  # every one in the last four weeks
    record_synced(store, "Busy", "ti:busy")
    code, out, err = run(capsys, "rising")
    assert code == 0, err
    assert "Busy\t1,010 papers in the last four weeks, 0 papers in the four before" in out
    code, out, _ = run(capsys, "rising", "--json")
    assert json.loads(out)[0]["last4"] == 1010
    code, out, _ = run(capsys, "topics")
    assert out.startswith("Busy\t1,010 papers, 1,010 unread\t")
    code, out, _ = run(capsys, "star", *(p.id for p in recent_papers(1010, per_day=40)))
    assert out == "star: 1,010 papers\n"
