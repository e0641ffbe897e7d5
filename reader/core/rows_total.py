"""Where every shard's features rows lie, in one file (papers/total.rows, beside the counts
total): a first ranking (service/first_rank.py) opens each shard's features file at its rows
without reading its header (a million ids as JSON at 1,000,000 papers: ~0.7 s), and finds a
wanted paper's row among its shard's ids kept as bytes, decoding none.

Each shard's entry is trusted only while its features file is the very file it was read from
(device, inode, size, modification time: RowLayout.identity, checked on the open file) and the
shard is as that file says it was made from; an entry stale or missing is read from its file's
header, and the file written again. Whoever saves a shard's features puts its entry in (the
sync's feature keeper, store/shard_features.py), or the first ranking that read its header.

Layout: MAGIC, the shards (uint32); per shard a head (name in 16 bytes, identity, stamp, papers,
where its columns and counts start, bytes a column and a count, bytes of its ids); then per
shard its row offsets (int64, papers + 1) and its ids (each after a newline, a newline after the
last); a CRC-32 of all before it."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Sequence
from typing import overload

from reader.core.features import BITS, FEATURIZER
from reader.core.features_format import RowLayout, RowReader

# The featurizer in the magic: after a change of how words are keyed every entry is stale (a
# features file still of the old featurizer would otherwise be resumed without its header's check).
MAGIC = f"reader rows total 1 featurizer {FEATURIZER} bits {BITS}\n".encode()
_COUNT = struct.Struct("<I")
_HEAD = struct.Struct(
    "<16s2Q2q2q3qBBq"
)  # name, identity (device and inode unsigned), stamp, papers, columns at, counts at, widths, id bytes
_CRC = struct.Struct("<I")
FILE_BYTES = 1 << 30  # the most it is read (~20 MB at 1,000,000 papers)


class ShardRows(Sequence[str]):
    """One shard's entry: its features file's layout, and its ids as bytes (b"\\n" before each,
    one after the last), where a paper's row is found by a search (`positions`); the ids are
    decoded only when asked for one by one."""

    __slots__ = ("_ids", "joined", "layout")

    def __init__(self, layout: RowLayout, joined: bytes):
        self.layout, self.joined = layout, joined
        self._ids: list[str] | None = None

    @classmethod
    def of(cls, reader: RowReader) -> ShardRows | None:
        """The entry of a file opened by its header; None when an id could not be told apart
        in the joined bytes (a newline in it: such a shard's header is read at each ranking)."""
        if any("\n" in pid or not pid for pid in reader.ids):
            return None
        return cls(reader.layout, b"".join(b"\n" + pid.encode() for pid in reader.ids) + b"\n")

    def __len__(self) -> int:
        return len(self.layout.indptr) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i):
        if self._ids is None:
            self._ids = self.joined[1:-1].decode().split("\n") if len(self) else []
        return self._ids[i]

    def positions(self, ids: Iterable[str]) -> list[tuple[int, str]]:
        """(row, id) of those of `ids` the shard holds, by row."""
        found = []
        for pid in ids:
            if "\n" in pid or not pid:  # (never an id: it could match across two)
                continue
            at = self.joined.find(b"\n" + pid.encode() + b"\n")
            if at >= 0:
                found.append((self.joined.count(b"\n", 0, at), pid))
        return sorted(found)


def encode(entries: dict[str, ShardRows]) -> bytes | None:
    """None when a shard's name or a number is too long to keep (then the headers are read, as before)."""
    if any(len(name.encode()) > 16 for name in entries):
        return None
    heads, bodies = [MAGIC, _COUNT.pack(len(entries))], []
    for name, entry in entries.items():
        layout = entry.layout
        try:
            head = _HEAD.pack(
                name.encode(),
                *layout.identity,
                *layout.stamp,
                len(entry),
                layout.indices_at,
                layout.counts_at,
                *layout.widths,
                len(entry.joined),
            )
        except struct.error:  # a number out of its field's range (a file system's own inode numbers, say)
            return None
        heads.append(head)
        bodies += [layout.indptr.astype("<i8").tobytes(), entry.joined]
    body = b"".join(heads + bodies)
    return body + _CRC.pack(zlib.crc32(body))


def decode(raw: bytes) -> dict[str, ShardRows] | None:
    """None for anything not whole and ours (derived: the headers are read again)."""
    import numpy as np

    at = len(MAGIC) + _COUNT.size
    if not raw.startswith(MAGIC) or len(raw) < at + _CRC.size or zlib.crc32(raw[: -_CRC.size]) != _CRC.unpack(raw[-_CRC.size :])[0]:
        return None
    (count,) = _COUNT.unpack_from(raw, len(MAGIC))
    heads_end = at + _HEAD.size * count
    if heads_end > len(raw) - _CRC.size:
        return None
    entries: dict[str, ShardRows] = {}
    body = heads_end
    for fields in _HEAD.iter_unpack(raw[at:heads_end]):
        name, identity, stamp = fields[0], fields[1:5], fields[5:7]
        papers, indices_at, counts_at, column_bytes, count_bytes, id_bytes = fields[7:]
        end = body + 8 * (papers + 1) + id_bytes
        if papers < 0 or id_bytes < 1 or end > len(raw) - _CRC.size:
            return None
        indptr = np.frombuffer(raw, dtype="<i8", count=papers + 1, offset=body)
        joined = raw[body + 8 * (papers + 1) : end]
        # (its offsets were checked when read from their file, and the CRC holds: a row of
        # negative length would make its ranking read every file whole, never a wrong row)
        if indptr[0] != 0 or joined[:1] != b"\n" or joined[-1:] != b"\n" or joined.count(b"\n") != papers + 1:
            return None
        try:
            shard = name.rstrip(b"\0").decode()
        except UnicodeDecodeError:
            return None
        layout = RowLayout(identity, stamp, indptr, indices_at, counts_at, (column_bytes, count_bytes))
        entries[shard] = ShardRows(layout, joined)
        body = end
    return entries if body == len(raw) - _CRC.size and len(entries) == count else None
