"""An async client for arXiv's export API and announcement feeds that keeps to arXiv's terms:
one connection, one request at a time, a pause of `delay` seconds between the end of one
request and the start of the next, a descriptive User-Agent, timeouts, and patient retries.

What a server sends can do no harm: every request has an overall deadline, the decoded body is
capped as it is read, redirects are followed only within the configured hosts, and every
failure becomes an ArxivError with a one-line message (the details go to the log)."""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar
from urllib.parse import quote

import httpx

from reader.arxiv.decode import Decoder
from reader.arxiv.failures import DEFAULT_PORTS, Retryable, retry_after, transport_failure, where
from reader.arxiv.options import ClientOptions
from reader.arxiv.parse import (
    AnnouncementFeed,
    FeedPage,
    parse_api_page,
    parse_error_body,
    parse_rss,
)
from reader.core.sanitize import clean_text
from reader.errors import (
    ArxivAPIError,
    ArxivBadRequestError,
    ArxivError,
    ArxivNotFoundError,
    ArxivUnreachableError,
    FeedFormatError,
)

log = logging.getLogger("reader.arxiv")
Parsed = TypeVar("Parsed")

MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # a full 2000-entry page is ~3.5 MB
MAX_REDIRECTS = 3
RETRY_STATUSES = {429, 500, 502, 503, 504}
REDIRECT_STATUSES = {301, 302, 303, 307, 308}
WEB_SCHEMES = ("http", "https")


class Receiver(Protocol):
    """Takes a document's decoded body piece by piece as it arrives (a streaming parser, a file
    being written), so that a large one is never held whole; one per try."""

    def declare_charset(self, label: str | None) -> None:
        """The charset the answer's Content-Type names (None: none), before its first piece."""

    def located(self, url: str, content_type: str) -> None:
        """Where the answer came from after redirects, and its Content-Type ("" when none), before
        its first piece (a page's relative links resolve against that address)."""

    def feed(self, piece: bytes) -> None: ...

    def discard(self) -> None:
        """The try failed: let go of what was received (a retry starts a fresh receiver)."""

    def ended(self, delimited: bool) -> None:
        """The last piece came. `delimited`: the server marked the body's end (its Content-Length
        was met, or the last chunk came); otherwise only the connection's close ended it, which a
        connection broken half-way does too: the receiver judges by the body's own end."""


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    body: bytes
    retry_after: str | None


class ArxivClient:
    def __init__(self, options: ClientOptions, *, on_notice: Callable[[str], None] | None = None):
        self.options = options
        self.on_notice = on_notice  # told about waits and retries, for progress displays
        self._http: httpx.AsyncClient | None = None
        self._gate = asyncio.Lock()  # never two requests in flight
        self._last_end: float | None = None
        self.requests_made = 0
        self._location: str | None = None  # the last answer's Location, read before httpx's own use of it
        self._origins = _allowed_origins([options.api_url, options.rss_url, options.html_url, options.pdf_url, options.ar5iv_url])

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            timeout = self.options.timeout
            # Building the client loads the CA bundle: ~100 ms of CPU, kept off the event loop.
            self._http = await asyncio.to_thread(
                _new_http_client,
                # Only codings we undo ourselves, piece by piece (reader.arxiv.decode).
                headers={"User-Agent": self.options.user_agent, "Accept-Encoding": "gzip, deflate"},
                timeout=httpx.Timeout(timeout, connect=min(timeout, 15.0)),
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                follow_redirects=False,  # followed by hand, within the configured hosts
                event_hooks={"response": [self._note_location]},
            )
        return self._http

    async def _note_location(self, response: httpx.Response) -> None:
        self._location = response.headers.get("Location")

    def allows(self, url: str) -> bool:
        """`url` is an http(s) address on the configured hosts: one this client may ask."""
        try:
            target = httpx.URL(url)
        except (httpx.InvalidURL, ValueError, TypeError):
            return False
        return target.scheme in WEB_SCHEMES and _origin(target) in self._origins

    def _notice(self, message: str) -> None:
        if self.on_notice is not None:
            self.on_notice(message)

    # --- the one place a request is made --------------------------------------------------------

    async def _get(self, url: str, params: dict | None, receiver: Receiver | None = None) -> _Response:
        """One polite GET within the overall deadline: waits its turn, follows allowed redirects,
        decodes and reads at most MAX_RESPONSE_BYTES (a 200's body into `receiver`, when given)."""
        async with self._gate:
            if self._last_end is not None:
                pause = self._last_end + self.options.delay - time.monotonic()
                if pause > 0:
                    log.debug("waiting %.1f s before the next request", pause)
                    await asyncio.sleep(pause)
            self.requests_made += 1
            started = time.monotonic()
            deadline = asyncio.timeout(self.options.deadline)
            try:
                async with deadline:
                    return await self._follow(url, params, started, receiver)
            except TimeoutError:
                if not deadline.expired():
                    raise
                log.warning("GET %s: no complete answer within the %g s deadline", url, self.options.deadline)
                raise Retryable(f"arXiv did not finish answering within {self.options.deadline:g} s") from None
            finally:
                self._last_end = time.monotonic()

    async def _follow(self, url: str, params: dict | None, started: float, receiver: Receiver | None) -> _Response:
        client = await self._client()
        try:
            target = httpx.URL(url, params=params)
        except (httpx.InvalidURL, ValueError, TypeError):
            raise ArxivError("the arXiv address in the settings is not a valid URL") from None
        for _ in range(MAX_REDIRECTS + 1):
            self._location = None
            try:
                async with client.stream("GET", target) as response:
                    status = response.status_code
                    if 300 <= status < 400:
                        location = response.headers.get("Location")
                        log.info("GET %s -> %d redirect to %s (%.2f s)", target, status, location, time.monotonic() - started)
                        target = self._redirect_target(target, status, location)
                        continue
                    body = await _read_body(response, receiver if status == 200 else None)
                    log.info("GET %s -> %d, %d bytes in %.2f s", target, status, len(body), time.monotonic() - started)
                    return _Response(status, body, response.headers.get("Retry-After"))
            except (httpx.UnsupportedProtocol, httpx.InvalidURL):
                if target.scheme not in WEB_SCHEMES or self._location is None:
                    raise
                # httpx reads a redirect's Location before handing the answer over, and fails on
                # `data:...` or `javascript:...`: the address is no web page, the settings are fine.
                found = re.match(r"\s*([A-Za-z][A-Za-z0-9+.-]{0,30}):", self._location)
                raise ArxivError(_not_a_web_page(found[1] if found else "")) from None
        raise ArxivError(f"arXiv redirected more than {MAX_REDIRECTS} times; stopped (a redirect loop?)")

    def _redirect_target(self, current: httpx.URL, status: int, location: str | None) -> httpx.URL:
        """Where a redirect leads, if it stays on the configured hosts; ArxivError otherwise."""
        if status not in REDIRECT_STATUSES or not location:
            raise ArxivError(f"arXiv answered HTTP {status} without a usable redirect")
        try:
            target = current.join(location)
        except (httpx.InvalidURL, ValueError, TypeError):
            raise ArxivError("arXiv redirected to an invalid address; not followed") from None
        if target.scheme not in WEB_SCHEMES:
            raise ArxivError(_not_a_web_page(target.scheme))
        if _origin(target) not in self._origins:
            raise ArxivError(f"arXiv redirected to another host ({where(target)}); not followed")
        return target

    async def _request(
        self,
        url: str,
        params: dict | None,
        parse: Callable[[Any], Parsed],
        *,
        check: Callable[[Parsed], str | None] | None = None,
        stream: Callable[[], Receiver] | None = None,
    ) -> Parsed:
        """GET and parse with retries on 429/5xx, timeouts, broken connections and unreadable bodies.
        `stream`: a 200's body goes into a new receiver per try, which `parse` is then given in
        place of the body; a 404 is ArxivNotFoundError."""
        attempts = self.options.retries + 1
        for attempt in range(attempts):
            receiver = stream() if stream is not None else None
            try:
                return await self._try(url, params, parse, check, receiver)
            except Retryable as retry:
                if receiver is not None:
                    receiver.discard()  # the next try starts afresh
                log.warning("GET %s failed (try %d of %d): %s", url, attempt + 1, attempts, retry)
                if retry.unreachable and attempt >= min(1, attempts - 1):
                    raise ArxivUnreachableError(str(retry)) from None
                if attempt == attempts - 1:
                    raise ArxivError(f"{retry} (gave up after {attempts} tries)") from None
                # Never less than the backoff (doubling each time, six times as long after a 429),
                # longer when the server asks for longer.
                backoff = self.options.backoff * 2**attempt * (6 if retry.slow_down else 1)
                wait = max(backoff, retry.wait or 0.0, self.options.delay)
                log.info("retrying %s in %.1f s", url, wait)
                self._notice(f"{retry}; retrying in {wait:.0f} s")
                assert self._last_end is not None
                await asyncio.sleep(max(0.0, self._last_end + wait - time.monotonic()))
            except ArxivError as error:
                log.warning("GET %s failed: %s", url, error)
                raise
            finally:
                if receiver is not None and sys.exc_info()[0] is not None:
                    receiver.discard()  # a final failure, or an interruption
        raise AssertionError("unreachable")

    async def _try(
        self,
        url: str,
        params: dict | None,
        parse: Callable[[Any], Parsed],
        check: Callable[[Parsed], str | None] | None,
        receiver: Receiver | None,
    ) -> Parsed:
        """One try of `_request`: the answer parsed, or why not (Retryable when another try may help)."""
        try:
            response = await self._get(url, params, receiver)
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, zlib.error) as error:
            raise transport_failure(error, url, self.options) from None
        status = response.status
        if status == 404 and receiver is not None:
            raise ArxivNotFoundError(f"arXiv has nothing at {where(url)}{httpx.URL(url).path}")
        if status in RETRY_STATUSES:
            raise Retryable(f"arXiv answered HTTP {status}", retry_after(response.retry_after), status == 429)
        if status >= 400:
            message = parse_error_body(response.body) or f"arXiv answered HTTP {status}"
            if status == 400:
                raise ArxivBadRequestError(message)
            raise ArxivAPIError(message if status != 403 else f"{message} (access refused: slow down)")
        try:
            result = await asyncio.to_thread(parse, response.body if receiver is None else receiver)
        except FeedFormatError as error:
            raise Retryable(str(error)) from None
        except ArxivError:  # arXiv's own error feed: final
            raise
        except Exception:  # a parser library's own failure: logged in full, told in one line
            log.exception("parsing the answer to %s failed", url)
            raise Retryable("arXiv's response could not be read") from None
        if check is not None and (problem := check(result)):
            raise Retryable(problem)
        return result

    # --- API calls ---------------------------------------------------------------------------------

    async def search(self, query: str, *, start: int = 0, max_results: int = 100, expected_total: int | None = None) -> FeedPage:
        """One page of `query`, newest submissions first. With `expected_total` (from an earlier page),
        an empty page before the end is arXiv's known spurious empty page, and is retried."""
        params = {
            "search_query": query,
            "start": start,
            "max_results": max_results,
            "sortBy": "submittedDate",
            "sortOrder": "descending",
        }

        def check(page: FeedPage) -> str | None:
            if expected_total and start < expected_total and max_results > 0 and not page.entries:
                return f"arXiv returned an empty page at {start} of {expected_total}"
            return None

        return await self._request(self.options.api_url, params, parse_api_page, check=check)

    async def count(self, query: str) -> int:
        """How many papers match `query` (`opensearch:totalResults` with no entries asked)."""
        page = await self._request(self.options.api_url, {"search_query": query, "start": 0, "max_results": 0}, parse_api_page)
        return page.total_results

    async def fetch_ids(self, ids: list[str]) -> FeedPage:
        """The latest versions of papers by id."""
        params = {"id_list": ",".join(ids), "start": 0, "max_results": len(ids)}
        return await self._request(self.options.api_url, params, parse_api_page)

    async def download(self, url: str, receive: Callable[[], Receiver], finish: Callable[[Any], Parsed]) -> Parsed:
        """A document (a paper's HTML or PDF) streamed into a receiver under the same rules as
        every request; `finish(receiver)` (in a thread) makes the result. A 404 is final:
        ArxivNotFoundError."""
        return await self._request(url, None, finish, stream=receive)

    async def announcements(self, categories: list[str]) -> AnnouncementFeed:
        """Today's announcement feed for the categories (new, cross-lists, replacements)."""
        url = self.options.rss_url.rstrip("/") + "/" + quote("+".join(categories), safe="+.-")
        return await self._request(url, None, parse_rss)


def _new_http_client(**settings: object) -> httpx.AsyncClient:
    """An httpx client, made in a worker thread. Its first request would import anyio's asyncio
    backend (~35 ms, in the event loop's thread, which stood still meanwhile): imported here."""
    try:
        importlib.import_module("anyio._backends._asyncio")
    except ImportError:  # laid out otherwise in another anyio version: imported at the first request
        pass
    return httpx.AsyncClient(**settings)  # type: ignore[arg-type]


async def _read_body(response: httpx.Response, receiver: Receiver | None = None) -> bytes:
    """The decoded body, refused as soon as it passes MAX_RESPONSE_BYTES (decoded or not); with a
    `receiver`, each piece is handed to it instead (and b"" returned)."""
    decoder = Decoder(response.headers.get_list("Content-Encoding", split_commas=True))
    pieces: list[bytes] = []
    size = raw_size = 0
    if receiver is not None:
        receiver.located(str(response.url), response.headers.get("Content-Type", ""))
        receiver.declare_charset(response.charset_encoding)
    async for raw in response.aiter_raw():
        raw_size += len(raw)
        for piece in decoder.feed(raw):
            size += len(piece)
            if size > MAX_RESPONSE_BYTES or raw_size > MAX_RESPONSE_BYTES:
                raise FeedFormatError(f"arXiv's response exceeded {MAX_RESPONSE_BYTES // 2**20} MB; refused")
            if receiver is None:
                pieces.append(piece)
            else:
                receiver.feed(piece)  # parses as it goes (bounded work a piece):
                await asyncio.sleep(0)  # let the deadline stop it between pieces
    decoder.finish()
    if receiver is not None:
        length = response.headers.get("Content-Length", "")
        chunked = "chunked" in response.headers.get("Transfer-Encoding", "").lower()
        receiver.ended(chunked or (length.strip().isdigit() and int(length) == raw_size))
    return b"".join(pieces)


def _not_a_web_page(scheme: str) -> str:
    what = f"a {clean_text(scheme).lower()}: address" if scheme else "an address"
    return f"arXiv redirected to {what}, which is no web page; not followed"


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or DEFAULT_PORTS.get(url.scheme)


def _allowed_origins(urls: list[str]) -> set[tuple[str, str, int | None]]:
    """The configured hosts, each as configured and as https (a move to https is fine)."""
    origins = set()
    for text in urls:
        try:
            url = httpx.URL(text)
        except (httpx.InvalidURL, ValueError, TypeError):
            continue
        origins.add(_origin(url))
        if url.scheme == "http":
            origins.add(("https", url.host, 443 if url.port in (None, 80) else url.port))
    return origins
