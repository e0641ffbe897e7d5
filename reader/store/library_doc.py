"""library.json in memory: the user's tags, notes and citation keys, checked on every read.

Kept apart from user.json (and mirrored like it, see mirrored.py) so that a star never rewrites
the notes, and typing a note never rewrites the marks. On disk, TinyDB's layout:

    meta   {"schema": N}
    tags   {"name", "ids": [...]}, one per tag, in the order the tags were made
    notes  {"id", "text"}, one per paper that has a note (Markdown, as the user wrote it)
    keys   {"id", "key"}, one per paper given a citation key (core/citekeys.py), in the order given
"""

from __future__ import annotations

import re
from typing import Any

from reader.core.sanitize import clean_multiline, clean_text
from reader.errors import StoreError
from reader.models import ARXIV_ID
from reader.store.schema import UserFileDoc, expect, is_str_list, numbered

LIBRARY_SCHEMA = 1
LONGEST_NOTE = 100_000  # characters: a long essay; a paste of a whole paper is refused
CITATION_KEY = re.compile(r"[A-Za-z0-9]{1,120}")  # as core/citekeys.py gives them: safe in every format


def note_text(text: str) -> str:
    """A note as it is kept: line breaks and tabs stay, other control characters go; blank is
    no note. Too long a note is a one-line error."""
    clean = clean_multiline(text)
    if len(clean) > LONGEST_NOTE:
        raise StoreError(f"a note can be at most {LONGEST_NOTE:,} characters long (this one has {len(clean):,})")
    return clean if clean.strip() else ""


class LibraryDoc(UserFileDoc):
    """The parsed file. Mutated only inside `MirroredFile.update`; readers share it."""

    FILE, SCHEMA, TABLES = "library.json", LIBRARY_SCHEMA, ("tags", "notes", "keys")
    __slots__ = ("_by_paper", "keys", "notes", "tags")

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, dict[str, None]] = {}  # name as first written -> ids (an ordered set)
        self.notes: dict[str, str] = {}  # paper id -> its note
        self.keys: dict[str, str] = {}  # paper id -> its citation key, never changed once given
        self._by_paper: dict[str, tuple[str, ...]] | None = None  # built at the first ask

    def read_tables(self, data: dict) -> None:
        # Names and notes are cleaned as read, like feed text: the file may have been edited by
        # hand, and what it holds is drawn on the terminal.
        for tag in data.get("tags", {}).values():
            name = tag.get("name")
            expect(type(name) is str and clean_text(name), "tags: a tag without a name")
            name = clean_text(name)
            expect(self.find_tag(name) is None, f"tags: two tags named {name!r}")
            expect(is_str_list(tag.get("ids")), f"tags: the papers of {name!r} are not a list of ids")
            self.tags[name] = dict.fromkeys(tag["ids"])
        for note in data.get("notes", {}).values():
            pid = note.get("id")
            expect(type(pid) is str and ARXIV_ID.match(pid), "notes: a note without a paper id")
            expect(type(note.get("text")) is str, f"notes: the note of {pid} is not text")
            self.notes[pid] = clean_multiline(note["text"])
        for given in data.get("keys", {}).values():
            pid, key = given.get("id"), given.get("key")
            expect(type(pid) is str and ARXIV_ID.match(pid) and pid not in self.keys, "keys: a key without a paper id, or a paper with two")
            expect(type(key) is str and CITATION_KEY.fullmatch(key), f"keys: the key of {pid} is not ASCII letters and digits")
            self.keys[pid] = key
        expect(len({key.lower() for key in self.keys.values()}) == len(self.keys), "keys: one key given to two papers")

    def dump_tables(self) -> dict[str, Any]:
        return {
            "tags": numbered({"name": name, "ids": list(ids)} for name, ids in self.tags.items()),
            "notes": numbered({"id": pid, "text": text} for pid, text in self.notes.items()),
            "keys": numbered({"id": pid, "key": key} for pid, key in self.keys.items()),
        }

    def copy_tables(self, doc: LibraryDoc) -> None:
        doc.tags = {name: dict(ids) for name, ids in self.tags.items()}
        doc.notes = dict(self.notes)
        doc.keys = dict(self.keys)

    # --- tags ----------------------------------------------------------------------------------

    def find_tag(self, name: str) -> str | None:
        """The stored spelling of a tag (tags compare ignoring case), None when there is none."""
        wanted = name.casefold()
        return next((known for known in self.tags if known.casefold() == wanted), None)

    def existing_tag(self, name: str) -> str:
        found = self.find_tag(name)
        if found is None:
            raise StoreError(f"no tag named {name!r}")
        return found

    def tag_counts(self) -> dict[str, int]:
        return {name: len(self.tags[name]) for name in sorted(self.tags, key=_tag_order)}

    def tags_of(self, ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Each paper's tags sorted by name: a look-up per tag, not the whole map of by_paper."""
        names = sorted(self.tags, key=_tag_order)
        return {pid: tuple(name for name in names if pid in self.tags[name]) for pid in ids}

    def by_paper(self) -> dict[str, tuple[str, ...]]:
        """Paper id -> its tags sorted by name, for the papers that have any."""
        if self._by_paper is None:
            found: dict[str, list[str]] = {}
            for name in sorted(self.tags, key=_tag_order):
                for pid in self.tags[name]:
                    found.setdefault(pid, []).append(name)
            self._by_paper = {pid: tuple(names) for pid, names in found.items()}
        return self._by_paper

    def tag(self, ids: list[str], name: str) -> None:
        stored = self.find_tag(name) or name  # a new tag keeps the case it was first written in
        marked = self.tags.setdefault(stored, {})
        for pid in ids:
            marked.setdefault(pid)

    def untag(self, ids: list[str], name: str) -> None:
        stored = self.find_tag(name)
        if stored is None:
            return
        marked = self.tags[stored]
        for pid in ids:
            marked.pop(pid, None)
        if not marked:  # a tag is its papers: with none left, it is gone
            del self.tags[stored]

    def rename_tag(self, old: str, new: str) -> str:
        """Rename `old` to `new`; when `new` is another tag already, `old`'s papers join it."""
        old = self.existing_tag(old)
        ids = self.tags.pop(old)
        into = self.find_tag(new)
        if into is None:
            self.tags[new] = ids
            return new
        self.tags[into].update(ids)
        return into


def _tag_order(name: str) -> tuple[str, str]:
    return name.casefold(), name
