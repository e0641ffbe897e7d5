"""The papers holding the most weight of some weighed terms, in one partition: For you's first
ranking asks it for the papers sharing each starred paper's distinctive terms
(service/first_rank.py).

Each term's matches come as row numbers (one string from SQLite, parsed by numpy), summed by
weight in numpy, and only the best rows are looked up as ids: no bm25 (FTS5 computes it for
every match: seconds for a few common terms at 1,000,000 papers) and no join per match. The
caller keeps the terms few and rare enough (their papers counted beforehand), which bounds the
rows read; rows the text index still holds for papers since replaced are dropped by the look-up.
Asked for the best among some papers (a topic's), the rows of the others are dropped before
the best are taken: a topic's best are found however few of them the whole cache's best hold.
numpy is imported inside: most commands never ask this."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from reader.core.query import Node
from reader.search_index.match import fts_expression


def most_shared(
    db: sqlite3.Connection, groups: Sequence[Sequence[tuple[Node, float]]], share: int, among: Collection[str] | None = None
) -> list[list[tuple[float, str]]]:
    """For each group of (text query, weight): its `share` best papers here (of `among` when
    given), as (minus the weight they hold, id), best first, ties by id."""
    import numpy as np

    if among is not None and not among:
        return [[] for _ in groups]
    allowed = None
    if among is not None:
        allowed = np.fromiter(
            (
                num
                for (num,) in db.execute("SELECT num FROM papers WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(among)),))
            ),
            dtype=np.int64,
        )
    found: list[list[tuple[float, str]]] = []
    for group in groups:
        rows, weights = [], []
        for node, weight in group:
            expression = fts_expression(node)
            if not isinstance(expression, str):
                continue
            text = db.execute("SELECT group_concat(rowid) FROM words WHERE words MATCH ?", (expression,)).fetchone()[0]
            if text:
                matched = np.fromstring(text, dtype=np.int64, sep=",")
                rows.append(matched)
                weights.append(np.full(len(matched), weight))
        if not rows:
            found.append([])
            continue
        numbers, inverse = np.unique(np.concatenate(rows), return_inverse=True)
        held = np.bincount(inverse.ravel(), weights=np.concatenate(weights))
        if allowed is not None:
            kept = np.isin(numbers, allowed)
            numbers, held = numbers[kept], held[kept]
            if not len(numbers):
                found.append([])
                continue
        # The rows holding at least the share-th most weight (all of those tied with it: ties go by id).
        least = np.partition(held, len(held) - share)[len(held) - share] if share < len(held) else -np.inf
        best = np.flatnonzero(held >= least)
        ids = dict(
            db.execute("SELECT num, id FROM papers WHERE num IN (SELECT value FROM json_each(?))", (json.dumps(numbers[best].tolist()),))
        )
        taken = [(-weight, ids[number]) for number, weight in zip(numbers[best].tolist(), held[best].tolist()) if number in ids]
        found.append(sorted(taken)[:share])
    return found
