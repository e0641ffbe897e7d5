"""For you's model in a process of its own. The features of every paper (hundreds of MB at
100,000 papers), SciPy and the training never share the app's memory or its GIL, so the
list stays responsive while a ranking is made. The process lives while the app does: a ranking
after a mark reuses the features of the shards that did not change."""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import threading
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reader.core.ranking import MIN_STARS, NeedsStars, Ranking
from reader.errors import ReaderError
from reader.packed_ids import IdTable, PackedIds

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

    from reader.core.catalog import Catalog
    from reader.service.demo import DemoSource
    from reader.service.ranking_corpus import RankingCorpus

REASONS_AHEAD = 100  # papers whose reasons come with a ranking: the best, which the list shows first
WAIT_STEP = 0.2  # seconds between looks at whether the service was closed meanwhile


@dataclass(slots=True)
class RankedList:
    """A ranking as plain data: ids best first (packed: no string per paper, and a million of
    them come from the ranking's process as two buffers), their scores, and the reasons of
    the best."""

    ids: Sequence[str]
    scores: Sequence[float]
    reasons: dict[str, tuple[str, ...]]
    _table: IdTable | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    def table(self) -> IdTable:
        """Each id's position (made at the first call: in the ranking's worker)."""
        if self._table is None:
            self._table = IdTable(self.ids)
        return self._table

    def score_of(self, paper_id: str) -> float | None:
        i = self.table().get(paper_id)
        return None if i is None else self.scores[i]

    def unmarked(self, *marked: set[str]) -> int:
        """How many of the ranked papers carry none of these marks (found by the id table)."""
        union = set().union(*marked)
        return len(self) - int((self.table().rows_of(list(union), -1) >= 0).sum()) if union else len(self)


def ranked_list(result: Ranking | NeedsStars, reasons_for: int = REASONS_AHEAD) -> RankedList | NeedsStars:
    if isinstance(result, NeedsStars):
        return result
    ids = PackedIds.pack(result.ids)
    return RankedList(
        list(result.ids) if ids is None else ids, array("d", result.scores), {s.id: s.because for s in result.top(reasons_for)}
    )


# --- in the ranking process ----------------------------------------------------------------------

_corpus: RankingCorpus | None = None  # kept between rankings: the features of unchanged shards stay


def _rank_here(data_dir: str, marks: dict[str, Any]) -> tuple[str, Any]:
    """Runs in the ranking process; returns ("ok", result) or ("error", message): an exception
    of ours may not survive the trip back."""
    global _corpus
    from reader.service.ranking_corpus import RankingCorpus
    from reader.store import Store

    try:
        if _corpus is None or _corpus.store.data_dir != Path(data_dir):
            _corpus = RankingCorpus(Store(Path(data_dir), check_user_files=False))
        return "ok", ranked_list(_corpus.rank(**marks))
    except ReaderError as error:
        return "error", str(error)


# --- in the app ------------------------------------------------------------------------------------


class RankingStopped(ReaderError):
    """The service was closed while a ranking was made (the app is quitting): nothing to say."""


class RankerProcess:
    """One process that ranks, started at the first ranking (a second or two of imports)."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self._pool: Pool | None = None
        self._closed = threading.Event()
        self._lock = threading.Lock()

    def rank(self, *, starred: set[str], read: set[str], hidden: set[str], candidates: list[str] | None) -> RankedList | NeedsStars:
        """Blocks the calling (worker) thread until the ranking is made; ReaderError when the
        service was closed meanwhile or the cache could not be read."""
        marks = {"starred": starred, "read": read, "hidden": hidden, "candidates": candidates}
        with self._lock:
            if self._closed.is_set():
                raise RankingStopped("the app is closing")
            if self._pool is None:
                # The app captures sys.stderr with an object whose fileno() is -1, which
                # multiprocessing would hand its helper process: give it the real one meanwhile.
                with contextlib.redirect_stderr(sys.__stderr__ or sys.stderr):
                    self._pool = multiprocessing.get_context("spawn").Pool(processes=1)
            pending = self._pool.apply_async(_rank_here, (str(self.data_dir), marks))
        while True:
            try:
                status, value = pending.get(timeout=WAIT_STEP)
                break
            except multiprocessing.TimeoutError:
                if self._closed.is_set():
                    raise RankingStopped("the app is closing") from None
        if status == "error":
            raise ReaderError(value)
        return value

    def close(self) -> None:
        """Stop the process at once, even mid-ranking (it writes nothing)."""
        self._closed.set()
        with self._lock:
            if self._pool is not None:
                self._pool.terminate()
                self._pool.join()
                self._pool = None


class ForYouRanker:
    """For you as the service makes it: the marks a ranking trains on, and the ranking, by the
    ranking's process (started at the first ranking) or, for the demo set, in memory. Given the
    data directory and how to reach the service's catalog and demo set (they change when the
    demo gives way to the cache)."""

    def __init__(self, data_dir: Path, *, catalog: Callable[[], Catalog], demo: Callable[[], DemoSource | None]):
        self._data_dir = data_dir
        self._catalog = catalog
        self._demo = demo
        self._process: RankerProcess | None = None

    def marks(self, topic: str | None = None) -> dict:
        """What a ranking trains on and ranks, as of now: taken on the UI's thread (which alone
        changes the marks) and handed to `rank` in a worker."""
        catalog = self._catalog()
        return {
            "version": catalog.marks_version,
            "starred": set(catalog.starred),
            "read": set(catalog.read),
            "hidden": set(catalog.hidden),
            "candidates": list(catalog.select(topic=topic)) if topic is not None else None,  # (to the ranking's process)
        }

    def rank(self, marks: dict) -> RankedList | NeedsStars:
        """Train on `marks` (from `marks`) and rank the unread papers, in the ranking process
        (seconds at 100,000 papers; this worker thread waits, the UI does not)."""
        marks = dict(marks)
        marks.pop("version")
        index = self._catalog().index
        stars = sum(paper_id in index for paper_id in marks["starred"])
        if stars < MIN_STARS:  # said at once, without starting the ranking process
            return NeedsStars(stars)
        demo = self._demo()
        if demo is not None:
            return demo.ranker().rank(**marks)  # the demo's papers are in memory, not in the cache
        if self._process is None:
            self._process = RankerProcess(self._data_dir)
        return self._process.rank(**marks)

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
