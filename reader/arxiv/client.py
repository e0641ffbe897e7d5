"""An async client for arXiv's export API and announcement feeds that keeps to arXiv's terms:
one connection, one request at a time, a pause of `delay` seconds between the end of one
request and the start of the next, a descriptive User-Agent, timeouts, and patient retries."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

import httpx

from reader import __version__
from reader.arxiv.parse import Announcement, FeedPage, parse_api_page, parse_error_body, parse_rss
from reader.errors import ArxivAPIError, ArxivError, ArxivUnreachableError, FeedFormatError

USER_AGENT = f"reader/{__version__} (terminal arXiv topic reader; polite: 1 request per 3 s, 1 connection)"
MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # a full 2000-entry page is ~3.5 MB
MAX_RETRY_AFTER = 600.0
RETRY_STATUSES = {429, 500, 502, 503, 504}


class _Retryable(Exception):
    def __init__(self, reason: str, wait: float | None = None, slow_down: bool = False, unreachable: bool = False):
        super().__init__(reason)
        self.wait = wait  # what the server asked for (Retry-After), if anything
        self.slow_down = slow_down  # a 429: back off much longer
        self.unreachable = unreachable  # no connection at all: one more try, then say so


@dataclass(frozen=True, slots=True)
class ClientOptions:
    api_url: str
    rss_url: str
    delay: float = 3.0
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 5.0  # first retry waits this long (doubling); after a 429, six times as long
    user_agent: str = USER_AGENT


class ArxivClient:
    def __init__(self, options: ClientOptions, *, on_notice: Callable[[str], None] | None = None):
        self.options = options
        self.on_notice = on_notice  # told about waits and retries, for progress displays
        self._http: httpx.AsyncClient | None = None
        self._gate = asyncio.Lock()  # never two requests in flight
        self._last_end: float | None = None
        self.requests_made = 0

    async def __aenter__(self) -> ArxivClient:
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
                httpx.AsyncClient,
                headers={"User-Agent": self.options.user_agent},
                timeout=httpx.Timeout(timeout, connect=min(timeout, 15.0)),
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                follow_redirects=True,
            )
        return self._http

    def _notice(self, message: str) -> None:
        if self.on_notice is not None:
            self.on_notice(message)

    # --- the one place a request is made --------------------------------------------------------

    async def _get(self, url: str, params: dict | None) -> tuple[int, bytes, str | None]:
        """One polite GET: waits its turn, reads at most MAX_RESPONSE_BYTES.
        Returns the status, the body and the Retry-After header."""
        async with self._gate:
            if self._last_end is not None:
                pause = self._last_end + self.options.delay - time.monotonic()
                if pause > 0:
                    await asyncio.sleep(pause)
            try:
                self.requests_made += 1
                client = await self._client()
                async with client.stream("GET", url, params=params) as response:
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > MAX_RESPONSE_BYTES:
                            raise FeedFormatError(
                                f"arXiv's response exceeded {MAX_RESPONSE_BYTES // 2**20} MB; refused"
                            )
                    return response.status_code, bytes(body), response.headers.get("Retry-After")
            finally:
                self._last_end = time.monotonic()

    async def _request(self, url: str, params: dict | None, parse: Callable[[bytes], object], *, check=None):
        """GET and parse with retries on 429/5xx, timeouts, broken connections and unreadable bodies."""
        attempts = self.options.retries + 1
        for attempt in range(attempts):
            try:
                try:
                    status, body, retry_after = await self._get(url, params)
                except httpx.ConnectTimeout:
                    raise _Retryable("cannot connect to arXiv (timed out)", unreachable=True) from None
                except httpx.TimeoutException:
                    raise _Retryable("arXiv did not answer in time") from None
                except httpx.ConnectError as error:
                    raise _Retryable(f"cannot connect to arXiv ({error or 'no route'})", unreachable=True) from None
                except httpx.TransportError as error:
                    raise _Retryable(f"network error: {error or type(error).__name__}") from None
                if status in RETRY_STATUSES:
                    raise _Retryable(f"arXiv answered HTTP {status}", _retry_after(retry_after), status == 429)
                if status >= 400:
                    message = parse_error_body(body) or f"arXiv answered HTTP {status}"
                    raise ArxivAPIError(message if status != 403 else f"{message} (access refused: slow down)")
                try:
                    result = await asyncio.to_thread(parse, body)
                except FeedFormatError as error:
                    raise _Retryable(str(error)) from None
                if check is not None and (problem := check(result)):
                    raise _Retryable(problem)
                return result
            except _Retryable as retry:
                if retry.unreachable and attempt >= min(1, attempts - 1):
                    raise ArxivUnreachableError(str(retry)) from None
                if attempt == attempts - 1:
                    raise ArxivError(f"{retry} (gave up after {attempts} tries)") from None
                wait = retry.wait
                if wait is None:
                    wait = self.options.backoff * 2**attempt * (6 if retry.slow_down else 1)
                wait = max(wait, self.options.delay)
                self._notice(f"{retry}; retrying in {wait:.0f} s")
                assert self._last_end is not None
                await asyncio.sleep(max(0.0, self._last_end + wait - time.monotonic()))
        raise AssertionError("unreachable")

    # --- API calls ---------------------------------------------------------------------------------

    async def search(
        self, query: str, *, start: int = 0, max_results: int = 100, expected_total: int | None = None
    ) -> FeedPage:
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
            if expected_total and start < expected_total and max_results > 0 and not page.papers:
                return f"arXiv returned an empty page at {start} of {expected_total}"
            return None

        return await self._request(self.options.api_url, params, parse_api_page, check=check)

    async def count(self, query: str) -> int:
        """How many papers match `query` (`opensearch:totalResults` with no entries asked)."""
        page = await self._request(
            self.options.api_url, {"search_query": query, "start": 0, "max_results": 0}, parse_api_page
        )
        return page.total_results

    async def fetch_ids(self, ids: list[str]) -> FeedPage:
        """The latest versions of papers by id."""
        params = {"id_list": ",".join(ids), "start": 0, "max_results": len(ids)}
        return await self._request(self.options.api_url, params, parse_api_page)

    async def announcements(self, categories: list[str]) -> list[Announcement]:
        """Today's announcement feed for the categories (new, cross-lists, replacements)."""
        url = self.options.rss_url.rstrip("/") + "/" + quote("+".join(categories), safe="+.-")
        return await self._request(url, None, parse_rss)


def _retry_after(header: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date); None when absent."""
    if header is None:
        return None
    header = header.strip()
    try:
        return min(max(float(header), 0.0), MAX_RETRY_AFTER)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        moment = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return min(max(moment.timestamp() - time.time(), 0.0), MAX_RETRY_AFTER)
