"""Coverage and honest momentum: a figure only from days the cache holds whole."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from reader.app.widgets.chart import MomentumChart
from reader.cli import main
from reader.core import momentum
from reader.core.coverage import Coverage, common_coverage, trusted_spans
from reader.service import View
from reader.store import Store, Topic
from tests.arxiv_server import Fault
from tests.corpus import TODAY, recent_papers, record_synced
from tests.helpers.app import choose, make_app
from tests.helpers.sync import run_sync

QUERY = "ti:agent"


def test_coverage_counts_whole_days_only():
    coverage = Coverage.of_spans([("202611011200", "202611052359"), ("202611060000", "202611100800")])
    assert coverage.days == ((date(2026, 11, 2).toordinal(), date(2026, 11, 9).toordinal()),)
    assert coverage.since == date(2026, 11, 2)
    assert not coverage.covers(date(2026, 11, 1).toordinal(), date(2026, 11, 3).toordinal())
    both = common_coverage([coverage, Coverage.of_spans([("202611050000", "202612312359")])])
    assert both.since == date(2026, 11, 5)
    assert common_coverage([coverage, Coverage()]).days == ()


def test_the_newest_span_is_trusted_only_up_to_a_week_before_it_was_fetched():
    spans = [("202608120000", "202612032359")]
    assert trusted_spans(spans, "2026-12-02", timedelta(days=7)) == [("202608120000", "202611242359")]


def test_figures_need_their_28_days_covered():
    days = [TODAY - timedelta(days=d) for d in range(56) for _ in range(2)]
    recent = Coverage.of_spans([(f"{TODAY - timedelta(days=30):%Y%m%d}0000", f"{TODAY:%Y%m%d}2359")])
    m = momentum.compute(days, TODAY, total_new_last4=1000, coverage=recent)
    assert (m.last4, m.prev4, m.change_pct) == (56, None, None) and round(m.share_pct, 2) == 5.6
    assert [w.count is None for w in m.weeks] == [True] * 7 + [False] * 5  # whole from Monday Nov 2
    assert momentum.headline(m) == "56 papers in the last four weeks; the four weeks before are not synced yet · 5.6% of all new papers"
    none = momentum.compute(days, TODAY, total_new_last4=1000, coverage=Coverage())
    assert (none.last4, none.prev4, none.share_pct) == (None, None, None)
    assert momentum.headline(none) == "The last four weeks are not synced yet"
    whole = momentum.compute(days, TODAY, coverage=Coverage.of_spans([("202601010000", "202612312359")]))
    assert (whole.last4, whole.prev4, whole.change_pct) == (56, 56, 0.0)


@pytest.mark.slow
async def test_a_sync_cut_short_leaves_earlier_weeks_uncovered_in_the_cli_and_on_the_chart(fake_arxiv, data_dir, capsys, monkeypatch):
    from reader.sync import syncer as sync_module

    monkeypatch.setattr(sync_module, "PAGE_SIZE", 50)
    monkeypatch.setattr(sync_module, "BULK_PAGE_SIZE", 50)
    monkeypatch.setattr(sync_module, "SAVE_EVERY", 50)
    fake_arxiv.queries[QUERY] = recent_papers(600, per_day=5)
    store = Store(data_dir)
    store.add_topic("Agents", QUERY)
    store.add_topic("Later", "ti:later")  # never synced: left out of "All papers", named there
    # Four pages (40 days of papers), then arXiv fails for good.
    fake_arxiv.faults = [None] * 4 + [Fault("status", 503)] * 4  # type: ignore[list-item]
    report = await run_sync(store, fake_arxiv, [Topic("Agents", QUERY)])
    assert report.topics[0].error == "arXiv answered HTTP 503 (gave up after 4 tries)"
    assert len(store.index()) == 200

    assert main(["topics", "list", "--json"]) == 0
    topics = json.loads(capsys.readouterr().out)
    assert topics == [
        {"name": "Agents", "query": QUERY, "cached": 200, "arxiv_total": 565, "last_sync": None, "covered_since": "2026-10-25"},
        {"name": "Later", "query": "ti:later", "cached": 0, "arxiv_total": None, "last_sync": None, "covered_since": None},
    ]
    assert main(["momentum", "--topic", "Agents", "--as-of", TODAY.isoformat(), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (figures["last4"], figures["prev4"], figures["change_pct"]) == (140, None, None)
    # the oldest day fetched (Oct 24) may go on below the last page: whole days from Oct 25
    assert figures["covered_since"] == "2026-10-25"
    assert [w["covered"] for w in figures["weeks"]] == [False] * 6 + [True] * 6  # whole weeks from Oct 26
    assert all(w["count"] is None for w in figures["weeks"][:6])

    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        chart = app.query_one(MomentumChart)
        text = chart.render().plain.splitlines()
        assert text[0].startswith("All papers") and text[0].endswith("╱ not synced yet")  # Agents' weeks
        assert text[1:3] == ["140 papers in the last four weeks; the four weeks before are not synced yet", "Later not synced yet"]
        await choose(pilot, View.of_topic("Agents"))
        text = chart.render().plain.splitlines()
        assert text[0].startswith("Agents · 565 on arXiv · 200 cached") and text[0].endswith("╱ not synced yet")
        assert text[1] == "140 papers in the last four weeks; the four weeks before are not synced yet"
        bars = text[3]  # the top row of bars: uncovered weeks hatched to full height, never low bars
        assert bars.split()[:11] == ["╱╱╱╱╱"] * 6 + ["█████"] * 5


def test_all_papers_momentum_leaves_out_what_only_a_topic_never_synced_holds(data_dir, capsys, monkeypatch):
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    papers = recent_papers(40, per_day=2)
    store = Store(data_dir)
    store.add_topic("Agents", QUERY)
    store.save_papers(papers[:30], "Agents")
    record_synced(store, "Agents", QUERY)
    store.add_topic("Later", "ti:later")  # never synced; some cached papers of its own (its query changed, say)
    store.save_papers(papers[25:40], "Later")
    assert main(["momentum", "--as-of", TODAY.isoformat(), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert all(week["covered"] for week in figures["weeks"])
    assert figures["last4"] == 30  # Agents' papers (five of them in Later too), not Later's own ten
