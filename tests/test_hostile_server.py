"""A loopback server playing a hostile or broken arXiv: whatever it sends, a sync ends with a
one-line message (never a traceback), stores nothing it should not, keeps every good entry, and
stays within its memory cap and its deadline."""

from __future__ import annotations

import dataclasses
import functools
import gzip
import logging
import re
import time
import tracemalloc
import zlib
from datetime import date, timedelta
from email.utils import formatdate

import pytest

from reader.cli import main
from reader.core import coverage, momentum
from reader.store import Store, Topic
from reader.sync import syncer as sync_module
from reader.sync.syncer import Syncer, client_for
from tests.arxiv_server import FakeArxiv, Fault
from tests.atom import feed_xml, rss_xml
from tests.corpus import TODAY, recent_papers
from tests.helpers.sync import run_sync, settings_for
from tests.helpers.timing import scaled

QUERY = "cat:cs.AI"
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.fixture
def store(data_dir):
    return Store(data_dir)


def assert_one_plain_line(message: str | None) -> None:
    """What a person reads: one line, no OS error numbers, no library exception names."""
    assert message and "\n" not in message
    for leak in ("Errno", "Traceback", "httpx", "Error:", "h11", "zlib", "<"):
        assert leak not in message, message


async def sync_one(store, fake, **overrides):
    report = await run_sync(store, fake, [Topic("T", QUERY)], **overrides)
    return report.topics[0]


# --- item 3: every transport failure is a clear, one-line sync error -------------------------


@pytest.mark.parametrize(
    "headers, body, message",
    [
        ({"Content-Encoding": "gzip"}, b"<feed>not gzip at all</feed>", "could not be decompressed"),
        ({"Content-Encoding": "x-gzip"}, b"\x1f\x8bnot really", "could not be decompressed"),
        ({"Content-Encoding": "deflate"}, b"\xff\xfe plain bytes", "could not be decompressed"),
        ({"Content-Encoding": "gzip, gzip"}, gzip.compress(b"<feed>one layer only</feed>", mtime=0), "could not be decompressed"),
        ({"Content-Encoding": "gzip"}, gzip.compress(b"<feed>cut short" * 100, mtime=0)[:40], "could not be decompressed"),
        ({"Content-Encoding": "br"}, b"\x0b\x02\x80hello", "encoding the reader did not ask for ('br')"),
        ({"Content-Encoding": "zstd"}, b"\x28\xb5\x2f\xfd", "encoding the reader did not ask for ('zstd')"),
        ({"Content-Encoding": "identity, compress"}, b"x", "encoding the reader did not ask for ('compress')"),
    ],
)
async def test_bodies_that_cannot_be_decoded_fail_the_topic_in_one_line(fake_arxiv, store, headers, body, message):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.faults = [Fault("body", 200, headers, body=body)] * 2
    result = await sync_one(store, fake_arxiv, retries=1)
    assert message in result.error
    assert_one_plain_line(result.error)
    assert store.load_papers() == {}


@pytest.mark.parametrize(
    "raw",
    [
        b"HTTP/1.1 abc Broken\r\n\r\n",  # a status that is not a number
        b"\x00\x01\x02garbage\r\n\r\n",  # not HTTP at all
        b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\nno colon here\r\n\r\n",  # a header without a colon
        b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n<feed>",  # closed before the promised length
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # a chunk size that is not hex
    ],
)
async def test_protocol_garbage_is_retried_then_fails_in_one_line(fake_arxiv, store, raw):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.faults = [Fault("raw", body=raw)] * 2
    result = await sync_one(store, fake_arxiv, retries=1)
    assert result.error == "the connection to arXiv broke off mid-answer (gave up after 2 tries)"


async def test_protocol_garbage_once_is_retried_and_the_papers_arrive(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.faults = [Fault("raw", body=b"HTTP/1.1 abc\r\n\r\n")]
    result = await sync_one(store, fake_arxiv)
    assert (result.error, result.new) == (None, 5)


async def test_an_unknown_host_says_so_like_a_person(store):
    class Nowhere:
        api_url = "http://no-such-host.invalid/api/query"
        rss_url = "http://no-such-host.invalid/rss/"

    result = await sync_one(store, Nowhere)
    assert result.error == "arXiv cannot be reached (the name no-such-host.invalid cannot be looked up; no network?)"
    assert result.unreachable


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_loop_fails_in_one_line(fake_arxiv, store, status):
    fake_arxiv.redirects["/api/query"] = (status, "/api/query")
    result = await sync_one(store, fake_arxiv)
    assert result.error == "arXiv redirected more than 3 times; stopped (a redirect loop?)"
    assert len(fake_arxiv.requests) == 4  # final: not retried


@pytest.mark.parametrize(
    "location, message",
    [
        ("http://[::1", "arXiv redirected to an invalid address; not followed"),
        ("http://127.0.0.1:x/api/query", "arXiv redirected to an invalid address; not followed"),
        ("http://127.0.0.1:99999/x", "arXiv redirected to another host (127.0.0.1:99999); not followed"),
        ("http://exa mple.org/", "arXiv redirected to another host (exa%20mple.org); not followed"),
    ],
)
async def test_a_redirect_to_an_invalid_address_fails_in_one_line(fake_arxiv, store, location, message):
    fake_arxiv.redirects["/api/query"] = (302, location)
    result = await sync_one(store, fake_arxiv)
    assert result.error == message
    assert len(fake_arxiv.requests) == 1  # final: not retried


@pytest.mark.parametrize("status", [300, 304, 305])
async def test_a_3xx_without_a_usable_redirect_is_an_error(fake_arxiv, store, status):
    fake_arxiv.faults = [Fault("status", status, body=b"")]
    result = await sync_one(store, fake_arxiv)
    assert result.error == f"arXiv answered HTTP {status} without a usable redirect"


def test_reader_sync_exits_1_with_one_line_and_no_traceback(fake_arxiv, monkeypatch, capsys, tmp_path):
    fake_arxiv.faults = [Fault("body", 200, {"Content-Encoding": "gzip"}, body=b"not gzip")] * 2
    for key, value in {
        "READER_ARXIV_API_URL": fake_arxiv.api_url,
        "READER_ARXIV_RSS_URL": fake_arxiv.rss_url,
        "READER_ARXIV_DELAY": "0",
        "READER_ARXIV_RETRIES": "1",
        "READER_ARXIV_BACKOFF": "0",
        "READER_TODAY": TODAY.isoformat(),
    }.items():
        monkeypatch.setenv(key, value)
    assert main(["topics", "add", "T", QUERY]) == 0
    capsys.readouterr()
    assert main(["sync", "--topic", "T"]) == 1
    out, err = capsys.readouterr()
    failed = [line for line in out.splitlines() if "FAILED" in line]
    log = tmp_path / "log" / "reader.log"
    assert failed == [
        f"T: 0 new, 0 updated (0 fetched) - FAILED: arXiv's response could not be decompressed (gave up after 2 tries) (log: {log})"
    ]
    assert "Traceback" not in out + err


# --- items 3 and 9: one malformed entry costs only itself -------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("published", "9999-12-31T23:00:00-05:00"),  # past year 9999 in UTC
        ("published", "0001-01-01T00:00:00+05:00"),  # before year 1 in UTC
        ("published", "0001-01-01T00:00:00Z"),  # before arXiv existed
        ("updated", "0999-06-01T00:00:00Z"),
        ("updated", "3026-01-01T00:00:00Z"),  # a thousand years ahead
        ("published", "2026-13-45T00:00:00Z"),
        ("updated", "yesterday"),
        ("updated", ""),
    ],
)
async def test_an_entry_with_an_impossible_date_is_skipped_and_counted(fake_arxiv, store, field, value):
    papers = recent_papers(6)
    papers[2] = dataclasses.replace(papers[2], **{field: value})
    fake_arxiv.queries[QUERY] = papers
    result = await sync_one(store, fake_arxiv)
    assert result.error is None
    assert result.note.startswith("1 entry skipped: ")
    assert field in result.note
    cached = store.load_papers()
    assert set(cached) == {p.id for i, p in enumerate(papers) if i != 2}
    assert all(ISO_UTC.fullmatch(p.published) and ISO_UTC.fullmatch(p.updated) for p in cached.values())


@pytest.mark.parametrize("bad_id", ["not-an-id", "javascript:alert(1)", "2609.123", "2609.12345v1/../../x", "2609.12345v99999"])
async def test_an_entry_with_a_bad_id_is_skipped_and_the_page_kept(fake_arxiv, store, bad_id):
    papers = recent_papers(6)
    body = feed_xml(papers, total=6).replace(f"/abs/{papers[4].id}v".encode(), f"/abs/{bad_id}#v".encode(), 1)
    fake_arxiv.faults = [Fault("body", 200, body=body)]
    result = await sync_one(store, fake_arxiv)
    assert result.error is None and result.new == 5
    assert result.note.startswith("1 entry skipped: id ")
    assert set(store.load_papers()) == {p.id for p in papers} - {papers[4].id}


async def test_several_bad_entries_are_counted_together(fake_arxiv, store):
    papers = recent_papers(6)
    for i in (1, 3, 5):
        papers[i] = dataclasses.replace(papers[i], published="9999-12-31T23:00:00-05:00")
    fake_arxiv.queries[QUERY] = papers
    result = await sync_one(store, fake_arxiv)
    assert result.note.startswith("3 entries skipped: unreadable published date '9999-12-31T23:00:00-05:00' (and 2 more)")
    assert len(store.load_papers()) == 3


async def test_a_page_of_only_bad_entries_is_not_mistaken_for_an_empty_page(fake_arxiv, store, monkeypatch):
    from reader.sync import syncer as sync_module

    monkeypatch.setattr(sync_module, "PAGE_SIZE", 3)
    monkeypatch.setattr(sync_module, "BULK_PAGE_SIZE", 3)
    papers = recent_papers(9)
    for i in (3, 4, 5):  # the whole second page
        papers[i] = dataclasses.replace(papers[i], updated="0001-01-01T00:00:00Z")
    fake_arxiv.queries[QUERY] = papers
    result = await sync_one(store, fake_arxiv)
    assert (result.error, result.new) == (None, 6)
    starts = [r.params["start"] for r in fake_arxiv.search_requests() if r.params["max_results"] != "0"]
    assert starts == ["0", "3", "6"]  # the skipped page was not retried as a spurious empty one


# --- item 5: categories are arXiv-shaped or removed; the paper is always kept ----------------

# Every kind XML 1.0 lets through (C0 controls other than these cannot appear in XML at all).
CONTROLS = ["\r", "\n", "\t", "\x85", "\x9b", "\x80", "\u202e", "\u202a", "\u2066", "\u200f", "\u061c"]


@pytest.mark.parametrize("field", ["categories", "primary_category"])
@pytest.mark.parametrize("control", CONTROLS)
async def test_a_category_with_control_characters_is_removed_and_the_paper_kept(fake_arxiv, store, control, field):
    papers = recent_papers(3)
    hostile = f"cs.{control}AI"
    if field == "categories":
        papers[1] = dataclasses.replace(papers[1], categories=(hostile, "cs.LG"), primary_category="cs.LG")
    else:
        papers[1] = dataclasses.replace(papers[1], categories=("cs.LG", "cs.AI"), primary_category=hostile)
    fake_arxiv.queries[QUERY] = papers
    result = await sync_one(store, fake_arxiv)
    assert result.error is None and result.new == 3
    kept = store.load_papers()[papers[1].id]
    if field == "categories":
        assert (kept.categories, kept.primary_category) == (("cs.LG",), "cs.LG")
    else:  # the primary category falls back to the first valid one
        assert (kept.categories, kept.primary_category) == (("cs.LG", "cs.AI"), "cs.LG")
    assert result.note == f"categories that are not arXiv categories removed: {hostile!r}"


@pytest.mark.parametrize(
    "categories, primary, expected",
    [
        (("cs.AI}, note={\\input{/etc/passwd}}",), "cs.AI}, note={x}", ((), "")),
        (("I.2.6", "68T05", "cs.AI"), "I.2.6", (("cs.AI",), "cs.AI")),  # ACM and MSC classes
        (("CS.AI", "hep-th"), "cs..AI", (("hep-th",), "hep-th")),
        (
            ("physics.comp-ph", "cond-mat.stat-mech", "q-bio.NC", "math-ph", "astro-ph.CO"),
            "math-ph",
            (("physics.comp-ph", "cond-mat.stat-mech", "q-bio.NC", "math-ph", "astro-ph.CO"), "math-ph"),
        ),
        (("cs.AI", "x" * 500), "cs.AI", (("cs.AI",), "cs.AI")),
        (("[red]cs.AI[/]",), "[@click=app.quit]", ((), "")),
    ],
)
async def test_categories_keep_only_arxiv_shapes(fake_arxiv, store, categories, primary, expected):
    papers = recent_papers(2)
    papers[0] = dataclasses.replace(papers[0], categories=categories, primary_category=primary)
    fake_arxiv.queries[QUERY] = papers
    result = await sync_one(store, fake_arxiv)
    kept = store.load_papers()[papers[0].id]
    assert (kept.categories, kept.primary_category) == expected
    assert len(store.load_papers()) == 2
    assert (result.note is None) == (set(expected[0]) == set(categories) and expected[1] == primary)


async def test_announcement_categories_and_ids_are_checked_too(fake_arxiv, store):
    papers = recent_papers(4)
    fake_arxiv.queries[QUERY] = papers
    store.add_topic("T", QUERY)
    await run_sync(store, fake_arxiv, [Topic("T", QUERY)])
    categories = store.sync_file.synced_categories()
    replaced = dataclasses.replace(papers[1], version=papers[1].version + 1, categories=("cs.AI\u202e", "cs.LG"))
    bogus = dataclasses.replace(papers[2], id="bogus")
    fake_arxiv.by_id[replaced.id] = dataclasses.replace(replaced, categories=("cs.LG",))
    fake_arxiv.rss["+".join(categories)] = rss_xml([(replaced, "replace"), (bogus, "replace")])
    report = await run_sync(store, fake_arxiv, [Topic("T", QUERY)])
    assert report.versions.error is None and report.versions.updated == 1
    assert report.versions.note.startswith("1 entry skipped: id 'bogus")
    assert report.versions.note.endswith("categories that are not arXiv categories removed: 'cs.AI\\u202e'")


# --- item 6: links come from the id, never from the feed ----------------------------------------


@pytest.mark.parametrize("href", ["javascript:alert(1)", "file:///etc/passwd", "http://evil.example/abs/x", "[@click=app.quit]"])
async def test_links_are_built_from_the_id(fake_arxiv, store, href):
    papers = recent_papers(2)
    body = feed_xml(papers, total=2).replace(b'href="https://arxiv.org/', f'href="{href}'.encode())
    fake_arxiv.faults = [Fault("body", 200, body=body)]
    await sync_one(store, fake_arxiv)
    for paper in papers:
        kept = store.load_papers()[paper.id]
        assert kept.abs_url == f"https://arxiv.org/abs/{paper.id}v{paper.version}"
        assert kept.pdf_url == f"https://arxiv.org/pdf/{paper.id}v{paper.version}"


# --- item 4: the size cap holds on the decoded stream, however encodings are stacked ----------

DECODED_SIZE = 400 * 2**20  # larger than anything the old code could have held under 200 MB


def _compress(data, coding: str) -> bytes:
    """`data` (bytes, or an iterator of chunks) compressed with `coding` (gzip or deflate)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS)
    chunks = [data] if isinstance(data, bytes) else data
    return b"".join(packer.compress(chunk) for chunk in chunks) + packer.flush()


@functools.cache
def _first_layer(coding: str) -> bytes:
    """DECODED_SIZE zero bytes compressed once: the slow part, shared by the variants."""
    return _compress(iter([b"\0" * 2**20] * (DECODED_SIZE // 2**20)), coding)


def _bomb(codings: list[str]) -> bytes:
    codings = [c for c in codings if c != "identity"]
    body = _first_layer(codings[0])
    for coding in codings[1:]:
        body = _compress(body, coding)
    return body


@pytest.mark.slow
@pytest.mark.parametrize("header", ["gzip, gzip", "deflate, gzip", "gzip, deflate, gzip", "gzip, identity, gzip", "deflate, deflate"])
async def test_stacked_decompression_bombs_stay_under_the_cap_in_memory(fake_arxiv, store, header):
    bomb = _bomb([c.strip() for c in header.split(",")])
    assert len(bomb) < 20_000
    fake_arxiv.faults = [Fault("body", 200, {"Content-Encoding": header}, body=bomb)]
    tracemalloc.start()
    try:
        result = await sync_one(store, fake_arxiv)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"{header}: {len(bomb)} bytes served, peak traced memory {peak / 2**20:.0f} MB")
    assert result.error == "arXiv's response exceeded 64 MB; refused"
    assert peak < 200 * 2**20
    assert store.load_papers() == {}


async def test_a_bomb_of_many_small_gzip_members_stays_under_the_cap_in_memory(fake_arxiv, store):
    """gzip lets members follow one another: 1,024 members of 1 MiB each, ~1 MB served. The
    decoder took a finished member's leftover input twice (unused_data and unconsumed_tail),
    doubling it at each member: gigabytes of memory for this body."""
    bomb = gzip.compress(b" " * 2**20, 9) * 1024
    fake_arxiv.faults = [Fault("body", 200, {"Content-Encoding": "gzip"}, body=bomb)]
    tracemalloc.start()
    try:
        result = await sync_one(store, fake_arxiv)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.error == "arXiv's response exceeded 64 MB; refused"
    assert peak < 200 * 2**20


async def test_a_compressed_feed_within_the_cap_reads_normally(fake_arxiv, store):
    papers = recent_papers(20)
    body = gzip.compress(zlib.compress(feed_xml(papers, total=20)))
    fake_arxiv.faults = [Fault("body", 200, {"Content-Encoding": "deflate, identity, gzip"}, body=body)]
    result = await sync_one(store, fake_arxiv)
    assert (result.error, result.new) == (None, 20)


# --- item 7: an overall deadline per request ---------------------------------------------------


async def test_a_body_dripped_a_byte_at_a_time_fails_at_the_deadline(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.faults = [Fault("drip", seconds=0.05)]
    result = await sync_one(store, fake_arxiv, timeout=0.3, retries=0)
    # Each byte comes well within the 0.3 s read timeout; the whole answer never does.
    assert result.error == "arXiv did not finish answering within 1.2 s (gave up after 1 tries)"


async def test_a_dripped_body_is_retried_and_the_next_answer_kept(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.faults = [Fault("drip", seconds=0.05)]
    # The second answer has to arrive whole within the deadline: on a loaded machine it gets more time.
    result = await sync_one(store, fake_arxiv, timeout=scaled(0.3), retries=1)
    assert (result.error, result.new) == (None, 5)


# --- item 8: redirects stay on the configured hosts --------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_a_redirect_to_another_host_is_refused_and_nothing_stored(fake_arxiv, store, status):
    other = FakeArxiv().start()
    try:
        other.queries[QUERY] = recent_papers(5)
        fake_arxiv.redirects["/api/query"] = (status, other.api_url)
        result = await sync_one(store, fake_arxiv)
        port = other.api_url.split(":")[2].split("/")[0]
        assert result.error == f"arXiv redirected to another host (127.0.0.1:{port}); not followed"
        assert other.requests == []
        assert store.load_papers() == {}
    finally:
        other.stop()


async def test_redirects_on_the_same_host_are_followed_a_few_hops(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.redirects["/old/api"] = (301, "/older/api?x=1")
    fake_arxiv.redirects["/older/api"] = (302, fake_arxiv.base + "/oldest/api")
    fake_arxiv.redirects["/oldest/api"] = (307, "/api/query?search_query=cat:cs.AI&start=0&max_results=200")
    result = await sync_one(store, fake_arxiv, api_url=fake_arxiv.base + "/old/api")
    assert (result.error, result.new) == (None, 5)
    assert [r.path for r in fake_arxiv.requests[:4]] == ["/old/api", "/older/api", "/oldest/api", "/api/query"]


@pytest.mark.parametrize(
    "configured, location, allowed",
    [
        ("http://export.arxiv.org/api/query", "https://export.arxiv.org/api/query", True),  # upgrade
        ("https://export.arxiv.org/api/query", "http://export.arxiv.org/api/query", False),  # downgrade
        ("https://export.arxiv.org/api/query", "https://export.arxiv.org:8443/api/query", False),
        ("https://export.arxiv.org/api/query", "https://rss.arxiv.org/rss/cs.AI", True),  # the other configured host
        ("https://export.arxiv.org/api/query", "https://arxiv.org.evil.example/api/query", False),
        ("https://export.arxiv.org/api/query", "https://evil.example/export.arxiv.org", False),
        ("https://export.arxiv.org/api/query", "file:///etc/passwd", False),
    ],
)
def test_redirect_policy(configured, location, allowed):
    import httpx

    from reader.arxiv.client import ArxivClient, ClientOptions
    from reader.errors import ArxivError

    client = ArxivClient(ClientOptions(api_url=configured, rss_url="https://rss.arxiv.org/rss/"))
    current = httpx.URL(configured)
    if allowed:
        assert str(client._redirect_target(current, 301, location)) == location
    else:
        with pytest.raises(ArxivError, match="not followed"):
            client._redirect_target(current, 301, location)


# --- logging -----------------------------------------------------------------------------------


async def test_each_request_is_logged_with_status_size_and_time(fake_arxiv, store, caplog):
    fake_arxiv.queries[QUERY] = recent_papers(5)
    fake_arxiv.faults = [Fault("status", 503), Fault("body", 200, {"Content-Encoding": "gzip"}, body=b"junk")]
    with caplog.at_level(logging.DEBUG, logger="reader.arxiv"):
        result = await sync_one(store, fake_arxiv, retries=3)
    assert result.error is None
    lines = [r.getMessage() for r in caplog.records if r.name == "reader.arxiv"]
    api = fake_arxiv.api_url
    assert any(re.match(rf"GET {re.escape(api)}\?search_query=.* -> 503, \d+ bytes in [\d.]+ s$", line) for line in lines)
    assert any(re.match(rf"GET {re.escape(api)}\?search_query=.* -> 200, \d+ bytes in [\d.]+ s$", line) for line in lines)
    assert any("failed (try 1 of 4): arXiv answered HTTP 503" in line for line in lines)
    assert any("DecodingError" in line or "zlib.error" in line or "error: " in line for line in lines)
    assert any(line.startswith(f"retrying {api} in ") for line in lines)


async def test_a_parser_library_failure_is_one_line_not_a_traceback(fake_arxiv, store, monkeypatch, caplog):
    from reader.arxiv import client as client_module

    def broken(body):
        raise RecursionError("maximum recursion depth exceeded")

    fake_arxiv.queries[QUERY] = recent_papers(3)
    monkeypatch.setattr(client_module, "parse_api_page", broken)
    result = await sync_one(store, fake_arxiv, retries=1)
    assert result.error == "arXiv's response could not be read (gave up after 2 tries)"
    assert any(r.exc_info and r.exc_info[0] is RecursionError for r in caplog.records)


# --- a lying server: totals arXiv could not hold, pages that bring nothing new -----------------

BILLIONS = 4_000_000_000


@pytest.mark.timeout(60)
def test_a_lying_total_with_one_entry_repeated_ends_the_topic_in_a_few_requests(fake_arxiv, monkeypatch, capsys, data_dir):
    """The server claims billions of results and serves the same paper on every page; the sync
    runs with the real retries and backoff (only the polite delay is off)."""
    paper = recent_papers(1)[0]
    fake_arxiv.queries[QUERY] = [paper]
    fake_arxiv.claimed_total, fake_arxiv.looping = BILLIONS, True
    for key, value in {
        "READER_ARXIV_API_URL": fake_arxiv.api_url,
        "READER_ARXIV_RSS_URL": fake_arxiv.rss_url,
        "READER_ARXIV_DELAY": "0",
        "READER_TODAY": TODAY.isoformat(),
    }.items():
        monkeypatch.setenv(key, value)
    assert main(["topics", "add", "T", QUERY]) == 0
    capsys.readouterr()
    assert main(["sync", "--topic", "T"]) == 1
    out, err = capsys.readouterr()
    # The first page, then the page that repeats it: no retries, no backoff.
    assert [r.params["start"] for r in fake_arxiv.requests] == ["0", "1"]
    assert "Traceback" not in out + err and "4,000,000,000" not in out + err and "4000000000" not in out + err
    (failed,) = [line for line in out.splitlines() if "FAILED" in line]
    assert failed.startswith(
        "T: 1 new, 0 updated (1 fetched) - FAILED: arXiv sent only papers it had already sent, at result 2, "
        "and claimed more results than arXiv holds; the topic stopped there"
    )
    store = Store(data_dir)
    assert list(store.load_papers()) == [paper.id]
    state = store.sync_file.sync_state("T")
    assert state.arxiv_total is None
    # What the first page established (nothing newer than its paper), never the whole horizon.
    assert [first for first, _ in state.spans] == [coverage.next_minute(sync_module._minute_of(paper.published))]


@pytest.mark.timeout(60)
async def test_an_unreadable_entry_repeated_on_every_page_ends_the_topic(fake_arxiv, store):
    good, bad = recent_papers(2)
    fake_arxiv.queries[QUERY] = [good, dataclasses.replace(bad, published="9999-12-31T23:00:00-05:00")]
    fake_arxiv.claimed_total, fake_arxiv.looping = BILLIONS, True
    result = await sync_one(store, fake_arxiv, delay=0)
    assert result.error == (
        "arXiv sent only papers it had already sent, at result 3, and claimed more results than arXiv holds; the topic stopped there"
    )
    assert result.requests == 2 and result.fetched == 1
    assert list(store.load_papers()) == [good.id]


async def test_a_page_overlapping_the_last_one_goes_on_and_counts_each_paper_once(fake_arxiv, store, monkeypatch):
    """A paper submitted between two requests pushes the results down by one: the next page
    starts with the last one's final paper, and brings the rest new."""
    monkeypatch.setattr(sync_module, "PAGE_SIZE", 50)
    monkeypatch.setattr(sync_module, "BULK_PAGE_SIZE", 50)
    papers = recent_papers(120)
    fake_arxiv.queries[QUERY] = papers
    answer = fake_arxiv.answer

    def newcomer_after_the_first_page(path, params):
        if len(fake_arxiv.search_requests()) == 2:
            fake_arxiv.queries[QUERY] = recent_papers(1, id_base=50000) + papers
        return answer(path, params)

    fake_arxiv.answer = newcomer_after_the_first_page
    events = []
    settings = settings_for(fake_arxiv, delay=0)
    async with client_for(settings) as client:
        syncer = Syncer(store, client, today=TODAY, horizon_weeks=16, on_event=events.append)
        (result,) = (await syncer.run([Topic("T", QUERY)])).topics
    assert (result.error, result.new, result.fetched) == (None, 120, 120)
    assert [e.fetched for e in events if e.fetched] == [50, 99, 120]
    assert set(store.load_papers()) == {p.id for p in papers}


async def test_a_total_arxiv_could_not_hold_is_neither_shown_nor_used(fake_arxiv, store, monkeypatch):
    """The pages are honest, the total is not: the sync pages on until a page comes back empty,
    and shows no total."""
    monkeypatch.setattr(sync_module, "PAGE_SIZE", 50)
    monkeypatch.setattr(sync_module, "BULK_PAGE_SIZE", 50)
    papers = recent_papers(120)
    fake_arxiv.queries[QUERY] = papers
    fake_arxiv.claimed_total = BILLIONS
    events = []
    settings = settings_for(fake_arxiv, delay=0)
    async with client_for(settings) as client:
        syncer = Syncer(store, client, today=TODAY, horizon_weeks=16, on_event=events.append)
        (result,) = (await syncer.run([Topic("T", QUERY)])).topics
    assert (result.error, result.new, result.arxiv_total) == (None, 120, None)
    assert all(e.expected is None for e in events)
    starts = [r.params["start"] for r in fake_arxiv.search_requests() if r.params["max_results"] != "0"]
    assert starts == ["0", "50", "100", "120"]  # the empty page ends it: not retried as spurious
    state = store.sync_file.sync_state("T")
    assert state.arxiv_total is None
    assert state.spans == ((f"{TODAY - timedelta(weeks=16):%Y%m%d}0000", f"{TODAY + timedelta(days=1):%Y%m%d}2359"),)


async def test_a_count_of_new_papers_arxiv_could_not_hold_is_not_shown(fake_arxiv, store):
    fake_arxiv.queries[QUERY] = recent_papers(10)
    fake_arxiv.totals["submittedDate:[202611050000 TO 202612022359]"] = BILLIONS
    report = await run_sync(store, fake_arxiv, [Topic("T", QUERY)])
    assert report.total_new_last4 is None
    assert report.total_error == "could not count all new arXiv papers: arXiv claimed more new papers than it holds"
    assert store.sync_file.cached_total(momentum.total_window(TODAY)) is None


@pytest.mark.parametrize(
    "today, bound",
    [(date(2020, 6, 1), 2_000_000), (date(2021, 12, 31), 2_000_000), (date(2022, 1, 1), 2_050_000), (TODAY, 5_000_000)],
)
def test_the_most_papers_arxiv_could_hold_grows_with_the_date(today, bound):
    assert sync_module.papers_arxiv_could_hold(today) == bound


# --- Retry-After: a whole number of seconds or an HTTP date, and never less than the backoff ---

BACKOFF = 0.3


async def first_retry_wait(fake, store, caplog, retry_after: str) -> tuple[float, float]:
    """The wait the client planned before its first retry (from its log) and the pause the
    server saw between the two requests."""
    fake.queries[QUERY] = recent_papers(3)
    fake.faults = [Fault("status", 503, {"Retry-After": retry_after})]
    with caplog.at_level(logging.INFO, logger="reader.arxiv"):
        result = await sync_one(store, fake, delay=0, backoff=BACKOFF)
    assert (result.error, result.new) == (None, 3)
    (planned,) = [float(m[1]) for r in caplog.records if (m := re.match(r"retrying \S+ in (.+) s$", r.getMessage()))]
    first, second = fake.requests[:2]
    return planned, second.started - first.ended


@pytest.mark.timeout(30)  # an inf or 1e3 honoured would wait ten minutes
@pytest.mark.parametrize("retry_after", ["nan", "NaN", "inf", "-inf", "-1", "1e3", "1E1", "1.5", "+1", "1_0", " 0x10", "soon", ""])
async def test_a_retry_after_that_is_no_whole_number_nor_a_date_counts_as_absent(fake_arxiv, store, caplog, retry_after):
    planned, waited = await first_retry_wait(fake_arxiv, store, caplog, retry_after)
    assert planned == BACKOFF
    assert waited >= BACKOFF - 0.03  # the server thread may stamp a request's end a few ms late


@pytest.mark.parametrize("retry_after", ["0", "Thu, 01 Jan 2015 00:00:00 GMT"])
async def test_a_retry_after_shorter_than_the_backoff_waits_the_backoff(fake_arxiv, store, caplog, retry_after):
    planned, waited = await first_retry_wait(fake_arxiv, store, caplog, retry_after)
    assert planned == BACKOFF
    assert waited >= BACKOFF - 0.03


@pytest.mark.parametrize("in_future", [False, True])
async def test_a_valid_retry_after_longer_than_the_backoff_is_honoured(fake_arxiv, store, caplog, in_future):
    retry_after = formatdate(time.time() + 3, usegmt=True) if in_future else "2"
    planned, waited = await first_retry_wait(fake_arxiv, store, caplog, retry_after)
    assert 1.5 <= planned <= 3
    assert waited >= planned - 0.05 - 0.03  # the wait is logged to a tenth of a second (2.26 s as 2.3)


def test_retry_after_values():
    from reader.arxiv.failures import MAX_RETRY_AFTER, retry_after

    assert [retry_after(v) for v in ("7", " 7 ", "007", "0", "99999999999999999999")] == [7, 7, 7, 0, MAX_RETRY_AFTER]
    assert [retry_after(v) for v in (None, "nan", "inf", "-1", "1e3", "7.0", "٣", "7 s", "Mon")] == [None] * 9
    assert retry_after("Thu, 01 Jan 2015 00:00:00 GMT") == 0
