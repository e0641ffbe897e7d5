"""A query's matches newest first, read only as far as they are taken (`reader list --limit`).

The catalog lists papers by v1 day, then id, both descending. Each partition's matches come in
pages, newest minute first, from the `papers_date` index: a text query whose matches are many
(a common phrase can match a third of the cache) is walked down that index, each row checked
against the words' matches, so that ten papers cost a few pages, not the whole answer. A text
query with few matches, or one the full-text index cannot say alone (date ranges, `text:`
terms, deep groups), is answered whole in the partition (it is small, or cannot be walked)
and sorted. The partitions' runs are merged by minute, and each day's papers put in id order.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from datetime import date
from functools import partial
from itertools import groupby, islice
from typing import TypeVar

from reader.core.query import Node, Term
from reader.search_index.match import NOTHING, Matcher, fts_expression

# Text queries with at least this many matches in a partition are walked down the date index;
# fewer are read whole (cheaper than walking a long index for a handful).
WALK_FROM = 2000
FIRST_PAGE = 256
LARGEST_PAGE = 8192

T = TypeVar("T")

Row = tuple[str, str]  # (date key YYYYMMDDHHMM, paper id)
# Runs `read(connection)` on a partition (the caller's thread's connection; errors mapped).
Reader = Callable[[Callable[[sqlite3.Connection], list]], list]


def partition_rows(read: Reader, node: Node, texts: Mapping[Term, set[str]], pages: list[int] | None = None) -> Iterator[Row]:
    """One partition's matches as (date key, id), newest minute first (ties: newest row
    first). `texts`: the ids each of the query's `text:` terms matches (Matcher.texts: the
    full texts are indexed apart); `pages`: the size of each page read is appended to it
    (tests count them)."""
    expression = fts_expression(node)
    if expression is NOTHING:
        return
    if isinstance(expression, str):
        many = read(
            lambda db: db.execute(
                "SELECT count(*) FROM (SELECT rowid FROM words WHERE words MATCH ? LIMIT ?)", (expression, WALK_FROM)
            ).fetchall()
        )[0][0]
        if many >= WALK_FROM:
            yield from _walk(read, expression, pages)
            return
        rows = read(
            lambda db: db.execute(
                "SELECT p.date, p.id, p.num FROM words JOIN papers p ON p.num = words.rowid WHERE words MATCH ?", (expression,)
            ).fetchall()
        )
    else:
        rows = read(
            lambda db: db.execute(
                "SELECT date, id, num FROM papers WHERE num IN (SELECT value FROM json_each(?))",
                ("[" + ",".join(map(str, Matcher(db, texts).rows(node))) + "]",),
            ).fetchall()
        )
    if pages is not None:
        pages.append(len(rows))
    rows.sort(key=lambda row: (row[0], row[2]), reverse=True)
    for day, pid, _ in rows:
        yield day, pid


def _walk(read: Reader, expression: str, pages: list[int] | None) -> Iterator[Row]:
    """Down the date index a page at a time (each page twice the last), after the last row
    read: (date, num) below it."""
    after: tuple[str, int] | None = None
    size = FIRST_PAGE
    while True:
        bound = "" if after is None else "AND date <= ? AND (date < ? OR num < ?)"  # a range of the index
        values: tuple = () if after is None else (after[0], after[0], after[1])
        sql = (
            "SELECT date, id, num FROM papers INDEXED BY papers_date WHERE num IN "
            f"(SELECT rowid FROM words WHERE words MATCH ?) {bound} ORDER BY date DESC, num DESC LIMIT ?"
        )
        rows = read(partial(_fetch, sql, (expression, *values, size)))
        if pages is not None:
            pages.append(len(rows))
        for day, pid, _ in rows:
            yield day, pid
        if len(rows) < size:
            return
        after = (rows[-1][0], rows[-1][2])
        size = min(size * 2, LARGEST_PAGE)


def _fetch(sql: str, values: tuple, db: sqlite3.Connection) -> list:
    return db.execute(sql, values).fetchall()


def newest_first(runs: Iterable[Iterator[Row]]) -> Iterator[tuple[str, int]]:
    """The partitions' runs as the catalog orders them: (id, v1 day ordinal), by day, then id,
    both descending."""
    merged = heapq.merge(*runs, key=lambda row: row[0], reverse=True)
    for day, rows in groupby(merged, key=lambda row: row[0][:8]):
        ordinal = date(int(day[:4]), int(day[4:6]), int(day[6:8])).toordinal()
        for pid in sorted((pid for _, pid in rows), reverse=True):
            yield pid, ordinal


def first_row(run: Iterator[T]) -> list[T]:
    """The run's first item, if any (read in a thread of its own while the caller goes on)."""
    return list(islice(run, 1))


def head_then_rest(head: Future[list[T]], rest: Iterator[T]) -> Iterator[T]:
    """The head's items once it is done, then the rest's."""
    yield from head.result()
    yield from rest
