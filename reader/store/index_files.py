"""The cache index on disk: index.json (every paper's id, version, v1 day and topics, as columns
in display order), index.log (the saves since index.json was written whole, index_log.py) and
index.columns (its columns as machine arrays, index_columns.py). IndexFiles is their one reader
and writer, and holds the index as last read (re-read when another process changed it)."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from reader.cache_index import ARRIVED_TYPE, VERSION_TYPE, CacheIndex, IndexEntry
from reader.errors import StoreError
from reader.packed_ids import PackedIds
from reader.safe_files import open_regular, read_regular
from reader.store import index_columns, index_log
from reader.store.files import INDEX_BYTES, CorruptFileError, move_aside, parse_json, read_file, write_atomic
from reader.store.schema import SCHEMA_VERSION, ShapeError, check_index, check_index_order, index_document, log_token, log_token_at_head

HEAD_BYTES = 256  # of index.json: its meta, with the log's token

_IndexFileStamp = tuple[int, int] | None  # modification time (ns) and size; None: no file
IndexStamp = tuple[_IndexFileStamp, _IndexFileStamp]  # index.json's and index.log's


def index_stamp(data_dir: Path) -> IndexStamp:
    """What the paper index was read from: index.json and its log (index_log.py) as they are."""
    return _file_stamp(data_dir / "index.json"), _file_stamp(data_dir / "index.log")


def _file_stamp(path: Path) -> _IndexFileStamp:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


class IndexFiles:
    """index.json, index.log and index.columns of one data directory. Writes are made under the
    store's lock (`locked`), which the caller holds; a damaged index.json is rebuilt from
    `entries_from_shards` (the records)."""

    def __init__(
        self,
        data_dir: Path,
        locked: Callable[[str], AbstractContextManager[object]],
        warn: Callable[[str], None],
        entries_from_shards: Callable[[], dict[str, IndexEntry]],
    ):
        self._data_dir = data_dir
        self._locked = locked
        self._warn = warn
        self._entries_from_shards = entries_from_shards
        self._index_path = data_dir / "index.json"
        self._log_path = data_dir / "index.log"
        self._columns_path = data_dir / "index.columns"
        self._index: CacheIndex | None = None
        self._index_stamp: IndexStamp | None = None
        self._log_token: str | None = None  # of the log following the loaded index.json
        self._log_offset = 0  # bytes of the log taken in
        self._log_rows = 0  # rows of the log taken in
        self._appended = 0  # rows this store appended to the log (settle)
        self._order: CacheIndex | None = None  # order()'s, while index.json stays as it was
        self._order_stamp: IndexStamp | None = None

    @property
    def loaded(self) -> CacheIndex | None:
        """The whole index as last read, without looking at the files again (None: not read yet)."""
        return self._index

    def _stamp(self) -> IndexStamp:
        return index_stamp(self._data_dir)

    def order(self) -> CacheIndex:
        """The index's topics, ids, days and topic masks alone (versions and arrivals left
        empty): what a listing filters on and finds papers by, read several times faster than
        index(); from index.columns, in part (ids packed), when they are current and no log
        follows. The whole index when it is loaded already, or when the file is not in the
        store's own form (or is damaged)."""
        stamp = self._stamp()
        if self._index is None or stamp != self._index_stamp:
            if self._order is not None and stamp == self._order_stamp:
                return self._order
            if (made_from := self._columns_current()) is not None:
                if self._read_log():  # the log's papers folded into the whole index, read as fast
                    return self.load()
                order = index_columns.read_order(self._columns_path, *made_from)
                if order is not None:  # read in part: no object per paper
                    self._order, self._order_stamp = order, stamp
                    return order
            try:
                found = check_index_order(read_regular(self._index_path, INDEX_BYTES).decode("utf-8"))
            except (OSError, UnicodeDecodeError):  # (not a file to read: the whole read below says so)
                found = None
            if found is not None:
                token, order = found
                log = self._read_log()
                rows = index_log.folded(index_log.entries(log, token)) if token is not None else {}
                if rows:  # the log's papers in their places (versions and arrivals as before)
                    order.versions = array(VERSION_TYPE, bytes(4 * len(order)))
                    order = order.with_rows(rows)
                    order.versions, order.arrived = array(VERSION_TYPE), array(ARRIVED_TYPE, bytes(8 * len(order)))
                self._order, self._order_stamp = order, stamp
                return order
        return self.load()

    def load(self, force: bool = False) -> CacheIndex:
        stamp = self._stamp()
        if self._index is not None and not force and stamp == self._index_stamp:
            return self._index
        if self._index is not None and not force and self._index_stamp is not None and stamp[0] == self._index_stamp[0]:
            # index.json as it was: only the log grew (another process's save). Its new lines.
            log = self._read_log()
            if len(log) >= self._log_offset:
                self._index_stamp = stamp
                return self._take_log(log[self._log_offset :], self._index)
        token, source = self._index_head()
        index = index_columns.read(self._columns_path, token, source) if token is not None and source is not None else None
        if index is not None and token is not None and source is not None and index_columns.of_format_before(self._columns_path):
            index_columns.write(self._columns_path, token, source, index)  # so that listings read it in part
        if index is None:
            try:
                data = self._read_index_json()
                index = check_index(data) if data else CacheIndex()
            except (CorruptFileError, ShapeError) as error:
                problem = str(error) if isinstance(error, CorruptFileError) else f"index.json is damaged ({error})"
                aside = move_aside(self._index_path)
                self._warn(f"{problem}: moved to {aside.name}; rebuilt it from the cached papers")
                return self._rebuild_index()
            token = log_token(data) if data else None
            if token is not None and source is not None:  # for the next reader (missing, or made for another index.json)
                index_columns.write(self._columns_path, token, source, index)
        self._order = None  # the whole index answers from now on
        self._log_token, self._log_offset, self._log_rows = token, 0, 0
        self._index_stamp = stamp
        return self._take_log(self._read_log(), index)

    def _index_head(self) -> tuple[str | None, index_columns.Source | None]:
        """The log token index.json names, from its first bytes (None: no file, or not one
        written with a log), and its (modification time, size): what index.columns must name."""
        try:
            with open_regular(self._index_path, INDEX_BYTES) as file:
                token = log_token_at_head(file.read(HEAD_BYTES))
        except OSError:
            token = None
        return token, _file_stamp(self._index_path)

    def _columns_current(self) -> tuple[str, index_columns.Source] | None:
        """index.json's token and (modification time, size) when index.columns was made from it
        as it is (its header names them), else None."""
        token, source = self._index_head()
        if token is None or source is None or index_columns.made_from(self._columns_path) != (token, source):
            return None
        return token, source

    def _read_log(self) -> bytes:
        try:
            raw = read_file(self._log_path, INDEX_BYTES)
        except CorruptFileError as error:
            aside = move_aside(self._log_path)
            self._warn(f"{error}: moved to {aside.name}; the papers it listed are indexed again at the next sync")
            return b""
        return raw or b""

    def _take_log(self, raw: bytes, index: CacheIndex) -> CacheIndex:
        """`index` with the log's whole lines in `raw` (read from _log_offset on) taken in: the
        loaded index from now on."""
        whole = raw[: raw.rfind(b"\n") + 1]  # a line being written is read next time
        rows = index_log.folded(index_log.entries(whole, self._log_token)) if self._log_token is not None else {}
        self._index = index.with_rows(rows) if rows else index
        self._log_offset += len(whole)
        self._log_rows += len(rows)
        return self._index

    def _read_index_json(self) -> dict | None:
        """index.json's document, decoded a column at a time when it is in the store's own form
        (a worker reading it then never holds the GIL for long), else whole."""
        raw = read_file(self._index_path, INDEX_BYTES)
        if raw is None:
            return None
        try:
            document = index_document(raw.decode("utf-8"))
        except UnicodeDecodeError:
            document = None
        return document if document is not None else parse_json(raw, self._index_path)

    def write(self, index: CacheIndex) -> None:
        """index.json written whole, following a new log: the old log's lines are ignored from
        now on (should the log's removal not happen), and it is removed."""
        token = index_log.new_token()
        text = f'{{"meta":{{"1":{{"schema":{SCHEMA_VERSION},"log":"{token}"}}}},"index":{{"1":{index.to_json_text()}}}}}'
        write_atomic(self._index_path, text.encode("utf-8"))
        if (packed := PackedIds.pack(index.ids)) is not None:
            index.ids = packed  # kept as a start reads it: no string per paper (the same ids: its id table holds)
        source = _file_stamp(self._index_path)
        if source is not None:
            index_columns.write(self._columns_path, token, source, index)
        try:
            self._log_path.unlink(missing_ok=True)
        except OSError:
            pass  # its lines follow another index.json: ignored
        self._index, self._order = index, None
        self._log_token, self._log_offset, self._log_rows = token, 0, 0
        self._index_stamp = self._stamp()

    def settle(self) -> None:
        """Write index.json whole (and its columns) when this store appended to the log: what a
        sync does once at its end, so that starts and listings read index.columns alone rather
        than folding the log in (tens of thousands of rows at 1,000,000 papers took ~0.5 s).
        Reads nothing when this store saved nothing."""
        if not self._appended:
            return
        with self._locked("writing the paper index"):
            index = self.load()
            if self._log_rows:
                self.write(index)
        self._appended = 0

    def save_changes(self, index: CacheIndex, changes: dict[str, tuple[int, int, str | None]], arrived: int) -> None:
        """Make `index` (the loaded one with `changes`) the saved one: the changes appended to the
        log, a few hundred bytes per paper; index.json written whole instead when the log would
        hold more than one row per index_log.SHARE papers (and index_log.MIN_ROWS), or when it
        follows no log yet (written before there was one)."""
        if not changes:
            return
        if self._log_token is None or self._log_rows + len(changes) > max(index_log.MIN_ROWS, len(index) // index_log.SHARE):
            self.write(index)
            return
        try:
            index_log.append(self._log_path, index_log.encode(self._log_token, changes, arrived))
        except OSError as error:
            raise StoreError(f"cannot write {self._log_path}: {error.strerror}") from None
        self._index, self._order = index, None
        self._log_rows += len(changes)
        self._appended += len(changes)
        self._log_offset = self._log_path.stat().st_size
        self._index_stamp = self._stamp()

    def _rebuild_index(self) -> CacheIndex:
        """Rebuild from the shards. Topic memberships are lost; the next sync restores them."""
        index = CacheIndex.build(self._entries_from_shards())
        self.write(index)
        return index
