"""A real HTTP server on 127.0.0.1 that plays arXiv: serves pages of papers per query, the
recorded fixtures, and scripted faults. It records every request (times, connection, params) so
tests can check politeness: one connection, one request at a time, the pause between them."""

from __future__ import annotations

import bisect
import re
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from reader.models import Paper
from tests.atom import error_feed, feed_xml, rss_xml

# A query within a span of submission minutes, as the sync writes it (arXiv's documented syntax).
WINDOW = re.compile(r"\((?P<query>.*)\) AND submittedDate:\[(?P<first>\d{12}) TO (?P<last>\d{12})\]", re.S)


@dataclass
class Request:
    path: str
    params: dict[str, str]
    started: float
    ended: float = 0.0
    client_port: int = 0
    user_agent: str = ""


@dataclass
class Fault:
    """One scripted misbehaviour, served instead of the normal answer for one request."""

    # status, empty, hang, reset, truncate, html, invalid, huge, error_feed, body (status, headers
    # and body as given), raw (bytes written as they are, then the connection closed), drip (the
    # normal answer a byte every `seconds`, for ten seconds at most), cut (the normal answer with
    # no Content-Length, its first half only, then the connection closed: a body cut short that
    # only its own end can tell)
    kind: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    body: bytes = b""


class FakeArxiv:
    def __init__(self):
        self.queries: dict[str, list[Paper]] = {}  # search_query -> papers, newest first
        self.totals: dict[str, int] = {}  # search_query -> totalResults for max_results=0 counts
        self.faults: list[Fault] = []
        self.rss: dict[str, bytes] = {}  # path after /rss/ -> feed
        self.by_id: dict[str, Paper] = {}  # answers to id_list beyond the queries' papers
        self.refused_ids: set[str] = set()  # an id_list naming one is refused as arXiv does: HTTP 400
        self.redirects: dict[str, tuple[int, str]] = {}  # path -> (status, Location), every time
        # Papers' HTML and PDFs: path (/html/IDvN, /pdf/IDvN) -> (headers, body); others under
        # /html/ and /pdf/ are 404, as arXiv answers for a paper it has no such file of.
        self.documents: dict[str, tuple[dict[str, str], bytes]] = {}
        # Like arXiv's search backend, serve no result past this position of a query (None: no cap).
        self.cap: int | None = None
        # A lying server: the totalResults every search page claims (None: the true count), and
        # every page served from the first result again, whatever `start` asks.
        self.claimed_total: int | None = None
        self.looping = False
        self._minutes: dict[str, tuple[int, int, list[int | None]]] = {}  # query -> (list id, length, keys)
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # --- lifecycle ---

    def start(self) -> FakeArxiv:
        fake = self

        class Handler(_Handler):
            arxiv = fake

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # A short poll interval: stop() returns within 50 ms, not half a second.
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def base(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.base + "/api/query"

    @property
    def rss_url(self) -> str:
        return self.base + "/rss/"

    @property
    def html_url(self) -> str:
        return self.base + "/html/"

    @property
    def pdf_url(self) -> str:
        return self.base + "/pdf/"

    @property
    def ar5iv_url(self) -> str:
        return self.base + "/ar5iv/"

    def document_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.startswith(("/html/", "/ar5iv/", "/pdf/"))]

    def search_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path == "/api/query"]

    # --- answers ---

    def answer(self, path: str, params: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if path in self.redirects:
            status, location = self.redirects[path]
            return status, {"Location": location}, b""
        if path in self.documents:
            headers, body = self.documents[path]
            return 200, headers, body
        if path.startswith(("/html/", "/ar5iv/", "/pdf/")):
            return 404, {"Content-Type": "text/html; charset=utf-8"}, b"<html><body><h1>No HTML for this paper</h1></body></html>"
        if path.startswith("/rss/"):
            key = path.removeprefix("/rss/")
            # A category with nothing announced today looks like a weekend: an empty channel.
            return 200, {"Content-Type": "application/rss+xml"}, self.rss.get(key, rss_xml([]))
        if path != "/api/query":
            return 404, {"Content-Type": "text/html"}, b"<html>not found</html>"
        if params.get("id_list"):
            refused = [i for i in params["id_list"].split(",") if i in self.refused_ids]
            if refused:
                return 400, {}, error_feed(f"incorrect id format for {refused[0]}", slug=f"incorrect_id_format_for_{refused[0]}")
            by_id = {p.id: p for papers in self.queries.values() for p in papers} | self.by_id
            found = [by_id[i] for i in params["id_list"].split(",") if i in by_id]
            return 200, {"Content-Type": "application/atom+xml"}, feed_xml(found, total=len(found))
        query = params.get("search_query", "")
        start = int(params.get("start", "0"))
        size = int(params.get("max_results", "10"))
        papers = self.matching(query)
        if size == 0:
            total = self.totals.get(query, len(papers or []))
            return 200, {"Content-Type": "application/atom+xml"}, feed_xml([], total=total, start=start, per_page=0)
        if papers is None:
            return 400, {}, error_feed(f"Invalid query string: '{query}'")
        if self.cap is not None and start + size > self.cap:
            return 500, {}, error_feed(f"start + max_results beyond {self.cap}", slug="outside_allowed_range")
        first = 0 if self.looping else start
        total = len(papers) if self.claimed_total is None else self.claimed_total
        return (
            200,
            {"Content-Type": "application/atom+xml"},
            feed_xml(papers[first : first + size], total=total, start=start, per_page=size),
        )

    def matching(self, query: str) -> list[Paper] | None:
        """The papers a query finds, newest first (None for a query the server does not know)."""
        window = WINDOW.fullmatch(query)
        if window is None:
            return self.queries.get(query)
        papers = self.queries.get(window["query"])
        if papers is None:
            return None
        first, last = int(window["first"]), int(window["last"])
        keys = self._minutes_of(window["query"], papers)
        if None in keys or keys != sorted(keys, reverse=True):
            # A test's odd entries (a date that is no date) are served in every window.
            return [p for p, key in zip(papers, keys) if key is None or first <= key <= last]
        negated = [-key for key in keys]  # ascending, for bisect
        return papers[bisect.bisect_left(negated, -last) : bisect.bisect_right(negated, -first)]

    def _minutes_of(self, query: str, papers: list[Paper]) -> list[int | None]:
        """Each paper's submission minute (YYYYMMDDHHMM as a number), computed once per list."""
        cached = self._minutes.get(query)
        if cached is None or cached[:2] != (id(papers), len(papers)):
            keys = [_minute_key(p.published) for p in papers]
            cached = (id(papers), len(papers), keys)
            self._minutes[query] = cached
        return cached[2]


def _minute_key(stamp: str) -> int | None:
    """`2026-12-02T12:34:56Z` -> 202612021234; None for a date arXiv could not hold (a test's
    hostile entry: none at all, or before arXiv)."""
    try:
        moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None
    return int(moment.strftime("%Y%m%d%H%M")) if moment.year >= 1991 else None


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that hangs up mid-answer (it refused a body too large) is no error to print."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, as from a real server
    arxiv: FakeArxiv

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        fake = self.arxiv
        url = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        record = Request(
            url.path, params, time.monotonic(), client_port=self.client_address[1], user_agent=self.headers.get("User-Agent", "")
        )
        with fake._lock:
            fake.requests.append(record)
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            fault = fake.faults.pop(0) if fake.faults else None
        try:
            self._serve(fault, url.path, params)
        finally:
            with fake._lock:
                fake.in_flight -= 1
            record.ended = time.monotonic()

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _serve(self, fault: Fault | None, path: str, params: dict[str, str]) -> None:  # noqa: C901 (the fake arXiv: one branch per kind of request it answers)
        if fault is None:
            self._send(*self.arxiv.answer(path, params))
            return
        kind = fault.kind
        if kind == "status":
            self._send(fault.status, fault.headers, fault.body or b"<html><body>Service unavailable</body></html>")
        elif kind == "empty":
            self._send(200, {}, feed_xml([], total=0, start=int(params.get("start", 0)), per_page=0))
        elif kind == "hang":
            time.sleep(fault.seconds)
            self.close_connection = True
        elif kind == "reset":
            status, headers, body = self.arxiv.answer(path, params)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.close_connection = True
            self.connection.close()
        elif kind == "truncate":
            status, headers, body = self.arxiv.answer(path, params)
            self._send(200, headers, body[: len(body) // 2])
        elif kind == "html":
            self._send(200, {"Content-Type": "text/html"}, b"<!DOCTYPE html><html><body><h1>Oops</h1></body></html>")
        elif kind == "invalid":
            self._send(200, {}, b"<feed><entry><title>unclosed</feed>")
        elif kind == "huge":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"<!-- " + b"x" * (1024 * 1024) + b" -->"
            try:
                for _ in range(int(fault.seconds) or 100):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            self.close_connection = True
        elif kind == "error_feed":
            self._send(fault.status or 400, {}, error_feed(fault.body.decode()))
        elif kind == "body":
            self._send(fault.status, fault.headers, fault.body)
        elif kind == "cut":
            status, headers, body = self.arxiv.answer(path, params)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif kind == "raw":
            self.wfile.write(fault.body)
            self.wfile.flush()
            self.close_connection = True
        elif kind == "drip":
            status, headers, body = self.arxiv.answer(path, params)
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.flush()
            stop = time.monotonic() + 10
            try:
                for i in range(len(body)):
                    if time.monotonic() > stop:
                        break
                    self.wfile.write(body[i : i + 1])
                    self.wfile.flush()
                    time.sleep(fault.seconds)
            except OSError:
                pass
            self.close_connection = True
        else:
            raise ValueError(kind)
