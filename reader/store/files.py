"""Atomic JSON files in TinyDB's format, and the cross-process lock.

A write goes to a temporary file in the same directory, is flushed to disk, then renamed over
the old file (reader/safe_files.py): a crash at any moment leaves either the old file or the new
one, never half of one. A read takes a regular file of bounded size only (`read_file`): anything
else put in a file's place (a pipe, a link to a device, a file far too large) is damage.
"""

from __future__ import annotations

import codecs
import json
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reader import safe_files
from reader.errors import StoreError, StoreLockedError
from reader.store.schema import ShapeError

_RECORD_BYTES = 64 * 1024  # a paper's record is a few kB; one with thousands of authors, more
# The most a file of the cache is read: far above what it ever holds (user.json with 1,000,000
# papers read ~20 MB, a shard ~2 MB, index.json at 1,000,000 papers 26 MB, index.columns 40 MB).
STATE_BYTES = 256 * 1024 * 1024
INDEX_BYTES = 1024 * 1024 * 1024

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; single-instance use only
    fcntl = None  # type: ignore[assignment]


class CorruptFileError(StoreError):
    """A cache file exists but is not the JSON we wrote."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path.name} is damaged ({reason})")
        self.path = path


Stamp = tuple[int, int, int, int]  # inode, mtime and ctime (ns), size: a rename over the file changes it


def file_stamp(path: Path) -> Stamp | None:
    """The file as it is now, to tell whether it changed since (None: there is none)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size


def read_file(path: Path, limit: int = STATE_BYTES) -> bytes | None:
    """The file's bytes, None when it does not exist; CorruptFileError when it is not a regular
    file or is larger than `limit` (safe_files.open_regular), StoreError when it cannot be read."""
    try:
        return safe_files.read_regular(path, limit)
    except FileNotFoundError:
        return None
    except safe_files.UnsafeFileError as error:
        raise CorruptFileError(path, error.reason) from None
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror}") from None


def read_json(path: Path) -> Any | None:
    """The file's JSON document, None when it does not exist, CorruptFileError when unreadable."""
    raw = read_file(path)
    return None if raw is None else parse_json(raw, path)


def parse_json(raw: bytes, path: Path) -> dict[str, dict[str, Any]]:
    """A file's bytes as a TinyDB database (tables of documents), or CorruptFileError."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise CorruptFileError(path, f"not valid JSON: {error}") from None
    except RecursionError:  # arrays nested thousands deep: no file of ours is more than a few
        raise CorruptFileError(path, "nested too deep") from None
    if not isinstance(data, dict) or not all(
        isinstance(table, dict) and all(isinstance(doc, dict) for doc in table.values()) for table in data.values()
    ):
        raise CorruptFileError(path, "not a TinyDB database")
    return data


# A cold shard's records are kept compressed (shard_files.py) with zlib at its fastest level:
# ~20 ms of CPU for a shard of 1.5 MB, the cost of decoding its JSON, for 2.6 times smaller real
# records (3 on the benchmarks' synthetic ones). xz's fastest preset made them 3.4 times smaller
# at 250 ms a shard: more than a sync's every other step together.
ZLIB_MAGIC = b"\x78"  # the zlib header's first byte (32 KB window, deflate): no JSON text starts with "x"
ZLIB_LEVEL = 1


def compressed(raw: bytes) -> bytes:
    return zlib.compress(raw, ZLIB_LEVEL)


def uncompressed(raw: bytes, path: Path) -> bytes:
    """A file's bytes as they were before `compressed` (as they are when they are not zlib's),
    or CorruptFileError: a stream that is damaged, cut short, followed by other bytes or that
    unpacks to more than STATE_BYTES (a small file must not fill the memory)."""
    if not raw.startswith(ZLIB_MAGIC):
        return raw
    unpacker = zlib.decompressobj()
    try:
        out = unpacker.decompress(raw, STATE_BYTES)
    except zlib.error as error:
        raise CorruptFileError(path, f"not a readable zlib stream: {error}") from None
    if not unpacker.eof or unpacker.unconsumed_tail or unpacker.unused_data:
        raise CorruptFileError(path, "a zlib stream cut short, too large or followed by other bytes")
    return out


def find_document(path: Path, key: str, value: str) -> dict[str, Any] | None:
    """The document that starts with `"key":"value"`, decoding only it (in the compact form
    encode_json writes, an unescaped `{"` opens an object, never text); None when the file has
    no such document, or cannot be read that way (the caller then reads the whole file)."""
    return find_documents(path, key, [value]).get(value)


def find_documents(path: Path, key: str, values: list[str]) -> dict[str, dict[str, Any]]:
    """`find_document` for several values, reading the file once: those found."""
    try:
        raw = uncompressed(safe_files.read_regular(path, STATE_BYTES), path)
    except (OSError, StoreError):  # (a file that is not one to read too: the caller's whole read says so)
        return {}
    found = {}
    for value in values:
        document = _document_at(raw, raw.find(b"{" + encode_json({key: value})[1:-1] + b","))
        if document is not None:
            found[value] = document
    return found


def _document_at(raw: bytes, start: int) -> dict[str, Any] | None:
    if start < 0:
        return None
    decoder = json.JSONDecoder()
    # Most records fit in the first bytes: decoding the rest of a 2 MB shard for one of them cost
    # more time (and memory) than the search for it. A record cut short fails, then all is read.
    head = codecs.getincrementaldecoder("utf-8")()
    for text in (lambda: head.decode(raw[start : start + _RECORD_BYTES]), lambda: raw[start:].decode("utf-8")):
        try:
            document, _ = decoder.raw_decode(text())
        except ValueError:  # UnicodeDecodeError included
            continue
        return document if isinstance(document, dict) else None
    return None


class Encoded:
    """A value already encoded (by encode_json), which encode_json splices in as it is: a large
    table unchanged since the last write is not encoded again."""

    __slots__ = ("json",)

    def __init__(self, json: bytes):
        self.json = json


def encode_json(data: Any) -> bytes:
    """Compact UTF-8 JSON; text that is not valid Unicode (surrogates from a raw argv) is refused.
    `Encoded` values go in as they are (each stands in as a string no text can guess, then
    replaced)."""
    encoded: list[bytes] = []
    marker = ""

    def stand_in(value: Any) -> str:
        nonlocal marker
        if not isinstance(value, Encoded):
            raise TypeError(f"cannot save a {type(value).__name__}")
        marker = marker or f"encoded-{os.urandom(16).hex()}-"
        encoded.append(value.json)
        return f"{marker}{len(encoded) - 1}"

    try:
        payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=stand_in).encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError("cannot save text that is not valid Unicode") from None
    for number, fragment in enumerate(encoded):
        payload = payload.replace(f'"{marker}{number}"'.encode(), fragment, 1)
    return payload


def write_json_atomic(path: Path, data: Any) -> None:
    """Replace `path` with `data` as JSON, atomically and durably."""
    write_atomic(path, encode_json(data))


def write_atomic(path: Path, payload: bytes | Iterable[bytes | memoryview]) -> None:
    """Replace `path` with `payload`, atomically and durably (reader/safe_files.py); StoreError
    when it cannot be written."""
    try:
        safe_files.write_atomic(path, payload)
    except safe_files.FileWriteError as error:
        raise StoreError(str(error)) from None


def move_aside(path: Path) -> Path:
    """Rename a damaged file out of the way (kept for inspection) and return its new name."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, aside)
    except OSError as error:
        raise StoreError(f"cannot move damaged {path} aside: {error.strerror}") from None
    return aside


def read_checked(path: Path, check: Callable[[dict], object] | None) -> dict[str, dict[str, Any]] | None:
    """read_json, its document also checked by `check` (schema.py), which raises ShapeError
    when the file has the wrong shape: then CorruptFileError."""
    data = read_json(path)
    if data is not None and check is not None:
        try:
            check(data)
        except ShapeError as error:
            raise CorruptFileError(path, str(error)) from None
    return data


@contextmanager
def file_lock(path: Path, *, wait: float, what: str) -> Iterator[None]:
    """Hold an exclusive advisory lock on `path`, waiting up to `wait` seconds for it."""
    if fcntl is None:
        yield
        return
    try:
        handle = open(path, "a+")  # noqa: SIM115 (closed in the finally below, after the unlock)
    except OSError as error:
        raise StoreError(f"cannot open lock file {path}: {error.strerror}") from None
    try:
        deadline, pause = time.monotonic() + wait, 0.001
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreLockedError(
                        f"{what}: another reader process is busy with {path.parent}; try again when it is done"
                    ) from None
                time.sleep(pause)  # short at first: most holders (a star's write) are done in a few ms
                pause = min(pause * 2, 0.02)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        handle.close()
