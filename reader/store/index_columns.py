"""index.columns: index.json's columns as machine arrays, beside it, so that a start or a listing
reads them instead of decoding a million ids and numbers from JSON (0.58 s at 1,000,000 papers;
these take a fraction of it).

A derived file, holding nothing index.json does not: written whenever index.json is written
whole, and by a reader that finds it missing or stale; trusted only when it names the log
token index.json names (index_log.py: a new token at every whole write) and index.json's
modification time and size as they are (index.json changed or damaged since is read, and
repaired if need be), the CRCs of its header and of each column it reads hold and its values
are in range (checked by the whole read; a listing's read in part only compares days and tests
mask bits); else index.json is read.

Layout: MAGIC, the header's length (8 bytes), a JSON header (token, source, topics, papers,
bytes of ids, byte order, each column's CRC-32), the header's CRC-32, the ids joined by newlines
(UTF-8), their ends (uint32), versions and days (int32), topic masks and arrival times (int64).
A CRC per column lets a listing read only the ids, ends, days and masks (the versions and
arrivals, a third of the file, left unread). The format before (MAGIC_2: no CRC in the header,
one CRC-32 of all the file after the columns) is still read, whole.
"""

from __future__ import annotations

import json
import os
import re
import struct
import sys
import zlib
from array import array
from io import BufferedReader
from pathlib import Path
from typing import cast

from reader.cache_index import ARRIVED_TYPE, DAY_TYPE, VERSION_TYPE, CacheIndex
from reader.packed_ids import PACKED_END_TYPE, PackedIds
from reader.safe_files import FileWriteError, open_regular, read_regular, write_atomic
from reader.store.files import INDEX_BYTES
from reader.store.schema import MAX_ARRIVED, MAX_DAY, MAX_VERSION, MIN_DAY, is_log_token

MAGIC = b"reader index columns 3\n"
MAGIC_2 = b"reader index columns 2\n"  # one CRC over the whole file: still read (whole), never written
MASK_TYPE = "q"
END_TYPE = PACKED_END_TYPE  # where each id ends in the ids' bytes (uint32)
MAX_TOPICS = 62  # a mask's bits in an int64; an index with more topics is read from JSON
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
assert (MAX_VERSION, MAX_ARRIVED) == (2**31 - 1, 2**63 - 1)  # what the int32 and int64 columns hold at most
HEADER_START = 128  # bytes of the header that hold its token and source (written first)
_MADE_FROM = re.compile(rb'\{"token": "([0-9a-f]{8,32})", "source": \[([0-9]{1,20}), ([0-9]{1,20})\]')


Source = tuple[int, int]  # index.json's modification time (ns) and size when the columns were made


# The columns in their order in the file: (name, typecode); the ids' bytes come first.
COLUMNS = (("ends", END_TYPE), ("versions", VERSION_TYPE), ("days", DAY_TYPE), ("masks", MASK_TYPE), ("arrived", ARRIVED_TYPE))
ORDER_COLUMNS = ("ids", "ends", "days", "masks")  # what a listing reads (`read_order`)


def encode(token: str, source: Source, index: CacheIndex) -> bytes | None:
    """The index's columns as bytes (None when they do not fit: too many topics, an id holding
    a newline)."""
    if len(index.topics) > MAX_TOPICS:
        return None
    packed = PackedIds.pack(index.ids)
    if packed is None:
        return None
    sections = {
        "ids": bytes(packed.blob),
        "ends": packed.ends.tobytes(),
        "versions": array(VERSION_TYPE, index.versions).tobytes(),
        "days": array(DAY_TYPE, index.days).tobytes(),
        "masks": array(MASK_TYPE, index.masks).tobytes(),
        "arrived": array(ARRIVED_TYPE, index.arrived).tobytes(),
    }
    header = json.dumps(
        {
            "token": token,
            "source": list(source),
            "topics": index.topics,
            "papers": len(index),
            "ids": len(sections["ids"]),
            "order": sys.byteorder,
            "crcs": {name: zlib.crc32(data) for name, data in sections.items()},
        }
    ).encode()
    return b"".join((MAGIC, _LENGTH.pack(len(header)), header, _CRC.pack(zlib.crc32(header)), *sections.values()))


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
        with open_regular(path, INDEX_BYTES) as file:
            head = file.read(len(MAGIC) + _LENGTH.size)
            if head.startswith(MAGIC_2):
                return _decode_2(read_regular(path, INDEX_BYTES), token, source, whole)  # (read again whole: no copy)
            if not head.startswith(MAGIC) or len(head) != len(MAGIC) + _LENGTH.size:
                return None
            read = _read_3(cast(BufferedReader, file), _LENGTH.unpack_from(head, len(MAGIC))[0], token, source, whole)
    except OSError:  # (not a file to read too: index.json is read, and the columns written again)
        return None
    except (ValueError, TypeError, KeyError, struct.error, RecursionError):
        return None
    if read is None:
        return None
    try:
        return _checked(*read, whole)
    except (ValueError, TypeError, KeyError, UnicodeDecodeError):
        return None


def _read_3(file: BufferedReader, length: int, token: str, source: Source, whole: bool) -> tuple[dict, dict[str, bytes | array]] | None:
    """The header and the sections wanted of a file of this format, past its MAGIC and header's
    length, each checked against its CRC."""
    size = os.fstat(file.fileno()).st_size
    if length > size:
        return None
    header_bytes = file.read(length + _CRC.size)
    if len(header_bytes) != length + _CRC.size or _CRC.unpack(header_bytes[length:])[0] != zlib.crc32(header_bytes[:length]):
        return None
    header = json.loads(header_bytes[:length])
    if not _made_as_asked(header, token, source):
        return None
    papers, id_bytes, crcs = header.get("papers"), header.get("ids"), header.get("crcs")
    if type(crcs) is not dict or not _counts_fit(papers, id_bytes):
        return None
    offset = len(MAGIC) + _LENGTH.size + len(header_bytes)
    if size != offset + id_bytes + (4 + 4 + 4 + 8 + 8) * papers:
        return None
    # Each column read and checked alone: a listing skips the versions and arrivals (a third of
    # the file).
    sections: dict[str, bytes | array] = {}
    for name, itemsize in (("ids", 1), *((name, array(code).itemsize) for name, code in COLUMNS)):
        length = itemsize * (papers if name != "ids" else id_bytes)
        if whole or name in ORDER_COLUMNS:
            file.seek(offset)
            # The numbers read straight into their array: no copy of them left in the heap.
            data = file.read(length) if name == "ids" else array(dict(COLUMNS)[name], bytes(itemsize)) * papers
            if name != "ids" and file.readinto(memoryview(data).cast("B")) != length:
                return None
            if len(data) * itemsize != length or zlib.crc32(data) != crcs.get(name):
                return None
            sections[name] = data
        offset += length
    return header, sections


def of_format_before(path: Path) -> bool:
    """Whether the file is of the format before (read whole, even by a listing: worth writing again)."""
    try:
        with open_regular(path, INDEX_BYTES) as file:
            return file.read(len(MAGIC_2)) == MAGIC_2
    except OSError:
        return False


def made_from(path: Path) -> tuple[str, Source] | None:
    """The token and source the file's header names (its first bytes read alone), if any."""
    try:
        with open_regular(path, INDEX_BYTES) as file:
            head = file.read(len(MAGIC) + _LENGTH.size + HEADER_START)
    except OSError:
        return None
    if not head.startswith((MAGIC, MAGIC_2)):
        return None
    start = len(MAGIC) + _LENGTH.size  # (the same in both formats)
    found = _MADE_FROM.match(head, start)
    return (found.group(1).decode(), (int(found.group(2)), int(found.group(3)))) if found is not None else None


def _made_as_asked(header, token: str, source: Source) -> bool:
    """Whether a decoded header is one of this index.json as it is now, on this machine's byte order."""
    if type(header) is not dict or header.get("token") != token or not is_log_token(token) or header.get("order") != sys.byteorder:
        return False
    topics = header.get("topics")
    if header.get("source") != list(source) or type(topics) is not list or len(topics) > MAX_TOPICS:
        return False
    return all(type(t) is str and t for t in topics)


def _counts_fit(papers, id_bytes) -> bool:
    return type(papers) is int and type(id_bytes) is int and papers >= 0 and id_bytes >= 0


def _decode_2(raw: bytes, token: str, source: Source, whole: bool) -> CacheIndex | None:
    """An index.columns of the format before (MAGIC_2: one CRC after the columns)."""
    if len(raw) < len(MAGIC_2) + _LENGTH.size + _CRC.size:
        return None
    try:
        # Views, not copies: a copy of every column at once stayed in the heap after use (glibc
        # keeps large freed blocks), ~40 MB of a start's memory at 1,000,000 papers.
        body, (crc,) = memoryview(raw)[: -_CRC.size], _CRC.unpack(raw[-_CRC.size :])
        start = len(MAGIC_2) + _LENGTH.size
        (length,) = _LENGTH.unpack_from(body, len(MAGIC_2))
        header = json.loads(bytes(body[start : start + length]))
        if not _made_as_asked(header, token, source):
            return None
        papers, id_bytes = header.get("papers"), header.get("ids")
        if not _counts_fit(papers, id_bytes):
            return None
        offset = start + length
        if len(body) != offset + id_bytes + (4 + 4 + 4 + 8 + 8) * papers or zlib.crc32(body) != crc:
            return None
        sections = {"ids": body[offset : offset + id_bytes]}
        offset += id_bytes
        for name, typecode in COLUMNS:
            size = array(typecode).itemsize * papers
            sections[name] = body[offset : offset + size]
            offset += size
        return _checked(header, sections, whole)
    except (ValueError, TypeError, KeyError, struct.error, RecursionError, UnicodeDecodeError):
        return None


def _checked(header: dict, sections, whole: bool) -> CacheIndex | None:
    """The index of a file's checked header and sections (the columns read: all when `whole`,
    else ORDER_COLUMNS), when their values hold."""
    topics, papers, id_bytes = header["topics"], header["papers"], header["ids"]
    blob = sections["ids"]
    columns: dict[str, array] = {}
    for name, typecode in COLUMNS:
        column = array(typecode)
        if isinstance(sections.get(name), array):  # (format 3: read into its array)
            column = sections[name]
        elif whole or name in ORDER_COLUMNS:  # (format 2 hands every column, as views)
            column.frombytes(sections[name])
        columns[name] = column
    ends, versions, days, masks, arrived = columns.values()
    if papers and (ends[-1] != id_bytes or ends[0] < 1):
        return None
    if whole or not (isinstance(blob, bytes) and blob.isascii()):  # (ASCII, every id is: a pass, not a decoding)
        text = str(blob, "utf-8")  # every id decodes when asked for (UnicodeDecodeError: read from JSON instead)
    if not whole:
        # Read in part, days are only compared and masks only tested bit by bit: a value out
        # of range harms nothing there, so they are not checked (two passes over a million
        # rows each, a sixth of a listing's time); the whole index's become dates and are.
        return CacheIndex.of_columns(
            topics, PackedIds(memoryview(blob), ends), versions, days, masks, array(ARRIVED_TYPE, bytes(8 * papers))
        )
    if papers and not (min(days) >= MIN_DAY and max(days) <= MAX_DAY and min(masks) >= 0 and max(masks) < 1 << len(topics)):
        return None
    # One id between two newlines, none empty (int32 versions are at most MAX_VERSION and
    # int64 arrivals at most MAX_ARRIVED).
    if text.count("\n") != max(papers - 1, 0) or "\n\n" in text or text.startswith("\n") or text.endswith("\n"):
        return None
    del text
    if papers and not (min(versions) >= 1 and min(arrived) >= 0):
        return None
    # The ids' bytes copied out of the file's (format 2: a view of the whole file): the app keeps them, not the whole file's.
    return CacheIndex.of_columns(topics, PackedIds(memoryview(bytes(blob)), ends), versions, days, masks, arrived)
