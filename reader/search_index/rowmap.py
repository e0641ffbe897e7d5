"""One partition's row numbers mapped to positions in a list, held in memory (int32, made by
looking up every row's id at once in the list's IdTable; the ids are let go).

With it, a query reads only the full-text index (no join with `papers` per match), and answers
in the list's order by sorting integers: the matched ids are never hashed or compared, which at
tens of thousands of matches is most of the cost. Everything is done by C loops (json decoding,
numpy lookups, itemgetter gathers, one sort of a few long runs) rather than a Python step per match.

A map is kept while the partition's generation (partition.py's meta) is the one it was read at
and while the list is the same object (those of the last ORDERS_KEPT lists: the
catalog's and For you's ranking), also as a numpy array when For you asked (see ranked.py);
the caller reads the generation, the map and the matches in one read transaction, so they are
of one state.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.packed_ids import IdTable
from reader.search_index.ranked import positions_array

if TYPE_CHECKING:
    import numpy as np


POSITION_TYPE = "i"  # positions as int32
ORDERS_KEPT = 2  # lists whose positions are kept: a filter in either view never remaps


def row_positions(count: int, nums: list[int], positions: np.ndarray, missing: int) -> array:
    """A table of `count` rows: row nums[k] -> positions[k], `missing` for the others."""
    import numpy as np

    table = np.full(count, missing, dtype=np.int32)
    table[np.array(nums, dtype=np.int64)] = positions
    return array(POSITION_TYPE, table.tobytes())


@dataclass
class _Positions:
    order: Sequence[str]
    table: Sequence[int]  # row number -> position in `order`, or len(order) for none (int32: no int object per row)
    array: np.ndarray | None = None  # the same as a numpy array, once asked for


class RowMap:
    def __init__(self) -> None:
        self.lock = threading.Lock()  # one reader of the partition at a time may update the map
        self._generation: object = object()  # none read yet
        self._orders: list[_Positions] = []  # the latest used first

    def positions(self, db: sqlite3.Connection, order: Sequence[str], position: IdTable) -> Sequence[int]:
        """Row number -> position in `order` (`position` finds each of its ids' index;
        len(order) for rows not in it). Call inside the read transaction of the query."""
        return self._kept(db, order, position).table

    def position_array(self, db: sqlite3.Connection, order: Sequence[str], position: IdTable) -> np.ndarray:
        """`positions` as a numpy array (made at the first call for this order)."""
        kept = self._kept(db, order, position)
        if kept.array is None:
            kept.array = positions_array(kept.table)
        return kept.array

    def _kept(self, db: sqlite3.Connection, order: Sequence[str], position: IdTable) -> _Positions:
        generation = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        if generation != self._generation:
            self._generation, self._orders = generation, []
        kept = next((held for held in self._orders if held.order is order), None)
        if kept is None:
            # The rows' ids are read, looked up all at once and let go: the map holds no string
            # per row (a million ids decoded from SQLite took ~60 MB).
            next_num = db.execute("SELECT value FROM meta WHERE key = 'next_num'").fetchone()[0]
            nums, ids = db.execute("SELECT json_group_array(num), json_group_array(id) FROM papers").fetchone()
            kept = _Positions(order, row_positions(next_num, json.loads(nums), position.rows_of(json.loads(ids), len(order)), len(order)))
        self._orders = [kept, *(other for other in self._orders if other is not kept)][:ORDERS_KEPT]
        return kept
