"""Coverage: which submission days a topic's cache holds completely.

A sync records the spans of submission time it fetched whole, as arXiv writes times in a query
(`YYYYMMDDHHMM`, GMT, both ends inclusive). Momentum counts only the days those spans cover from
00:00 to 23:59, so a figure is never drawn from a day the cache holds only part of.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

MINUTE_FORMAT = "%Y%m%d%H%M"
Span = tuple[str, str]  # (first minute, last minute), inclusive


def minute(moment: datetime) -> str:
    return moment.strftime(MINUTE_FORMAT)


def parse_minute(text: str) -> datetime:
    return datetime.strptime(text, MINUTE_FORMAT)


def next_minute(text: str) -> str:
    return minute(parse_minute(text) + timedelta(minutes=1))


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Overlapping or adjacent spans joined, oldest first."""
    merged: list[list[str]] = []
    for first, last in sorted(spans):
        if merged and first <= next_minute(merged[-1][1]):
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return [(first, last) for first, last in merged]


@dataclass(frozen=True, slots=True)
class Coverage:
    """Whole days covered, as inclusive ranges of day ordinals, oldest first."""

    days: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of_spans(cls, spans: Iterable[Span]) -> Coverage:
        ranges = []
        for first, last in merge_spans(spans):
            start, end = parse_minute(first), parse_minute(last)
            first_day = start.date() if (start.hour, start.minute) == (0, 0) else start.date() + timedelta(days=1)
            last_day = end.date() if (end.hour, end.minute) == (23, 59) else end.date() - timedelta(days=1)
            if first_day <= last_day:
                ranges.append((first_day.toordinal(), last_day.toordinal()))
        return cls(tuple(ranges))

    def covers(self, first: int, last: int) -> bool:
        """Whether every day from `first` to `last` (ordinals, inclusive) is covered."""
        return any(start <= first and last <= end for start, end in self.days)

    @property
    def since(self) -> date | None:
        """The first day of the newest covered stretch (what "covered since" means to a reader)."""
        return date.fromordinal(self.days[-1][0]) if self.days else None

    def intersection(self, other: Coverage) -> Coverage:
        ranges = []
        for a_start, a_end in self.days:
            for b_start, b_end in other.days:
                start, end = max(a_start, b_start), min(a_end, b_end)
                if start <= end:
                    ranges.append((start, end))
        return Coverage(tuple(sorted(ranges)))


def common_coverage(coverages: Iterable[Coverage]) -> Coverage:
    """The days every one of the coverages holds: a view of several topics (All papers) holds a
    day completely only when each topic does; one topic's gap would otherwise look like a dip."""
    result: Coverage | None = None
    for coverage in coverages:
        result = coverage if result is None else result.intersection(coverage)
    return result or Coverage()


def view_coverage(spans_by_topic: dict[str, tuple[Span, ...]], topic: str | None) -> Coverage:
    """What a view holds whole: one topic's coverage, or for all papers the days every synced
    topic covers (`spans_by_topic` holds every topic, with no spans for one never synced). A
    topic never synced (added offline, or not yet) is left out rather than blanking every week:
    all papers' momentum is then that of the synced topics (see `unsynced_topics`)."""
    if topic is not None:
        return Coverage.of_spans(spans_by_topic.get(topic, ()))
    return common_coverage(Coverage.of_spans(spans) for spans in spans_by_topic.values() if spans)


def unsynced_topics(spans_by_topic: dict[str, tuple[Span, ...]]) -> list[str]:
    """The topics with nothing fetched whole: left out of all papers' momentum."""
    return [name for name, spans in spans_by_topic.items() if not spans]


def unsynced_note(names: list[str], shown: int = 3) -> str:
    """What a chart of all papers says of the topics it leaves out."""
    if len(names) == 1:
        return f"{names[0]} not synced yet"
    listed = ", ".join(names[:shown]) + (" …" if len(names) > shown else "")
    return f"{len(names)} topics not synced yet: {listed}"


def day_start(day: date) -> str:
    return f"{day:%Y%m%d}0000"


def day_end(day: date) -> str:
    return f"{day:%Y%m%d}2359"


def trusted_spans(spans: Iterable[Span], fetched_day: str | None, margin: timedelta) -> list[Span]:
    """The spans a new sync can skip. Papers can be announced days after their submission, so the
    newest span is trusted only up to `margin` before the day it was fetched."""
    merged = merge_spans(spans)
    if not merged:
        return []
    first, last = merged[-1]
    cut = parse_minute(day_start(date.fromisoformat(fetched_day[:10]) - margin)) if fetched_day else None
    if cut is None or parse_minute(first) >= cut:
        return merged[:-1]
    return merged[:-1] + [(first, min(last, minute(cut - timedelta(minutes=1))))]
