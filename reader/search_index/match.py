"""A parsed query (core/query.py) answered by one partition's SQLite tables.

Text terms and their AND/OR/ANDNOT combinations become one FTS5 MATCH expression, so SQLite
intersects and unites the posting lists itself; submittedDate ranges become conditions on the
papers table, joined into the same statement when they sit in an AND beside text. What cannot
be said in one statement (a date range inside an OR, a group nested deeper than FTS5's parser
takes) is combined from sets of row numbers. Work grows with the matches, not with the cache.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field

from reader.core.query import CODE_FIELDS, And, DateRange, Node, Or, Term
from reader.search_index.rows import code

# FTS5's parser gives up near 32 nested groups; deeper groups are combined in Python.
FTS_MAX_DEPTH = 16
SEEKS = 1_000  # papers asked one at a time at most (~40 us each); more, the term's whole list is read
# `all:` means every column; a Term's other fields name their column.
_COLUMN = {"ti": "ti", "abs": "abs", "au": "au", "co": "co", "jr": "jr", "cat": "cat", "id": "id", "note": "note"}


class _Nothing:
    """A part that can match no paper (`rn:`: report numbers are not cached)."""


NOTHING = _Nothing()


def _phrase(term: Term) -> str:
    tokens = [code(w) for w in term.words] if term.field in CODE_FIELDS else list(term.words)
    quoted = '"' + " ".join(tokens).replace('"', '""') + '"'
    return quoted if term.field == "all" else f"{_COLUMN[term.field]} : {quoted}"


def _depth(node: Node) -> int:
    """How deep the node's groups nest (iteratively: no recursion for the check itself)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(current, And):
            stack.extend((part, level + 1) for part in current.required + current.excluded)
        elif isinstance(current, Or):
            stack.extend((part, level + 1) for part in current.parts)
    return deepest


def _fts(node: Node) -> str | _Nothing | None:
    """The node as one MATCH expression; NOTHING when it matches nothing; None when it holds a
    date range (then it is not text alone)."""
    if isinstance(node, Term):
        if node.field == "text":
            return None  # the full texts are indexed apart (reader/fulltext): not text of this table
        return NOTHING if node.field == "rn" else _phrase(node)
    if isinstance(node, DateRange):
        return None
    if isinstance(node, Or):
        parts = [_fts(part) for part in node.parts]
        if any(part is None for part in parts):
            return None
        alive = [part for part in parts if isinstance(part, str)]
        return "(" + " OR ".join(alive) + ")" if alive else NOTHING
    required = [_fts(part) for part in node.required]
    excluded = [_fts(part) for part in node.excluded]
    if any(part is None for part in required + excluded):
        return None
    if any(part is NOTHING for part in required):
        return NOTHING
    expression = "(" + " AND ".join(p for p in required if isinstance(p, str)) + ")"
    dropped = [p for p in excluded if isinstance(p, str)]
    return f"({expression} NOT ({' OR '.join(dropped)}))" if dropped else expression


def fts_expression(node: Node) -> str | _Nothing | None:
    """The node as one MATCH expression when the full-text index can say it alone (see _fts),
    NOTHING when it matches nothing, else None."""
    return _fts(node) if _depth(node) <= FTS_MAX_DEPTH else None


@dataclass
class Matcher:
    """Evaluates queries against one partition's connection."""

    db: sqlite3.Connection
    texts: Mapping[Term, set[str]] = field(default_factory=dict)  # `text:` terms -> ids (fulltext/text_index.py)

    def ids(self, node: Node) -> list[str]:
        """Ids of the papers that satisfy `node` (rows the text index still holds for papers
        since replaced are dropped by the join with the papers table)."""
        expression = _fts(node) if _depth(node) <= FTS_MAX_DEPTH else None
        if expression is NOTHING:
            return []
        if isinstance(expression, str):
            return self._split(
                self.db.execute(
                    "SELECT group_concat(p.id, ' ') FROM words JOIN papers p ON p.num = words.rowid WHERE words MATCH ?",
                    (expression,),
                ).fetchone()[0]
            )
        rows = self.rows(node)
        return self._split(
            self.db.execute(
                "SELECT group_concat(id, ' ') FROM papers WHERE num IN (SELECT value FROM json_each(?))",
                ("[" + ",".join(map(str, rows)) + "]",),
            ).fetchone()[0]
        )

    def ids_among(self, node: Node, ids: list[str]) -> list[str]:
        """Those of `ids` (papers of this partition) that satisfy `node`. A text query is asked
        paper by paper (FTS5 seeks each row in the term's list) when they are few, so a common
        word's thousands of other papers are never listed; many, its list is read once."""
        expression = _fts(node) if _depth(node) <= FTS_MAX_DEPTH else None
        if expression is NOTHING:
            return []
        if not isinstance(expression, str) or len(ids) > SEEKS:
            wanted = set(ids)
            return [pid for pid in self.ids(node) if pid in wanted]
        return self._split(
            self.db.execute(
                # CROSS JOIN keeps this order: the ids, their rows, then the text index at each row.
                "SELECT group_concat(p.id, ' ') FROM json_each(?) asked CROSS JOIN papers p ON p.id = asked.value"
                " CROSS JOIN words ON words.rowid = p.num WHERE words MATCH ?",
                (json.dumps(ids), expression),
            ).fetchone()[0]
        )

    def count(self, node: Node) -> int:
        """How many rows match a text query (stale rows of replaced papers included: a count
        for weighing terms, not a list of papers)."""
        expression = _fts(node) if _depth(node) <= FTS_MAX_DEPTH else None
        if expression is NOTHING:
            return 0
        if isinstance(expression, str):
            return self.db.execute("SELECT count(*) FROM words WHERE words MATCH ?", (expression,)).fetchone()[0]
        return len(self.rows(node))

    def row_list(self, node: Node) -> list[int]:
        """Row numbers matching `node`, some maybe stale rows (without reading `papers` when
        the query is text alone: the caller maps rows to papers, see rowmap.py)."""
        return json.loads("[" + self.row_text(node) + "]")

    def row_text(self, node: Node) -> str:
        """`row_list`'s numbers joined by commas ("" for none), as SQLite spells them: a text
        query's are joined by SQLite, and numpy parses them for ranked.py."""
        expression = _fts(node) if _depth(node) <= FTS_MAX_DEPTH else None
        if isinstance(expression, str):
            joined = self.db.execute("SELECT group_concat(rowid, ',') FROM words WHERE words MATCH ?", (expression,)).fetchone()[0]
            return joined or ""
        return ",".join(map(str, self.rows(node)))

    @staticmethod
    def _split(joined: str | None) -> list[str]:
        return joined.split(" ") if joined else []

    def rows(self, node: Node) -> set[int]:
        """Row numbers matching `node` (some may be stale rows; `ids` drops them). Recursion
        follows the query's groups, which the parser bounds."""
        expression = _fts(node) if _depth(node) <= FTS_MAX_DEPTH else None
        if expression is NOTHING:
            return set()
        if isinstance(expression, str):
            return self._select("SELECT rowid AS r FROM words WHERE words MATCH ?", (expression,))
        if isinstance(node, DateRange):
            return self._select("SELECT num AS r FROM papers WHERE date BETWEEN ? AND ?", (node.start, node.end))
        if isinstance(node, Term):  # a `text:` term: its papers' rows
            ids = json.dumps(sorted(self.texts.get(node, ())))
            return self._select("SELECT num AS r FROM papers WHERE id IN (SELECT value FROM json_each(?))", (ids,))
        if isinstance(node, Or):
            return set().union(*(self.rows(part) for part in node.parts))
        assert isinstance(node, And)
        found = self._required(node)
        for part in node.excluded:
            if not found:
                break
            found -= self.rows(part)
        return found

    def _required(self, node: And) -> set[int]:
        """Text parts and date ranges in one statement; other parts intersected after."""
        text: list[str] = []
        dates: list[DateRange] = []
        others: list[Node] = []
        for part in node.required:
            expression = _fts(part) if _depth(part) <= FTS_MAX_DEPTH else None
            if expression is NOTHING:
                return set()
            if isinstance(expression, str):
                text.append(expression)
            elif isinstance(part, DateRange):
                dates.append(part)
            else:
                others.append(part)
        conditions = " AND ".join("p.date BETWEEN ? AND ?" for _ in dates)
        values: list[str] = [bound for d in dates for bound in (d.start, d.end)]
        found: set[int] | None = None
        if text:
            sql = "SELECT words.rowid AS r FROM words"
            if dates:
                sql += f" JOIN papers p ON p.num = words.rowid WHERE words MATCH ? AND {conditions}"
            else:
                sql += " WHERE words MATCH ?"
            found = self._select(sql, (" AND ".join(text), *values))
        elif dates:
            found = self._select(f"SELECT p.num AS r FROM papers p WHERE {conditions}", tuple(values))
        for part in others:
            if found is not None and not found:
                break
            rows = self.rows(part)
            found = rows if found is None else found & rows
        return found if found is not None else set()

    def _select(self, sql: str, values: tuple) -> set[int]:
        joined = self.db.execute(f"SELECT group_concat(r, ',') FROM ({sql})", values).fetchone()[0]
        return set(map(int, joined.split(","))) if joined else set()
