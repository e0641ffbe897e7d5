"""A filter in a ranking's order (For you): its matches marked in numpy arrays, not sorted.

A ranking's order is unrelated to the rows' (numbered about in date order), so the positions
of the matches come back shuffled: sorting them as Python ints is most of a filter's cost
(~15 ms for 77,000 matches at 100,000 papers, plus ~7 ms to decode them from JSON). Here
numpy parses the row numbers from SQLite's text, maps them to positions with one take, marks
them in a mask as long as the order, and takes the positions marked (~3 ms in all).

numpy costs ~200 ms to import: the workers that prepare an order import it first (RowMap looks
ids up in an IdTable), never `reader list` or the app's first paint.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reader.packed_ids import ROW_TYPE

if TYPE_CHECKING:
    import numpy as np


def positions_array(table: Sequence[int]) -> np.ndarray:
    """A RowMap's positions table (row number -> position in the order) as an array."""
    import numpy as np

    return np.array(table, dtype=np.int64)


def matched_positions(table: np.ndarray, rows: str) -> np.ndarray:
    """Positions of the matched rows (`rows`: their numbers joined by commas, as
    Matcher.row_text gives them)."""
    import numpy as np

    if not rows:
        return np.empty(0, dtype=np.int64)
    return table[np.fromstring(rows, dtype=np.int64, sep=",")]


def pick(count: int, positions: Sequence[np.ndarray]) -> array:
    """These positions of an order of `count` papers, ascending, once each (a position `count`
    stands for a paper not in the order: left out)."""
    import numpy as np

    marked = np.zeros(count + 1, dtype=bool)
    for found in positions:
        marked[found] = True
    return array(ROW_TYPE, np.flatnonzero(marked[:-1]).astype(np.int32).tobytes())
