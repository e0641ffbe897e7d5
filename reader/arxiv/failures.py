"""What goes wrong with a request to arXiv, in words a person can act on: a network failure or a
server's refusal as a one-line message (the library's own wording goes to the log), whether
another try may help (Retryable), and how long the server asked to wait (Retry-After)."""

from __future__ import annotations

import logging
import socket
import ssl
import time
import zlib
from datetime import UTC

import httpx

from reader.arxiv.options import ClientOptions
from reader.core.sanitize import clean_text
from reader.errors import ArxivError

log = logging.getLogger("reader.arxiv")

MAX_RETRY_AFTER = 600.0
DEFAULT_PORTS = {"http": 80, "https": 443}


class Retryable(Exception):
    def __init__(self, reason: str, wait: float | None = None, slow_down: bool = False, unreachable: bool = False):
        super().__init__(reason)
        self.wait = wait  # what the server asked for (Retry-After), if anything
        self.slow_down = slow_down  # a 429: back off much longer
        self.unreachable = unreachable  # no connection at all: one more try, then say so


def where(url: str | httpx.URL) -> str:
    """`export.arxiv.org`, or `host:port` when the port is not the usual one."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return "the configured host"
    place = clean_text(parsed.host)[:60] or "the configured host"
    return place if parsed.port in (None, DEFAULT_PORTS.get(parsed.scheme)) else f"{place}:{parsed.port}"


def transport_failure(error: Exception, url: str, options: ClientOptions) -> Exception:  # noqa: C901 (one branch per kind of failure, each with its own message)
    """A one-line message a person can act on, never the library's or the OS's wording (that
    goes to the log). Retryable unless retrying cannot help."""
    causes: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and len(causes) < 10:
        causes.append(link)
        link = link.__cause__ or link.__context__
    log.warning("GET %s: %s", url, " <- ".join(f"{type(c).__name__}: {c}" for c in causes))
    host = where(url)
    if isinstance(error, httpx.ConnectTimeout):
        return Retryable(f"arXiv cannot be reached ({host} did not answer; no network?)", unreachable=True)
    if isinstance(error, httpx.TimeoutException):
        return Retryable(f"arXiv did not answer in time (nothing for {options.timeout:g} s)")
    if isinstance(error, httpx.ConnectError):
        if any(isinstance(c, socket.gaierror) for c in causes):
            reason = f"the name {host} cannot be looked up; no network?"
        elif any(isinstance(c, ConnectionRefusedError) for c in causes):
            reason = f"{host} refused the connection"
        elif any(isinstance(c, ssl.SSLError) for c in causes):
            return Retryable(f"the secure connection to {host} failed (a proxy, or a wrong clock?)", unreachable=True)
        else:
            reason = "no network?"
        return Retryable(f"arXiv cannot be reached ({reason})", unreachable=True)
    if isinstance(error, (httpx.DecodingError, zlib.error)):
        return Retryable("arXiv's response could not be decompressed")
    if isinstance(error, httpx.RemoteProtocolError) and any(isinstance(c, httpx.InvalidURL) for c in causes):
        # httpx reads a redirect's Location even when it is not to follow it.
        return ArxivError("arXiv redirected to an invalid address; not followed")
    if isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return Retryable("the connection to arXiv broke off mid-answer")
    if isinstance(error, (httpx.UnsupportedProtocol, httpx.InvalidURL, httpx.LocalProtocolError)):
        return ArxivError("the arXiv address in the settings cannot be used (is it an http(s) URL?)")
    if isinstance(error, httpx.TooManyRedirects):
        return ArxivError("arXiv redirected too many times; stopped")
    return Retryable("a network error interrupted the request")


def retry_after(header: str | None) -> float | None:
    """Seconds from a Retry-After header: a whole number of seconds or an HTTP date (one in the
    past is 0). None for anything else (nan, inf, -1, 1e3, 1.5, text): it counts as absent."""
    if header is None:
        return None
    header = header.strip()
    if header.isascii() and header.isdigit():
        seconds = header.lstrip("0")
        # Five digits or more is past MAX_RETRY_AFTER anyway (and int() of thousands is slow).
        return MAX_RETRY_AFTER if len(seconds) > 4 else min(float(seconds or 0), MAX_RETRY_AFTER)
    from email.utils import parsedate_to_datetime

    try:
        moment = parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:  # "-0000": HTTP dates are in GMT
        moment = moment.replace(tzinfo=UTC)
    return min(max(moment.timestamp() - time.time(), 0.0), MAX_RETRY_AFTER)
