"""A file of user state kept twice, both copies current: `user.json` and `user.json.bak`.

Every write replaces the file and its copy, each atomically (files.py), before the change is
acknowledged. So at any moment at least one of the two holds every acknowledged change: a kill
during a write leaves one newer than the other (the copy is made equal to the file at the next
open: the change was not acknowledged), and damage to either one, by anything, is repaired from
the other. Nothing the user did is lost to a single damaged file, and a change costs two small
writes, whatever the size of the paper cache. The two are written at once, from two threads: each
waits on its fsync, and the file system commits both together (a star while a sync saves papers
waited for two commits in a row).

Reads are checked (schema.py) before use: a file that is valid JSON of the wrong shape counts as
damaged, and so does anything else put in its place (a pipe, a link to a device, a file far too
large: files.read_file); a copy is only ever written from content that passed the check. A file
that is a link to a regular file stays a link: the file it points at is written.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from pathlib import Path
from typing import Any, Generic, TypeVar

from reader.errors import StoreError
from reader.safe_files import open_regular
from reader.store.files import (
    STATE_BYTES,
    CorruptFileError,
    Stamp,
    encode_json,
    file_stamp,
    move_aside,
    parse_json,
    read_file,
    write_atomic,
)
from reader.store.schema import ShapeError

T = TypeVar("T")
_HEAD = 64  # the first bytes of a file: its meta document, with the token of the write that made it


class MirroredFile(Generic[T]):
    """One file of user state and its current copy. `parse` checks raw JSON (a dict, or None when
    the file does not exist) and returns the model, raising ShapeError when the shape is wrong;
    `dump` turns the model back into JSON with its `meta` table first; `copy` gives a copy a
    change can edit while readers keep the original. Writes and repairs happen under `lock`.

    The model last read or written is kept in memory with the file's stat and its first bytes,
    which hold a random token per write: while both match, the file is what we saw, and a change
    skips reading and parsing it again (the larger part of its cost)."""

    def __init__(
        self,
        path: Path,
        *,
        parse: Callable[[dict | None], T],
        dump: Callable[[T], dict[str, Any]],
        copy: Callable[[T], T],
        lock: Callable[[str], AbstractContextManager[None]],
        warn: Callable[[str], None],
        holds: str,
    ):
        self.path = path
        self.backup = path.with_name(path.name + ".bak")
        self._parse, self._dump, self._copy, self._lock, self._warn = parse, dump, copy, lock, warn
        self._holds = holds  # what the file holds, for messages: "topics, stars and read marks"
        self._cached: tuple[tuple[int, ...], bytes, T] | None = None
        # Wraps each change this process saves, given the file's stamp before it (a watcher of
        # the file then knows the change as its own, even while it is being written).
        self.on_write: Callable[[Stamp | None], AbstractContextManager[object]] | None = None

    # --- reading -------------------------------------------------------------------------------

    @staticmethod
    def _stamp(path: Path) -> Stamp | None:
        return file_stamp(path)

    def _unchanged(self) -> T | None:
        """The kept model, if the file is still the one it came from."""
        if self._cached is None:
            return None
        stamp, head, value = self._cached
        if self._stamp(self.path) != stamp:
            return None
        try:
            with open_regular(self.path, STATE_BYTES) as handle:
                if handle.read(_HEAD) != head:
                    return None
        except OSError:
            return None
        return value

    def _read(self, path: Path, keep: bool = False) -> T:
        """The checked content of `path` (the empty model when it does not exist); CorruptFileError
        when it is damaged. `keep` remembers it as the file's current content."""
        stamp = self._stamp(path)
        raw = read_file(path)
        if raw is None:
            return self._parse(None)
        try:
            value = self._parse(parse_json(raw, path))
        except ShapeError as error:
            raise CorruptFileError(path, str(error)) from None
        if keep and stamp is not None:
            self._cached = (stamp, raw[:_HEAD], value)
        return value

    def read(self) -> T:
        """The current content, repaired if damaged. Do not edit it: readers share it."""
        value = self._unchanged()
        if value is not None:
            return value
        if self.path.exists():
            try:
                return self._read(self.path, keep=True)
            except CorruptFileError:
                pass
        elif not self.backup.exists():
            return self._parse(None)  # a new data directory
        with self._lock(f"repairing {self.path.name}"):
            return self.read_locked()

    def read_locked(self) -> T:
        """The current content, from disk unless unchanged since we saw it, repaired from the
        copy when damaged or missing. Call with the lock held."""
        value = self._unchanged()
        if value is not None:
            return value
        try:
            value = self._read(self.path, keep=True)
        except CorruptFileError as error:
            aside = move_aside(self.path)
            return self._restore(f"{error}: moved to {aside.name}")
        if not self.path.exists() and self.backup.exists():
            return self._restore(f"{self.path.name} is missing")
        return value

    def _restore(self, problem: str) -> T:
        """Take the copy's content (when it is good) as the file's, and say what happened."""
        try:
            value = self._read(self.backup)
        except CorruptFileError as error:
            self._warn(f"{problem}; its copy is damaged too ({error}): moved to {move_aside(self.backup).name}; started afresh")
            return self._parse(None)
        if not self.backup.exists():
            self._warn(f"{problem}; there is no copy to restore: started afresh")
            return value
        self._write(value)
        self._warn(f"{problem}; restored {self._holds} from its up-to-date copy {self.backup.name}")
        return value

    def check(self) -> None:
        """At open: repair a damaged file or copy, and bring the copy up to date (it is behind
        only after a kill between the two writes of a change)."""
        with self._lock(f"checking {self.path.name}"):
            self.read_locked()  # checks the file (or repairs it), so what is copied below is good
            current = _read_bytes(self.path)
            if current is None or _read_bytes(self.backup) == current:
                return
            try:
                self._read(self.backup)
            except CorruptFileError as error:
                self._warn(f"{error}: moved to {move_aside(self.backup).name}; rewrote it from {self.path.name}")
            try:
                write_atomic(self.backup, current)
            except StoreError as error:
                self._warn(f"could not bring {self.backup.name} up to date: {error}")

    # --- writing -------------------------------------------------------------------------------

    def update(self, what: str, change: Callable[[T], Any]) -> Any:
        """Apply `change` to a copy of the current content (read under the lock) and save it.
        Returns what `change` returns. StoreError when the file cannot be written (then nothing
        changed, on disk or in memory)."""
        with self._lock(what):
            before = self._stamp(self.path)
            value = self._copy(self.read_locked())
            result = change(value)
            with self.on_write(before) if self.on_write is not None else nullcontext():
                self._write(value)
        return result

    def _write(self, value: T) -> None:
        data = self._dump(value)
        data["meta"]["1"]["write"] = os.urandom(8).hex()  # (what secrets.token_hex does, without its imports)
        payload = encode_json(data)
        copying = _Copy(self.backup, payload)
        try:
            write_atomic(self.path, payload)  # the change is saved once this returns...
        except StoreError:
            if copying.error() is None:  # not saved: the copy goes back to the file's content
                with suppress(OSError, StoreError):
                    if (current := read_file(self.path)) is not None:
                        write_atomic(self.backup, current)
                    else:
                        self.backup.unlink()
            raise
        finally:
            copy_error = copying.error()  # ...and its copy is written
        stamp = self._stamp(self.path)
        self._cached = None if stamp is None else (stamp, payload[:_HEAD], value)
        if isinstance(copy_error, StoreError):
            self._warn(f"saved, but could not update the copy {self.backup.name}: {copy_error}")
        elif copy_error is not None:
            raise copy_error


def _read_bytes(path: Path) -> bytes | None:
    try:
        return read_file(path)
    except StoreError:  # (CorruptFileError too)
        return None


class _Copy:
    """A copy written by a thread of its own while the caller writes the file (a new thread
    each time: a pool's thread would not exist in a process forked from this one)."""

    def __init__(self, path: Path, payload: bytes):
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._write, args=(path, payload), name="mirror-copy")
        self._thread.start()

    def _write(self, path: Path, payload: bytes) -> None:
        try:
            write_atomic(path, payload)
        except BaseException as error:  # noqa: BLE001 - handed to the caller by error()
            self._error = error

    def error(self) -> BaseException | None:
        """Waits for the copy; what stopped it, if anything."""
        self._thread.join()
        return self._error
