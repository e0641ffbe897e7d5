"""The service's tags and notes (library.json): kept in memory as last read or written (drawing
a card reads no file), written in the writer thread in order with the marks. A change made by
another process (`reader tag`) is read at the next cache update or opening of a paper. Mixed into
LibraryService."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING, TypeVar

from reader.errors import StoreError
from reader.store import Store
from reader.store.library_state import LibraryDoc, note_text

if TYPE_CHECKING:
    from reader.service.search import LibrarySearch, MemorySearch

T = TypeVar("T")


class TagsAndNotes:
    store: Store
    search: LibrarySearch | MemorySearch
    # (tags and notes, each tag's number of papers): replaced whole, by one assignment, by the
    # writer thread after each change and by a cache update; read on the UI's thread.
    _library_state: tuple[LibraryDoc, dict[str, int]]
    _library_writes: int  # changes written (a cache update read before one is out of date)
    _library_lock: threading.Lock  # held to count a change and keep what it left, or to compare
    _pending_notes: dict[str, str]  # paper id -> the latest text typed, not yet written
    _notes_lock: threading.Lock

    if TYPE_CHECKING:

        def _write(self, action: Callable[[], T], on_error: Callable[[str], None] | None) -> Future: ...

    def _read_library_state(self) -> tuple[LibraryDoc, dict[str, int]]:
        doc = self.store.library_doc()
        return doc, doc.tag_counts()

    def tags(self) -> dict[str, int]:
        """Every tag with its number of papers, sorted by name (as of the last change or cache
        update; nothing is read)."""
        return self._library_state[1]

    def _taking_library_state(self, change: Callable[[], T]) -> Callable[[], T]:
        """`change` (a write of tags or notes, in the writer thread), then what it left kept."""

        def write() -> T:
            try:
                return change()
            finally:
                state = self._read_library_state()  # (read outside the lock: the UI's thread takes it)
                with self._library_lock:
                    self._library_writes += 1
                    self._library_state = state

        return write

    def _keep_library_state(self, state: tuple[LibraryDoc, dict[str, int]], writes: int) -> None:
        """Keep `state`, read when `writes` changes had been written, unless one has been since."""
        with self._library_lock:
            if writes == self._library_writes:
                self._library_state = state

    def note_and_tags(self, paper_id: str) -> tuple[str, tuple[str, ...]]:
        """The paper's note and tags as library.json holds them now (another process may have
        changed them): reads the file, so call it in a worker. What it read is kept for the cards
        drawn from then on."""
        writes = self._library_writes
        state = self._read_library_state()
        self._keep_library_state(state, writes)
        return self.note(paper_id), state[0].by_paper().get(paper_id, ())

    def tags_of(self, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each paper's tags, sorted by name (an empty tuple for a paper without)."""
        by_paper = self._library_state[0].by_paper()
        return {pid: by_paper.get(pid, ()) for pid in ids}

    def has_note(self, paper_id: str) -> bool:
        return bool(self.note(paper_id))

    def note(self, paper_id: str) -> str:
        """The paper's note ("" when none), counting a text still waiting to be written."""
        with self._notes_lock:
            pending = self._pending_notes.get(paper_id)
        if pending is None:
            return self._library_state[0].notes.get(paper_id, "")
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
        return self._write(self._taking_library_state(lambda: self.store.set_tags(ids, add=add, remove=remove)), on_error)

    def rename_tag(self, old: str, new: str, on_error: Callable[[str], None] | None = None) -> Future:
        """The future gives the tag's name after (merged into an existing tag of that name)."""
        return self._write(self._taking_library_state(lambda: self.store.rename_tag(old, new)), on_error)

    def delete_tag(self, name: str, on_error: Callable[[str], None] | None = None) -> Future:
        """The future gives how many papers had the tag (they stay)."""
        return self._write(self._taking_library_state(lambda: self.store.delete_tag(name)), on_error)

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
            kept = self._taking_library_state(lambda: self.store.set_note(paper_id, latest))()
            self.search.update_notes()  # `note:` and plain words find it at once (it may wait for a refresh)
            return kept

        return self._write(write, on_error)
