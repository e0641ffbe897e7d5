"""Parse arXiv API (Atom) pages and announcement (RSS 2.0) feeds into `Paper` records.

API pages are read with ElementTree's C parser, after expat has checked that the prolog declares
no DTD (so no entity bombs, no external entities): it is fast and, unlike feedparser, keeps each
author's affiliations.
The RSS feeds go through feedparser.
"""

from __future__ import annotations

import pyexpat
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from xml.etree.ElementTree import Element, ParseError, XMLParser

from reader.core.sanitize import clean_text
from reader.errors import ArxivAPIError, FeedFormatError
from reader.models import Author, Paper, abs_url, is_category, pdf_url, split_version

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

# arXiv opened in August 1991: an earlier date is a broken feed, and so is one more than a year
# ahead of this machine's clock.
EARLIEST_DATE = datetime(1991, 1, 1, tzinfo=UTC)


class BadEntry(Exception):
    """One entry cannot be read (no arXiv id, impossible date): it is skipped, the page kept."""


def _optional(text: str | None) -> str | None:
    cleaned = clean_text(text)
    return cleaned or None


def shown(value: str | None, limit: int = 40) -> str:
    """Feed text quoted for a message, shortened: `repr` writes every control character as an
    escape (`'cs.AI\\u202e'`), so the message shows exactly what was wrong and nothing acts on it."""
    text = value or ""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# The form arXiv writes and the cache keeps: a date in it is returned as it is once it is checked.
_CANONICAL_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def _latest_date() -> datetime:
    """The latest date a feed may hold: a year past this machine's clock."""
    return datetime.now(UTC) + timedelta(days=366)


def _iso_utc(value: str | None, field: str, latest: datetime) -> str:
    """Any ISO 8601 timestamp -> `YYYY-MM-DDTHH:MM:SSZ` in UTC, four-digit year.
    BadEntry for a missing, unreadable or impossible date (before arXiv, or after `latest`)."""
    value = (value or "").strip()
    if not value:
        raise BadEntry(f"no {field} date")
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        # Overflows for years 1 and 9999 at the ends of the range Python can represent.
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise BadEntry(f"unreadable {field} date {shown(value)}") from None
    if not EARLIEST_DATE <= moment <= latest:
        raise BadEntry(f"impossible {field} date {shown(value)}")
    if _CANONICAL_STAMP.fullmatch(value):
        return value
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(slots=True)
class FeedPage:
    """One page of API results. `skipped` says why each unreadable entry was left out, and
    `skipped_ids` holds the `<id>` each carried (what tells one served again);
    `removed_categories` lists category terms that were not arXiv categories."""

    total_results: int
    start_index: int
    items_per_page: int
    papers: list[Paper]
    skipped: list[str] = field(default_factory=list)
    skipped_ids: list[str] = field(default_factory=list)
    removed_categories: list[str] = field(default_factory=list)

    @property
    def entries(self) -> int:
        """Entries served, read or skipped: what moves the paging on."""
        return len(self.papers) + len(self.skipped)


def _int(feed: Element, name: str) -> int:
    node = feed.find(OPENSEARCH + name)
    text = (node.text or "").strip() if node is not None else "0"
    # Bounded: int() of thousands of digits is slow, and no page count needs more than ten.
    if not (text.isascii() and text.isdigit() and len(text) <= 10):
        raise FeedFormatError(f"opensearch:{name} is not a number")
    return int(text)


PARSE_CHUNK = 64 * 1024
MAX_SKIPPED_ID = 200  # of an unreadable entry's <id>, kept to tell it if served again


class _RootReached(Exception):
    """The root element opened: the prolog, where a DTD would stand, is over."""


def _refuse_dtd(content: bytes) -> None:
    """FeedFormatError when the body declares a DTD (the home of entity bombs and external
    entities), as defusedxml's forbid_dtd would. A DTD can stand only before the root element,
    so expat reads the prolog alone and stops at the first element; the page is then parsed by
    ElementTree's C parser (defusedxml needs the pure-Python one: a 1,000-entry page took 170 ms,
    65 ms now). A body expat cannot read is left to that parse to report."""

    def refuse(*_: object) -> None:
        raise FeedFormatError("the response declares XML entities or a DTD; refused")

    def stop(*_: object) -> None:
        raise _RootReached

    scanner = pyexpat.ParserCreate()
    scanner.StartDoctypeDeclHandler = refuse
    scanner.EntityDeclHandler = refuse
    scanner.StartElementHandler = stop
    try:
        for offset in range(0, len(content), PARSE_CHUNK):
            scanner.Parse(content[offset : offset + PARSE_CHUNK], False)
        scanner.Parse(b"", True)
    except (_RootReached, pyexpat.ExpatError):
        pass


def parse_api_page(content: bytes) -> FeedPage:
    """Parse one API response body. arXiv's error feed raises ArxivAPIError with arXiv's message."""
    if content[:200].lstrip().lower().startswith((b"<!doctype html", b"<html")):
        raise FeedFormatError("got an HTML page instead of a feed (an outage page, a proxy, or a wrong API URL?)")
    _refuse_dtd(content)
    try:
        # Fed a piece at a time: one C call per piece, so a 2,000-entry page never holds the
        # GIL for the whole parse. The tree is built by the C parser with no event per element
        # (reading start and end events in Python took half again the parse's time).
        parser = XMLParser()
        for offset in range(0, len(content), PARSE_CHUNK):
            parser.feed(content[offset : offset + PARSE_CHUNK])
        feed = parser.close()
    except ParseError as error:
        raise FeedFormatError(f"the response is not valid XML ({error})") from None
    if feed.tag != ATOM + "feed":
        raise FeedFormatError("the response is not an Atom feed (is the API URL right?)")
    reader = _EntryReader()
    for entry in feed.iterfind(ATOM + "entry"):
        reader.read(entry)
    if reader.api_error is not None:
        raise ArxivAPIError(f"arXiv says: {reader.api_error}")
    page = FeedPage(_int(feed, "totalResults"), _int(feed, "startIndex"), _int(feed, "itemsPerPage"), reader.papers)
    page.skipped, page.skipped_ids, page.removed_categories = reader.skipped, reader.skipped_ids, reader.removed_categories
    return page


class _EntryReader:
    """Reads the feed's entries into Papers, in order, and what was wrong with the others."""

    def __init__(self) -> None:
        self.papers: list[Paper] = []
        self.skipped: list[str] = []
        self.skipped_ids: list[str] = []
        self.removed_categories: list[str] = []
        self.api_error: str | None = None  # arXiv's message when it answered with its error feed
        self.latest = _latest_date()

    def read(self, entry: Element) -> None:
        entry_id = entry.findtext(ATOM + "id") or ""
        if "/api/errors#" in entry_id:
            if self.api_error is None:
                self.api_error = clean_text(entry.findtext(ATOM + "summary")) or clean_text(entry_id.rsplit("#", 1)[-1])
        elif self.api_error is None:
            try:
                self.papers.append(_paper_from_entry(entry, self.removed_categories, self.latest))
            except BadEntry as problem:
                self.skipped.append(str(problem))
                self.skipped_ids.append(entry_id.strip()[:MAX_SKIPPED_ID])


def parse_error_body(content: bytes) -> str | None:
    """arXiv's message from an error feed (served with HTTP 4xx/5xx), or None if there is none."""
    try:
        parse_api_page(content)
    except ArxivAPIError as error:
        return str(error)
    except FeedFormatError:
        return None
    return None


def valid_categories(terms: list[str | None], removed: list[str]) -> tuple[str, ...]:
    """The terms shaped like arXiv categories, once each, in order; the others go to `removed`."""
    kept = []
    for term in terms:
        term = (term or "").strip(" \t\n")
        if not term:
            continue
        if is_category(term):
            kept.append(term)
        else:
            removed.append(shown(term, 30))
    return tuple(dict.fromkeys(kept))


def _author(node: Element) -> Author:
    affiliations = node.findall(ARXIV + "affiliation")  # most authors have none: no generator for them
    kept = tuple(clean_text(a.text) for a in affiliations if clean_text(a.text)) if affiliations else ()
    return Author(clean_text(node.findtext(ATOM + "name")), kept)


def _paper_from_entry(entry: Element, removed_categories: list[str], latest: datetime) -> Paper:
    raw_id = (entry.findtext(ATOM + "id") or "").strip()
    try:
        arxiv_id, version = split_version(raw_id.split("/abs/", 1)[-1])
    except ValueError:
        raise BadEntry(f"id {shown(raw_id)} is not an arXiv id") from None
    version = version or 1
    authors = tuple(_author(node) for node in entry.findall(ATOM + "author"))
    categories = valid_categories([c.get("term") for c in entry.findall(ATOM + "category")], removed_categories)
    primary = entry.find(ARXIV + "primary_category")
    primary_term = valid_categories([primary.get("term")] if primary is not None else [], removed_categories)
    # A bad primary category falls back to the first valid category, or none; the paper is kept.
    primary_category = primary_term[0] if primary_term else (categories[0] if categories else "")
    if not categories and primary_category:
        categories = (primary_category,)
    doi = _optional(entry.findtext(ARXIV + "doi"))
    if doi is None:
        for link in entry.findall(ATOM + "link"):
            if link.get("title") == "doi":
                doi = _optional((link.get("href") or "").split("doi.org/", 1)[-1])
    updated = _iso_utc(entry.findtext(ATOM + "updated"), "updated", latest)
    published_text = entry.findtext(ATOM + "published")
    return Paper(
        id=arxiv_id,
        version=version,
        # `is None` and not truthiness: a paper may be titled "0".
        title=clean_text(entry.findtext(ATOM + "title")),
        abstract=clean_text(entry.findtext(ATOM + "summary")),
        authors=authors,
        categories=categories,
        primary_category=primary_category,
        published=_iso_utc(published_text, "published", latest) if published_text is not None else updated,
        updated=updated,
        comment=_optional(entry.findtext(ARXIV + "comment")),
        journal_ref=_optional(entry.findtext(ARXIV + "journal_ref")),
        doi=doi,
        abs_url=abs_url(arxiv_id, version),
        pdf_url=pdf_url(arxiv_id, version),
    )


# --- Announcement feeds (rss.arxiv.org) -------------------------------------------------------


@dataclass(slots=True)
class Announcement:
    """One item of a daily announcement feed: what was announced, not the full record."""

    id: str
    version: int
    announce_type: str  # new, cross, replace, replace-cross
    title: str
    abstract: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    doi: str | None
    journal_ref: str | None
    announced: str  # the announcement day, YYYY-MM-DD (arXiv's midnight, Eastern time)


@dataclass(slots=True)
class AnnouncementFeed:
    items: list[Announcement]
    skipped: list[str] = field(default_factory=list)  # why each unreadable item was left out
    removed_categories: list[str] = field(default_factory=list)


_RSS_DESCRIPTION = re.compile(r"^arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<type>\S+)\s*Abstract:\s*", re.DOTALL)


def parse_rss(content: bytes) -> AnnouncementFeed:
    """Parse an rss.arxiv.org feed. A feed error (HTTP 400 'Feed error for query') raises ArxivAPIError."""
    import feedparser  # imported here: it is slow to import and only sync needs it

    parsed = feedparser.parse(content)
    title = parsed.feed.get("title", "")
    if title.startswith("Feed error"):
        raise ArxivAPIError(f"arXiv says: {clean_text(parsed.feed.get('description', title))}")
    if parsed.bozo and not parsed.entries:
        raise FeedFormatError("the announcement feed is not valid RSS")
    feed = AnnouncementFeed([])
    for item in parsed.entries:
        description = item.get("description", "")
        match = _RSS_DESCRIPTION.match(description)
        guid = item.get("id", "").removeprefix("oai:arXiv.org:")
        try:
            arxiv_id, version = split_version(match.group("id") if match else guid)
        except ValueError:
            feed.skipped.append(f"id {shown(guid)} is not an arXiv id")
            continue
        feed.items.append(
            Announcement(
                id=arxiv_id,
                version=version or 1,
                announce_type=clean_text(item.get("arxiv_announce_type", match.group("type") if match else "")),
                title=clean_text(item.get("title")),
                abstract=clean_text(description[match.end() :] if match else description),
                authors=tuple(clean_text(n) for n in item.get("author", "").split(", ") if clean_text(n)),
                categories=valid_categories([t.get("term") for t in item.get("tags", [])], feed.removed_categories),
                doi=_optional(item.get("arxiv_doi")),
                journal_ref=_optional(item.get("arxiv_journal_reference")),
                announced=_announced_day(item.get("published", "")) if item.get("published_parsed") else "",
            )
        )
    return feed


def _announced_day(pub_date: str) -> str:
    """`Thu, 24 Sep 2026 00:00:00 -0400` -> `2026-09-24` (the day in arXiv's own time zone)."""
    from email.utils import parsedate_to_datetime

    try:
        day = parsedate_to_datetime(pub_date).date()
    except (TypeError, ValueError, OverflowError):
        return ""
    return day.isoformat() if day.year >= EARLIEST_DATE.year else ""
