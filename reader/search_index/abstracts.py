"""The cards' abstracts (their first CARD_ABSTRACT_CHARS characters), kept compressed in a
partition's cards table: they were most of it (127 of its 180 MB at 1,000,000 papers).

Each is deflated alone, so a screenful of cards unpacks only its own (~6 µs a card), with a
preset dictionary: the abstracts of the first rows the partition was given, kept in its
`card_dictionary` row. Five hundred characters of one abstract alone deflate to ~0.59 of their
size; with a dictionary of other real abstracts to ~0.48 (benchmarks/data's papers, LEVEL below),
to ~0.3 on the benchmarks' synthetic field, whose abstracts repeat."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable

from reader.search_index.rows import CARD_ABSTRACT_CHARS

DICTIONARY_BYTES = 32 * 1024  # what deflate can look back over
# Deflate's fastest level with a small hash table (the state copied for each abstract): ~20 µs
# an abstract, for 0.48 of its size (real abstracts); level 6 made them 0.38 for ~55 µs, which
# at 1,000,000 papers was 55 s more of the sync's CPU for ~50 MB.
LEVEL, MEMORY_LEVEL = 1, 4
_RAW = -15  # raw deflate: no header nor checksum (the table is derived; damage reads as no abstract)
_MOST_BYTES = 4 * CARD_ABSTRACT_CHARS  # an abstract unpacked: UTF-8 takes at most 4 bytes a character

SCHEMA = "CREATE TABLE card_dictionary(one INTEGER PRIMARY KEY CHECK (one = 1), words BLOB NOT NULL)"


class Packer:
    """Packs abstracts with a partition's dictionary (one deflate state made, copied for each)."""

    def __init__(self, dictionary: bytes):
        self._base = zlib.compressobj(LEVEL, zlib.DEFLATED, _RAW, MEMORY_LEVEL, zlib.Z_DEFAULT_STRATEGY, dictionary)

    def pack(self, abstract: str) -> bytes:
        packer = self._base.copy()
        return packer.compress(abstract.encode("utf-8", "surrogatepass")) + packer.flush()


def packer(db: sqlite3.Connection, abstracts: Iterable[str]) -> Packer:
    """A packer with the partition's dictionary; a partition that has none yet (its first rows)
    gets one made of `abstracts`, stored in the caller's transaction."""
    dictionary = stored_dictionary(db)
    if dictionary is None:
        dictionary = b"".join(text.encode("utf-8", "surrogatepass") for text in abstracts)[-DICTIONARY_BYTES:]
        db.execute("INSERT INTO card_dictionary VALUES (1, ?)", (dictionary,))
    return Packer(dictionary)


def stored_dictionary(db: sqlite3.Connection) -> bytes | None:
    row = db.execute("SELECT words FROM card_dictionary").fetchone()
    return None if row is None else bytes(row[0])


def unpacked(packed: bytes, dictionary: bytes | None) -> str:
    """The abstract as it was packed; "" when it does not unpack (a damaged or foreign row)."""
    if dictionary is None or not isinstance(packed, bytes):
        return ""
    unpacker = zlib.decompressobj(_RAW, dictionary)
    try:
        text = unpacker.decompress(packed, _MOST_BYTES)
    except zlib.error:
        return ""
    if not unpacker.eof or unpacker.unconsumed_tail:
        return ""
    try:
        return text.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return ""
