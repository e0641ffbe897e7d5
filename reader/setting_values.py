"""The kinds of value a setting holds (a number in a range, an http(s) URL, a day, true or false,
one of some words, a path, a theme's name), each a function from a raw value (TOML's, or an
environment variable's text) to the value, or an Invalid saying why not (reader/config.py adds
which setting and where it came from)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from datetime import date
from pathlib import Path
from typing import Any

# "Today" must leave room for the sync horizon and the chart's weeks on both sides of the
# calendar, and arXiv has no papers before it began.
EARLIEST_DAY = date(1991, 1, 1)
LATEST_DAY = date(9999, 1, 1)


class Invalid(ValueError):
    """Why a raw value is unusable; the caller adds which setting and where it came from."""


def number(low: float, high: float, unit: str, *, whole: bool = False) -> Callable[[Any], float | int]:
    allowed = f"{'a whole number' if whole else 'a number'} from {low:g} to {high:g}{unit}"

    def convert(raw: Any) -> float | int:
        if isinstance(raw, bool):
            raise Invalid(f"is not a number (allowed: {allowed})")
        if isinstance(raw, str):
            try:
                raw = float(raw.strip())
            except ValueError:
                raise Invalid(f"is not a number (allowed: {allowed})") from None
        if not isinstance(raw, (int, float)):
            raise Invalid(f"is not a number (allowed: {allowed})")
        if math.isnan(raw) or not low <= raw <= high:
            raise Invalid(f"is out of range (allowed: {allowed})")
        if whole:
            if raw != int(raw):
                raise Invalid(f"is not a whole number (allowed: {allowed})")
            return int(raw)
        return float(raw)

    return convert


# Patterns are compiled at their first use (by re's cache), not by every command's start.
_URL_HOST = r"[A-Za-z0-9.-]+|[0-9A-Fa-f:.]+"


def url(raw: Any) -> str:
    allowed = "an http(s) URL such as https://export.arxiv.org/api/query"
    if not isinstance(raw, str) or not raw.strip():
        raise Invalid(f"is not a URL (allowed: {allowed})")
    text = raw.strip()
    if any(c.isspace() or not c.isprintable() for c in text):
        raise Invalid("is not a URL: it contains spaces or control characters")
    try:
        from urllib.parse import urlsplit

        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError as error:
        raise Invalid(f"is not a URL ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise Invalid(f"is not an http(s) URL (allowed: {allowed})")
    if not host or not re.fullmatch(_URL_HOST, host):
        raise Invalid("has no usable host name (a name or an IP address)")
    if port == 0:
        raise Invalid("has port 0 (allowed: 1 to 65535)")
    return text


def day(raw: Any, or_word: str = "") -> date:
    allowed = f"{or_word + ' or ' if or_word else ''}a date from {EARLIEST_DAY} to {LATEST_DAY}"
    if isinstance(raw, date):
        day = raw
    else:
        try:
            day = date.fromisoformat(str(raw).strip())
        except ValueError:
            raise Invalid(f"is not a date in the form YYYY-MM-DD (allowed: {allowed})") from None
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise Invalid(f"is out of range (allowed: {allowed})")
    return day


_TRUE, _FALSE = frozenset({"true", "yes", "on", "1"}), frozenset({"false", "no", "off", "0"})


def boolean(raw: Any) -> bool:
    """true or false (TOML's), or from the environment true/false, yes/no, on/off, 1/0 in any case."""
    if isinstance(raw, bool):
        return raw
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise Invalid("is not true or false (allowed: true or false)")


def choice(*words: str) -> Callable[[Any], str]:
    allowed = " or ".join(words)

    def convert(raw: Any) -> str:
        word = raw.strip().lower() if isinstance(raw, str) else None
        if word not in words:
            raise Invalid(f"is not one of the choices (allowed: {allowed})")
        return word

    return convert


def file_path(raw: Any) -> Path:
    if not isinstance(raw, str) or not raw.strip():
        raise Invalid("is not a path (allowed: a file or directory path, ~ for home)")
    if "\0" in raw:
        raise Invalid("is not a path: it contains a NUL character")
    return Path(raw.strip()).expanduser()


def theme_name(raw: Any) -> str:
    if not isinstance(raw, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", raw.strip()):
        raise Invalid("is not a theme name (allowed: a name like nord or solarized-light)")
    return raw.strip()


def theme_problem(name: str, themes: Collection[str]) -> str | None:
    """Why `name` is none of `themes` (the app's), naming the nearest one, as keymap.toml's
    mistakes do; None when it is one."""
    if name in themes:
        return None
    import difflib

    close = difflib.get_close_matches(name.lower(), sorted(themes), n=1)
    return f"is not a theme (did you mean {close[0]}?)" if close else f"is not a theme (themes: {', '.join(sorted(themes))})"


IMAGE_MODES = ("auto", "halfblock", "off")


def image_mode(raw: Any) -> str:
    """auto: a terminal's graphics protocol where it speaks one, else half blocks; halfblock;
    off: no pixels at all."""
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word not in IMAGE_MODES:
        raise Invalid(f"is not an image mode (allowed: {', '.join(IMAGE_MODES)})")
    return word


def known_theme(themes: Collection[str]) -> Callable[[Any], str]:
    def convert(raw: Any) -> str:
        name = theme_name(raw)
        problem = theme_problem(name, themes)
        if problem:
            raise Invalid(problem)
        return name

    return convert
