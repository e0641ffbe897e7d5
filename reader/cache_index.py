"""The cache index in memory (CacheIndex): every cached paper as parallel columns, newest first,
read and written by the store (index.json, index.log, index.columns), counted and ordered by
core, and one row per paper of what the cache knows without loading it (IndexEntry)."""

from __future__ import annotations

import json
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Container, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import compress
from operator import neg
from typing import TypeVar, cast

from reader.packed_ids import POSITIONS_SLICE, IdRows, IdTable, PackedIds

T = TypeVar("T")


@dataclass(slots=True)
class IndexEntry:
    """What the cache knows of a paper without loading it: enough to count, chart and order."""

    version: int
    published: str  # YYYY-MM-DD of v1
    topics: list[str]  # the topics whose arXiv query returned this paper
    arrived: int = 0  # when it came into the cache (milliseconds since 1970, UTC); 0: with a topic's first sync, or not known


# The index's number columns as machine integers (array type codes): versions and v1 day
# ordinals as int32, arrival times (milliseconds since 1970) as int64.
VERSION_TYPE, DAY_TYPE, ARRIVED_TYPE = "i", "i", "q"
JSON_SLICE = 20_000  # a column's values encoded by one call
FEW_IDS = 100  # ids looked for in the packed bytes, one search each, rather than by making the id table


def _json_list(values: Sequence) -> str:
    """`json.dumps(values)` (compact, UTF-8 kept), a slice at a time: one call over a 100,000-row
    column held the GIL 8-12 ms, each slice a fifth of that."""
    pieces = (
        json.dumps(list(values[start : start + JSON_SLICE]), ensure_ascii=False, separators=(",", ":"))[1:-1]
        for start in range(0, len(values), JSON_SLICE)
    )
    return "[" + ",".join(pieces) + "]"


class CacheIndex:
    """Every cached paper as parallel columns, newest first: ids, versions, v1 days (ordinals),
    topic bitmasks and arrival times (see IndexEntry.arrived; all 0 in an index written before
    they were kept). Counting or charting 100,000 papers is a loop in C over two columns. No
    object per paper: as read at a start (index.columns) and kept after a whole write, the ids
    are packed (PackedIds, one buffer) and the numbers arrays of machine integers (int32
    versions and days, int64 arrivals and masks); a view of the list holds int32 rows of it
    (IdRows). An index being changed (a sync's saves) holds its ids in a list. Masks read from
    index.json stay a list: shared small ints while there are few topics, and a mask has as
    many bits as there are topics."""

    __slots__ = ("_positions", "_present", "arrived", "days", "ids", "masks", "topics", "versions")

    def __init__(self, topics=(), ids=(), versions=(), days=(), masks=(), arrived=None):
        self.topics: list[str] = list(topics)  # bit i of a mask is topics[i]
        self.ids: Sequence[str] = list(ids)  # or packed (PackedIds), as read from index.columns
        self.versions = array(VERSION_TYPE, versions)
        self.days = array(DAY_TYPE, days)
        self.masks: list[int] = list(masks)
        self.arrived = array(ARRIVED_TYPE, bytes(8 * len(self.ids)) if arrived is None else arrived)
        self._positions: IdTable | None = None
        self._present: set[str] | None = None  # the ids, kept up to date through a sync's saves (see `row`)

    @classmethod
    def of_columns(
        cls, topics: list[str], ids: list[str] | PackedIds, versions: array, days: array, masks: list[int] | array, arrived: array
    ) -> CacheIndex:
        """An index holding these columns themselves (not copies: they were made for it). Ids
        packed and masks as an array keep no object per paper: lookups, binary searches and
        views work on them; changing the index (with_rows) makes lists again."""
        index = cls(topics)
        index.ids, index.masks = ids, cast(list[int], masks)
        index.versions, index.days, index.arrived = versions, days, arrived
        return index

    @classmethod
    def build(cls, entries: dict[str, IndexEntry]) -> CacheIndex:
        topics = sorted({t for e in entries.values() for t in e.topics})
        bits = {t: 1 << i for i, t in enumerate(topics)}
        order = sorted(entries, key=lambda pid: (entries[pid].published, pid), reverse=True)
        return cls(
            topics,
            order,
            [entries[pid].version for pid in order],
            [date.fromisoformat(entries[pid].published).toordinal() for pid in order],
            [sum(bits[t] for t in set(entries[pid].topics)) for pid in order],
            [entries[pid].arrived for pid in order],
        )

    def with_changes(self, changes: dict[str, tuple[int, int, str | None]], arrived: int = 0) -> CacheIndex:
        """A new index with papers added or updated: id -> (version, v1 day ordinal, topic or None).
        A topic adds to a paper's topics; papers new to the index arrived at `arrived`."""
        return self.with_rows(
            {pid: (version, day, () if topic is None else (topic,), arrived) for pid, (version, day, topic) in changes.items()}
        )

    def with_rows(self, rows: dict[str, tuple[int, int, tuple[str, ...], int]]) -> CacheIndex:
        """A new index with papers added or updated: id -> (version, v1 day ordinal, topics to
        add, arrival time if new). Cheap at any size: rows are found by binary search (no map of
        every id), the new ones merge in as one more sorted run, copied between them a slice at
        a time. This index's set of ids passes to the new one (a sync's next save asks it)."""
        topics = list(self.topics)
        for _, _, named, _ in rows.values():
            topics += [topic for topic in named if topic not in topics]
        bits = {t: 1 << i for i, t in enumerate(topics)}
        versions, masks = array(VERSION_TYPE, self.versions), list(self.masks)
        added = []
        bit_of: dict[tuple[str, ...], int] = {}  # the rows' few topic tuples, each summed once
        for pid, (version, day, named, arrived) in rows.items():
            bit = bit_of.get(named)
            if bit is None:
                bit = bit_of[named] = sum(bits[topic] for topic in set(named))
            i = self.row(pid, day)
            if i is None:
                added.append((day, pid, version, bit, arrived))
            else:
                versions[i] = max(versions[i], version)
                masks[i] |= bit
        present, self._present = self._present, None
        if not added:
            same = CacheIndex(topics, self.ids, versions, self.days, masks, self.arrived)
            same._present = present
            return same
        added.sort(reverse=True)
        merged = CacheIndex(topics)
        out_ids: list[str] = []
        out_days, out_versions, out_masks = merged.days, merged.versions, merged.masks
        out_arrived = merged.arrived
        old_days, old_ids, old_arrived = self.days, self.ids, self.arrived
        start = 0
        for day, pid, version, mask, arrived in added:
            cut = self._insertion_point(day, pid, start)
            out_days.extend(old_days[start:cut])
            out_ids += old_ids[start:cut]
            out_versions.extend(versions[start:cut])
            out_masks += masks[start:cut]
            out_arrived.extend(old_arrived[start:cut])
            out_days.append(day)
            out_ids.append(pid)
            out_versions.append(version)
            out_masks.append(mask)
            out_arrived.append(arrived)
            start = cut
        out_days.extend(old_days[start:])
        out_ids += old_ids[start:]
        out_versions.extend(versions[start:])
        out_masks += masks[start:]
        out_arrived.extend(old_arrived[start:])
        merged.ids = out_ids
        if present is not None:
            present.update(row[1] for row in added)
            merged._present = present
        return merged

    def _insertion_point(self, day: int, paper_id: str, low: int = 0) -> int:
        """Where a row (day, id) goes among the rows from `low` on: after every row above it
        (rows are sorted by day, then id, both descending)."""
        days, ids = self.days, self.ids
        low = bisect_left(days, -day, lo=low, key=neg)
        high = bisect_right(days, -day, lo=low, key=neg)
        while low < high:  # ids descending within the day
            middle = (low + high) // 2
            if ids[middle] > paper_id:
                low = middle + 1
            else:
                high = middle
        return low

    def to_json_text(self) -> str:
        """The index as JSON, encoded a slice of a column at a time: each encoder call holds the
        GIL only briefly (the event loop keeps its pace while a sync writes)."""
        parts = [f'"{name}":{_json_list(getattr(self, name))}' for name in ("topics", "ids", "versions", "days", "masks", "arrived")]
        return "{" + ",".join(parts) + "}"

    def entries(self) -> dict[str, IndexEntry]:
        """An editable copy, one IndexEntry per paper."""
        return {
            pid: IndexEntry(v, date.fromordinal(d).isoformat(), self._names(m), a)
            for pid, v, d, m, a in zip(self.ids, self.versions, self.days, self.masks, self.arrived)
        }

    def _names(self, mask: int) -> list[str]:
        return [t for i, t in enumerate(self.topics) if mask >> i & 1]

    def positions(self) -> IdTable:
        """Paper id -> its index in `ids` (made at the first call; see IdTable)."""
        if self._positions is None:
            self._positions = IdTable(self.ids)
        return self._positions

    def position(self, paper_id: str) -> int | None:
        return self.positions().get(paper_id)

    @property
    def has_positions(self) -> bool:
        """Whether the id table is made (then numpy is imported too)."""
        return self._positions is not None

    def row(self, paper_id: str, day: int) -> int | None:
        """The paper's row given its v1 day ordinal, by binary search; by the id table only when
        the index holds the id under another day (a record whose date changed). A paper the
        index does not hold is told by the set of ids (a sync's saves: `with_rows` passes it on,
        grown by the papers it adds)."""
        if self._present is None and self._positions is None:
            self._present = set()
            for start in range(0, len(self.ids), POSITIONS_SLICE):  # a slice at a time (see IdTable)
                self._present.update(self.ids[start : start + POSITIONS_SLICE])
        present: Container[str] = self._present if self._present is not None else self.positions()
        if paper_id not in present:
            return None
        i = self.locate(paper_id, day) if self.days else None
        return self.position(paper_id) if i is None else i

    def locate(self, paper_id: str, day: int) -> int | None:
        """The paper's index in `ids`, given its v1 day ordinal: two binary searches (the rows
        are sorted by day, then id, both descending), no id map made."""
        i = self._insertion_point(day, paper_id)
        return i if i < len(self.ids) and self.ids[i] == paper_id and self.days[i] == day else None

    def get(self, paper_id: str) -> IndexEntry | None:
        i = self.position(paper_id)
        if i is None:
            return None
        return IndexEntry(self.versions[i], date.fromordinal(self.days[i]).isoformat(), self._names(self.masks[i]), self.arrived[i])

    def find(self, paper_id: str, published: str | None = None) -> int | None:
        """`position`, found by binary search when the paper's v1 date is given (a record's
        `published`) and the index has its days: one lookup makes no map of a million ids
        (the map answers when it is not there on that day)."""
        if self._positions is None and published is not None and self.days:
            try:
                found = self.locate(paper_id, date.fromisoformat(published[:10]).toordinal())
            except ValueError:
                found = None  # not a date
            if found is not None:
                return found
        return self.position(paper_id)

    def topics_of(self, paper_id: str, published: str | None = None) -> list[str]:
        i = self.find(paper_id, published)
        return [] if i is None else self._names(self.masks[i])

    def bit(self, topic: str) -> int:
        """The topic's bit in the masks; 0 (matches nothing) for a topic with no papers."""
        return 1 << self.topics.index(topic) if topic in self.topics else 0

    def in_topic(self, topic: str, column: Sequence[T]) -> list[T]:
        """The topic's papers' values in `column` (one of this index's columns: `ids`, `days` ...),
        newest first."""
        bit = self.bit(topic)
        return list(compress(column, map(bit.__and__, self.masks))) if bit else []

    def count_in(self, topic: str) -> int:
        """How many papers the topic has (hidden ones too)."""
        bit = self.bit(topic)
        return len(self.masks) - list(map(bit.__and__, self.masks)).count(0) if bit else 0

    def view(self, rows: range | array) -> IdRows:
        """These rows' ids (ascending rows: newest first), found by the id table."""
        return IdRows(self.ids, rows, self.position)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, paper_id: str) -> bool:
        return paper_id in (self._present if self._present is not None else self.positions())

    def holding(self, ids: Collection[str]) -> set[str]:
        """Those of `ids` the index holds; for a few ids with no id table made yet (a command
        counting the stars), by a search of the packed ids' bytes rather than by making it."""
        if self._present is None and self._positions is None and isinstance(self.ids, PackedIds) and len(ids) <= FEW_IDS:
            return self.ids.holding(ids)
        return {pid for pid in ids if pid in self}

    def __iter__(self):
        return iter(self.ids)
