"""What a paper cites and what cites it, for the app (the library service's `citations`): the references of its
stored text, and the cached papers whose stored texts cite it (the full-text index's `cites`
table: one lookup, no text read unless it changed). Disk reads: call them in a worker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from reader.fulltext.document import Block
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import TextIndex

if TYPE_CHECKING:
    from reader.core.catalog import Catalog
    from reader.service.demo import DemoSource


class Citations:
    """Given the data directory and how to reach the service's catalog and demo set (they change
    when the demo gives way to the cache)."""

    def __init__(self, data_dir: Path, *, catalog: Callable[[], Catalog], demo: Callable[[], DemoSource | None]):
        self._data_dir = data_dir
        self._catalog = catalog
        self._demo = demo

    def references(self, paper_id: str) -> list[Block] | None:
        """The bibliography of the paper's stored text, in order; None when no text is stored
        (the demo set has none). StoreError when the full texts' folder cannot be read."""
        if self._demo() is not None:
            return None
        document = TextStore(self._data_dir).load(paper_id)
        return None if document is None else document.references

    def cited_by(self, paper_id: str, *, quick: bool = False) -> list[str] | None:
        """The cached papers whose stored texts cite this one, in id order. `quick` (the detail
        view's count): None rather than a build of the whole index or a wait for another
        process (see TextIndex.cited_by). StoreError when it cannot be read."""
        if self._demo() is not None:
            return []
        citing = TextIndex(self._data_dir).cited_by(paper_id, quick=quick)
        index = self._catalog().index  # a text outlives its paper's removal from the cache
        return None if citing is None else [pid for pid in citing if pid in index]
