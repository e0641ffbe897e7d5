"""The shape each cache file must have, checked on every read.

A file can be valid JSON and still not be what we wrote (a hand edit, another program, a bad
disk): a dict where an id belongs, a date that is a number. Every reader of a file goes through
one of these checks, and a file that fails is handled like a damaged one (moved aside, reported,
repaired), so no wrong shape ever reaches the code that uses it. The checks are plain loops over
columns and records: cheap next to parsing the JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any, ClassVar, Self

from reader.cache_index import CacheIndex
from reader.core.sanitize import clean_multiline, clean_text, has_invisible
from reader.errors import StoreError
from reader.models import ARXIV_ID

SCHEMA_VERSION = 1  # of the paper cache's files (written in each one's meta)
MIN_DAY = date(1986, 1, 1).toordinal()  # before arXiv (1991), with room for old preprints
MAX_DAY = date(9999, 12, 31).toordinal()
MAX_VERSION = 2**31 - 1  # the index keeps versions as int32 (CacheIndex)
MAX_ARRIVED = 2**63 - 1  # and arrival times as int64


class ShapeError(ValueError):
    """A file's JSON is not shaped as its kind requires; the message says where."""


def expect(condition: object, reason: str) -> None:
    if not condition:
        raise ShapeError(reason)


def is_str_list(value: object) -> bool:
    return type(value) is list and set(map(type, value)) <= {str}  # map(type) runs in C: fast


def is_int_list(value: object, low: int, high: int | None = None) -> bool:
    """A list of plain ints (no bools, no floats) within [low, high]."""
    if type(value) is not list:
        return False
    if not value:
        return True
    if set(map(type, value)) != {int}:
        return False
    return min(value) >= low and (high is None or max(value) <= high)


def is_iso_day(value: object) -> bool:
    """A string starting with a real YYYY-MM-DD day (a timestamp such as `2026-09-27T17:59:59Z`)."""
    if type(value) is not str or len(value) < 10:
        return False
    try:
        date.fromisoformat(value[:10])
    except ValueError:
        return False
    return True


def only_doc(data: dict, table: str) -> dict | None:
    """The single document of a one-document table (index, search texts), None when absent."""
    docs = data.get(table)
    if not docs:
        return None
    expect(len(docs) == 1, f"{table}: {len(docs)} documents where one belongs")
    return next(iter(docs.values()))


# --- sync.json ---------------------------------------------------------------------------------


def check_sync(data: dict) -> None:
    for doc in data.get("topics", {}).values():
        expect(type(doc.get("name")) is str, "topics: a topic without a name")
        expect(type(doc.get("query", "")) is str, f"topics: {doc['name']!r} has a query that is not text")
        expect(doc.get("last_sync") is None or is_iso_day(doc["last_sync"]), f"topics: {doc['name']!r} has a last_sync that is not a date")
        expect(is_str_list(doc.get("categories", [])), f"topics: {doc['name']!r} has categories that are not a list of names")
        total = doc.get("arxiv_total")
        expect(total is None or (type(total) is int and total >= 0), f"topics: {doc['name']!r} has an arXiv total that is not a count")
        expect(
            type(doc.get("spans", [])) is list and all(_is_span(s) for s in doc.get("spans", [])),
            f"topics: {doc['name']!r} has spans that are not pairs of minutes",
        )
        expect(
            doc.get("spans_fetched") is None or is_iso_day(doc["spans_fetched"]),
            f"topics: {doc['name']!r} has a spans_fetched that is not a date",
        )
    for doc in data.get("not_on_arxiv", {}).values():
        for ids in (doc.get("ids"), doc.get("malformed", {})):
            expect(
                type(ids) is dict and all(ARXIV_ID.match(k) and is_iso_day(v) for k, v in ids.items()),
                "not_on_arxiv: ids that are not arXiv ids with the day they were asked",
            )
    for doc in data.get("totals", {}).values():
        expect(type(doc.get("window")) is str, "totals: a count without its window")
        expect(type(doc.get("count")) is int and doc["count"] >= 0, f"totals: {doc['window']!r} has a count that is not a number")


def _is_span(value: object) -> bool:
    """[first, last] minutes as arXiv writes them (YYYYMMDDHHMM), first <= last."""
    if not (is_str_list(value) and len(value) == 2):  # type: ignore[arg-type]
        return False
    first, last = str(value[0]), str(value[1])  # type: ignore[index]
    return _real_minute(first) and _real_minute(last) and first <= last


def _real_minute(text: str) -> bool:
    if not (len(text) == 12 and text.isascii() and text.isdigit()):
        return False
    try:
        # (as strptime("%Y%m%d%H%M") checks it, without importing _strptime and locale at each start)
        datetime(int(text[:4]), int(text[4:6]), int(text[6:8]), int(text[8:10]), int(text[10:12]))
    except ValueError:
        return False
    return True


# --- index.json --------------------------------------------------------------------------------


def check_index(data: dict) -> CacheIndex:
    """The index held by index.json (empty when the file has none)."""
    doc = only_doc(data, "index")
    if doc is None:
        return CacheIndex()
    topics = doc.get("topics", [])
    expect(is_str_list(topics), "index: topic names that are not a list of names")
    expect(is_str_list(doc.get("ids")), "index: ids that are not a list of ids")
    ids: list[str] = doc["ids"]
    n = len(ids)
    expect(
        is_int_list(doc.get("versions"), 1, MAX_VERSION) and len(doc["versions"]) == n,
        "index: versions that are not whole numbers, one per paper",
    )
    expect(is_int_list(doc.get("days"), MIN_DAY, MAX_DAY) and len(doc["days"]) == n, "index: days that are not dates, one per paper")
    expect(
        is_int_list(doc.get("masks"), 0, (1 << len(topics)) - 1) and len(doc["masks"]) == n,
        "index: topic masks that do not fit the topics, one per paper",
    )
    arrived = doc.get("arrived")  # absent in an index written before arrivals were kept
    expect(
        arrived is None or (is_int_list(arrived, 0, MAX_ARRIVED) and len(arrived) == n),
        "index: arrival times that are not whole numbers, one per paper",
    )
    return CacheIndex(topics, ids, doc["versions"], doc["days"], doc["masks"], arrived)


# index.json as the store writes it: compact, its columns in this order.
_INDEX_HEAD = re.compile(r'\{"meta":\{"1":\{"schema":([0-9]+)(?:,"log":"([0-9a-f]{8,32})")?\}\},"index":\{"1":\{"topics":')
_NUMBERS = r"\[[0-9,]*\]"
_INDEX_TAIL = re.compile(rf',"versions":({_NUMBERS}),"days":({_NUMBERS}),"masks":({_NUMBERS})(?:,"arrived":({_NUMBERS}))?\}}\}}\}}\s*')


def _index_columns(text: str) -> tuple[int, str | None, list[str], list[str], re.Match[str]] | None:
    """Index.json's text in the store's own form, split into its columns: the schema number,
    its log's token (index_log.py; None in an index written before the log), the topics and ids
    decoded, the number columns as text (a match of _INDEX_TAIL, each list
    checked to hold one number per paper). None when it is in another form, or damaged."""
    head = _INDEX_HEAD.match(text)
    if head is None:
        return None
    decoder = json.JSONDecoder()
    try:
        topics, at = decoder.raw_decode(text, head.end())
        if not text.startswith(',"ids":', at):
            return None
        ids, at = decoder.raw_decode(text, at + len(',"ids":'))
    except ValueError:
        return None
    tail = _INDEX_TAIL.fullmatch(text, at)
    if tail is None or not (is_str_list(topics) and is_str_list(ids)):
        return None
    if any(_how_many(column) != len(ids) for column in tail.groups() if column is not None):
        return None
    return int(head.group(1)), head.group(2), topics, ids, tail


def index_document(text: str) -> dict | None:
    """Index.json's text decoded as json.loads would, a column at a time: one decoder call over
    the whole file held the GIL ~40 ms at 100,000 papers (the app's event loop stood still
    while a worker reloaded the index after a sync); a column takes a fraction of it. None when
    the text is not in the store's own form (then decode it whole)."""
    columns = _index_columns(text)
    if columns is None:
        return None
    schema, token, topics, ids, tail = columns
    doc = {"topics": topics, "ids": ids}
    for name, numbers in zip(("versions", "days", "masks", "arrived"), tail.groups()):
        if numbers is not None:
            doc[name] = json.loads(numbers)
    meta: dict[str, object] = {"schema": schema} if token is None else {"schema": schema, "log": token}
    return {"meta": {"1": meta}, "index": {"1": doc}}


def log_token_at_head(head: bytes) -> str | None:
    """The log token of an index.json in the store's own form, from its first bytes."""
    found = _INDEX_HEAD.match(head.decode("utf-8", errors="replace"))
    return found.group(2) if found is not None else None


def log_token(data: dict) -> str | None:
    """The token of the log that follows this index.json (index_log.py), if it names one."""
    meta = data.get("meta")
    doc = meta.get("1") if type(meta) is dict else None
    token = doc.get("log") if type(doc) is dict else None
    return token if is_log_token(token) else None


def is_log_token(value: object) -> bool:
    return type(value) is str and 8 <= len(value) <= 32 and all(c in "0123456789abcdef" for c in value)


def check_index_order(text: str) -> tuple[str | None, CacheIndex] | None:
    """The topics, ids, days and topic masks of index.json's text (what a listing filters on,
    and finds a paper by with a binary search), without decoding the other columns: 100,000
    papers' numbers take most of a whole read. Versions and arrivals are left empty (arrivals
    0); only their shape is checked here (lists of whole numbers, one per paper), their values
    on every whole read. With the log's token. None when the text is not in the store's own
    form, or is damaged: the caller then reads it whole (check_index), which repairs it."""
    columns = _index_columns(text)
    if columns is None:
        return None
    _, token, topics, ids, tail = columns
    days, masks = json.loads(tail.group(2)), json.loads(tail.group(3))
    if not (is_int_list(days, MIN_DAY, MAX_DAY) and is_int_list(masks, 0, (1 << len(topics)) - 1)):
        return None
    return token, CacheIndex(topics, ids, days=days, masks=masks)


def _how_many(numbers: str) -> int | None:
    """How many numbers a list of digits and commas holds; None when it is not JSON (`[1,,2]`)."""
    if numbers == "[]":
        return 0
    if ",," in numbers or numbers.startswith("[,") or numbers.endswith(",]"):
        return None
    return numbers.count(",") + 1


# --- papers/*.json -------------------------------------------------------------------------------

_OPTIONAL_TEXT = ("comment", "journal_ref", "doi")


def is_record(doc: dict) -> bool:
    """Whether a shard's document is a paper record `Paper.from_json` reads into sane values."""
    try:
        if not (type(doc["id"]) is str and ARXIV_ID.match(doc["id"])):
            return False
        if not (type(doc["version"]) is int and 1 <= doc["version"] <= MAX_VERSION):
            return False
        if not (type(doc["title"]) is str and type(doc["abstract"]) is str and type(doc["primary_category"]) is str):
            return False
        if not (is_iso_day(doc["published"]) and is_iso_day(doc["updated"]) and is_str_list(doc["categories"])):
            return False
        authors = doc["authors"]
        if type(authors) is not list or not all(
            type(a) is list and len(a) == 2 and type(a[0]) is str and is_str_list(a[1]) for a in authors
        ):
            return False
        if not all(doc.get(key) is None or type(doc[key]) is str for key in _OPTIONAL_TEXT):
            return False
        return type(doc.get("abs_url", "")) is str and type(doc.get("pdf_url", "")) is str
    except (KeyError, TypeError):
        return False


def without_invisible_text(doc: dict) -> dict:
    """A record (checked by is_record) with its text cleaned as a feed's is now: a record cached
    before clean_text dropped a kind of invisible character loses it on the way out (the same
    record when it has none)."""
    texts = [doc["title"], doc["abstract"], *(doc.get(key) for key in _OPTIONAL_TEXT)]
    texts += [part for name, affiliations in doc["authors"] for part in (name, *affiliations)]
    if not any(has_invisible(text) for text in texts):
        return doc
    clean = dict(doc)
    clean["title"], clean["abstract"] = clean_text(doc["title"]), clean_text(doc["abstract"])
    clean["authors"] = [[clean_text(name), [clean_text(a) for a in affiliations]] for name, affiliations in doc["authors"]]
    for key in _OPTIONAL_TEXT:
        if doc.get(key) is not None:
            clean[key] = clean_text(doc[key]) or None
    return clean


# --- papers/*.search.json --------------------------------------------------------------------------


def check_search_texts(data: dict, valid_text: Callable[[str], bool] | None) -> dict[str, str] | None:
    """The texts by paper id (None when the file has none); the layer that builds them says
    what a valid one looks like."""
    texts = only_doc(data, "texts")
    if texts is None:
        return None
    for pid, text in texts.items():
        expect(type(text) is str, f"texts: the text of {pid} is not text")
        expect(valid_text is None or valid_text(text), f"texts: the text of {pid} is not in the expected form")
    return texts


# --- user.json, library.json: the user's files (mirrored.py), in TinyDB's layout ------------------


def check_meta(data: dict) -> int:
    """The schema number a file was written with (1 when it does not say)."""
    numbers = [doc.get("schema", 1) for doc in data.get("meta", {}).values()]
    expect(all(type(n) is int for n in numbers), "meta: a schema number that is not a number")
    return max(numbers, default=1)


def check_not_newer(data: dict, file_name: str, newest: int) -> None:
    """A user file written by a newer reader is refused with a one-line error (not handled as
    damage: it stays as it is for that reader)."""
    schema = check_meta(data)
    if schema > newest:
        raise StoreError(f"{file_name} was written by a newer reader (schema {schema}); please upgrade")


def unknown_tables(data: dict, known: tuple[str, ...]) -> dict[str, Any]:
    """The tables a newer reader added: kept as they are and written back unchanged."""
    return {name: table for name, table in data.items() if name not in known}


def numbered(docs: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A table of documents numbered from 1, in order."""
    return {str(i): doc for i, doc in enumerate(docs, 1)}


class UserFileDoc:
    """A user file in memory (user.json, library.json; see mirrored.py): parsed and checked a
    table at a time, empty when the file is missing, refused when a newer reader wrote it, and
    written back with its `meta` table first and the tables a newer reader added as they were.
    A subclass names its file, schema number and tables, and reads, writes and copies those."""

    FILE: ClassVar[str]
    SCHEMA: ClassVar[int]
    TABLES: ClassVar[tuple[str, ...]]  # the tables it reads and writes (besides meta)

    __slots__ = ("extra",)

    def __init__(self) -> None:
        self.extra: dict[str, Any] = {}  # tables this version does not know, kept as they are

    @classmethod
    def parse(cls, data: dict | None) -> Self:
        doc = cls()
        if data is None:
            return doc
        check_not_newer(data, cls.FILE, cls.SCHEMA)
        doc.read_tables(data)
        doc.extra = unknown_tables(data, ("meta", *cls.TABLES))
        return doc

    def dump(self) -> dict[str, Any]:
        return {"meta": {"1": {"schema": self.SCHEMA}}, **self.dump_tables(), **self.extra}

    def copy(self) -> Self:
        """A copy a change can edit while readers keep using this one."""
        doc = type(self)()
        self.copy_tables(doc)
        doc.extra = self.extra
        return doc

    def read_tables(self, data: dict) -> None:
        """Fill this (empty) document from the file's tables, checking each (ShapeError)."""
        raise NotImplementedError

    def dump_tables(self) -> dict[str, Any]:
        """The tables, as TinyDB lays them out, in the order they are written."""
        raise NotImplementedError

    def copy_tables(self, doc: Self) -> None:
        """Give `doc` (new and empty) copies of this one's tables, which a change can edit."""
        raise NotImplementedError


def named_queries(data: dict, table: str, what: str, *, blank_query: bool) -> list[dict[str, Any]]:
    """A table of names with queries (topics, watches), each document as it is but for its name
    and query, cleaned as read like feed text: the file may have been edited by hand, and what
    it holds is drawn on the terminal (a query keeps its spacing: only its control characters
    go, so a query as saved reads back the same). `blank_query`: whether a query may be blank."""
    found = []
    for entry in data.get(table, {}).values():
        name, query = entry.get("name"), entry.get("query")
        expect(type(name) is str and clean_text(name), f"{table}: a {what} without a name")
        expect(type(query) is str and (blank_query or clean_text(query)), f"{table}: {name!r} has no query")
        found.append({**entry, "name": clean_text(name), "query": clean_multiline(query)})
    return found
