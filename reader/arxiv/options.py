"""How the arXiv client behaves: plain values, importable without the network stack (the app
passes them to its sync's child process)."""

from __future__ import annotations

from dataclasses import dataclass

from reader import __version__

USER_AGENT = f"reader/{__version__} (terminal arXiv topic reader; polite: 1 request per 3 s, 1 connection)"
DEADLINE_FACTOR = 4  # a whole request may take this many times the per-read timeout


@dataclass(frozen=True, slots=True)
class ClientOptions:
    api_url: str
    rss_url: str
    delay: float = 3.0
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 5.0  # first retry waits this long (doubling); after a 429, six times as long
    user_agent: str = USER_AGENT
    html_url: str = "https://arxiv.org/html/"  # full texts: the id and version follow (reader/fulltext)
    pdf_url: str = "https://arxiv.org/pdf/"
    ar5iv_url: str = "https://ar5iv.labs.arxiv.org/html/"  # older papers' HTML: the id follows, no version

    @property
    def deadline(self) -> float:
        """Seconds a whole request may take, body included: a server dripping a byte at a time
        resets the per-read timeout forever, never this."""
        return self.timeout * DEADLINE_FACTOR
