"""One partition's row numbers mapped to paper ids and to positions in a list, held in memory.

With it, a query reads only the full-text index (no join with `papers` per match), and answers
in the list's order by sorting integers: the matched ids are never hashed or compared, which at
tens of thousands of matches is most of the cost. Everything is done by C loops (json decoding,
itemgetter gathers, one sort of a few long runs) rather than a Python step per match.

A map is kept while the partition's generation (partition.py's meta) is the one it was read at,
and its positions while the list is the same object (those of the last ORDERS_KEPT lists: the
library's and For you's ranking); the caller reads the generation, the map and the matches in
one read transaction, so they are of one state.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import TypeVar

T = TypeVar("T")

ORDERS_KEPT = 2  # lists whose positions are kept: a filter in either view never remaps


def gather(table: Sequence[T], indexes: Sequence[int]) -> list[T]:
    """[table[i] for i in indexes], in C."""
    if len(indexes) > 1:
        return list(itemgetter(*indexes)(table))
    return [table[i] for i in indexes]


class RowMap:
    def __init__(self) -> None:
        self.lock = threading.Lock()  # one reader of the partition at a time may update the map
        self._generation: object = object()  # none read yet
        self._ids: list[str] = []  # row number -> paper id; "": no such live row
        # (list, row number -> position in it or len(list) for none), the latest used first
        self._orders: list[tuple[Sequence[str], list[int]]] = []

    def positions(self, db: sqlite3.Connection, order: Sequence[str], position: Mapping[str, int]) -> list[int]:
        """Row number -> position in `order` (`position` maps each of its ids to its index;
        len(order) for rows not in it). Call inside the read transaction of the query."""
        generation = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        if generation != self._generation:
            next_num = db.execute("SELECT value FROM meta WHERE key = 'next_num'").fetchone()[0]
            nums, ids = db.execute("SELECT json_group_array(num), json_group_array(id) FROM papers").fetchone()
            table = [""] * next_num
            for num, pid in zip(json.loads(nums), json.loads(ids)):
                table[num] = pid
            self._ids, self._generation, self._orders = table, generation, []
        kept = next((held for held in self._orders if held[0] is order), None)
        if kept is None:
            end = len(order)
            kept = (order, [position.get(pid, end) for pid in self._ids])
        self._orders = [kept, *(other for other in self._orders if other is not kept)][:ORDERS_KEPT]
        return kept[1]
