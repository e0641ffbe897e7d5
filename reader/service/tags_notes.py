"""The service's tags and notes (library.json): kept in memory as last read or written (drawing
a card reads no file), written in the writer thread in order with the marks. A change made by
another process (`reader tag`) is read at the next cache update or opening of a paper."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any, TypeVar

from reader.errors import StoreError
from reader.store import Store
from reader.store.library_doc import LibraryDoc, note_text

T = TypeVar("T")
LibraryStateRead = tuple[LibraryDoc, dict[str, int]]  # tags and notes, each tag's number of papers
# The service's way to write user state: in the writer thread, a failure told to `on_error`.
Write = Callable[[Callable[[], Any], Callable[[str], None] | None], Future]


class TagsNotes:
    """Tags and notes as the app shows them. `write` runs a change in the writer thread;
    `notes_changed` tells the search index that a note was saved."""

    def __init__(self, store: Store, write: Write, notes_changed: Callable[[], None]):
        self._store = store
        self._write = write
        self._notes_changed = notes_changed
        # Replaced whole, by one assignment, by the writer thread after each change and by a
        # cache update; read on the UI's thread.
        self.state: LibraryStateRead = (LibraryDoc(), {})
        self.writes = 0  # changes written (a cache update read before one is out of date)
        self._lock = threading.Lock()  # held to count a change and keep what it left, or to compare
        self._pending_notes: dict[str, str] = {}  # paper id -> the latest text typed, not yet written
        self._notes_lock = threading.Lock()

    def read(self) -> LibraryStateRead:
        """library.json as it is now (a disk read)."""
        doc = self._store.library_doc()
        return doc, doc.tag_counts()

    def tags(self) -> dict[str, int]:
        """Every tag with its number of papers, sorted by name (as of the last change or cache
        update; nothing is read)."""
        return self.state[1]

    def taking(self, change: Callable[[], T]) -> Callable[[], T]:
        """`change` (a write of tags or notes, in the writer thread), then what it left kept."""

        def write() -> T:
            try:
                return change()
            finally:
                state = self.read()  # (read outside the lock: the UI's thread takes it)
                with self._lock:
                    self.writes += 1
                    self.state = state

        return write

    def keep(self, state: LibraryStateRead, writes: int) -> None:
        """Keep `state`, read when `writes` changes had been written, unless one has been since."""
        with self._lock:
            if writes == self.writes:
                self.state = state

    def note_and_tags(self, paper_id: str) -> tuple[str, tuple[str, ...]]:
        """The paper's note and tags as library.json holds them now (another process may have
        changed them): reads the file, so call it in a worker. What it read is kept for the cards
        drawn from then on."""
        writes = self.writes
        state = self.read()
        self.keep(state, writes)
        return self.note(paper_id), state[0].by_paper().get(paper_id, ())

    def tags_of(self, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each paper's tags, sorted by name (an empty tuple for a paper without)."""
        by_paper = self.state[0].by_paper()
        return {pid: by_paper.get(pid, ()) for pid in ids}

    def has_note(self, paper_id: str) -> bool:
        return bool(self.note(paper_id))

    def note(self, paper_id: str) -> str:
        """The paper's note ("" when none), counting a text still waiting to be written."""
        with self._notes_lock:
            pending = self._pending_notes.get(paper_id)
        if pending is None:
            return self.state[0].notes.get(paper_id, "")
        try:
            return note_text(pending)
        except StoreError:  # too long: the write will say so
            return pending

    def set_tags(
        self,
        ids: Iterable[str],
        add: Iterable[str] = (),
        remove: Iterable[str] = (),
        on_error: Callable[[str], None] | None = None,
    ) -> Future:
        """Tag and untag papers; the future gives their tags after (None if not saved)."""
        ids, add, remove = list(ids), list(add), list(remove)
        return self._write(self.taking(lambda: self._store.set_tags(ids, add=add, remove=remove)), on_error)

    def rename_tag(self, old: str, new: str, on_error: Callable[[str], None] | None = None) -> Future:
        """The future gives the tag's name after (merged into an existing tag of that name)."""
        return self._write(self.taking(lambda: self._store.rename_tag(old, new)), on_error)

    def delete_tag(self, name: str, on_error: Callable[[str], None] | None = None) -> Future:
        """The future gives how many papers had the tag (they stay)."""
        return self._write(self.taking(lambda: self._store.delete_tag(name)), on_error)

    def set_note(self, paper_id: str, text: str, on_error: Callable[[str], None] | None = None) -> Future:
        """Save a note as it is typed: calls made faster than the disk coalesce, only the latest
        text of a paper is written. The future gives the note as kept, or None when a later
        call's write took this text's place (or it was not saved)."""
        with self._notes_lock:
            self._pending_notes[paper_id] = text

        def write() -> str | None:
            with self._notes_lock:
                if paper_id not in self._pending_notes:
                    return None  # an earlier write already saved the latest text
                latest = self._pending_notes.pop(paper_id)
            kept = self.taking(lambda: self._store.set_note(paper_id, latest))()
            self._notes_changed()  # `note:` and plain words find it at once (it may wait for a refresh)
            return kept

        return self._write(write, on_error)
