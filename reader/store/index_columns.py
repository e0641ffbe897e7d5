"""index.columns: index.json's columns as machine arrays, beside it, so that a start or a listing
reads them instead of decoding a million ids and numbers from JSON (0.58 s at 1,000,000 papers;
these take a fraction of it).

A derived file, holding nothing index.json does not: written whenever index.json is written
whole, and by a reader that finds it missing or stale; trusted only when it names the log
token index.json names (index_log.py: a new token at every whole write) and index.json's
modification time and size as they are (index.json changed or damaged since is read, and
repaired if need be), its CRC holds and its values are in range (checked by the whole read; a
listing's read in part only compares days and tests mask bits); else index.json is read.

Layout: MAGIC, the header's length (8 bytes), a JSON header (token, source, topics, papers, bytes of ids, byte order), the ids joined by newlines
(UTF-8), versions and days (int32), topic masks and arrival times (int64), a CRC-32 of all
before it.
"""

from __future__ import annotations

import json
import re
import struct
import sys
import zlib
from array import array
from pathlib import Path

from reader.cache_index import ARRIVED_TYPE, DAY_TYPE, VERSION_TYPE, CacheIndex
from reader.packed_ids import PACKED_END_TYPE, PackedIds
from reader.safe_files import FileWriteError, open_regular, read_regular, write_atomic
from reader.store.files import INDEX_BYTES
from reader.store.schema import MAX_ARRIVED, MAX_DAY, MAX_VERSION, MIN_DAY, is_log_token

MAGIC = b"reader index columns 2\n"
MASK_TYPE = "q"
END_TYPE = PACKED_END_TYPE  # where each id ends in the ids' bytes (uint32)
MAX_TOPICS = 62  # a mask's bits in an int64; an index with more topics is read from JSON
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
assert (MAX_VERSION, MAX_ARRIVED) == (2**31 - 1, 2**63 - 1)  # what the int32 and int64 columns hold at most
HEADER_START = 128  # bytes of the header that hold its token and source (written first)
_MADE_FROM = re.compile(rb'\{"token": "([0-9a-f]{8,32})", "source": \[([0-9]{1,20}), ([0-9]{1,20})\]')


Source = tuple[int, int]  # index.json's modification time (ns) and size when the columns were made


def encode(token: str, source: Source, index: CacheIndex) -> bytes | None:
    """The index's columns as bytes (None when they do not fit: too many topics, an id holding
    a newline)."""
    if len(index.topics) > MAX_TOPICS:
        return None
    packed = PackedIds.pack(index.ids)
    if packed is None:
        return None
    ids, ends = packed.blob, packed.ends
    header = json.dumps(
        {
            "token": token,
            "source": list(source),
            "topics": index.topics,
            "papers": len(index),
            "ids": len(ids),
            "order": sys.byteorder,
        }
    ).encode()
    body = b"".join(
        (
            MAGIC,
            _LENGTH.pack(len(header)),
            header,
            ids,
            ends.tobytes(),
            array(VERSION_TYPE, index.versions).tobytes(),
            array(DAY_TYPE, index.days).tobytes(),
            array(MASK_TYPE, index.masks).tobytes(),
            array(ARRIVED_TYPE, index.arrived).tobytes(),
        )
    )
    return body + _CRC.pack(zlib.crc32(body))


def write(path: Path, token: str, source: Source, index: CacheIndex) -> None:
    """Write the columns of `index`, read from or written to index.json as `source` says it
    was (a cache: failing to write them is not an error)."""
    payload = encode(token, source, index)
    if payload is not None:
        try:
            write_atomic(path, payload)
        except FileWriteError:
            pass


def read(path: Path, token: str, source: Source) -> CacheIndex | None:
    """The index the file holds when it was made from index.json as it is now (`token`,
    `source`) and is intact, else None. Its ids stay packed and its masks an array: no object
    per paper."""
    return _read(path, token, source, whole=True)


def read_order(path: Path, token: str, source: Source) -> CacheIndex | None:
    """`read`'s topics, ids, days and masks alone (versions left empty, arrivals 0), the ids
    left packed (packed_ids.PackedIds): what a listing filters on and finds papers by, with no
    object made per paper."""
    return _read(path, token, source, whole=False)


def _read(path: Path, token: str, source: Source, *, whole: bool) -> CacheIndex | None:
    try:
        raw = read_regular(path, INDEX_BYTES)
    except OSError:  # (not a file to read too: index.json is read, and the columns written again)
        return None
    try:
        return _decode(raw, token, source, whole)
    except (ValueError, TypeError, KeyError, struct.error, RecursionError, UnicodeDecodeError):
        return None


def made_from(path: Path) -> tuple[str, Source] | None:
    """The token and source the file's header names (its first bytes read alone), if any."""
    try:
        with open_regular(path, INDEX_BYTES) as file:
            head = file.read(len(MAGIC) + _LENGTH.size + HEADER_START)
    except OSError:
        return None
    if not head.startswith(MAGIC):
        return None
    start = len(MAGIC) + _LENGTH.size
    found = _MADE_FROM.match(head, start)
    return (found.group(1).decode(), (int(found.group(2)), int(found.group(3)))) if found is not None else None


def _decode(raw: bytes, token: str, source: Source, whole: bool) -> CacheIndex | None:  # noqa: C901 (a hostile file: one check per field of the format, in its order)
    if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + _LENGTH.size + _CRC.size:
        return None
    # Views, not copies: a copy of every column at once stayed in the heap after use (glibc
    # keeps large freed blocks), ~40 MB of a start's memory at 1,000,000 papers.
    body, (crc,) = memoryview(raw)[: -_CRC.size], _CRC.unpack(raw[-_CRC.size :])
    start = len(MAGIC) + _LENGTH.size
    (length,) = _LENGTH.unpack_from(body, len(MAGIC))
    header = json.loads(bytes(body[start : start + length]))
    if type(header) is not dict or header.get("token") != token or not is_log_token(token) or header.get("order") != sys.byteorder:
        return None
    if header.get("source") != list(source):
        return None
    topics, papers, id_bytes = header.get("topics"), header.get("papers"), header.get("ids")
    if type(topics) is not list or not all(type(t) is str and t for t in topics) or len(topics) > MAX_TOPICS:
        return None
    if type(papers) is not int or type(id_bytes) is not int or papers < 0 or id_bytes < 0:
        return None
    offset = start + length
    if len(body) != offset + id_bytes + (4 + 4 + 4 + 8 + 8) * papers or zlib.crc32(body) != crc:
        return None
    blob = body[offset : offset + id_bytes]
    offset += id_bytes
    columns: dict[str, array] = {}
    for name, typecode in (
        ("ends", END_TYPE),
        ("versions", VERSION_TYPE),
        ("days", DAY_TYPE),
        ("masks", MASK_TYPE),
        ("arrived", ARRIVED_TYPE),
    ):
        column = array(typecode)
        if whole or name in ("ends", "days", "masks"):
            column.frombytes(body[offset : offset + column.itemsize * papers])
        offset += column.itemsize * papers
        columns[name] = column
    ends, versions, days, masks, arrived = columns.values()
    if papers and (ends[-1] != id_bytes or ends[0] < 1):
        return None
    text = str(blob, "utf-8")  # every id decodes when asked for (UnicodeDecodeError: read from JSON instead)
    if not whole:
        # Read in part, days are only compared and masks only tested bit by bit: a value out
        # of range harms nothing there, so they are not checked (two passes over a million
        # rows each, a sixth of a listing's time); the whole index's become dates and are.
        return CacheIndex.of_columns(topics, PackedIds(blob, ends), versions, days, masks, array(ARRIVED_TYPE, bytes(8 * papers)))
    if papers and not (min(days) >= MIN_DAY and max(days) <= MAX_DAY and min(masks) >= 0 and max(masks) < 1 << len(topics)):
        return None
    # One id between two newlines, none empty (int32 versions are at most MAX_VERSION and
    # int64 arrivals at most MAX_ARRIVED).
    if text.count("\n") != max(papers - 1, 0) or "\n\n" in text or text.startswith("\n") or text.endswith("\n"):
        return None
    del text
    if papers and not (min(versions) >= 1 and min(arrived) >= 0):
        return None
    # The ids' bytes copied out of the file's: the app keeps them, not the whole file's.
    return CacheIndex.of_columns(topics, PackedIds(memoryview(bytes(blob)), ends), versions, days, masks, arrived)
