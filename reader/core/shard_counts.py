"""A shard's document counts as bytes: how many of its papers hold each hashed column of For
you's features (core/features.py), saved beside its features file (papers/YYMM.NN.counts) by
whoever saves those. A first ranking sums every shard's counts for the IDF (a few MB at
1,000,000 papers) instead of reading every features file (1.26 GB), then reads only the rows
it ranks (service/first_rank.py).

Derived and checked like the features file: any surprise (magic, checksum, featurizer, the
shard's stamp, a column out of order or range, a count above the papers) reads as None, and
the caller counts the shard from its features.

Layout: MAGIC, a fixed header (featurizer, bits, the shard's modification time and size, its
papers, the columns counted), the columns (int32, rising), their counts (uint32), a CRC-32 of
all before it."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

from reader.core.features import BITS, COLUMNS, FEATURIZER, FeatureBlock
from reader.safe_files import open_regular, read_regular

MAGIC = b"reader counts 1\n"
_HEAD = struct.Struct("<IIqqII")  # featurizer, bits, stamp (mtime ns, size), papers, columns counted
_CRC = struct.Struct("<I")
FILE_BYTES = 8 * COLUMNS + 64  # every column counted: the most a counts file can hold


class ShardCounts:
    """A shard's papers and, for each column its papers hold, how many hold it."""

    __slots__ = ("columns", "counts", "papers")

    def __init__(self, papers: int, columns: Any, counts: Any):
        self.papers, self.columns, self.counts = papers, columns, counts

    @classmethod
    def of_block(cls, block: FeatureBlock) -> ShardCounts:
        """Counted from a block: a column appears at most once per row, so its entries are its papers."""
        import numpy as np

        columns, counts = np.unique(block.matrix.indices, return_counts=True)
        return cls(len(block.ids), columns.astype(np.int32), counts.astype(np.uint32))


def encode(counts: ShardCounts, stamp: tuple[int, int]) -> bytes:
    head = _HEAD.pack(FEATURIZER, BITS, stamp[0], stamp[1], counts.papers, len(counts.columns))
    body = b"".join((MAGIC, head, counts.columns.astype("<i4").tobytes(), counts.counts.astype("<u4").tobytes()))
    return body + _CRC.pack(zlib.crc32(body))


def read(path: Path, stamp: tuple[int, int]) -> ShardCounts | None:
    """The counts saved at `path` from the shard as `stamp` says it is, else None (missing,
    unreadable, or not a regular file: a cache, counted again)."""
    try:
        raw = read_regular(path, FILE_BYTES)
    except OSError:
        return None
    return decode(raw, stamp)


def decode(raw: bytes, stamp: tuple[int, int]) -> ShardCounts | None:
    import numpy as np

    start = len(MAGIC) + _HEAD.size
    if not raw.startswith(MAGIC) or len(raw) < start + _CRC.size or zlib.crc32(raw[: -_CRC.size]) != _CRC.unpack(raw[-_CRC.size :])[0]:
        return None
    featurizer, bits, mtime, size, papers, distinct = _HEAD.unpack_from(raw, len(MAGIC))
    if (featurizer, bits, (mtime, size)) != (FEATURIZER, BITS, tuple(stamp)) or len(raw) != start + 8 * distinct + _CRC.size:
        return None
    columns = np.frombuffer(raw, dtype="<i4", count=distinct, offset=start).astype(np.int32)
    counts = np.frombuffer(raw, dtype="<u4", count=distinct, offset=start + 4 * distinct).astype(np.uint32)
    if distinct and (columns[0] < 0 or columns[-1] >= COLUMNS or np.any(np.diff(columns) <= 0)):
        return None
    if distinct and (counts.min() < 1 or counts.max() > papers):
        return None
    return ShardCounts(papers, columns, counts)


def is_current(path: Path, stamp: tuple[int, int]) -> bool:
    """Whether the file says it was counted from the shard as `stamp` says it is (its head
    alone: whether it is whole is checked when it is read)."""
    try:
        with open_regular(path, FILE_BYTES) as file:
            head = file.read(len(MAGIC) + _HEAD.size)
    except OSError:
        return False
    if not head.startswith(MAGIC) or len(head) != len(MAGIC) + _HEAD.size:
        return False
    featurizer, bits, mtime, size, _, _ = _HEAD.unpack_from(head, len(MAGIC))
    return (featurizer, bits, (mtime, size)) == (FEATURIZER, BITS, tuple(stamp))


def summed(shards: list[ShardCounts]) -> tuple[int, Any]:
    """The papers of all the shards and, per column (COLUMNS of them), how many hold it."""
    import numpy as np

    documents = np.zeros(COLUMNS, dtype=np.intp)
    for shard in shards:
        documents[shard.columns] += shard.counts  # a shard's columns are distinct: no index repeats
    return sum(shard.papers for shard in shards), documents
