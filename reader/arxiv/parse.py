"""Parse arXiv API (Atom) pages and announcement (RSS 2.0) feeds into `Paper` records.

API pages are read with ElementTree (through defusedxml, which refuses entity bombs and
external entities): it is fast and, unlike feedparser, keeps each author's affiliations.
The RSS feeds go through feedparser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from reader.errors import ArxivAPIError, FeedFormatError
from reader.models import Author, Paper, split_version
from reader.sanitize import clean_text

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

def _optional(text: str | None) -> str | None:
    cleaned = clean_text(text)
    return cleaned or None


def _iso_utc(value: str | None) -> str:
    """Any ISO 8601 timestamp -> `YYYY-MM-DDTHH:MM:SSZ` in UTC."""
    value = (value or "").strip()
    if not value:
        raise FeedFormatError("an entry has no date")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as error:
        raise FeedFormatError(f"an entry has an unreadable date: {value!r}") from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(slots=True)
class FeedPage:
    """One page of API results."""

    total_results: int
    start_index: int
    items_per_page: int
    papers: list[Paper]


def _int(feed: Element, name: str) -> int:
    node = feed.find(OPENSEARCH + name)
    try:
        return int((node.text or "").strip()) if node is not None else 0
    except ValueError:
        raise FeedFormatError(f"opensearch:{name} is not a number") from None


def parse_api_page(content: bytes) -> FeedPage:
    """Parse one API response body. arXiv's error feed raises ArxivAPIError with arXiv's message."""
    if content[:200].lstrip().lower().startswith((b"<!doctype html", b"<html")):
        raise FeedFormatError("got an HTML page instead of a feed (an outage page, a proxy, or a wrong API URL?)")
    try:
        feed = SafeET.fromstring(content, forbid_dtd=True)
    except DefusedXmlException:
        raise FeedFormatError("the response declares XML entities or a DTD; refused") from None
    except ParseError as error:
        raise FeedFormatError(f"the response is not valid XML ({error})") from None
    if feed.tag != ATOM + "feed":
        raise FeedFormatError("the response is not an Atom feed (is the API URL right?)")
    entries = feed.findall(ATOM + "entry")
    for entry in entries:
        entry_id = entry.findtext(ATOM + "id") or ""
        if "/api/errors#" in entry_id:
            message = clean_text(entry.findtext(ATOM + "summary")) or entry_id.rsplit("#", 1)[-1]
            raise ArxivAPIError(f"arXiv says: {message}")
    return FeedPage(
        total_results=_int(feed, "totalResults"),
        start_index=_int(feed, "startIndex"),
        items_per_page=_int(feed, "itemsPerPage"),
        papers=[_paper_from_entry(entry) for entry in entries],
    )


def parse_error_body(content: bytes) -> str | None:
    """arXiv's message from an error feed (served with HTTP 4xx/5xx), or None if there is none."""
    try:
        parse_api_page(content)
    except ArxivAPIError as error:
        return str(error)
    except FeedFormatError:
        return None
    return None


def _paper_from_entry(entry: Element) -> Paper:
    raw_id = (entry.findtext(ATOM + "id") or "").strip()
    tail = raw_id.split("/abs/", 1)[-1]
    try:
        arxiv_id, version = split_version(tail)
    except ValueError:
        raise FeedFormatError(f"an entry has an id that is not an arXiv id: {raw_id!r}") from None
    authors = tuple(
        Author(
            clean_text(node.findtext(ATOM + "name")),
            tuple(clean_text(a.text) for a in node.findall(ARXIV + "affiliation") if clean_text(a.text)),
        )
        for node in entry.findall(ATOM + "author")
    )
    categories = tuple(
        dict.fromkeys(c.get("term", "").strip() for c in entry.findall(ATOM + "category") if c.get("term"))
    )
    primary = entry.find(ARXIV + "primary_category")
    primary_category = primary.get("term", "").strip() if primary is not None else ""
    abs_url = pdf_url = doi_url = ""
    for link in entry.findall(ATOM + "link"):
        href, rel, kind, title = (link.get(k, "") for k in ("href", "rel", "type", "title"))
        if rel == "alternate":
            abs_url = href
        elif kind == "application/pdf" or title == "pdf" or "/pdf/" in href:
            pdf_url = href
        elif title == "doi":
            doi_url = href
    doi = _optional(entry.findtext(ARXIV + "doi"))
    if doi is None and doi_url:
        doi = doi_url.split("doi.org/", 1)[-1]
    updated = _iso_utc(entry.findtext(ATOM + "updated"))
    published_text = entry.findtext(ATOM + "published")
    return Paper(
        id=arxiv_id,
        version=version or 1,
        # `is None` and not truthiness: a paper may be titled "0".
        title=clean_text(entry.findtext(ATOM + "title")),
        abstract=clean_text(entry.findtext(ATOM + "summary")),
        authors=authors,
        categories=categories or ((primary_category,) if primary_category else ()),
        primary_category=primary_category or (categories[0] if categories else ""),
        published=_iso_utc(published_text) if published_text is not None else updated,
        updated=updated,
        comment=_optional(entry.findtext(ARXIV + "comment")),
        journal_ref=_optional(entry.findtext(ARXIV + "journal_ref")),
        doi=doi,
        abs_url=abs_url or f"https://arxiv.org/abs/{arxiv_id}v{version or 1}",
        pdf_url=pdf_url or f"https://arxiv.org/pdf/{arxiv_id}v{version or 1}",
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


_RSS_DESCRIPTION = re.compile(r"^arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<type>\S+)\s*Abstract:\s*", re.S)


def parse_rss(content: bytes) -> list[Announcement]:
    """Parse an rss.arxiv.org feed. A feed error (HTTP 400 'Feed error for query') raises ArxivAPIError."""
    import feedparser  # imported here: it is slow to import and only sync needs it

    parsed = feedparser.parse(content)
    title = parsed.feed.get("title", "")
    if title.startswith("Feed error"):
        raise ArxivAPIError(f"arXiv says: {clean_text(parsed.feed.get('description', title))}")
    if parsed.bozo and not parsed.entries:
        raise FeedFormatError(f"the announcement feed is not valid RSS ({parsed.bozo_exception})")
    items = []
    for item in parsed.entries:
        description = item.get("description", "")
        match = _RSS_DESCRIPTION.match(description)
        guid = item.get("id", "").removeprefix("oai:arXiv.org:")
        try:
            arxiv_id, version = split_version(match.group("id") if match else guid)
        except ValueError:
            raise FeedFormatError(f"an announcement has no arXiv id: {guid!r}") from None
        announced = item.get("published_parsed")
        items.append(
            Announcement(
                id=arxiv_id,
                version=version or 1,
                announce_type=item.get("arxiv_announce_type", match.group("type") if match else ""),
                title=clean_text(item.get("title")),
                abstract=clean_text(description[match.end():] if match else description),
                authors=tuple(clean_text(n) for n in item.get("author", "").split(", ") if n.strip()),
                categories=tuple(t["term"] for t in item.get("tags", [])),
                doi=_optional(item.get("arxiv_doi")),
                journal_ref=_optional(item.get("arxiv_journal_reference")),
                announced=_announced_day(item.get("published", "")) if announced else "",
            )
        )
    return items


def _announced_day(pub_date: str) -> str:
    """`Thu, 24 Sep 2026 00:00:00 -0400` -> `2026-09-24` (the day in arXiv's own time zone)."""
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(pub_date).date().isoformat()
    except (TypeError, ValueError):
        return ""
