"""The paper record shared by every layer, and its JSON form in the cache."""

from __future__ import annotations

import json
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import accumulate, compress
from operator import itemgetter, ne, neg, not_
from typing import TYPE_CHECKING, TypeVar, cast, overload

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")
# The archives of old-style ids (`hep-th/9901001`, before April 2007), the only names such an id
# starts with: a PDF's `quantph/0312148` (its hyphen lost) names no paper. In those with subject
# classes of two capitals, people write the class in the id too (`math.GT/0309136`).
OLD_ARCHIVES = (
    "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an", "chao-dyn", "chem-ph", "cmp-lg",
    "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math", "math-ph",
    "mtrl-th", "nlin", "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "quant-ph", "solv-int",
    "supr-con",
)  # fmt: skip
CLASSED_ARCHIVES = ("cs", "math", "nlin", "q-bio")
OLD_ARCHIVE = rf"(?:(?:{'|'.join(CLASSED_ARCHIVES)})\.[A-Z]{{2}}|{'|'.join(sorted(OLD_ARCHIVES, key=len, reverse=True))})"
# An unversioned id, new style (`2609.12345`, `0704.0001`) or old (above), as a pattern for others
# to build on. `\Z`, not `$`, below: `$` would also accept a trailing newline.
ID_PATTERN = rf"(?:\d{{4}}\.\d{{4,5}}|{OLD_ARCHIVE}/\d{{7}})"
ARXIV_ID = re.compile(rf"^{ID_PATTERN}\Z")
VERSIONED_ID = re.compile(rf"^(?P<id>{ID_PATTERN})(?:v(?P<version>\d{{1,4}}))?\Z")
# An arXiv category: an archive (`cs`, `hep-th`, `q-bio`), optionally a dot and a subject class,
# two capitals (`cs.AI`, `q-bio.NC`) or lower-case words (`physics.comp-ph`, `cond-mat.stat-mech`).
ARXIV_CATEGORY = re.compile(r"[a-z]{1,12}(?:-[a-z]{1,12})?(?:\.(?:[A-Z]{2}|[a-z]{1,12}(?:-[a-z]{1,12})?))?")


def is_category(term: str) -> bool:
    """True for a term shaped like an arXiv category; anything else (control characters,
    braces, ACM or MSC classes) is not one."""
    return ARXIV_CATEGORY.fullmatch(term) is not None


def abs_url(arxiv_id: str, version: int) -> str:
    """The abstract page, built from a validated id: never a link taken from a feed."""
    return f"https://arxiv.org/abs/{arxiv_id}v{version}"


def pdf_url(arxiv_id: str, version: int) -> str:
    return f"https://arxiv.org/pdf/{arxiv_id}v{version}"


def split_version(arxiv_id: str) -> tuple[str, int | None]:
    """`2104.12255v3` -> (`2104.12255`, 3); no version -> None. Raises ValueError when not an arXiv id."""
    match = VERSIONED_ID.match(arxiv_id.strip())
    if match is None:
        raise ValueError(f"not an arXiv id: {arxiv_id!r}")
    version = match.group("version")
    return match.group("id"), int(version) if version else None


@dataclass(slots=True, frozen=True)
class Author:
    name: str
    affiliations: tuple[str, ...] = ()


@dataclass(slots=True)
class Paper:
    """One arXiv paper at one version. Dates are ISO 8601 UTC strings (`2026-09-27T17:59:59Z`)."""

    id: str
    version: int
    title: str
    abstract: str
    authors: tuple[Author, ...]
    categories: tuple[str, ...]
    primary_category: str
    published: str
    updated: str
    comment: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    abs_url: str = ""
    pdf_url: str = ""
    # Only demo papers carry these: they come from a topic page that listed a few authors and
    # affiliations and counted the rest, not from arXiv.
    extra_authors: int = 0
    listed_affiliations: tuple[str, ...] = ()
    extra_affiliations: int = 0
    demo: bool = field(default=False)

    @property
    def published_date(self) -> date:
        return date.fromisoformat(self.published[:10])

    @property
    def updated_date(self) -> date:
        return date.fromisoformat(self.updated[:10])

    @property
    def affiliations(self) -> list[str]:
        """Every distinct affiliation, in order of first appearance."""
        if self.listed_affiliations:
            return list(self.listed_affiliations)
        return list(dict.fromkeys(a for author in self.authors for a in author.affiliations))

    def to_json(self) -> dict:
        data = {
            "id": self.id,
            "version": self.version,
            "title": self.title,
            "abstract": self.abstract,
            "authors": [[a.name, list(a.affiliations)] for a in self.authors],
            "categories": list(self.categories),
            "primary_category": self.primary_category,
            "published": self.published,
            "updated": self.updated,
            "comment": self.comment,
            "journal_ref": self.journal_ref,
            "doi": self.doi,
            "abs_url": self.abs_url,
            "pdf_url": self.pdf_url,
        }
        return data

    @classmethod
    def from_json(cls, data: dict) -> Paper:
        return cls(
            id=data["id"],
            version=data["version"],
            title=data["title"],
            abstract=data["abstract"],
            authors=tuple(Author(name, tuple(affs)) for name, affs in data["authors"]),
            categories=tuple(data["categories"]),
            primary_category=data["primary_category"],
            published=data["published"],
            updated=data["updated"],
            comment=data.get("comment"),
            journal_ref=data.get("journal_ref"),
            doi=data.get("doi"),
            abs_url=data.get("abs_url", ""),
            pdf_url=data.get("pdf_url", ""),
        )


@dataclass(slots=True)
class IndexEntry:
    """What the cache knows of a paper without loading it: enough to count, chart and order."""

    version: int
    published: str  # YYYY-MM-DD of v1
    topics: list[str]  # the topics whose arXiv query returned this paper
    arrived: int = 0  # when it came into the cache (milliseconds since 1970, UTC); 0: with a topic's first sync, or not known


POSITIONS_SLICE = 10_000
SPARSE = 100  # under a hundredth of a run's ids asked: decoded one at a time, not the run (PackedIds.take)


# The index's number columns as machine integers (array type codes): versions and v1 day
# ordinals as int32, arrival times (milliseconds since 1970) as int64.
VERSION_TYPE, DAY_TYPE, ARRIVED_TYPE = "i", "i", "q"
ROW_TYPE = "i"  # a row of the index (int32), as views hold them
PACKED_END_TYPE = "I"  # where each packed id ends (uint32)
JSON_SLICE = 20_000  # a column's values encoded by one call


def _json_list(values: Sequence) -> str:
    """`json.dumps(values)` (compact, UTF-8 kept), a slice at a time: one call over a 100,000-row
    column held the GIL 8-12 ms, each slice a fifth of that."""
    pieces = (
        json.dumps(list(values[start : start + JSON_SLICE]), ensure_ascii=False, separators=(",", ":"))[1:-1]
        for start in range(0, len(values), JSON_SLICE)
    )
    return "[" + ",".join(pieces) + "]"


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
        lengths = list(map(len, ids))
        if sum(lengths) + len(lengths) - 1 != len(blob):  # ids that are not all ASCII: their bytes counted
            lengths = [len(pid.encode("utf-8")) for pid in ids]
        return cls(memoryview(blob), array(PACKED_END_TYPE, [end - 1 for end in accumulate(length + 1 for length in lengths)]))

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


def _packed_ids(blob: bytes, ends: array) -> PackedIds:
    return PackedIds(memoryview(blob), ends)


class IdRows(Sequence[str]):
    """Some rows of an id column (the library's index, newest first, or a ranking, best
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
        # The ids found, compared with the column's (in C, in the column's order: packed ids
        # decode by runs); any unequal one is looked up alone.
        hit = hit[rows[hit].argsort(kind="stable")]
        found, asked = hit.tolist(), rows[hit].tolist()
        if found and any(map(ne, gather(ids, found), gather(self._column, asked))):
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


class PaperIndex:
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
    ) -> PaperIndex:
        """An index holding these columns themselves (not copies: they were made for it). Ids
        packed and masks as an array keep no object per paper: lookups, binary searches and
        views work on them; changing the index (with_rows) makes lists again."""
        index = cls(topics)
        index.ids, index.masks = ids, cast(list[int], masks)
        index.versions, index.days, index.arrived = versions, days, arrived
        return index

    @classmethod
    def build(cls, entries: dict[str, IndexEntry]) -> PaperIndex:
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

    def with_changes(self, changes: dict[str, tuple[int, int, str | None]], arrived: int = 0) -> PaperIndex:
        """A new index with papers added or updated: id -> (version, v1 day ordinal, topic or None).
        A topic adds to a paper's topics; papers new to the index arrived at `arrived`."""
        return self.with_rows(
            {pid: (version, day, () if topic is None else (topic,), arrived) for pid, (version, day, topic) in changes.items()}
        )

    def with_rows(self, rows: dict[str, tuple[int, int, tuple[str, ...], int]]) -> PaperIndex:
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
            same = PaperIndex(topics, self.ids, versions, self.days, masks, self.arrived)
            same._present = present
            return same
        added.sort(reverse=True)
        merged = PaperIndex(topics)
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

    def __iter__(self):
        return iter(self.ids)
