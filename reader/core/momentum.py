"""Momentum: papers per week for 12 weeks, and the last four weeks against the four before.

Weeks start on Monday; the last bar is the week that contains `as_of`. "The last four weeks"
are the 28 days ending on `as_of`, inclusive; "the four weeks before" the 28 days before those.

Given a Coverage (the days the cache holds completely), only covered days count: a week or a
four-week window with a day not covered has no figure (None), never a figure too low.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from reader.core.coverage import Coverage
from reader.core.text import plural

CHART_WEEKS = 12
WINDOW_DAYS = 28


@dataclass(frozen=True, slots=True)
class Week:
    start: date
    count: int | None  # None: not every day of the week (up to as_of) is covered


@dataclass(frozen=True, slots=True)
class Momentum:
    as_of: date
    weeks: tuple[Week, ...]
    last4: int | None  # None when the 28 days are not all covered
    prev4: int | None
    change_pct: float | None  # None unless both are known and the four weeks before had papers
    total_new_last4: int | None  # all new arXiv papers in the last four weeks, when known
    share_pct: float | None
    covered_since: date | None = None  # the first day of the newest stretch the cache holds whole

    def to_json(self, topic: str | None) -> dict:
        return {
            "topic": topic,
            "as_of": self.as_of.isoformat(),
            "covered_since": None if self.covered_since is None else self.covered_since.isoformat(),
            "weeks": [{"start": w.start.isoformat(), "count": w.count, "covered": w.count is not None} for w in self.weeks],
            "last4": self.last4,
            "prev4": self.prev4,
            "change_pct": None if self.change_pct is None else round(self.change_pct, 1),
            "share_pct": None if self.share_pct is None else round(self.share_pct, 2),
            "total_new_last4": self.total_new_last4,
        }


def last4_window(as_of: date) -> tuple[date, date]:
    """First and last day of "the last four weeks"."""
    return as_of - timedelta(days=WINDOW_DAYS - 1), as_of


def total_window(as_of: date) -> str:
    """The cache key of "all new arXiv papers in the last four weeks": `YYYYMMDD-YYYYMMDD`."""
    start, end = last4_window(as_of)
    return f"{start:%Y%m%d}-{end:%Y%m%d}"


def compute(published: Iterable[date], as_of: date, total_new_last4: int | None = None, coverage: Coverage | None = None) -> Momentum:
    """Momentum of papers whose v1 dates are `published` (papers after `as_of` are ignored)."""
    return compute_days((day.toordinal() for day in published), as_of, total_new_last4, coverage)


def compute_days(days: Iterable[int], as_of: date, total_new_last4: int | None = None, coverage: Coverage | None = None) -> Momentum:
    """The same, from v1 days as proleptic ordinals (`date.toordinal()`), as the cache index holds
    them. Without a coverage every day counts (a set of papers complete by construction)."""
    today = as_of.toordinal()
    first_week_date = as_of - timedelta(days=as_of.weekday()) - timedelta(weeks=CHART_WEEKS - 1)
    first_week = first_week_date.toordinal()
    last_start = today - WINDOW_DAYS + 1
    prev_start = last_start - WINDOW_DAYS
    counts = [0] * CHART_WEEKS
    last4 = prev4 = 0
    for day in days:
        if day > today or day < min(first_week, prev_start):
            continue
        if day >= first_week:
            counts[(day - first_week) // 7] += 1
        if day >= last_start:
            last4 += 1
        elif day >= prev_start:
            prev4 += 1

    def covered(first: int, last: int) -> bool:
        return coverage is None or coverage.covers(first, last)

    weeks = tuple(
        Week(first_week_date + timedelta(weeks=i), n if covered(first_week + 7 * i, min(first_week + 7 * i + 6, today)) else None)
        for i, n in enumerate(counts)
    )
    known_last4 = last4 if covered(last_start, today) else None
    known_prev4 = prev4 if covered(prev_start, last_start - 1) else None
    change = (last4 - prev4) / prev4 * 100 if known_last4 is not None and known_prev4 else None
    share = last4 / total_new_last4 * 100 if total_new_last4 and known_last4 is not None else None
    return Momentum(
        as_of=as_of,
        weeks=weeks,
        last4=known_last4,
        prev4=known_prev4,
        change_pct=change,
        total_new_last4=total_new_last4,
        share_pct=share,
        covered_since=coverage.since if coverage is not None else None,
    )


def headline(m: Momentum) -> str:
    """`70 papers in the last four weeks, up 141% on the four weeks before · 0.7% of all new papers`,
    or why a figure is missing."""
    if m.last4 is None:
        return "The last four weeks are not synced yet"
    text = f"{plural(m.last4, 'paper', thousands=True)} in the last four weeks"
    if m.prev4 is None:
        text += "; the four weeks before are not synced yet"
    elif m.change_pct is None:
        text += ", none in the four weeks before" if m.last4 else ""
    elif round(m.change_pct) == 0:
        text += ", level with the four weeks before"
    else:
        direction = "up" if m.change_pct > 0 else "down"
        text += f", {direction} {abs(m.change_pct):.0f}% on the four weeks before"
    if m.share_pct is not None:
        text += f" · {_share(m.share_pct)} of all new papers"
    return text


def _share(pct: float) -> str:
    if pct == 0:
        return "0%"
    if pct < 0.1:
        return "<0.1%"
    return f"{pct:.1f}%" if pct < 10 else f"{pct:.0f}%"
