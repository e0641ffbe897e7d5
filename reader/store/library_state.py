"""The user's tags, notes and citation keys, kept in library.json
(and its current copy, see mirrored.py), a file of their own with a lock of its own: a star
rewrites only user.json, a note only library.json."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reader.core.names import tag_name
from reader.errors import StoreError
from reader.models import ARXIV_ID
from reader.store.files import file_lock
from reader.store.library_doc import LibraryDoc, note_text
from reader.store.mirrored import MirroredFile

if TYPE_CHECKING:
    from reader.models import Paper

LIBRARY_FILES = frozenset({"library.json", "library.json.bak", ".library.lock"})


def library_file(data_dir: Path, warn: Callable[[str], None], lock_wait: float) -> MirroredFile[LibraryDoc]:
    return MirroredFile(
        data_dir / "library.json",
        parse=LibraryDoc.parse,
        dump=LibraryDoc.dump,
        copy=LibraryDoc.copy,
        lock=lambda what: file_lock(data_dir / ".library.lock", wait=lock_wait, what=what),
        warn=warn,
        holds="tags, notes and citation keys",
    )


class LibraryState:
    """What library.json holds: its one reader and writer in the store."""

    def __init__(self, file: MirroredFile[LibraryDoc]):
        self.file = file

    # --- tags ----------------------------------------------------------------------------------

    def library_doc(self) -> LibraryDoc:
        """Tags and notes as they are now, as one model: shared with every reader, never to be
        edited (a change is made on a copy)."""
        return self.file.read()

    def tags(self) -> dict[str, int]:
        """Every tag with its number of papers, sorted by name (ignoring case)."""
        return self.file.read().tag_counts()

    def tags_of(self, ids: Iterable[str] | None = None) -> dict[str, tuple[str, ...]]:
        """Paper id -> its tags, sorted by name: for every paper that has tags, or for each of
        `ids` (an empty tuple for a paper without)."""
        doc = self.file.read()
        return dict(doc.by_paper()) if ids is None else doc.tags_of(list(ids))

    def papers_tagged(self, name: str) -> list[str]:
        """The ids of the papers carrying a tag (found ignoring case), in the order tagged."""
        doc = self.file.read()
        return list(doc.tags[doc.existing_tag(tag_name(name))])

    def set_tags(self, ids: Iterable[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> dict[str, tuple[str, ...]]:
        """Add and remove tags on papers in one write; a new tag keeps the case it is first
        written in, an existing one is found ignoring case. Returns the papers' tags after."""
        ids = _paper_ids(ids)
        adding, removing = [tag_name(t) for t in add], [tag_name(t) for t in remove]

        def change(doc: LibraryDoc) -> None:
            for name in removing:
                doc.untag(ids, name)
            for name in adding:
                doc.tag(ids, name)

        self.file.update("saving tags", change)
        return self.tags_of(ids)

    def rename_tag(self, old: str, new: str) -> str:
        """Rename a tag (its papers keep it); into an existing tag's name, the two become one.
        Returns the tag's name after."""
        new = tag_name(new)
        return self.file.update("renaming a tag", lambda doc: doc.rename_tag(old, new))

    def delete_tag(self, name: str) -> int:
        """Remove a tag from every paper (the papers stay). Returns how many had it."""

        def change(doc: LibraryDoc) -> int:
            return len(doc.tags.pop(doc.existing_tag(name)))

        return self.file.update("deleting a tag", change)

    # --- notes ---------------------------------------------------------------------------------

    def note(self, paper_id: str) -> str:
        """The paper's note, "" when it has none."""
        return self.file.read().notes.get(paper_id, "")

    def notes(self) -> dict[str, str]:
        """Paper id -> note, for every paper that has one."""
        return dict(self.file.read().notes)

    def set_note(self, paper_id: str, text: str) -> str:
        """Save a paper's note (blank text removes it). Returns the note as kept: control
        characters other than line breaks and tabs are dropped."""
        _paper_ids([paper_id])
        note = note_text(text)

        def change(doc: LibraryDoc) -> None:
            if note:
                doc.notes[paper_id] = note
            else:
                doc.notes.pop(paper_id, None)

        if note != self.note(paper_id):
            self.file.update("saving a note", change)
        return note

    # --- citation keys -------------------------------------------------------------------------

    def citation_keys(self, papers: Sequence[Paper], taken: Iterable[str] = ()) -> dict[str, str]:
        """Paper id -> citation key, for the papers that can be cited: the key recorded for each,
        or one given now (core/citekeys.py) and recorded, unique ignoring case among every key
        given and `taken` (the keys of a file being added to). Given under library.json's lock,
        so two processes exporting at once never give one key twice."""
        from reader.core.citation import exportable  # here: every command line imports the store
        from reader.core.citekeys import assign

        real = exportable(papers)
        doc = self.file.read()
        if any(paper.id not in doc.keys for paper in real):
            taken = list(taken)

            def give(current: LibraryDoc) -> LibraryDoc:
                current.keys.update(assign(real, current.keys, taken))  # read again under the lock
                return current

            doc = self.file.update("recording citation keys", give)
        return {paper.id: doc.keys[paper.id] for paper in real}


def _paper_ids(ids: Iterable[str]) -> list[str]:
    """Ids once each; only arXiv ids are kept in library.json (its check refuses any other)."""
    ids = list(dict.fromkeys(ids))
    wrong = [pid for pid in ids if not ARXIV_ID.match(pid)]
    if wrong:
        raise StoreError(f"not an arXiv id: {wrong[0]!r}")
    return ids
