"""Settings, read and validated in one place. Each setting comes from, in order of precedence, a
command-line flag, an environment variable (READER_...), the config file (TOML in the platform's
config directory) or its default; every value is checked against its allowed range, whatever its
source, and a bad one is a one-line ConfigError naming where it came from."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reader.errors import ConfigError

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_RSS_URL = "https://rss.arxiv.org/rss/"
CONFIG_FILE_NAME = "config.toml"
# "Today" must leave room for the sync horizon and the chart's weeks on both sides of the
# calendar, and arXiv has no papers before it began.
EARLIEST_DAY = date(1991, 1, 1)
LATEST_DAY = date(9999, 1, 1)


class _Invalid(ValueError):
    """Why a raw value is unusable; the caller adds which setting and where it came from."""


# --- value kinds ---------------------------------------------------------------------------------


def _number(low: float, high: float, unit: str, *, whole: bool = False) -> Callable[[Any], float | int]:
    allowed = f"{'a whole number' if whole else 'a number'} from {low:g} to {high:g}{unit}"

    def convert(raw: Any) -> float | int:
        if isinstance(raw, bool):
            raise _Invalid(f"is not a number (allowed: {allowed})")
        if isinstance(raw, str):
            try:
                raw = float(raw.strip())
            except ValueError:
                raise _Invalid(f"is not a number (allowed: {allowed})") from None
        if not isinstance(raw, (int, float)):
            raise _Invalid(f"is not a number (allowed: {allowed})")
        if math.isnan(raw) or not low <= raw <= high:
            raise _Invalid(f"is out of range (allowed: {allowed})")
        if whole:
            if raw != int(raw):
                raise _Invalid(f"is not a whole number (allowed: {allowed})")
            return int(raw)
        return float(raw)

    return convert


_URL_HOST = re.compile(r"[A-Za-z0-9.-]+|[0-9A-Fa-f:.]+")


def _url(raw: Any) -> str:
    allowed = "an http(s) URL such as https://export.arxiv.org/api/query"
    if not isinstance(raw, str) or not raw.strip():
        raise _Invalid(f"is not a URL (allowed: {allowed})")
    text = raw.strip()
    if any(c.isspace() or not c.isprintable() for c in text):
        raise _Invalid("is not a URL: it contains spaces or control characters")
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError as error:
        raise _Invalid(f"is not a URL ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise _Invalid(f"is not an http(s) URL (allowed: {allowed})")
    if not host or not _URL_HOST.fullmatch(host):
        raise _Invalid("has no usable host name (a name or an IP address)")
    if port == 0:
        raise _Invalid("has port 0 (allowed: 1 to 65535)")
    return text


def parse_day(text: str, what: str) -> date:
    """YYYY-MM-DD within the range date arithmetic can use, or a ConfigError naming `what`."""
    try:
        return _day(text)
    except _Invalid as error:
        raise ConfigError(f"{what}={text!r} {error}") from None


def _day(raw: Any) -> date:
    allowed = f"a date from {EARLIEST_DAY} to {LATEST_DAY}"
    if isinstance(raw, date):
        day = raw
    else:
        try:
            day = date.fromisoformat(str(raw).strip())
        except ValueError:
            raise _Invalid(f"is not a date in the form YYYY-MM-DD (allowed: {allowed})") from None
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise _Invalid(f"is out of range (allowed: {allowed})")
    return day


def _path(raw: Any) -> Path:
    if not isinstance(raw, str) or not raw.strip():
        raise _Invalid("is not a path (allowed: a file or directory path, ~ for home)")
    if "\0" in raw:
        raise _Invalid("is not a path: it contains a NUL character")
    return Path(raw.strip()).expanduser()


def _theme(raw: Any) -> str:
    if not isinstance(raw, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", raw.strip()):
        raise _Invalid("is not a theme name (allowed: a name like nord or solarized-light)")
    return raw.strip()


# --- the settings ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spec:
    name: str  # as written in the config file, e.g. "arxiv.delay" ([arxiv] delay = ...)
    attribute: str  # the Settings field
    convert: Callable[[Any], Any]
    default: Any
    help: str
    in_file: bool = True  # False: environment only (a testing aid, not a preference)

    @property
    def env(self) -> str:
        return "READER_" + self.name.replace(".", "_").upper()


SPECS: tuple[Spec, ...] = (
    Spec("arxiv.api_url", "api_url", _url, DEFAULT_API_URL, "export API endpoint"),
    Spec("arxiv.rss_url", "rss_url", _url, DEFAULT_RSS_URL, "announcement feeds"),
    Spec("arxiv.delay", "delay", _number(0, 600, " seconds"), 3.0,
         "seconds between the end of one request and the start of the next"),
    Spec("arxiv.timeout", "timeout", _number(0.1, 600, " seconds"), 30.0, "seconds to connect and per read"),
    Spec("arxiv.retries", "retries", _number(0, 10, "", whole=True), 4,
         "retries after a 429/5xx, a timeout or a broken response"),
    Spec("arxiv.backoff", "backoff", _number(0, 300, " seconds"), 5.0,
         "seconds before the first retry (doubling; six times longer after a 429)"),
    Spec("sync.weeks", "sync_weeks", _number(1, 1000, " weeks", whole=True), 16,
         "how far back a topic's first sync reaches"),
    Spec("sync.interval_hours", "sync_interval_hours", _number(0, 8760, " hours"), 6.0,
         "the app syncs on start when the last sync is older"),
    Spec("data_dir", "data_dir", _path, None, "where the cache lives"),
    Spec("theme", "theme", _theme, None, "the app's theme (Ctrl+P, Theme)"),
    Spec("export_path", "export_path", _path, None, "where the app's export dialog proposes to write"),
    Spec("today", "today_override", _day, None, "fixes today for windows, momentum and the horizon",
         in_file=False),
)
SPEC_BY_NAME = {spec.name: spec for spec in SPECS}


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
    theme: str | None = None  # None: the theme the app remembers, else Textual's default
    export_path: Path | None = None  # None: the path the app remembers, else ~/starred.bib
    # setting name -> where its value came from: "default", "file", "env" or "flag"
    sources: Mapping[str, str] = field(default_factory=dict)

    def today(self) -> date:
        return self.today_override or date.today()

    @classmethod
    def from_env(cls) -> Settings:
        """The settings a plain `reader` run uses: environment, config file, defaults."""
        return load_settings()


def load_settings(flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Each setting from its flag (name -> raw value; None means not given), else its environment
    variable (empty counts as unset), else the config file, else its default."""
    environ = os.environ if environ is None else environ
    flags = {name: raw for name, raw in (flags or {}).items() if raw is not None}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in SPECS:
        raw = environ.get(spec.env, "")
        if spec.name in flags:
            values[spec.attribute] = _checked(spec, flags[spec.name], f"--{spec.name.replace('_', '-')}")
            sources[spec.name] = "flag"
        elif raw.strip():
            values[spec.attribute] = _checked(spec, raw, spec.env)
            sources[spec.name] = "env"
        else:
            values[spec.attribute] = spec.default
            sources[spec.name] = "default"
    return Settings(**values, sources=sources)


def _checked(spec: Spec, raw: Any, where: str) -> Any:
    try:
        return spec.convert(raw)
    except _Invalid as error:
        raise ConfigError(f"{where}={raw!r} {error}") from None


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("reader", appauthor=False))
