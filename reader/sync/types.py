"""What a sync takes and gives, as plain values importable without the network stack: the
client's options from the settings, progress events, each topic's result and the run's report.
The app reads them from its sync's child process (process.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reader.arxiv.options import ClientOptions

if TYPE_CHECKING:
    from reader.config import Settings


def client_options(settings: Settings) -> ClientOptions:
    return ClientOptions(
        api_url=settings.api_url,
        rss_url=settings.rss_url,
        delay=settings.delay,
        timeout=settings.timeout,
        retries=settings.retries,
        backoff=settings.backoff,
        html_url=settings.html_url,
        pdf_url=settings.pdf_url,
        ar5iv_url=settings.ar5iv_url,
    )


@dataclass(slots=True)
class TopicResult:
    topic: str
    new: int = 0
    updated: int = 0
    fetched: int = 0
    requests: int = 0  # requests made to arXiv for the topic, retries included
    arxiv_total: int | None = None  # arXiv's totalResults for the topic over the horizon
    error: str | None = None
    unreachable: bool = False  # arXiv could not be reached at all
    note: str | None = None  # what the user should know though nothing failed ("1 entry skipped: ...")
    changed_ids: list[str] = field(default_factory=list)  # stored new or newer: what a view reloads


@dataclass(slots=True)
class SyncEvent:
    """Progress for displays: `topic` is None for events about the whole run."""

    topic: str | None
    message: str
    fetched: int = 0
    expected: int | None = None


@dataclass(slots=True)
class SyncReport:
    topics: list[TopicResult] = field(default_factory=list)
    versions: TopicResult | None = None  # newer versions found through the announcement feeds
    total_new_last4: int | None = None
    total_error: str | None = None

    @property
    def new(self) -> int:
        return sum(t.new for t in self.topics)

    @property
    def updated(self) -> int:
        return sum(t.updated for t in self.topics) + (self.versions.updated if self.versions else 0)

    @property
    def failed(self) -> list[TopicResult]:
        return [t for t in self.topics if t.error]

    @property
    def offline(self) -> bool:
        return bool(self.topics) and all(t.unreachable for t in self.topics)

    @property
    def changed_ids(self) -> list[str]:
        results = self.topics + ([self.versions] if self.versions else [])
        return [pid for t in results for pid in t.changed_ids]
