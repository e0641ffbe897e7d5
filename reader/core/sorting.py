"""The list's orders other than newest first: last updated, title, first author, For you's score.

An order is made once per cache index (and ranking) as a permutation of the index's rows,
in numpy: a key per row, one stable argsort (rows are newest first, so equal keys stay newest
first). A view of the list (IdRows: ascending rows of the index) is then put in that order by
one gather and one sort of int32s: no string compared per paper. Text keys are folded (lower
case, no accents) and compared on their first KEY_BYTES bytes of UTF-8 (papers that agree that
far stay newest first): a fixed width lets numpy sort them in C, without the GIL.
No Textual, no disk: the keys come from the caller (the search index's cards, or records)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from reader.cache_index import CacheIndex
from reader.core.text import fold
from reader.packed_ids import POSITIONS_SLICE, ROW_TYPE, IdRows, SortedIds

if TYPE_CHECKING:
    import numpy as np

NEWEST, UPDATED, TITLE, AUTHOR, SCORE = "newest", "updated", "title", "author", "foryou"
SORTS = (NEWEST, UPDATED, TITLE, AUTHOR, SCORE)  # the order `S` cycles through
SORT_NAMES = {NEWEST: "newest first", UPDATED: "last updated", TITLE: "title", AUTHOR: "first author", SCORE: "For you score"}
KEYED = (UPDATED, TITLE, AUTHOR)  # the orders made from the papers' text (cards)
KEY_BYTES = 48


def title_key(title: str) -> str:
    """Folded, spaces collapsed; only its start counts (KEY_BYTES), so only its start is folded."""
    start = title[: 2 * KEY_BYTES]
    folded = start.lower() if start.isascii() and "\\" not in start else fold(start)
    tidy = folded.isprintable() and "  " not in folded and folded[:1] != " " and folded[-1:] != " "
    return folded if tidy else " ".join(folded.split())


def author_key(first_author: str) -> str:
    """By last name, then the whole name: "Sergey Levine" -> "levine sergey levine"."""
    name = title_key(first_author)
    return f"{name.rpartition(' ')[2]} {name}" if name else ""


def updated_key(updated: str) -> int:
    """An arXiv timestamp (2026-09-12T18:00:00Z) as a number that orders like it: 20260912180000."""
    digits = "".join(ch for ch in updated[:19] if ch.isdigit())
    return int(digits.ljust(14, "0")) if digits else 0


_DIGITS_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]  # of YYYY-MM-DDTHH:MM:SS


def _timestamps(values: list[str]) -> np.ndarray:
    """`updated_key` of each value, in numpy for the usual ISO timestamps (one Python call per
    paper took seconds at 1,000,000); any other value is read alone."""
    import numpy as np

    try:
        raw = np.array([value[:19] for value in values], dtype="S19")
    except UnicodeEncodeError:
        return np.fromiter(map(updated_key, values), dtype=np.int64, count=len(values))
    digits = raw.view(np.uint8).reshape(-1, 19)[:, _DIGITS_AT].astype(np.int64) - ord("0")
    keys = digits @ (10 ** np.arange(len(_DIGITS_AT) - 1, -1, -1, dtype=np.int64))
    odd = np.flatnonzero(((digits < 0) | (digits > 9)).any(axis=1))
    keys[odd] = [updated_key(values[i]) for i in odd.tolist()]
    return keys


class SortOrder:
    """Every row of `index` in one order: `rank[row]` is the row's place in it."""

    def __init__(self, index: CacheIndex, rank: np.ndarray):
        import numpy as np

        self.index = index
        self.rank = rank.astype(np.int32)
        order = np.empty_like(self.rank)
        order[self.rank] = np.arange(len(self.rank), dtype=np.int32)
        self.column = SortedIds(index.ids, order)

    @classmethod
    def by_key(cls, index: CacheIndex, keys: np.ndarray, *, descending: bool = False) -> SortOrder:
        """The order of a key per row (ascending; `descending` for numbers), ties newest first."""
        import numpy as np

        order = np.argsort(-keys if descending else keys, kind="stable")
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        return cls(index, rank)

    def find(self, paper_id: str) -> int | None:
        row = self.index.position(paper_id)
        return None if row is None else int(self.rank[row])

    def view(self, rows: Sequence[int] | np.ndarray) -> IdRows:
        """These rows of the index, in this order."""
        import numpy as np

        placed = np.sort(self.rank[np.asarray(rows, dtype=np.int32)])
        return IdRows(self.column, array(ROW_TYPE, placed.astype(np.int32).tobytes()), self.find)


def rows_of_view(index: CacheIndex, ids: Sequence[str]) -> np.ndarray:
    """The index rows of a view's papers (its own rows when it is a view of the index)."""
    import numpy as np

    if isinstance(ids, IdRows) and ids.column is index.ids:
        rows = ids.rows
        return np.arange(rows.start, rows.stop, dtype=np.int32) if isinstance(rows, range) else np.frombuffer(rows, dtype=np.int32)
    found = index.positions().rows_of(ids if isinstance(ids, list) else list(ids), -1)
    return found[found >= 0]


def keyed_order(index: CacheIndex, sort: str, pieces: Iterable[tuple[list[str], list[str]]]) -> SortOrder:
    """The order `sort` (one of KEYED) of every row of `index`, from (ids, raw values) pieces:
    updated timestamps, titles or first authors. Papers with no value go last."""
    import numpy as np

    numeric = sort == UPDATED
    keys = np.zeros(len(index), dtype=np.int64) if numeric else np.full(len(index), b"\xff" * KEY_BYTES, dtype=f"S{KEY_BYTES}")
    make = title_key if sort == TITLE else author_key
    positions = index.positions()
    for ids, values in pieces:
        for start in range(0, len(ids), POSITIONS_SLICE):  # a slice at a time: the GIL is let go between them
            rows = positions.rows_of(ids[start : start + POSITIONS_SLICE], -1)
            chunk = values[start : start + POSITIONS_SLICE]
            held = rows >= 0
            if numeric:
                made = _timestamps(chunk)
            else:
                made = np.array([make(v)[:KEY_BYTES].encode("utf-8") for v in chunk], dtype=f"S{KEY_BYTES}")  # (cut to S48)
            keys[rows[held]] = made[held]
    return SortOrder.by_key(index, keys, descending=numeric)


def ranked_order(index: CacheIndex, ranked_ids: Sequence[str]) -> SortOrder:
    """For you's order over every row: the ranked papers best first, then the others newest first."""
    import numpy as np

    rows = index.positions().rows_of(ranked_ids if isinstance(ranked_ids, list) else list(ranked_ids), -1)
    keys = np.arange(len(index), dtype=np.int64) + len(index)  # not ranked: after, newest first
    held = rows >= 0
    keys[rows[held]] = np.flatnonzero(held)
    return SortOrder.by_key(index, keys)


def sorted_view(order: SortOrder | None, index: CacheIndex, ids: Sequence[str]) -> Sequence[str]:
    """A view's papers in `order` (None: newest first, the index's own)."""
    import numpy as np

    rows = rows_of_view(index, ids)
    if order is None:
        return index.view(array(ROW_TYPE, np.sort(rows).astype(np.int32).tobytes()))
    return order.view(rows)
