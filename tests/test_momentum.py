from __future__ import annotations

from datetime import date, timedelta

from reader.core.momentum import compute, headline


def days(spec: dict[date, int]):
    return [day for day, n in spec.items() for _ in range(n)]


def test_weeks_start_on_monday_and_end_with_the_current_week():
    as_of = date(2026, 12, 2)  # a Wednesday
    m = compute([], as_of)
    assert len(m.weeks) == 12
    assert all(w.start.weekday() == 0 for w in m.weeks)
    assert m.weeks[-1].start == date(2026, 11, 30)
    assert m.weeks[0].start == date(2026, 9, 14)


def test_counts_per_week_and_windows_at_their_edges():
    as_of = date(2026, 12, 2)
    published = days(
        {
            as_of: 2,  # in the last window and the last week
            as_of - timedelta(days=27): 3,  # first day of the last four weeks
            as_of - timedelta(days=28): 4,  # last day of the four weeks before
            as_of - timedelta(days=55): 5,  # first day of the four weeks before
            as_of - timedelta(days=56): 6,  # outside both windows
            as_of + timedelta(days=1): 7,  # the future: ignored
            date(2026, 9, 14): 1,  # the first chart week's Monday
            date(2026, 9, 13): 1,  # the Sunday before: off the chart
        }
    )
    m = compute(published, as_of)
    assert (m.last4, m.prev4) == (5, 9)
    assert m.weeks[-1].count == 2
    assert m.weeks[0].count == 1
    assert sum(w.count for w in m.weeks) == 2 + 3 + 4 + 5 + 6 + 1
    assert round(m.change_pct, 2) == round((5 - 9) / 9 * 100, 2)


def test_the_design_headline():
    as_of = date(2026, 10, 1)
    published = [as_of] * 70 + [as_of - timedelta(days=30)] * 29
    m = compute(published, as_of, total_new_last4=10000)
    assert headline(m) == "70 papers in the last four weeks, up 141% on the four weeks before · 0.7% of all new papers"
    assert m.to_json("RL")["change_pct"] == 141.4 and m.to_json("RL")["share_pct"] == 0.7


def test_headline_wording_for_other_cases():
    as_of = date(2026, 10, 1)
    before = as_of - timedelta(days=30)
    assert headline(compute([as_of] * 3, as_of)) == "3 papers in the last four weeks, none in the four weeks before"
    assert headline(compute([as_of] * 4 + [before] * 8, as_of)) == "4 papers in the last four weeks, down 50% on the four weeks before"
    assert headline(compute([as_of] * 5 + [before] * 5, as_of)) == "5 papers in the last four weeks, level with the four weeks before"
    assert headline(compute([], as_of)) == "0 papers in the last four weeks"
    assert headline(compute([as_of], as_of, total_new_last4=2_000_000)) == (
        "1 paper in the last four weeks, none in the four weeks before · <0.1% of all new papers"
    )
    assert compute([as_of], as_of).share_pct is None
