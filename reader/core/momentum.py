"""Momentum: papers per week for 12 weeks, and the last four weeks against the four before.

Weeks start on Monday; the last bar is the week that contains `as_of`. "The last four weeks"
are the 28 days ending on `as_of`, inclusive; "the four weeks before" the 28 days before those.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

CHART_WEEKS = 12
WINDOW_DAYS = 28


@dataclass(frozen=True, slots=True)
class Week:
    start: date
    count: int


@dataclass(frozen=True, slots=True)
class Momentum:
    as_of: date
    weeks: tuple[Week, ...]
    last4: int
    prev4: int
    change_pct: float | None  # None when there were no papers in the four weeks before
    total_new_last4: int | None  # all new arXiv papers in the last four weeks, when known
    share_pct: float | None

    def to_json(self, topic: str | None) -> dict:
        return {
            "topic": topic,
            "as_of": self.as_of.isoformat(),
            "weeks": [{"start": w.start.isoformat(), "count": w.count} for w in self.weeks],
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


def compute(published: Iterable[date], as_of: date, total_new_last4: int | None = None) -> Momentum:
    """Momentum of papers whose v1 dates are `published` (papers after `as_of` are ignored)."""
    return compute_days((day.toordinal() for day in published), as_of, total_new_last4)


def compute_days(days: Iterable[int], as_of: date, total_new_last4: int | None = None) -> Momentum:
    """The same, from v1 days as proleptic ordinals (`date.toordinal()`), as the cache index holds them."""
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
    change = (last4 - prev4) / prev4 * 100 if prev4 else None
    share = last4 / total_new_last4 * 100 if total_new_last4 else None
    return Momentum(
        as_of=as_of,
        weeks=tuple(Week(first_week_date + timedelta(weeks=i), n) for i, n in enumerate(counts)),
        last4=last4,
        prev4=prev4,
        change_pct=change,
        total_new_last4=total_new_last4,
        share_pct=share,
    )


def headline(m: Momentum) -> str:
    """`70 papers in the last four weeks, up 141% on the four weeks before · 0.7% of all new papers`."""
    noun = "paper" if m.last4 == 1 else "papers"
    text = f"{m.last4:,} {noun} in the last four weeks"
    if m.change_pct is None:
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
