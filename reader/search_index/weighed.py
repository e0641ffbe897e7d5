"""The papers holding the most weight of some weighed queries, in one partition, each with the
queries it holds: a meaning query's words rank (meaning/expand.py), the same answer as
core/similar.py's `best_likes` over `matching`'s sets of ids (tests/test_meaning_fast.py).

Each query's matches come as row numbers (one string from SQLite, parsed by numpy) and are
summed by weight in numpy, in the queries' order (the same float sums as `best_likes`'s); only
the best rows are looked up as ids. At 1,000,000 papers a query word's holders are ~200,000:
as a set of ids each, with a table of every holder, they were most of `reader find`'s time.
Rows the text index still holds for papers since replaced are dropped by the look-up (the
best are then taken again, deeper)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from reader.core.query import Node
from reader.search_index.match import Matcher

if TYPE_CHECKING:
    import numpy as np

    from reader.core.similar import Like


Weighed = Sequence[tuple[float, str, Node]]  # (share of the score, reason, text query)


def best_weighed(db: sqlite3.Connection, weighed: Weighed, limit: int, leave_out: Collection[str]) -> list[tuple[float, str, list[int]]]:
    """The `limit` papers here whose queries' shares sum highest (those in `leave_out` never),
    as (sum, id, the indexes of the queries it holds), best first, ties by id."""
    import numpy as np

    if limit <= 0:
        return []
    nodes, shares = [node for _, _, node in weighed], [share for share, _, _ in weighed]
    held = [_rows(db, node) for node in nodes]
    if not any(len(rows) for rows in held):
        return []
    numbers, inverse = np.unique(np.concatenate(held), return_inverse=True)
    weights = np.concatenate([np.full(len(rows), share, dtype=np.float64) for rows, share in zip(held, shares)])
    scores = np.bincount(inverse.ravel(), weights=weights, minlength=len(numbers))
    if leave_out:
        left = _nums(db, "SELECT num FROM papers WHERE id IN (SELECT value FROM json_each(?))", json.dumps(list(leave_out)))
        kept = ~_among(numbers, left)
        numbers, scores = numbers[kept], scores[kept]
    deep = limit
    while True:
        best = _best(db, numbers, scores, deep)
        if len(best) >= limit or deep >= len(numbers):
            break
        deep *= 2  # stale rows were among the best: deeper
    best = best[:limit]
    rows = np.array([num for _, _, num in best], dtype=np.int64)
    holding = [_among(rows, term_rows) for term_rows in held]
    return [(score, pid, [t for t in range(len(nodes)) if holding[t][i]]) for i, (score, pid, _) in enumerate(best)]


def merged(parts: list[list[tuple[float, str, list[int]]]], weighed: Weighed, limit: int) -> list[Like]:
    """The `limit` best of every partition's best, as likes said by their weightiest reasons."""
    from reader.core.similar import Like, reasons_of  # (likeness's module: what a list or a filter never needs)

    best = sorted((hit for found in parts for hit in found), key=lambda hit: (-hit[0], hit[1]))[:limit]
    return [Like(pid, round(min(score, 1.0), 4), reasons_of([weighed[t][:2] for t in held])) for score, pid, held in best]


def _best(db: sqlite3.Connection, numbers: np.ndarray, scores: np.ndarray, deep: int) -> list[tuple[float, str, int]]:
    """The `deep` best live rows by score (ties by id) as (score, id, row): those above the
    deep-th score, and of those tied with it the first by id."""
    import numpy as np

    if deep < len(scores):
        cut = np.partition(scores, len(scores) - deep)[len(scores) - deep]
        above = np.flatnonzero(scores > cut)
        tied = np.flatnonzero(scores == cut)
    else:
        above, tied = np.arange(len(scores)), np.array([], dtype=np.intp)
    score_of = dict(zip(numbers[above].tolist(), scores[above].tolist()))
    found = [
        (score_of[num], pid, num)
        for num, pid in db.execute(
            "SELECT num, id FROM papers WHERE num IN (SELECT value FROM json_each(?))", (json.dumps(list(score_of)),)
        )
    ]
    if len(tied) and len(found) < deep:
        cut_score = float(scores[tied[0]])
        found += [
            (cut_score, pid, num)
            for num, pid in db.execute(
                "SELECT num, id FROM papers WHERE num IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?",
                (json.dumps(numbers[tied].tolist()), deep - len(found)),
            )
        ]
    return sorted(found, key=lambda hit: (-hit[0], hit[1]))


def _among(rows: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Which of `rows` are among `others` (a bool each): np.isin's answer, without the import of
    numpy.ma its np.unique makes (~40 ms of a query's start)."""
    import numpy as np

    if not len(others):
        return np.zeros(len(rows), dtype=bool)
    ordered = np.sort(others)
    at = np.minimum(np.searchsorted(ordered, rows), len(ordered) - 1)
    return ordered[at] == rows


def _rows(db: sqlite3.Connection, node: Node) -> np.ndarray:
    import numpy as np

    text = Matcher(db).row_text(node)
    return np.fromstring(text, dtype=np.int64, sep=",") if text else np.array([], dtype=np.int64)


def _nums(db: sqlite3.Connection, sql: str, value: str) -> np.ndarray:
    import numpy as np

    return np.fromiter((num for (num,) in db.execute(sql, (value,))), dtype=np.int64)
