"""Settings from the environment, read and validated in one place."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from reader.errors import ConfigError

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_RSS_URL = "https://rss.arxiv.org/rss/"


def _float(name: str, default: float, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value < minimum or value != value:
        raise ConfigError(f"{name}={raw!r} must be at least {minimum:g}")
    return value


def _url(name: str, default: str) -> str:
    raw = os.environ.get(name, "").strip() or default
    if not raw.startswith(("http://", "https://")):
        raise ConfigError(f"{name}={raw!r} is not an http(s) URL")
    return raw


def parse_day(text: str, what: str) -> date:
    """YYYY-MM-DD, or a ConfigError naming `what`."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"{what}={text!r} is not a date in the form YYYY-MM-DD") from None


@dataclass(frozen=True, slots=True)
class Settings:
    api_url: str
    rss_url: str
    delay: float  # seconds between the end of one request and the start of the next
    timeout: float  # seconds for connect and for each read
    retries: int
    backoff: float  # seconds before the first retry (doubling each time)
    today_override: date | None
    sync_weeks: int  # how far back a first sync reaches
    sync_interval_hours: float  # the app syncs on start when the last sync is older than this
    data_dir: Path | None

    def today(self) -> date:
        return self.today_override or date.today()

    @classmethod
    def from_env(cls) -> Settings:
        today = os.environ.get("READER_TODAY", "").strip()
        data_dir = os.environ.get("READER_DATA_DIR", "").strip()
        return cls(
            api_url=_url("READER_ARXIV_API_URL", DEFAULT_API_URL),
            rss_url=_url("READER_ARXIV_RSS_URL", DEFAULT_RSS_URL),
            delay=_float("READER_ARXIV_DELAY", 3.0),
            timeout=_float("READER_ARXIV_TIMEOUT", 30.0, minimum=0.1),
            retries=int(_float("READER_ARXIV_RETRIES", 4)),
            backoff=_float("READER_ARXIV_BACKOFF", 5.0),
            today_override=parse_day(today, "READER_TODAY") if today else None,
            sync_weeks=int(_float("READER_SYNC_WEEKS", 16, minimum=1)),
            sync_interval_hours=_float("READER_SYNC_INTERVAL_HOURS", 6.0),
            data_dir=Path(data_dir).expanduser() if data_dir else None,
        )


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("reader", appauthor=False))
