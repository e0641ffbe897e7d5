"""Realistic caches for benchmarks: sizes of titles, abstracts and author lists drawn from the
recorded arXiv fixtures, ids and dates spread over the year before `today`."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from reader.arxiv.parse import parse_api_page
from reader.models import Paper
from reader.store import Store

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "arxiv"
TOPICS = [("Agents", "ti:agent"), ("Testing", "ti:testing"), ("Learning", "abs:learning")]


def model_papers() -> list[Paper]:
    papers = []
    for path in sorted(FIXTURES.glob("api-*.xml")):
        if "error" in path.name:
            continue
        papers += parse_api_page(path.read_bytes()).papers
    if not papers:
        raise SystemExit(f"no fixtures found in {FIXTURES}")
    return papers


def synthetic_papers(count: int, today: date, seed: int = 1, *, days: int = 365, max_authors: int | None = None) -> list[Paper]:
    """`count` distinct papers, newest first, over the `days` days before `today` (ids stay
    distinct while a month holds fewer than 90,000); `max_authors`: each keeps 1 to that many
    of its model's authors."""
    rng = random.Random(seed)
    models = model_papers()
    papers = []
    per_day = count / days
    for i in range(count):
        day = today - timedelta(days=int(i / per_day))
        model = rng.choice(models)
        if max_authors is not None:
            model = dataclasses.replace(model, authors=model.authors[: rng.randint(1, max_authors)])
        moment = datetime.combine(day, time(12), tzinfo=UTC) - timedelta(seconds=i % 40000)
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
        paper_id = f"{day:%y%m}.{(count - i) % 90000:05d}"  # 90000+ are left for fresh papers
        papers.append(
            dataclasses.replace(
                model,
                id=paper_id,
                version=1,
                published=stamp,
                updated=stamp,
                title=f"{model.title} ({i})",
                abs_url=f"https://arxiv.org/abs/{paper_id}v1",
                pdf_url=f"https://arxiv.org/pdf/{paper_id}v1",
            )
        )
    return papers


def fresh_papers(count: int) -> list[Paper]:
    """Papers none of the benchmark caches hold (their ids are beyond the caches')."""
    papers = synthetic_papers(count, date(2026, 12, 2), seed=7)
    for i, paper in enumerate(papers):
        paper.id = f"{paper.id[:4]}.{90000 + i:05d}"
    return papers


def build_cache(data_dir: Path, count: int, today: date) -> list[Paper]:
    """A data directory holding `count` papers in three topics, some read and starred."""
    store = Store(data_dir)
    for name, query in TOPICS:
        store.add_topic(name, query)
    store.set_setting("examples_added", True)
    papers = synthetic_papers(count, today)
    for t, (name, _) in enumerate(TOPICS):
        members = papers[t::2] if t < 2 else papers[::5]
        for start in range(0, len(members), 20000):
            store.save_papers(members[start : start + 20000], name)
    store.set_marks([p.id for p in papers[10::7]], read=True)
    store.set_marks([p.id for p in papers[3::97]], starred=True)
    return papers
