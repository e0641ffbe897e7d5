"""A paper's record as the detail view shows it: read in a worker (`PaperRecord`, with its lines
made there too), how it looks (`record_look`), and the messages a worker posts once it is read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.worker import get_current_worker

from reader.app.widgets.record_view import NoteSection, RecordLines, RecordLook, record_width, render_record
from reader.core.text import plural
from reader.errors import ReaderError
from reader.fulltext.store import TextSummary
from reader.models import Paper

if TYPE_CHECKING:
    from reader.service import LibraryService


@dataclass(frozen=True)
class PaperRecord:
    """What the detail view shows of one paper beyond its card, read in a worker, and its lines
    made there too (as the view will show them: marked read, at the screen's width)."""

    paper_id: str
    paper: Paper | None  # None: no longer in the cache
    note: str = ""
    tags: tuple[str, ...] = ()
    problem: str | None = None  # why the note and tags could not be read
    full_text: TextSummary | None = None  # the stored full text, if any
    cited_by: int | None = None  # cached papers whose stored texts cite it (None: not known now)
    lines: RecordLines | None = dataclasses.field(default=None, compare=False)

    @property
    def keeps_note(self) -> bool:
        return self.paper is not None and not self.paper.demo and self.problem is None  # demo papers have none

    @classmethod
    def read(cls, service: LibraryService, paper_id: str) -> PaperRecord:
        """Disk work (one record of one shard, the note, the tags): call it in a worker."""
        paper = service.load_paper(paper_id)
        if paper is None or paper.demo:
            return cls(paper_id, paper)
        texts = service.text_store()
        try:
            full_text = texts.summary(paper_id) if texts is not None else None
        except ReaderError:
            full_text = None  # the full-text view says why when asked
        try:
            citing = service.citations.cited_by(paper_id, quick=True)
        except ReaderError:
            citing = None  # the list (c) says why when asked
        cited_by = None if citing is None else len(citing)
        try:
            return cls(paper_id, paper, *service.tags_notes.note_and_tags(paper_id), full_text=full_text, cited_by=cited_by)
        except ReaderError as error:
            return cls(paper_id, paper, problem=f"Cannot read the note and tags: {error}", full_text=full_text, cited_by=cited_by)

    def rendered(self, service: LibraryService, screen_width: int, math: str | None = None) -> PaperRecord:
        """With its lines made, as the view shows them once it has marked the paper read (a few
        ms of wrapping: call it in a worker); `math` as record_look's."""
        if self.paper is None:
            return self
        note = NoteSection(self.note if self.keeps_note else None)
        look = record_look(
            service, self.paper_id, self.tags, note, screen_width, read=True, full_text=self.full_text, cited_by=self.cited_by, math=math
        )
        return dataclasses.replace(self, lines=render_record(self.paper, look))

    @classmethod
    def read_in_worker(cls, service: LibraryService, paper_id: str, screen_width: int, math: str | None = None) -> PaperRecord | None:
        """Read and rendered, in the current (thread) worker; None once the worker is cancelled."""
        worker = get_current_worker()
        record = cls.read(service, paper_id)
        if not worker.is_cancelled:
            record = record.rendered(service, screen_width, math)
        return None if worker.is_cancelled else record


def record_look(
    service: LibraryService,
    paper_id: str,
    tags: tuple[str, ...],
    note: NoteSection,
    screen_width: int,
    *,
    read: bool | None = None,
    full_text: TextSummary | None = None,
    cited_by: int | None = None,
    keys: tuple[str, str] = ("b", "c"),
    math: str | None = None,
) -> RecordLook:
    """How a record looks now (`read`: as it will be once the view has marked it; `keys`: those
    listing its references and the papers citing it, as bound now; `math`: "unicode" or "tex",
    None for the setting's)."""
    catalog = service.catalog
    read = paper_id in catalog.read if read is None else read
    stored = "v reads it: " + full_text.describe(catalog.starred) if full_text else "v fetches it from arXiv and keeps it"
    return RecordLook(
        record_width(screen_width),
        read,
        paper_id in catalog.starred,
        tuple(catalog.topics_of(paper_id)),
        tags,
        note,
        "" if service.is_demo else stored,
        citations_said(full_text is not None, cited_by, keys),
        math or service.settings.math,
    )


def citations_said(has_text: bool, cited_by: int | None, keys: tuple[str, str]) -> str:
    """`b lists its references · cited by 3 papers in your library: c lists them`."""
    said = [f"{keys[0]} lists its references"] if has_text else []
    if cited_by:
        said.append(f"cited by {plural(cited_by, 'paper', thousands=True)} in your library: {keys[1]} lists them")
    return " · ".join(said)


class RecordRead(Message):
    """A worker read a paper's record for a detail view (`linked`: for a view of its own, over
    the list of references or citing papers)."""

    def __init__(self, record: PaperRecord, *, linked: bool = False):
        super().__init__()
        self.record = record
        self.linked = linked


class ListPaperRead(Message):
    """A worker read the record of the paper Enter opened on a list (`ids`: the list's papers,
    for `[` and `]`); the list's screen shows it in the detail view."""

    def __init__(self, ids: Sequence[str], record: PaperRecord):
        super().__init__()
        self.ids = ids
        self.record = record
