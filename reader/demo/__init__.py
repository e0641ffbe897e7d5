"""The bundled demo set: the 30 newest papers of the topic page the product was designed from,
shown on a first run with no cache and no network. Kept in memory only, never in the cache."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from importlib import resources
from urllib.parse import urlencode

from reader.cache_index import CacheIndex, IndexEntry
from reader.core.sanitize import clean_text
from reader.models import Author, Paper


@dataclass(frozen=True, slots=True)
class DemoSet:
    topic: str
    papers: dict[str, Paper]
    index: CacheIndex
    as_of: date  # the day the page was captured: the demo chart is drawn as of then
    headline_figures: dict  # last4, change_pct, share_pct, latest_papers as the page showed them


def load_demo() -> DemoSet:
    raw = json.loads(resources.files(__package__).joinpath("seed-topic-page.json").read_text("utf-8"))
    page = raw["page"]
    papers: dict[str, Paper] = {}
    index: dict[str, IndexEntry] = {}
    for number, item in enumerate(raw["papers"], start=1):
        paper_id = f"demo-{number:02d}"
        shown = [clean_text(n) for n in item["authors_shown"]]
        affiliations = tuple(clean_text(a) for a in item.get("affiliations_shown", []))
        published = f"{item['published']}T00:00:00Z"
        papers[paper_id] = Paper(
            id=paper_id,
            version=1,
            title=clean_text(item["title"]),
            abstract=clean_text(item["abstract"]),
            authors=tuple(Author(name) for name in shown),
            categories=(item["primary_category"],),
            primary_category=item["primary_category"],
            published=published,
            updated=published,
            # No arXiv ids on the page: link to an arXiv title search instead.
            abs_url="https://arxiv.org/search/?" + urlencode({"query": item["title"], "searchtype": "title"}),
            extra_authors=max(0, item.get("authors_total", len(shown)) - len(shown)),
            listed_affiliations=affiliations,
            extra_affiliations=max(0, item.get("affiliations_total", len(affiliations)) - len(affiliations)),
            demo=True,
        )
        index[paper_id] = IndexEntry(1, item["published"], list(item.get("topics", [])))
    # The page was captured in the chart's last week, the day after its newest paper.
    return DemoSet(page["topic"], papers, CacheIndex.build(index), date.fromisoformat(page["chart_last_week"]), page)
