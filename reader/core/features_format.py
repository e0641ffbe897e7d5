"""A shard's `FeatureBlock` as bytes: what the ranking's cache of features holds beside each
shard (store/shard_features.py), so that a later start of the app reads the counts instead of
counting every word again.

The file is derived and may be damaged or written by someone else, so `decode` trusts nothing:
any surprise (a wrong length, checksum, count or column, another version) gives None, and the
caller counts the terms again. A block read back equals the one written, to the bit: counts are
stored as integers and weighed as `featurize` weighs them.

Layout: MAGIC, the header's length (8 bytes), a JSON header, the rows' offsets (int64), their
columns (3 bytes each, little-endian: a column is under 2**BITS), their counts (one byte each, two
when one passes 255: the header's `count_bytes`), and a CRC-32 of all before it. Version 3 kept
the papers' words after the counts, packed to name reasons (42% of its bytes, a copy of the
records, from which a ranking now reads them); its files, as version 2's, were made by the
featurizer before this one: they are counted again and written in this version."""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reader.core.features import BITS, COLUMNS, FEATURIZER, FeatureBlock, sample_keys_of
from reader.safe_files import open_regular

MAGIC = b"reader features 4\n"
COLUMN_BYTES = 3
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
FILE_BYTES = 256 * 1024 * 1024  # the most a features file is read (a shard's is a few MB): else it is counted again
MAX_COUNT = 65535  # a term repeated more often in one paper leaves its block uncached
MANY_ROWS = 8  # a RowReader asked for more than one row in this many reads the rows' columns whole


def encode(block: FeatureBlock, stamp: tuple[int, int]) -> bytes | None:
    """The block as bytes, tagged with `stamp` (what the shard's file was when it was read);
    None when a count does not fit (the block is then counted again at every start)."""
    import numpy as np

    matrix = block.matrix
    counts = np.rint(np.exp(matrix.data.astype(np.float64) - 1))
    if counts.size and counts.max() > MAX_COUNT:
        return None
    counts = counts.astype("<u2" if counts.size and counts.max() > 255 else "u1")
    if not np.array_equal(_weights(counts), matrix.data):
        return None
    header = json.dumps(
        {
            "featurizer": FEATURIZER,
            "bits": BITS,
            "stamp": list(stamp),
            "ids": block.ids,
            "entries": int(matrix.nnz),
            "count_bytes": counts.itemsize,
        }
    ).encode()
    body = b"".join(
        (
            MAGIC,
            _LENGTH.pack(len(header)),
            header,
            matrix.indptr.astype("<i8").tobytes(),
            matrix.indices.astype("<u4").view("u1").reshape(-1, 4)[:, :COLUMN_BYTES].tobytes(),
            counts.tobytes(),
        )
    )
    return body + _CRC.pack(zlib.crc32(body))


def decode(raw: bytes, stamp: tuple[int, int]) -> FeatureBlock | None:
    """The block `raw` holds when it was made by this featurizer from the shard as it is now
    (`stamp`), else None."""
    try:
        return _decode(raw, stamp)
    except (ValueError, TypeError, KeyError, struct.error, RecursionError):
        return None


def read(path: Path, stamp: tuple[int, int]) -> FeatureBlock | None:
    """`decode` of the file at `path` (OSError when it cannot be read)."""
    with open_regular(path, FILE_BYTES) as file:  # not a pipe, nor a device: read without end
        return decode(file.read(), stamp)


def saved(path: Path, stamp: tuple[int, int] | None) -> FeatureBlock | None:
    """The features saved at `path` from the shard as `stamp` says it was, if any (None when
    `stamp` is: the shard was new), unreadable files included: what a count after a save
    extends."""
    if stamp is None:
        return None
    try:
        return read(path, stamp)
    except OSError:
        return None


def _decode(raw: bytes, stamp: tuple[int, int]) -> FeatureBlock | None:  # noqa: C901 (a hostile file: one check per field of the format, in its order)
    import numpy as np
    from scipy import sparse  # type: ignore[import-untyped, unused-ignore]

    if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + _LENGTH.size + _CRC.size:
        return None
    body, (crc,) = raw[: -_CRC.size], _CRC.unpack(raw[-_CRC.size :])
    if zlib.crc32(body) != crc:
        return None
    start = len(MAGIC) + _LENGTH.size
    (header_length,) = _LENGTH.unpack_from(body, len(MAGIC))
    header = json.loads(body[start : start + header_length])
    if type(header) is not dict or header.get("featurizer") != FEATURIZER or header.get("bits") != BITS:
        return None
    if header.get("stamp") != list(stamp):
        return None
    ids, entries = header.get("ids"), header.get("entries")
    if type(ids) is not list or not all(type(pid) is str for pid in ids) or len(set(ids)) != len(ids):
        return None
    if type(entries) is not int or entries < 0:
        return None
    count_bytes = _count_bytes(header)
    if count_bytes is None:
        return None
    column_bytes, papers, offset = COLUMN_BYTES, len(ids), start + header_length
    if len(body) != offset + 8 * (papers + 1) + (column_bytes + count_bytes) * entries:
        return None

    def take(dtype: str, count: int) -> Any:
        nonlocal offset
        array = np.frombuffer(body, dtype=dtype, count=count, offset=offset)
        offset += array.nbytes
        return array

    indptr = take("<i8", papers + 1)
    indices = columns_of(take("u1", column_bytes * entries))
    counts = take(_COUNT_TYPES[count_bytes], entries)
    if indptr[0] != 0 or indptr[-1] != entries or np.any(np.diff(indptr) < 0):
        return None
    if entries and (indices.min() < 0 or indices.max() >= COLUMNS or counts.min() < 1):
        return None
    # Within a row, columns strictly rise (as `featurize` leaves them: sorted, summed).
    follows = np.ones(entries, dtype=bool)
    follows[indptr[:-1][indptr[:-1] < entries]] = False
    if np.any(np.diff(indices)[follows[1:]] <= 0):
        return None
    # Copies, not views of `raw`: a view would keep the whole file in memory.
    matrix = sparse.csr_matrix((_weights(counts), indices.astype(np.int32), indptr.copy()), shape=(papers, COLUMNS))
    return FeatureBlock(ids, matrix, sample_keys_of(ids))


_COUNT_TYPES = {1: "u1", 2: "<u2"}


def _count_bytes(header: dict) -> int | None:
    """The bytes of a count, None when out of shape."""
    count_bytes = header.get("count_bytes")
    return count_bytes if type(count_bytes) is int and count_bytes in _COUNT_TYPES else None


def columns_of(raw: Any) -> Any:
    """Columns kept in COLUMN_BYTES little-endian bytes each (bytes, or a uint8 array), as int32
    (a copy: never a view of a file's bytes)."""
    import numpy as np

    wide = np.zeros((len(raw) // COLUMN_BYTES, 4), dtype=np.uint8)
    wide[:, :COLUMN_BYTES] = np.frombuffer(raw, dtype=np.uint8).reshape(-1, COLUMN_BYTES)
    return wide.view("<i4").ravel().astype(np.int32, copy=False)


def _weights(counts: Any) -> Any:
    """1 + log(count), in float32: exactly what `featurize` computes."""
    import numpy as np

    return np.log(counts.astype(np.float32)) + np.float32(1)


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    """(device, inode, size, modification time): the file read, not one written since."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


@dataclass(frozen=True, slots=True)
class RowLayout:
    """Where a features file's rows lie, as its header and row offsets say: what a RowReader
    needs beside the ids, kept for every shard in one file (core/rows_total.py) so that a first
    ranking opens ~1,000 features files without reading their headers (a million ids as JSON)."""

    identity: tuple[int, int, int, int]  # the file read (FileSource.identity): another one since is read again
    stamp: tuple[int, int]  # the shard's, as the file says it was made from
    indptr: Any  # each row's first entry (int64), then the entries
    indices_at: int  # where the rows' columns start
    counts_at: int  # where their counts start
    widths: tuple[int, int]  # bytes a column, bytes a count


class RowReader:
    """Some rows of a features file, read without reading the file whole: its header (the ids)
    and row offsets first, then only the rows asked for. A ranking from candidates reads a few
    rows of each of a thousand files rather than 1.26 GB. The file's checksum covers it whole,
    so it is not checked here: every offset, column and count read is (a damaged file gives
    wrong counts at worst, never a crash); None when the file is not this shard's as it is now."""

    def __init__(self, file: Any, ids: Sequence[str], layout: RowLayout):
        self.ids, self.layout = ids, layout
        self._file, self._indptr, self._indices_at, self._counts_at = file, layout.indptr, layout.indices_at, layout.counts_at
        self._column_bytes, self._count_bytes = layout.widths

    @classmethod
    def open(cls, path: Path, stamp: tuple[int, int]) -> RowReader | None:
        """OSError when the file cannot be opened; None when it is stale or not ours."""
        import numpy as np

        file = open_regular(path, FILE_BYTES)
        try:
            info = os.fstat(file.fileno())
            size = info.st_size
            head = file.read(len(MAGIC) + _LENGTH.size)
            if not head.startswith(MAGIC) or len(head) != len(MAGIC) + _LENGTH.size:
                raise ValueError("not a features file")
            (header_length,) = _LENGTH.unpack_from(head, len(MAGIC))
            if header_length > size:
                raise ValueError("header past the end")
            header = json.loads(file.read(header_length))
            if type(header) is not dict or header.get("featurizer") != FEATURIZER or header.get("bits") != BITS:
                raise ValueError("another featurizer")
            if header.get("stamp") != list(stamp):
                raise ValueError("stale")
            ids, entries = header.get("ids"), header.get("entries")
            if type(ids) is not list or not all(type(pid) is str for pid in ids) or type(entries) is not int:
                raise ValueError("a header out of shape")
            count_bytes = _count_bytes(header)
            if count_bytes is None:
                raise ValueError("a header out of shape")
            widths = (COLUMN_BYTES, count_bytes)
            papers, start, entry_bytes = len(ids), len(head) + header_length, sum(widths)
            if entries < 0 or size != start + 8 * (papers + 1) + entry_bytes * entries + _CRC.size:
                raise ValueError("a size out of shape")
            indptr = np.frombuffer(file.read(8 * (papers + 1)), dtype="<i8")
            if len(indptr) != papers + 1 or indptr[0] != 0 or indptr[-1] != entries or np.any(np.diff(indptr) < 0):
                raise ValueError("row offsets out of shape")
        except (ValueError, TypeError, struct.error, RecursionError):
            file.close()
            return None
        except BaseException:
            file.close()
            raise
        indices_at = start + 8 * (papers + 1)
        return cls(file, ids, RowLayout(_identity(info), stamp, indptr, indices_at, indices_at + widths[0] * entries, widths))

    @classmethod
    def resume(cls, path: Path, layout: RowLayout, ids: Sequence[str]) -> RowReader | None:
        """A reader of the file whose header gave `layout` and `ids` (kept since:
        core/rows_total.py), the header not read again. OSError when the file cannot be opened,
        None when it is another file now (written again since, or replaced)."""
        file = open_regular(path, FILE_BYTES)
        if _identity(os.fstat(file.fileno())) != layout.identity or len(ids) + 1 != len(layout.indptr):
            file.close()
            return None
        return cls(file, ids, layout)

    def close(self) -> None:
        self._file.close()

    def entries(self, positions: Sequence[int]) -> tuple[list[int], Any, Any] | None:
        """The rows at `positions` (in that order) as their lengths, their columns (int32) and
        their weights (float32, as `featurize` weighs them), one after the other: many files'
        rows are made one matrix at once (a matrix a file took ~0.1 ms each). None when what
        is read is out of shape."""
        import numpy as np

        fd, column_bytes, count_bytes = self._file.fileno(), self._column_bytes, self._count_bytes
        lengths = [int(self._indptr[i + 1] - self._indptr[i]) for i in positions]
        total = sum(lengths)
        if len(positions) * MANY_ROWS > len(self.ids):  # many rows: both columns read whole, then taken
            entries = int(self._indptr[-1])
            every_column = os.pread(fd, column_bytes * entries, self._indices_at)
            every_count = np.frombuffer(os.pread(fd, count_bytes * entries, self._counts_at), dtype=_COUNT_TYPES[count_bytes])
            if len(every_column) != column_bytes * entries or len(every_count) != entries:
                return None
            spans = np.concatenate([np.arange(self._indptr[i], self._indptr[i + 1]) for i in positions] or [np.zeros(0, np.int64)])
            columns, values = columns_of(every_column)[spans], every_count[spans]
        else:
            indices, counts = [], []
            for i, length in zip(positions, lengths):
                at = int(self._indptr[i])
                indices.append(os.pread(fd, column_bytes * length, self._indices_at + column_bytes * at))
                counts.append(os.pread(fd, count_bytes * length, self._counts_at + count_bytes * at))
            joined = b"".join(indices)
            if len(joined) != column_bytes * total:
                return None
            columns = columns_of(joined)
            values = np.frombuffer(b"".join(counts), dtype=_COUNT_TYPES[count_bytes])
        if len(columns) != total or len(values) != total:
            return None
        if total and (columns.min() < 0 or columns.max() >= COLUMNS or values.min() < 1):
            return None
        return lengths, columns.astype(np.int32), _weights(values)
