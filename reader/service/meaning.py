"""Meaning for the app: the `~` query's papers about a text, and "more like this" fused with
meaning (reader/meaning/). A collaborator of LibraryService (`service.meaning`); runs in the caller's worker thread.

The meaning index is opened once and kept (its vectors are memory-mapped); it is opened again
when its meta.json changes, which a sync's update writes last (meaning/kept.py)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from reader.core.similar import Likeness
from reader.errors import ReaderError
from reader.meaning import find, like
from reader.meaning.kept import KeptVectors
from reader.meaning.model import MIN_PAPERS
from reader.meaning.vectors import MeaningVectors, building
from reader.models import Paper
from reader.service.views import ALL, HIDDEN, View

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from reader.core.catalog import Catalog
    from reader.service.demo import DemoSource
    from reader.service.search import CacheSearch, MemorySearch

ABOUT_SHOWN = 100  # papers a `~` query lists: the best, far more than anyone reads down


class Meaning:
    """The service's meaning: given how to reach the catalog, the search index and the demo set as
    they are now (the demo gives way to the cache), and the service's selection of a view."""

    def __init__(
        self,
        data_dir: Path,
        *,
        catalog: Callable[[], Catalog],
        search: Callable[[], CacheSearch | MemorySearch],
        demo: Callable[[], DemoSource | None],
        select: Callable[..., Sequence[str]],
        load_paper: Callable[[str], Paper | None],
    ):
        self._data_dir = data_dir
        self._kept = KeptVectors(data_dir)
        self._catalog, self._search, self._demo = catalog, search, demo
        self._select, self._load_paper = select, load_paper

    def meaning_vectors(self) -> tuple[MeaningVectors | None, str]:
        """The meaning index as stored now, or None and why words alone answer (a short line)."""
        if self._demo() is not None:
            return None, "Meaning is learned from your own cache; showing word matches"
        index = self._kept.get()
        if index is not None:
            return index, ""
        papers = len(self._catalog().index)
        if papers < MIN_PAPERS:
            return None, f"Meaning needs ≥ {MIN_PAPERS:,} papers (this cache has {papers:,}); showing word matches"
        if building(self._data_dir):
            return None, "Meaning is being learned in the background (after a sync); showing word matches"
        return None, "Meaning is not learned yet (a sync learns it, or `reader index --rebuild`); showing word matches"

    def about(self, text: str, view: View, *, unread: bool = False, limit: int = ABOUT_SHOWN) -> find.About:
        """The papers of the view most about `text`, best first: meaning fused with words (see
        meaning/find.py), words alone when there is no meaning index (`About.note` says why).
        SearchNotReady before the search index's first build is done."""
        index, note = self.meaning_vectors()
        among = None if view == ALL and not unread else set(self._select(view, unread=unread))
        leave_out: Collection[str] = () if view == HIDDEN else self._catalog().hidden
        return find.about(index, self._search(), text, limit=limit, among=among, leave_out=leave_out, note=note)

    def similar(self, paper_id: str, *, limit: int, leave_out: set[str]) -> tuple[Paper, Likeness]:
        """The paper and the cached papers most like it (core/similar.py's likeness fused with
        meaning when the index is built), in a worker: a few queries of the search index and one
        pass over the vectors. SearchNotReady before the search index's first build is done."""
        paper = self._load_paper(paper_id)
        if paper is None:
            raise ReaderError("this paper is no longer in the cache")
        index, _ = self.meaning_vectors()
        return paper, like.like_paper(index, self._search(), paper, limit=limit, leave_out=leave_out)
