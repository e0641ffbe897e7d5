"""Paper ids kept without an object each, for indexes of a million papers: ids packed in one
UTF-8 buffer (PackedIds), a view of a list as int32 rows of an id column (IdRows), a paper id ->
row table (IdTable), ids sorted for binary search (SortedIds), and the C-speed helpers that pick
rows of a column (rows_passing, gather). The cache index (cache_index.py) holds its ids in them;
the search index and the service keep rows and tables of them."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress
from operator import itemgetter, ne, not_
from typing import TYPE_CHECKING, TypeVar, cast, overload

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

POSITIONS_SLICE = 10_000
COMPARED_SLICE = 10_000  # ids compared as bytes at once (same_ids)
SPARSE = 100  # under a hundredth of a run's ids asked: decoded one at a time, not the run (PackedIds.take)
ROW_TYPE = "i"  # a row of the index (int32), as views hold them
PACKED_END_TYPE = "I"  # where each packed id ends (uint32)


class PackedIds(Sequence[str]):
    """Ids packed in one UTF-8 buffer, a newline between two, with where each one ends: no
    string object per paper until one is asked for (a listing's binary searches read a few
    dozen of a million). A run of ids (a slice, iteration, `take`) is decoded a run at a time,
    by one split in C, never an id at a time."""

    __slots__ = ("blob", "ends")

    def __init__(self, blob: memoryview, ends: array):
        self.blob, self.ends = blob, ends  # where each id ends: the index of the newline after it

    @classmethod
    def pack(cls, ids: Sequence[str]) -> PackedIds | None:
        """These ids packed; None when they cannot be (an id holds a newline, or their bytes
        pass 4 GiB: `ends` are uint32)."""
        if isinstance(ids, PackedIds):
            return ids
        blob = "\n".join(ids).encode("utf-8")
        if blob.count(b"\n") != max(len(ids) - 1, 0) or len(blob) >= 1 << 32:
            return None
        return cls.lines(blob) if ids else cls(memoryview(blob), array(PACKED_END_TYPE))

    @classmethod
    def lines(cls, blob: bytes) -> PackedIds:
        """The ids of `blob`, one a line (as `pack` joins them, or a file holds them): each ends
        at a newline, found by numpy (a million ids in tens of milliseconds)."""
        import numpy as np

        ends = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == ord("\n"))
        return cls(memoryview(blob), array(PACKED_END_TYPE, np.append(ends, len(blob)).astype(np.uint32).tobytes()))

    def __reduce__(self):
        return _packed_ids, (bytes(self.blob), self.ends)  # (a memoryview does not pickle: For you's come from its process)

    def __len__(self) -> int:
        return len(self.ends)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return [self[j] for j in range(start, stop, step)]
            return self._run(start, stop)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("id index out of range")
        return str(self.blob[self.ends[i - 1] + 1 if i else 0 : self.ends[i]], "utf-8")  # (a newline between two)

    def _run(self, start: int, stop: int) -> list[str]:
        """The ids from `start` to `stop` (at most the end), decoded at once."""
        stop = min(stop, len(self))
        if start >= stop:
            return []
        ends = self.ends
        return str(self.blob[ends[start - 1] + 1 if start else 0 : ends[stop - 1]], "utf-8").split("\n")

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), POSITIONS_SLICE):
            yield from self._run(start, start + POSITIONS_SLICE)

    def holding(self, ids: Iterable[str]) -> set[str]:
        """Those of `ids` that are here, each found by a search of the buffer's bytes: for a
        few ids, where an id table (~0.15 s at a million) would be made for nothing else."""
        blob = b"\n" + bytes(self.blob) + b"\n"
        return {pid for pid in ids if pid and "\n" not in pid and b"\n" + pid.encode() + b"\n" in blob}

    def joined(self, rows: Sequence[int] | np.ndarray) -> bytes:
        """The ids at `rows` as "\\n".join(self.take(rows)) encodes them, gathered from the
        buffer in numpy without decoding one."""
        import numpy as np

        if not len(rows):
            return b""
        blob, ends = np.frombuffer(self.blob, dtype=np.uint8), np.frombuffer(self.ends, dtype=np.uint32)
        if not len(blob):  # (only empty ids)
            return b"\n" * (len(rows) - 1)
        at = np.asarray(rows, dtype=np.int64)
        stops = ends[at].astype(np.int64)
        starts = np.where(at > 0, ends[at - 1].astype(np.int64) + 1, 0)
        lengths = stops - starts + 1  # each id and the newline after it
        firsts = np.cumsum(lengths) - lengths  # where each id starts in what is returned
        picked = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(firsts - starts, lengths)
        gathered = blob[np.minimum(picked, len(blob) - 1)]  # (the last id of the buffer has no newline after it)
        gathered[firsts + lengths - 1] = ord("\n")
        return gathered[:-1].tobytes()

    def take(self, rows: Sequence[int]) -> list[str]:
        """[self[i] for i in rows] (rows in any order): a few rows one at a time, many by
        decoding each run of ids they fall in once and picking from it in numpy (a run they
        are sparse in, an id at a time)."""
        if isinstance(rows, range) and rows.step == 1 and rows.stop <= len(self):
            return self._run(rows.start, rows.stop)
        if len(rows) < 64:
            return [self[i] for i in rows]
        import numpy as np

        wanted = np.asarray(rows, dtype=np.int64)
        if wanted.min() < 0 or wanted.max() >= len(self):
            raise IndexError("id index out of range")
        runs = wanted // POSITIONS_SLICE
        by_run = np.argsort(runs, kind="stable")
        found = np.empty(len(wanted), dtype=object)
        for group in np.split(by_run, np.flatnonzero(np.diff(runs[by_run])) + 1):
            if len(group) * SPARSE < POSITIONS_SLICE:  # a few ids of this run: decoded alone
                found[group] = [self[i] for i in wanted[group].tolist()]
                continue
            first = int(runs[group[0]]) * POSITIONS_SLICE
            found[group] = np.array(self._run(first, first + POSITIONS_SLICE), dtype=object)[wanted[group] - first]
        return found.tolist()


def same_ids(ids: list[str], column: Sequence[str], rows: np.ndarray) -> bool:
    """Whether ids[k] == column[rows[k]] for every k, in C. Packed ids are compared as bytes a
    slice at a time, none decoded: the search index's row maps check every id of a million this
    way at each start (decoding them took ~0.25 s of its CPU)."""
    if not isinstance(column, PackedIds):
        return not any(map(ne, ids, gather(column, rows.tolist())))
    for start in range(0, len(rows), COMPARED_SLICE):
        # (a lone surrogate, from SQLite's JSON, encodes to bytes no packed id holds: unequal)
        wanted = "\n".join(ids[start : start + COMPARED_SLICE]).encode("utf-8", "surrogatepass")
        if column.joined(rows[start : start + COMPARED_SLICE]) != wanted:
            return False
    return True


def _packed_ids(blob: bytes, ends: array) -> PackedIds:
    return PackedIds(memoryview(blob), ends)


class IdRows(Sequence[str]):
    """Some rows of an id column (the catalog's index, newest first, or a ranking, best
    first), ascending: what a view of the list shows, as 4 bytes a paper (int32 rows, or a
    range) rather than a list of strings. `find` gives an id's row in the column (its id
    table), so that the list finds a paper it shows without comparing every id."""

    __slots__ = ("_find", "column", "rows")

    def __init__(self, column: Sequence[str], rows: range | array, find: Callable[[str], int | None]):
        self.column, self.rows, self._find = column, rows, find

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return gather(self.column, self.rows[i])
        return self.column[self.rows[i]]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self.rows), POSITIONS_SLICE):
            yield from gather(self.column, self.rows[start : start + POSITIONS_SLICE])

    def index(self, paper_id: object, start: int = 0, stop: int | None = None) -> int:
        row = self._find(paper_id) if isinstance(paper_id, str) else None
        stop = len(self.rows) if stop is None else stop
        if row is not None:
            at = bisect_left(self.rows, row, start, max(start, stop))
            if at < stop and self.rows[at] == row:
                return at
        raise ValueError(f"{paper_id!r} is not shown")

    def __contains__(self, paper_id: object) -> bool:
        try:
            self.index(paper_id)
        except ValueError:
            return False
        return True

    def keeping(self, test: Callable[[str], object], keep: bool = True) -> IdRows:
        """This view less the ids failing `test` (passing it when not `keep`)."""
        return IdRows(self.column, rows_passing(self.rows, self.column, test, keep), self._find)


def rows_passing(rows: range | array, column: Sequence[T], test: Callable[[T], object], keep: bool = True) -> array:
    """Those of `rows` whose value in `column` passes `test` (fails it when not `keep`), in C,
    a run at a time."""
    kept = array(ROW_TYPE)
    for start in range(0, len(rows), POSITIONS_SLICE):
        run = rows[start : start + POSITIONS_SLICE]
        passed = map(test, gather(column, run))
        kept.extend(compress(run, passed if keep else map(not_, passed)))
    return kept


class IdTable:
    """Where each id of a column is (its row), without a dict of them: every id's 64-bit hash,
    sorted, beside its row. 12 bytes per id where a dict of a million ids to their rows took
    ~60 MB (an entry, a hash slot and an int object each); a lookup is a binary search in C,
    many lookups at once one numpy call (`rows_of`). Python's string hash is salted per process,
    so a table is made in the process that asks, never stored. Equal hashes of unequal ids
    (about one pair in 2**64) are told apart: every answer is checked against the column."""

    __slots__ = ("_column", "_hashes", "_rows")

    def __init__(self, column: Sequence[str]):
        import numpy as np

        # A slice at a time: numpy holds the GIL while it draws from the iterator (a million ids
        # in one call held it ~60 ms, the event loop stopped as long); its sort lets it go.
        hashes = np.concatenate(
            [
                np.fromiter(map(hash, column[start : start + POSITIONS_SLICE]), dtype=np.int64)
                for start in range(0, len(column), POSITIONS_SLICE)
            ]
            or [np.empty(0, dtype=np.int64)]
        )
        rows = hashes.argsort()
        self._column, self._hashes, self._rows = column, hashes[rows], rows.astype(np.int32)

    def get(self, paper_id: str, default: int | None = None) -> int | None:
        wanted = hash(paper_id)
        hashes, column = self._hashes, self._column
        at = int(hashes.searchsorted(wanted))
        while at < len(hashes) and hashes[at] == wanted:
            row = int(self._rows[at])
            if column[row] == paper_id:
                return row
            at += 1
        return default

    def __getitem__(self, paper_id: str) -> int:
        row = self.get(paper_id)
        if row is None:
            raise KeyError(paper_id)
        return row

    def __contains__(self, paper_id: object) -> bool:
        return isinstance(paper_id, str) and self.get(paper_id) is not None

    def __len__(self) -> int:
        return len(self._column)

    def rows_of(self, ids: Sequence[str], missing: int) -> np.ndarray:
        """Each id's row (int32; `missing` for an id not in the column), found all at once."""
        import numpy as np

        rows = np.full(len(ids), missing, dtype=np.int32)
        if not len(ids) or not len(self._hashes):
            return rows
        wanted = np.concatenate(
            [np.fromiter(map(hash, ids[start : start + POSITIONS_SLICE]), dtype=np.int64) for start in range(0, len(ids), POSITIONS_SLICE)]
        )
        # Looked up in hash order: each search starts where the last ended (5-10x faster).
        by_hash = wanted.argsort()
        at = np.empty_like(by_hash)
        at[by_hash] = np.minimum(self._hashes.searchsorted(wanted[by_hash]), len(self._hashes) - 1)
        hit = np.flatnonzero(self._hashes[at] == wanted)
        rows[hit] = self._rows[at[hit]]
        # The ids found, compared with the column's (in C, in the column's order: packed ids as
        # bytes); any unequal one is looked up alone.
        hit = hit[rows[hit].argsort(kind="stable")]
        found = hit.tolist()
        if found and not same_ids(gather(ids, found), self._column, rows[hit]):
            for k in found:
                row = self.get(ids[k])
                rows[k] = missing if row is None else row
        return rows


class SortedIds(Sequence[str]):
    """The index's ids in an order (`order`: its rows, in that order), without a copy of them."""

    __slots__ = ("ids", "order")

    def __init__(self, ids: Sequence[str], order: np.ndarray):
        self.ids, self.order = ids, order

    def __len__(self) -> int:
        return len(self.order)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return gather(self.ids, self.order[i].tolist())
        return self.ids[int(self.order[i])]

    def take(self, positions: Sequence[int]) -> list[str]:
        return gather(self.ids, self.order[list(positions)].tolist())


def gather(table: Sequence[T], indexes: Sequence[int]) -> list[T]:
    """[table[i] for i in indexes], in C (packed ids by runs)."""
    if isinstance(table, (PackedIds, SortedIds)):
        return cast(list[T], table.take(indexes))
    if len(indexes) > 1:
        return list(itemgetter(*indexes)(table))
    return [table[i] for i in indexes]
