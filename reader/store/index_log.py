"""index.log: the index's changes since index.json was last written whole, one line per save.

A save appends what it changed (a few hundred bytes per paper) instead of rewriting index.json,
which grows with the cache (26 MB at 1,000,000 papers, rewritten by each of a large sync's
saves). When the log holds many rows, the next save writes index.json whole and starts the
log again (Store._write_index).

Each line is `TOKEN CRC JSON`: the token names the index.json the line follows (written in its
meta as "log"), so lines left from before the last whole write, which a kill between writing
index.json and removing the log can leave, are ignored; CRC is the JSON's CRC-32, so a line cut
short by a kill, or damaged, is ignored too (its papers' records are in their shards: the next
sync indexes them again). JSON is {"arrived": ms, "rows": [[id, version, day, topic or null]]}.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from reader.store.schema import MAX_ARRIVED, MAX_DAY, MAX_VERSION, MIN_DAY

Changes = dict[str, tuple[int, int, str | None]]  # id -> (version, v1 day ordinal, topic or None)
MIN_ROWS = 20_000  # the log is written into index.json once it holds more rows than this
SHARE = 32  # ... and more than one for every SHARE papers of the index (reading the log stays short)


def new_token() -> str:
    return os.urandom(8).hex()  # (what secrets.token_hex does, without its imports: hmac, hashlib)


def encode(token: str, changes: Changes, arrived: int) -> bytes:
    payload = json.dumps(
        {"arrived": arrived, "rows": [[pid, version, day, topic] for pid, (version, day, topic) in changes.items()]},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    return f"{token} {zlib.crc32(payload):08x} ".encode() + payload + b"\n"


def entries(raw: bytes, token: str) -> Iterator[tuple[int, Changes]]:
    """(arrived, changes) of each whole, intact line that follows `token`'s index.json."""
    for line in raw.split(b"\n")[:-1]:  # the last piece has no newline: cut short, or empty
        parts = line.split(b" ", 2)
        if len(parts) != 3 or parts[0] != token.encode():
            continue
        try:
            if int(parts[1], 16) != zlib.crc32(parts[2]):
                continue
            entry = _entry(json.loads(parts[2]))
        except (ValueError, RecursionError):
            continue
        if entry is not None:
            yield entry


def folded(entries: Iterable[tuple[int, Changes]]) -> dict[str, tuple[int, int, tuple[str, ...], int]]:
    """The entries as one change per paper (CacheIndex.with_rows), as taking them in one after
    the other would leave it: the highest version, every topic, the day and arrival time of the
    first (a paper's row keeps those once it is in)."""
    rows: dict[str, tuple[int, int, tuple[str, ...], int]] = {}
    for arrived, changes in entries:
        for pid, (version, day, topic) in changes.items():
            named = () if topic is None else (topic,)
            old = rows.get(pid)
            if old is None:
                rows[pid] = (version, day, named, arrived)
            else:
                rows[pid] = (max(old[0], version), old[1], old[2] if topic is None or topic in old[2] else (*old[2], topic), old[3])
    return rows


def _entry(data: object) -> tuple[int, Changes] | None:
    if type(data) is not dict or type(data.get("rows")) is not list:
        return None
    arrived = data.get("arrived")
    if type(arrived) is not int or not 0 <= arrived <= MAX_ARRIVED:
        return None
    changes: Changes = {}
    for row in data["rows"]:
        if type(row) is not list or len(row) != 4:
            return None
        pid, version, day, topic = row
        if type(pid) is not str or not pid or type(version) is not int or type(day) is not int:
            return None
        if not (1 <= version <= MAX_VERSION and MIN_DAY <= day <= MAX_DAY) or not (topic is None or type(topic) is str and topic):
            return None
        changes[pid] = (version, day, topic)
    return arrived, changes


def append(path: Path, line: bytes) -> None:
    """Add `line` at the end, durably. A line cut short by a kill is ended first, so that it
    stays a line of its own (ignored) instead of swallowing this one."""
    with open(path, "ab+") as file:
        if file.tell() > 0:
            file.seek(-1, os.SEEK_END)
            if file.read(1) != b"\n":
                line = b"\n" + line
        file.write(line)
        file.flush()
        os.fsync(file.fileno())


def rows_in(raw: bytes) -> int:
    """About how many rows the log's lines hold (what decides when to write index.json whole)."""
    return raw.count(b"],[") + raw.count(b'"rows":[[')
