"""Realistic papers for sync tests: the recorded 100-entry fixture, re-dated to recent weeks."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, time, timedelta

from reader.arxiv.parse import parse_api_page
from reader.models import Paper
from tests.conftest import fixture_bytes

TODAY = date(2026, 12, 2)


def stamp(day: date, seconds: int = 0) -> str:
    moment = datetime.combine(day, time(12, 0), tzinfo=UTC) + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def recent_papers(count: int, *, today: date = TODAY, per_day: int = 5, id_base: int = 10000) -> list[Paper]:
    """`count` distinct papers, newest first, `per_day` a day going back from `today`."""
    source = parse_api_page(fixture_bytes("api-2026-search-all-testing-100-entries.xml")).papers
    papers = []
    for i in range(count):
        day = today - timedelta(days=i // per_day)
        model = source[i % len(source)]
        paper_id = f"{day:%y%m}.{id_base + count - i:05d}"
        papers.append(
            dataclasses.replace(
                model,
                id=paper_id,
                abs_url=f"https://arxiv.org/abs/{paper_id}v{model.version}",
                pdf_url=f"https://arxiv.org/pdf/{paper_id}v{model.version}",
                published=stamp(day, -i),
                updated=stamp(day, -i) if model.version == 1 else stamp(today, -i),
            )
        )
    return papers


def record_synced(store, name: str, query: str, *, today: date = TODAY, weeks: int = 16) -> None:
    """What a complete sync of a topic on `today` records: its horizon fetched whole (for caches
    a test builds by hand, whose charts would otherwise say, rightly, that nothing is synced)."""
    spans = [(f"{today - timedelta(weeks=weeks):%Y%m%d}0000", f"{today + timedelta(days=1):%Y%m%d}2359")]
    store.sync_file.record_progress(name, query, spans, today.isoformat(), None)
    store.sync_file.record_sync(name, query)
