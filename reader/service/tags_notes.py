"""The service's tags and notes (library.json): read from the store, written in the writer
thread in order with the marks. Mixed into LibraryService."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import TYPE_CHECKING, TypeVar

from reader.errors import StoreError
from reader.store import Store
from reader.store.library_state import note_text

if TYPE_CHECKING:
    from reader.service.search import LibrarySearch, MemorySearch

T = TypeVar("T")


class TagsAndNotes:
    store: Store
    search: LibrarySearch | MemorySearch
    _tag_counts: dict[str, int]
    _tag_writes: int
    _pending_notes: dict[str, str]  # paper id -> the latest text typed, not yet written
    _notes_lock: threading.Lock

    if TYPE_CHECKING:

        def _write(self, action: Callable[[], T], on_error: Callable[[str], None] | None) -> Future: ...

    def tags(self) -> dict[str, int]:
        """Every tag with its number of papers, sorted by name (as of the last tag change or
        cache update; nothing is read)."""
        return self._tag_counts

    def _recounting_tags(self, change: Callable[[], T]) -> Callable[[], T]:
        """`change` (a write of tags, in the writer thread), then the tags counted again."""

        def write() -> T:
            try:
                return change()
            finally:
                self._tag_writes += 1
                self._tag_counts = self.store.tags()

        return write

    def tags_of(self, ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """Each paper's tags, sorted by name (an empty tuple for a paper without)."""
        return self.store.tags_of(ids)

    def has_note(self, paper_id: str) -> bool:
        return bool(self.note(paper_id))

    def note(self, paper_id: str) -> str:
        """The paper's note ("" when none), counting a text still waiting to be written."""
        with self._notes_lock:
            pending = self._pending_notes.get(paper_id)
        if pending is None:
            return self.store.note(paper_id)
        try:
            return note_text(pending)
        except StoreError:  # too long: the write will say so
            return pending

    def set_tags(
        self, ids: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = (),
        on_error: Callable[[str], None] | None = None,
    ) -> Future:
        """Tag and untag papers; the future gives their tags after (None if not saved)."""
        ids, add, remove = list(ids), list(add), list(remove)
        return self._write(self._recounting_tags(lambda: self.store.set_tags(ids, add=add, remove=remove)), on_error)

    def rename_tag(self, old: str, new: str, on_error: Callable[[str], None] | None = None) -> Future:
        """The future gives the tag's name after (merged into an existing tag of that name)."""
        return self._write(self._recounting_tags(lambda: self.store.rename_tag(old, new)), on_error)

    def delete_tag(self, name: str, on_error: Callable[[str], None] | None = None) -> Future:
        """The future gives how many papers had the tag (they stay)."""
        return self._write(self._recounting_tags(lambda: self.store.delete_tag(name)), on_error)

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
            kept = self.store.set_note(paper_id, latest)
            self.search.update_notes()  # `note:` and plain words find it at once
            return kept

        return self._write(write, on_error)

