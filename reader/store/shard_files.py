"""The papers' records, one file per thousand arXiv ids (papers/YYMM.NN.json: `2609.12345` lives
in `2609.12.json`; a past month's kept compressed as `2609.12.json.zlib`), written only by sync:
small files load and save in milliseconds, so neither a sync nor the app's loader holds the GIL
for long. Beside each, its derived search texts. ShardFiles is their one reader and writer; which
records count is the index's to say (store.py).

A compressed shard has a name of its own because a build from before compression lists
`*.json` alone and would take zlib's bytes for a damaged file and move it aside: such a build
passes over `.json.zlib`. It may still write a plain twin of a compressed shard (it saw no
records there); while both are there they are one shard, read merged (`twin_of`, `merged`), and
the next write of that shard leaves one file."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path

from reader.core.sanitize import INVISIBLE_UTF8
from reader.core.text import plural
from reader.errors import StoreError
from reader.store.files import (
    ZLIB_MAGIC,
    CorruptFileError,
    compressed,
    encode_json,
    move_aside,
    parse_json,
    read_file,
    read_json,
    uncompressed,
    write_atomic,
    write_json_atomic,
)
from reader.store.listing import LEFTOVER, own_files, remove_leftovers
from reader.store.schema import SCHEMA_VERSION, ShapeError, check_search_texts, is_record, without_invisible_text

SHARD_SLICE = 200  # records encoded by one call when a shard is written

# papers/: a shard's records (what shard_of names them), and beside them reader's other files:
# search texts, features, document counts (their total, and where every shard's features rows lie), a damaged file moved aside, a write's temporary file.
PLAIN, PACKED = ".json", ".json.zlib"  # a shard's two names: this month's, a past month's (compressed)
_SHARD_FILE = re.compile(r"(?P<shard>\d{4}\.\d+)\.json(?:\.zlib)?")
_SHARD_OTHERS = re.compile(
    rf"\d{{4}}\.\d+\.(?:search\.json|stems\.json|features|counts|json(?:\.zlib)?\.damaged-[\d-]+)|total\.(?:counts|rows)|{LEFTOVER.pattern}"
)


def _shard_sort_key(shard: str) -> str:
    return ("19" if shard >= "90" else "20") + shard


def is_cold(shard: str, now: datetime | None = None) -> bool:
    """A shard of a month before this one: arXiv numbers no new paper in it, so a sync rewrites
    it only for a newer version of one of its papers, and it is kept compressed (files.compressed:
    a third of its size, for ~20 ms a write; the shards were 1.7 of the 3.1 GB a million papers
    took).
    This month's shards, which every sync rewrites, stay plain JSON."""
    return _shard_sort_key(shard)[:6] < (now or datetime.now(UTC)).strftime("%Y%m")


def twin_of(path: Path) -> Path:
    """The shard's file under its other name (compressed or plain)."""
    return path.with_name(path.name.removesuffix(PACKED) + PLAIN if path.name.endswith(PACKED) else path.name + PACKED[len(PLAIN) :])


def merged(older: dict[str, dict], newer: dict[str, dict]) -> dict[str, dict]:
    """The records of a shard's two files by id: of each paper, the higher version, and on a tie the
    file written last's."""
    docs = dict(older)
    for pid, doc in newer.items():
        kept = docs.get(pid)
        if kept is None or not doc.get("version", 0) < kept.get("version", 0):
            docs[pid] = doc
    return docs


class ShardFiles:
    """The files of papers/. Writes of search texts take the store's lock (`locked`); a shard
    is written under it by the caller."""

    def __init__(self, papers_dir: Path, locked: Callable[[str], AbstractContextManager[object]], warn: Callable[[str], None]):
        self._dir = papers_dir
        self._locked = locked
        self._warn = warn
        self._swept = False  # papers/ cleared of a killed write's temporary files
        # Each shard's one file as `names` last listed papers/ (a shard with a twin is not in it):
        # `path` then needs no stat (a refresh of the search index asks it of every shard).
        self._listed: dict[str, str] = {}

    def path(self, shard: str) -> Path:
        """Where a shard's records live (derived indexes read it and stamp what they read): the
        file written last when it has a twin (`twin_of`), the name a write gives it when it has none."""
        listed = self._listed.get(shard)
        if listed is not None:
            return self._dir / listed
        named = self._dir / f"{shard}{PACKED if is_cold(shard) else PLAIN}"
        twin = twin_of(named)
        try:
            written = named.stat().st_mtime_ns
        except OSError:
            return twin if twin.exists() else named
        try:
            return twin if twin.stat().st_mtime_ns > written else named
        except OSError:
            return named

    def stat(self, shard: str) -> os.stat_result | None:
        try:
            return self.path(shard).stat()
        except OSError:
            return None

    def names(self) -> list[str]:
        """Shard names, newest arXiv month first (a shard and its twin are one)."""
        try:
            entries = own_files(self._dir, _SHARD_FILE, _SHARD_OTHERS)
        except OSError:
            return []
        files: dict[str, list[str]] = {}
        for entry in entries:
            files.setdefault(entry.name.removesuffix(PACKED).removesuffix(PLAIN), []).append(entry.name)
        self._listed = {shard: names[0] for shard, names in files.items() if len(names) == 1}
        return sorted(files, key=_shard_sort_key, reverse=True)

    def read_docs(self, shard: str) -> dict[str, dict]:
        """A shard's records by id, its twin's merged in (`merged`). A damaged file is moved aside;
        when only some records are damaged, the good ones are written back (the others are
        fetched at the next sync)."""
        path = self.path(shard)
        twin = twin_of(path)
        if twin.exists():
            self._listed.pop(shard, None)
            path = self.path(shard)  # the later of the two, by a stat of each
            twin = twin_of(path)
            (older, older_damaged), (docs, damaged) = self._read_file(twin), self._read_file(path)
            docs, damaged = merged(older, docs), older_damaged or damaged
        else:
            docs, damaged = self._read_file(path)
        if damaged:  # (after the merge: the write removes the twin)
            self.write(shard, docs)
        return docs

    def _read_file(self, path: Path) -> tuple[dict[str, dict], bool]:
        """A file's good records by id, and whether it had damaged ones (then moved aside)."""
        try:
            raw = read_file(path)
            if raw is None:
                return {}, False
            raw = uncompressed(raw, path)
            data = parse_json(raw, path)
        except CorruptFileError as error:
            aside = move_aside(path)
            self._warn(f"{error}: moved to {aside.name}; its papers are fetched again at the next sync")
            return {}, False
        invisible = any(marker in raw for marker in INVISIBLE_UTF8)  # rare: a bytes search spares cleaning every record
        good: dict[str, dict] = {}
        damaged = 0
        for doc in data.get("papers", {}).values():
            if is_record(doc):
                good[doc["id"]] = without_invisible_text(doc) if invisible else doc
            else:
                damaged += 1
        if damaged:
            aside = move_aside(path)
            self._warn(
                f"papers/{path.name} had {plural(damaged, 'damaged record')}: moved to {aside.name}; "
                f"kept its {len(good)} good papers (the others are fetched again at the next sync)"
            )
        return good, damaged > 0

    def write(self, shard: str, docs: dict[str, dict]) -> None:
        """The shard as one TinyDB table numbered from 1, encoded a slice of records at a time
        (the same bytes as one json.dumps, which held the GIL ~20 ms for a full shard)."""
        numbered = [(str(i + 1), d) for i, d in enumerate(docs.values())]
        slices = (encode_json(dict(numbered[start : start + SHARD_SLICE]))[1:-1] for start in range(0, len(numbered), SHARD_SLICE))
        head = encode_json({"meta": {"1": {"schema": SCHEMA_VERSION}}})[:-1]
        if not self._swept:  # a killed sync's half-written shards: once, before the first write
            self._swept = True
            remove_leftovers(self._dir)
            self._rename_packed()
        payload = head + b',"papers":{' + b",".join(slices) + b"}}"
        cold = is_cold(shard)
        path = self._dir / f"{shard}{PACKED if cold else PLAIN}"
        write_atomic(path, compressed(payload) if cold else payload)
        try:  # the records of a twin were read into `docs` (read_docs): one file is the shard again
            os.unlink(twin_of(path))
        except FileNotFoundError:
            pass
        self._listed[shard] = path.name

    def _rename_packed(self) -> None:
        """Shards compressed under the plain name (as builds before `.json.zlib` kept them) take
        the compressed name, which builds before compression pass over (module docstring)."""
        for entry in own_files(self._dir, _SHARD_FILE, _SHARD_OTHERS):
            path = Path(entry.path)
            if path.suffix != PLAIN or twin_of(path).exists():
                continue
            try:
                with open(path, "rb") as file:
                    packed = file.read(len(ZLIB_MAGIC)) == ZLIB_MAGIC
                if packed:
                    os.rename(path, twin_of(path))
                    self._listed.pop(path.name.removesuffix(PLAIN), None)
            except OSError:
                pass  # read as it is; renamed by a later sync

    # --- derived search texts: papers/YYMM.NN.search.json beside each shard, and their stemmed
    # form, YYMM.NN.stems.json (a file of its own: the scan reads only it, the ranking only the
    # texts). The store keeps them opaque (the core layer builds them) and trusts them only while
    # they are at least as new as their shard: a sync that rewrites a shard makes them stale.

    def search_path(self, shard: str, stemmed: bool = False) -> Path:
        return self._dir / f"{shard}.{'stems' if stemmed else 'search'}.json"

    def search_texts(self, shard: str, valid_text: Callable[[str], bool] | None = None, *, stemmed: bool = False) -> dict[str, str] | None:
        """The shard's saved search texts by paper id (`stemmed`: their stemmed form), or None
        when missing, stale or damaged (a damaged file is moved aside: the caller builds the
        texts again). `valid_text` says whether one text has the form its builder gives it."""
        path = self.search_path(shard, stemmed)
        try:
            if path.stat().st_mtime_ns < self.path(shard).stat().st_mtime_ns:
                return None
            return check_search_texts(read_json(path) or {}, valid_text)
        except OSError:
            return None
        except (CorruptFileError, ShapeError) as error:
            problem = str(error) if isinstance(error, CorruptFileError) else f"{path.name} is damaged ({error})"
            try:
                self._warn(f"{problem}: moved to {move_aside(path).name}; its search texts are built again")
            except StoreError:
                pass
            return None
        except StoreError:
            return None

    def save_search_texts(self, shard: str, texts: dict[str, str], *, stemmed: bool = False) -> None:
        """Save a shard's search texts, or their stemmed form (a cache: failing to write one is
        not an error)."""
        try:
            with self._locked("saving search texts"):
                write_json_atomic(self.search_path(shard, stemmed), {"meta": {"1": {"schema": SCHEMA_VERSION}}, "texts": {"1": texts}})
        except StoreError:
            pass
