"""What other processes change in the data directory (the CLI in another terminal, a second app, a
cron `reader sync`): found by a stat of the four files the app's state comes from, read in a
worker and taken in on the UI's thread, as a sync's results are. No Textual here.

The app's own changes are not news. The store makes each change of user.json and library.json
inside `OutsideChanges.writing` (`Store.on_own_write`): the file is not looked at meanwhile, and
one whose stamp before that write was the one last taken in is taken in again as written. A cache update the app reads itself (after its sync, or a topic it
removed) takes index.json and sync.json in with it. `OutsideReader` reads and takes in what
changed, for the library service."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from reader.cache_index import CacheIndex
from reader.core.catalog import Catalog
from reader.errors import ReaderError
from reader.service.marks_writer import MarksWriter
from reader.service.triage import Triage, TriageSets
from reader.service.writer_thread import WriterThread
from reader.store import Store, Topic
from reader.store.files import Stamp, file_stamp
from reader.store.index_files import index_stamp
from reader.store.user_doc import Marks

if TYPE_CHECKING:
    from reader.service.cache_update import CacheUpdate
    from reader.service.tags_notes import LibraryStateRead, TagsNotes

T = TypeVar("T")
WATCHED = ("user.json", "library.json", "sync.json", "index.json")
PAPER_FILES = frozenset({"index.json", "sync.json"})  # what a sync writes
Stamps = dict[str, object]  # file name -> its stamp (None: no file)


class OutsideChanges:
    """The watched files' stamps as the app last took them in. Thread-safe: the writer thread
    reports the app's own writes as they are made, the UI's thread looks and takes."""

    def __init__(self, data_dir: Path):
        self._data_dir = Path(data_dir)
        self._paths = {name: self._data_dir / name for name in WATCHED}
        self._lock = threading.Lock()
        self._seen: Stamps = self.stamps()
        self._writing: dict[str, int] = {}  # files the app is writing now

    def stamps(self, names: Iterable[str] = WATCHED) -> Stamps:
        return {name: self._stamp(name) for name in names}

    def _stamp(self, name: str) -> object:
        if name == "index.json":  # the paper index: index.json and the log of the saves since
            return index_stamp(self._data_dir)
        return file_stamp(self._paths[name])

    def changed(self) -> set[str]:
        """The files another process changed since they were taken in (a stat of each); not one
        the app is writing now."""
        now = self.stamps()
        with self._lock:
            return {name for name, stamp in now.items() if self._seen.get(name) != stamp and not self._writing.get(name)}

    def seen(self) -> Stamps:
        with self._lock:
            return dict(self._seen)

    def taken(self, stamps: Stamps, *, base: Stamps | None = None) -> bool:
        """The app shows these files as of `stamps` now; unless, for one of them, what was seen
        when they were read (`base`) is seen no more: a newer state was taken in meanwhile."""
        with self._lock:
            if base is not None and any(self._seen.get(name) != base.get(name) for name in stamps):
                return False
            self._seen.update(stamps)
            return True

    @contextmanager
    def writing(self, name: str, before: Stamp | None) -> Iterator[None]:
        """The app saves a change of `name` meanwhile (the file's lock held, its stamp `before`):
        nothing to take in, unless another process had changed the file before (then the file
        is read again, this change with it)."""
        with self._lock:
            self._writing[name] = self._writing.get(name, 0) + 1
        try:
            yield
        finally:
            after = file_stamp(self._paths[name])
            with self._lock:
                self._writing[name] -= 1
                if self._seen.get(name) == before:
                    self._seen[name] = after


@dataclass(frozen=True, slots=True)
class OutsideUpdate:
    """What other processes changed, read in a worker for the UI's thread to take."""

    changed: frozenset[str]
    base: Stamps  # the stamps seen when the reading began
    demo: bool  # read while the demo set was shown (taken in only while it still is)
    stamps: Stamps = field(default_factory=dict)  # of the files as read
    cache: CacheUpdate | None = None  # papers or topics changed: the cache's state
    marks: Marks | None = None
    marks_written: int = -1  # the app's own mark changes saved before the marks were read
    counts: dict | None = None  # every count with `marks`, of `index`
    index: CacheIndex | None = None
    library_state: LibraryStateRead | None = None  # tags and notes
    library_writes: int = -1
    triage: TriageSets | None = None
    warnings: list[str] = field(default_factory=list)  # what the store repaired on the way


class CacheHolder(Protocol):
    """What the outside reader uses of the library service: its public members only."""

    store: Store
    catalog: Catalog
    topics: list[Topic]
    marks: MarksWriter  # the app's marks not saved yet, and how many changes were
    tags_notes: TagsNotes
    triage: Triage

    @property
    def is_demo(self) -> bool: ...
    def read_update(self) -> CacheUpdate: ...
    def apply_update(self, update: CacheUpdate) -> None: ...
    def prepare_search(self, changed: Iterable[str] | None = None, index: CacheIndex | None = None) -> None: ...
    def take_warnings(self) -> list[str]: ...


class OutsideReader:
    """Reads what other processes changed (in a worker) and takes it in (on the UI's thread),
    given the service, the writer thread (a read waits for the app's own changes queued before
    it) and the stamps the app last took in."""

    def __init__(self, service: CacheHolder, writer: WriterThread, stamps: OutsideChanges):
        self._service = service
        self._writer = writer
        self._stamps = stamps

    def _in_writer_order(self, read: Callable[[], T]) -> T:
        """`read` run after the app's own changes queued before it: none of them is read back
        as if undone."""
        return self._writer.submit(read).result()

    def read(self, changed: set[str]) -> OutsideUpdate:
        """What other processes changed in the `changed` files, read and counted in a worker
        thread: only what changed (a star: the marks; a topic added or papers synced: the cache's
        state; a tag: tags and notes), each file stamped as it was read."""
        service, outside = self._service, self._stamps
        found: dict = {"changed": frozenset(changed), "base": outside.seen(), "demo": service.is_demo, "stamps": {}}
        stamps: Stamps = found["stamps"]
        papers = bool(changed & PAPER_FILES)
        if "user.json" in changed:

            def read_user() -> tuple[Stamps, Marks, list[Topic], int]:
                marks = service.marks.overlay(service.store.marks())  # (a mark not saved yet stays shown)
                return outside.stamps(["user.json"]), marks, service.store.topics(), service.marks.written

            user_stamp, marks, topics, written = self._in_writer_order(read_user)
            stamps.update(user_stamp)
            papers = papers or topics != service.topics  # a topic added or removed: counts, chart, cards
            if not service.is_demo:  # demo marks live in memory only
                found.update(marks=marks, marks_written=written)
        if papers:
            cache = found["cache"] = service.read_update()
            stamps.update(cache.stamps)
            if "index.json" in changed:  # papers synced elsewhere: their cards and words
                try:
                    service.prepare_search(None, cache.index)
                except ReaderError:
                    pass  # filters and cards read the shards meanwhile (the app says so at its start)
        if "library.json" in changed and not papers:  # (a cache update reads tags and notes too)

            def read_library() -> tuple[Stamps, LibraryStateRead, int]:
                return outside.stamps(["library.json"]), service.tags_notes.read(), service.tags_notes.writes

            library_stamp, found["library_state"], found["library_writes"] = self._in_writer_order(read_library)
            stamps.update(library_stamp)
        if (taken := found.get("marks")) is not None:
            index = found["cache"].index if papers else service.catalog.index
            found.update(index=index, counts=Catalog.counted_with(index, taken.read, taken.starred, taken.hidden))
        if changed & {"user.json", "index.json"}:  # watches, visits, read versions: new, updated, watched
            found["triage"] = service.triage.read()
        return OutsideUpdate(**found, warnings=service.take_warnings())

    def apply(self, update: OutsideUpdate) -> bool:
        """Take `update` in (on the UI's thread), or nothing when it is out of date: a mark or a
        tag of the app's own came after it was read, or a newer state was taken in meanwhile
        (the files are looked at again; they differ from what was taken), or the demo set gave way
        to the cache meanwhile (the cache is read whole then)."""
        service = self._service
        if update.demo != service.is_demo:
            return False
        if update.marks is not None and update.marks_written != service.marks.queued:
            return False
        if update.library_state is not None and update.library_writes != service.tags_notes.writes:
            return False
        if not self._stamps.taken(update.stamps, base=update.base):
            return False
        if update.cache is not None:
            service.apply_update(update.cache)
        if update.marks is not None:
            counts = update.counts if update.index is service.catalog.index else None
            service.catalog.replace_marks(update.marks.read, update.marks.starred, update.marks.hidden, counts)
        if update.library_state is not None:
            service.tags_notes.keep(update.library_state, update.library_writes)
        if update.triage is not None:
            service.triage.sets = update.triage
        return True
