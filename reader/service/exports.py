"""Writing an export onto a file that may already hold the user's entries, for the command line
and the app alike: what the file holds (core/ownership.py), a whole write that records what reader
wrote, and a BibTeX update that keeps every byte of the file (core/bibfile.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reader.core.bibfile import UnclosedEntryError, Update, update
from reader.core.exporting import render
from reader.core.ownership import Holdings, fingerprints, holdings
from reader.errors import ReaderError
from reader.models import Paper
from reader.safe_files import append_user_file, write_user_file
from reader.store.written import record_written, written_fingerprints

if TYPE_CHECKING:
    from reader.config import Settings
    from reader.service.demo import DemoSource
    from reader.service.tags_notes import TagsNotes
    from reader.service.writer_thread import WriterThread
    from reader.store import Store


def read_existing(path: Path) -> bytes:
    """The file's bytes; none when there is no file."""
    try:
        return path.read_bytes() if path.exists() else b""
    except OSError as error:
        raise ReaderError(f"cannot read {path}: {error.strerror or error}") from None


def users_entries(data_dir: Path, format: str, path: Path, writing: str) -> Holdings | None:
    """What the file at `path` holds when some of it is the user's (an entry reader did not write,
    or one changed since, that `writing` would not write again); None when replacing it drops
    nothing of theirs (no file, an empty one, or only reader's entries)."""
    existing = read_existing(path).decode("utf-8", "surrogateescape")
    if not existing.strip():
        return None
    held = holdings(format, existing, written_fingerprints(data_dir), writing)
    return held if held.foreign else None


def write_whole(data_dir: Path, format: str, path: Path, text: str) -> None:
    """Write the export (atomically) and record its entries as reader's."""
    write_user_file(path, text.encode("utf-8"))
    record_written(data_dir, fingerprints(format, text))


def update_bib(
    data_dir: Path,
    path: Path,
    papers: Sequence[Paper],
    *,
    keys: Callable[[list[Paper], list[str]], dict[str, str]],
    tags: dict[str, list[str]],
    notes: dict[str, str],
    unicode: bool = False,
    print_arxiv_id: bool = True,
) -> Update:
    """Append the papers the .bib lacks, keeping every byte already there (bytes that are not
    UTF-8 go through untouched), and record the entries added as reader's. `print_arxiv_id`: see
    core/bibtex.py."""
    raw = read_existing(path)
    old = raw.decode("utf-8", "surrogateescape")
    try:
        result = update(old, papers, unicode=unicode, tags=tags, notes=notes, keys=keys, print_arxiv_id=print_arxiv_id)
    except UnclosedEntryError as error:
        raise ReaderError(f"{path}, {error}") from None
    if result.added:
        append_user_file(path, raw, result.text.encode("utf-8", "surrogateescape"))
        record_written(data_dir, fingerprints("bibtex", result.text[len(old) :]))
    return result


class Exports:
    """The app's exports (LibraryService): the same rules as `reader export`. Call in a worker.
    Citation keys are recorded by the writer thread, in order with the other changes of user
    state, as a change of tags and notes is (`tags_notes`); `demo` says whether the demo set is
    shown (its papers are not in the cache)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        writer: WriterThread,
        tags_notes: TagsNotes,
        demo: Callable[[], DemoSource | None],
    ):
        self._store = store
        self._settings = settings
        self._writer = writer
        self._tags_notes = tags_notes
        self._demo = demo

    def papers(self, ids: list[str]) -> list[Paper]:
        """Whole records of `ids` from the store, in that order (for export: never from what
        happens to be loaded). Ids the cache no longer holds are left out (every demo paper)."""
        if self._demo() is not None:
            return []
        records = self._store.papers_by_id(ids)
        return [records[pid] for pid in ids if pid in records]

    def export_text(self, format: str, papers: list[Paper], *, unicode: bool = False) -> str:
        """The papers in an export format (see core/exporting.py), with the user's tags and notes,
        under their recorded keys."""
        return render(
            format,
            papers,
            unicode=unicode,
            tags=self._tags(papers),
            notes=self._store.notes(),
            keys=self.citation_keys(papers),
            print_arxiv_id=self._settings.bibtex_print_arxiv_id,
        )

    def _tags(self, papers: Sequence[Paper]) -> dict[str, list[str]]:
        return {pid: list(names) for pid, names in self._store.tags_of(p.id for p in papers).items() if names}

    def citation(self, paper: Paper) -> str:
        """The paper's BibTeX entry under its recorded key (what `y` copies)."""
        return render("bibtex", [paper], keys=self.citation_keys([paper]), print_arxiv_id=self._settings.bibtex_print_arxiv_id)

    def citation_keys(self, papers: list[Paper], taken: Sequence[str] = ()) -> dict[str, str]:
        """Each paper's recorded citation key; a paper without one is given one (unique against
        `taken` too: the keys of a file being added to), recorded by the writer thread in order
        with the other changes of user state (it waits for them)."""
        return self._writer.submit(self._tags_notes.taking(lambda: self._store.citation_keys(papers, taken))).result()

    def users_entries(self, format: str, path: Path, writing: str) -> Holdings | None:
        return users_entries(self._store.data_dir, format, path, writing)

    def write_export(self, format: str, path: Path, text: str) -> None:
        write_whole(self._store.data_dir, format, path, text)

    def update_export(self, path: Path, papers: list[Paper]) -> Update:
        """Add the papers a .bib lacks, as `reader export --update` does."""
        return update_bib(
            self._store.data_dir,
            path,
            papers,
            keys=self.citation_keys,
            tags=self._tags(papers),
            notes=self._store.notes(),
            print_arxiv_id=self._settings.bibtex_print_arxiv_id,
        )
