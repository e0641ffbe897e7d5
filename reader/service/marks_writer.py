"""Saving the app's marks (read, starred, hidden): a mark is never dropped.

A mark shows at once and is pending until user.json holds it. Pending changes are merged per
paper and kind of mark (the latest wins) and written together by the writer thread, after each
new mark and, while a write fails (a read-only or full disk, another process holding the file's
lock past the store's wait), every `RETRY_SECONDS` too. A failure keeps every pending mark shown
and says so once, as an error, however many marks fail; once all are saved, a notice says that.

Another process may change user.json meanwhile (the CLI, a second app): its marks are read
again (outside.py) with the pending ones over them, unless it changed a pending mark itself since
this app last saw that mark: its change is then the later one and wins.

At quit the app waits at most a couple of seconds for the writer (`LibraryService.finish`), then
the marks still pending go to a small journal in the data directory (store/journal.py), which the
next start applies: a quit loses nothing, and only when even the journal cannot be written is the
user told, on the terminal, what was not saved. No Textual here."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import suppress
from dataclasses import dataclass

from reader.core.text import plural
from reader.errors import ReaderError
from reader.service.writer_thread import WriterThread
from reader.store import Store
from reader.store.journal import MARK_KINDS, write_journal
from reader.store.user_doc import Marks

RETRY_SECONDS = 3.0  # between tries of a write that failed


@dataclass(slots=True)
class _Pending:
    wanted: bool
    seen: bool  # the mark as the data directory was last seen to hold it


class MarksWriter:
    def __init__(self, store: Store, writer: WriterThread):
        self._store = store
        self._writer = writer
        self._pending: dict[str, dict[str, _Pending]] = {}  # paper id -> kind -> the change
        self._lock = threading.Lock()  # the UI's thread adds changes, the writer thread saves them
        self._failing: str | None = None  # why the last write failed, until one succeeds
        self._retry: threading.Timer | None = None
        self._closed = False
        self.queued = 0  # changes of marks handed to the writer thread (on the UI's thread)...
        self.written = 0  # ...and done with by it (see outside.py)
        # Says (message, "error" | "information") what became of failed marks: from any thread.
        self.tell: Callable[[str, str], None] = lambda message, severity: None

    def save(self, changes: dict[str, tuple[dict[str, bool], dict[str, bool]]], *, keep: bool = True) -> Future:
        """Hand changes of marks (paper id -> each mark as shown before, as wanted) to the writer
        thread; with `keep` false (demo marks, not saved) only counted. Told now, not in the
        write: the demo may give way before it."""
        self.queued += 1
        if keep:
            for paper_id, (shown, wanted) in changes.items():
                self.change(paper_id, shown, wanted)

        def write() -> None:
            try:
                self.write_pending()  # (with those a failed write left)
            finally:
                self.written += 1

        return self._writer.submit(write)

    def change(self, paper_id: str, shown: dict[str, bool], wanted: dict[str, bool]) -> None:
        """These marks of a paper are to be saved (`shown`: each as shown before this change),
        by the next `write_pending`."""
        with self._lock:
            changes = self._pending.setdefault(paper_id, {})
            for kind, value in wanted.items():
                held = changes.get(kind)
                changes[kind] = _Pending(value, shown[kind] if held is None else held.seen)

    def pending(self) -> dict[str, dict[str, bool]]:
        with self._lock:
            return {pid: {kind: change.wanted for kind, change in changes.items()} for pid, changes in self._pending.items()}

    def write_pending(self) -> None:
        """Write every pending change at once (in the writer thread)."""
        batch = self.pending()
        if not batch or self._closed:
            return
        try:
            self._store.apply_marks(batch)
        except ReaderError as error:
            self._failed(str(error))
            return
        with self._lock:
            for pid, written in batch.items():
                changes = self._pending.get(pid, {})
                for kind, value in written.items():
                    if (change := changes.get(kind)) is not None and change.wanted == value:
                        del changes[kind]  # (a change made meanwhile stays, for the next write)
                if not changes:
                    self._pending.pop(pid, None)
            told = self._failing is not None and not self._pending
            if told:
                self._failing = None
        if told:
            self.tell("Marks saved: those kept since the data directory could not be written are in it now.", "information")

    def _failed(self, why: str) -> None:
        with self._lock:
            first = self._failing is None
            self._failing = why
            count = sum(len(changes) for changes in self._pending.values())
            if self._retry is None and not self._closed:
                self._retry = threading.Timer(RETRY_SECONDS, self._try_again)
                self._retry.daemon = True
                self._retry.start()
        if first and not self._closed:
            marks = "The mark is" if count == 1 else "The marks are"
            self.tell(f"Not saved yet: {why}. {marks} kept, and saved as soon as the data directory can be written.", "error")

    def _try_again(self) -> None:
        with self._lock:
            self._retry = None
            if self._closed:
                return
        with suppress(RuntimeError):  # the writer shut down meanwhile: the app is quitting
            self._writer.submit(self.write_pending)

    def overlay(self, marks: Marks) -> Marks:
        """The marks user.json holds, read again after another process changed it (in the
        writer thread, in order with the writes), with the pending changes over them; a pending
        change that process made its own since this app last saw the mark gives way to it."""
        held = {"read": set(marks.read), "starred": set(marks.starred), "hidden": set(marks.hidden)}
        with self._lock:
            for pid, changes in list(self._pending.items()):
                for kind, change in list(changes.items()):
                    if (pid in held[kind]) != change.seen:
                        del changes[kind]
                    elif change.wanted:
                        held[kind].add(pid)
                    else:
                        held[kind].discard(pid)
                if not changes:
                    del self._pending[pid]
            if not self._pending:
                self._failing = None  # nothing left to save: nothing to tell either
        return Marks(*(frozenset(held[kind]) for kind in MARK_KINDS))

    def close(self) -> str | None:
        """At quit, the marks still pending kept in a journal for the next start (see the
        module's docstring); what the user should read on the terminal, or None."""
        with self._lock:
            if self._closed:
                return None
            self._closed = True
            if self._retry is not None:
                self._retry.cancel()
            why = self._failing or "still being written when reader quit"
        batch = self.pending()
        if not batch:
            return None
        count = plural(sum(len(changes) for changes in batch.values()), "mark")
        try:
            path = write_journal(self._store.data_dir, batch)
        except ReaderError as error:
            return f"reader: {count} not saved ({why}), nor kept for the next start: {error}"
        return f"reader: {count} not saved yet ({why}): kept in {path.name}, saved by the next start of reader."
